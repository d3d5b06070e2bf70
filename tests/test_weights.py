"""The embedded model is loaded from an 8-bit copy of its shipped weights, made once in the user's cache;
the shipped file stands in whenever the copy cannot be made or read."""

from __future__ import annotations

import pytest

from studio.llm import local, weights


@pytest.fixture
def cache(tmp_path, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.delenv("STUDIO_LLAMA_WEIGHTS", raising=False)
    return tmp_path / "cache" / "studio"


def test_the_shipped_file_is_used_when_asked_for_or_when_no_copy_can_be_made(tmp_path, monkeypatch, cache):
    shipped = tmp_path / "model.Q4_1.gguf"
    shipped.write_bytes(b"GGUF not really")
    made = weights.copy_path(shipped)
    made.parent.mkdir(parents=True)
    made.write_bytes(b"GGUF made earlier")
    assert weights.fastest(shipped) == made
    monkeypatch.setenv("STUDIO_LLAMA_WEIGHTS", "shipped")
    assert weights.fastest(shipped) == shipped
    monkeypatch.delenv("STUDIO_LLAMA_WEIGHTS")
    blocked = tmp_path / "a-file"
    blocked.write_text("the cache directory's parent is a file")
    monkeypatch.setenv("XDG_CACHE_HOME", str(blocked))
    assert weights.fastest(shipped) == shipped


@pytest.mark.embedded
def test_the_copy_is_made_once_at_eight_bits_and_quietly(cache, capfd):
    llama_cpp = pytest.importorskip("llama_cpp")
    shipped = local.gguf_path()
    copy = weights.fastest(shipped)
    assert copy.parent == cache and copy != shipped
    assert copy.read_bytes()[:4] == b"GGUF"
    made = copy.stat().st_mtime_ns
    assert weights.fastest(shipped) == copy and copy.stat().st_mtime_ns == made  # not made again
    assert [p.name for p in cache.iterdir()] == [copy.name]  # no half-written file left behind
    out, err = capfd.readouterr()
    assert out == "" and err == ""  # llama.cpp's account of every tensor it converted is not printed
    vocab = llama_cpp.Llama(model_path=str(copy), vocab_only=True, verbose=False)
    assert vocab.metadata.get("general.file_type") == "7"  # llama.cpp's Q8_0
    vocab.close()


@pytest.mark.embedded
def test_a_damaged_copy_gives_way_to_the_shipped_file_and_is_made_again(cache, monkeypatch):
    pytest.importorskip("llama_cpp")
    shipped = local.gguf_path()
    damaged = weights.copy_path(shipped)
    damaged.parent.mkdir(parents=True)
    damaged.write_bytes(b"GGUF" + b"\0" * 64)
    monkeypatch.setattr(local, "_loaded", None)
    model = local.load()
    try:
        assert model.llama.model_path == str(shipped)
        assert not damaged.exists()
        assert weights.fastest(shipped) == damaged and damaged.stat().st_size > shipped.stat().st_size
    finally:
        model.llama.close()
