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
    # the one line under the header that says what this model is and where to find a better one
    assert "tiny offline model" in result.stdout and "'studio models'" in result.stdout
    events = [json.loads(x) for x in studio("show", "1", "--json", "--backstage", db=db).stdout.splitlines()]
    spoken = [e for e in events if e["origin"] == "model"]
    # two turns with every strategy: other, rewrite, draft, critique, revise, twice; then the epilogue
    assert len(spoken) == 11
    assert all(e["model"] == "local/smollm2" for e in spoken)
    assert all(e["usage"]["completion_tokens"] > 0 and e["usage"]["prompt_tokens"] > 0 for e in spoken)
    assert not any("(scripted)" in e["text"] for e in events)
    assert events[-1]["kind"] == "epilogue" and events[-1]["text"].strip()


@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
async def test_the_embedded_models_lines_are_its_own_short_and_unrepeated(engine_for):
    from studio.engine.lines import MIN_ECHO_WORDS, sentence_keys

    engine = engine_for(turns=3, epilogue=False, model="local/smollm2")
    await engine.play_to_end()
    names = [r.name.lower() for r in engine.cast.roles]
    stage = [e for e in engine.path if e.kind == "stage"]
    assert len(stage) == 6 and all(e.text.strip() for e in stage)
    said: set[tuple[str, ...]] = set()
    for line in stage:
        for row in line.text.splitlines():
            assert not any(row.strip().lower().startswith(f"{n}:") for n in names), line.text
        assert len(line.text.split()) <= 64, line.text
        keys = [k for k in sentence_keys(line.text) if len(k) >= MIN_ECHO_WORDS]
        assert not said & set(keys) and len(set(keys)) == len(keys), line.text
        said |= set(keys)
    calls = [e for e in engine.path if e.usage]
    assert all(e.settings["temperature"] < 1.0 and e.settings["repeat_penalty"] > 1.0 for e in calls)
    # the system prompt and the older history of a role are not evaluated again on its next call
    later = [e.usage["cached_tokens"] / e.usage["prompt_tokens"] for e in calls if e.turn and e.turn > 1]
    assert later and max(later) > 0.5, later
