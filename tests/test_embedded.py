"""One short scene on the real embedded model (SmolLM2-135M through llama-cpp-python), end to end."""

from __future__ import annotations

import importlib.util
import json

import pytest

from conftest import PLAYS
from test_cli import studio_process as studio

pytestmark = pytest.mark.embedded


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_a_short_scene_on_the_embedded_model(tmp_path):
    db = tmp_path / "embedded.db"
    result = studio("run", PLAYS / "interview.toml", "--turns", "2", db=db)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SASHA" in result.stdout and "JENNY" in result.stdout
    events = [json.loads(x) for x in studio("show", "1", "--json", "--backstage", db=db).stdout.splitlines()]
    spoken = [e for e in events if e["origin"] == "model"]
    # two turns with every strategy: other, rewrite, draft, critique, revise, twice; then the epilogue
    assert len(spoken) == 11
    assert all(e["model"] == "local/smollm2" for e in spoken)
    assert all(e["usage"]["completion_tokens"] > 0 and e["usage"]["prompt_tokens"] > 0 for e in spoken)
    assert not any("(scripted)" in e["text"] for e in events)
    assert events[-1]["kind"] == "epilogue" and events[-1]["text"].strip()
