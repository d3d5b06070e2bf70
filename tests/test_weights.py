"""The embedded model runs its shipped weights stored as Q6_K, converted once, and says which it runs."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from studio.llm import weights


@pytest.fixture
def shipped(tmp_path: Path) -> Path:
    path = tmp_path / "shipped" / "Model.Q4_1.gguf"
    path.parent.mkdir()
    path.write_bytes(b"q4_1 weights")
    return path


@pytest.fixture
def conversions(monkeypatch, tmp_path: Path) -> list[tuple[Path, str]]:
    """Each conversion asked of llama.cpp, which here writes a file saying what it was asked."""
    made: list[tuple[Path, str]] = []

    def quantize(source: Path, target: Path, kind: str) -> None:
        made.append((target, kind))
        target.write_text(f"{source.name} as {kind}")

    monkeypatch.setattr(weights, "quantize", quantize)
    monkeypatch.delenv("STUDIO_LLAMA_WEIGHTS", raising=False)
    return made


def test_the_copy_is_made_once_and_then_found(monkeypatch, tmp_path, shipped, conversions):
    place = tmp_path / "prefix"
    monkeypatch.setattr(weights, "places", lambda: [place, tmp_path / "cache"])
    path, how = weights.running(shipped)
    assert path.parent == place and path.read_text() == "Model.Q4_1.gguf as Q6_K"
    assert how.startswith("Q6_K, converted once from the shipped Q4_1")
    assert weights.running(shipped)[0] == path
    assert len(conversions) == 1  # the second run finds the copy


def test_an_unwritable_place_falls_to_the_next(monkeypatch, tmp_path, shipped, conversions):
    blocked = tmp_path / "a file, not a folder"
    blocked.write_text("")
    monkeypatch.setattr(weights, "places", lambda: [blocked / "studio", tmp_path / "cache"])
    path, _ = weights.running(shipped)
    assert path.parent == tmp_path / "cache"


def test_with_no_place_for_a_copy_the_shipped_file_runs_and_says_why(monkeypatch, tmp_path, shipped, conversions):
    blocked = tmp_path / "a file"
    blocked.write_text("")
    monkeypatch.setattr(weights, "places", lambda: [blocked / "one", blocked / "two"])
    path, how = weights.running(shipped)
    assert path == shipped
    assert how.startswith("Q4_1 as shipped: no Q6_K copy could be written") and str(blocked) in how


def test_the_shipped_file_runs_when_asked(monkeypatch, tmp_path, shipped, conversions):
    monkeypatch.setattr(weights, "places", lambda: [tmp_path / "prefix"])
    monkeypatch.setenv("STUDIO_LLAMA_WEIGHTS", "shipped")
    assert weights.running(shipped) == (shipped, "Q4_1 as shipped (STUDIO_LLAMA_WEIGHTS=shipped)")
    assert not conversions


def test_saying_which_weights_run_makes_no_copy(monkeypatch, tmp_path, shipped, conversions):
    monkeypatch.setattr(weights, "places", lambda: [tmp_path / "prefix"])
    path, how = weights.running(shipped, make=False)
    assert path == shipped and how == "Q6_K, converted from the shipped Q4_1 on the first run"
    assert not conversions and not (tmp_path / "prefix").exists()


def test_another_release_of_the_shipped_file_gets_its_own_copy(monkeypatch, tmp_path, shipped, conversions):
    monkeypatch.setattr(weights, "places", lambda: [tmp_path / "prefix"])
    first, _ = weights.running(shipped)
    shipped.write_bytes(b"the next release's weights")
    second, _ = weights.running(shipped)
    assert second != first and len(conversions) == 2


def test_models_says_which_weights_the_embedded_model_runs(monkeypatch):
    import io

    from rich.console import Console

    from studio.commands import models
    from studio.llm import survey

    found = {"builtin": [{"model": "local/smollm2", "use": "--model local/smollm2", "installed": True,
                          "note": "SmolLM2-135M-Instruct", "weights": "Q6_K, converted from the shipped Q4_1 on the first run"}],
             "providers": [], "servers": [], "studio_api_base": None}
    monkeypatch.setattr(survey, "survey", lambda: found)
    out = io.StringIO()
    assert models.show(Console(file=out, width=200)) == 0
    assert "weights: Q6_K, converted from the shipped Q4_1 on the first run" in out.getvalue()


@pytest.mark.embedded
@pytest.mark.skipif(importlib.util.find_spec("llama_cpp") is None, reason="llama-cpp-python is not installed")
def test_the_conversion_is_whole_the_same_everywhere_and_the_same_model(monkeypatch, tmp_path):
    import os

    import llama_cpp

    from studio.llm.local import gguf_path

    shipped = gguf_path()
    weights.quantize(shipped, tmp_path / "a.gguf", "Q6_K")
    monkeypatch.setattr(os, "cpu_count", lambda: 1)
    weights.quantize(shipped, tmp_path / "b.gguf", "Q6_K")
    # one thread or every core, the same bytes: the same seed draws the same scene on any machine
    assert (tmp_path / "a.gguf").read_bytes() == (tmp_path / "b.gguf").read_bytes()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.gguf", "b.gguf"]  # nothing partial left
    prompt = "<|im_start|>user\nName a colour.<|im_end|>\n<|im_start|>assistant\n"
    said = {}
    for name, path in (("shipped", shipped), ("Q6_K", tmp_path / "a.gguf")):
        model = llama_cpp.Llama(model_path=str(path), n_ctx=256, verbose=False)
        try:
            assert name == "shipped" or model.metadata.get("general.file_type") == "18"  # llama.cpp's Q6_K
            assert model.metadata.get("general.file_type") != "18" or name == "Q6_K"
            said[name] = model.create_completion(prompt, max_tokens=8, temperature=0)["choices"][0]["text"]
        finally:
            model.close()
    assert said["Q6_K"].strip() and said["shipped"].strip()


def test_a_failed_conversion_leaves_no_file(monkeypatch, tmp_path):
    pytest.importorskip("llama_cpp")
    target = tmp_path / "copy.gguf"
    source = tmp_path / "not weights.gguf"
    source.write_bytes(b"not a model")
    with pytest.raises(OSError, match="could not store"):
        weights.quantize(source, target, "Q6_K")
    assert list(tmp_path.iterdir()) == [source]
