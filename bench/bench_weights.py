"""Would the embedded model read and write faster with its weights stored another way?

The shipped SmolLM2 weights are Q4_1. On a small model llama.cpp's speed depends on the storage more
than on the arithmetic: Q4_1 has no matrix kernel for a batch on x86, so a prompt is read row by row,
barely faster than tokens are written. This bench converts the shipped file, with llama.cpp's own
quantizer, into a temporary directory (8-bit Q8_0; Q6_K, which keeps SmolLM2's 576-wide rows as Q8_0
because its blocks of 256 do not divide them; 16-bit F16; and the 4-bit Q4_0 and IQ4_NL, which quantize
the 4-bit weights a second time), loads each, and times them alternating on the same prompt: reading 700
tokens from nothing (tokens a second), writing 64 greedily after it (milliseconds a token). It prints
each beside the shipped file, the seconds a turn of the interview would take at each (717 tokens read,
196 written: the figures of docs/benchmarks.md), and whether the greedy words are the shipped file's:
another storage is the same model drawn again, and every scene comes out different. Last, how well each
predicts the next token of the docs' prose (nats a token; lower is better): a storage that loses
precision predicts worse, one that keeps it predicts as the shipped file does.

    .venv/bin/python bench/bench_weights.py [--reps 3]
"""

from __future__ import annotations

import argparse
import ctypes
import os
import statistics
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_attention import text_of, timed  # noqa: E402  (beside this file)

from studio.llm import local  # noqa: E402

PROMPT = 700
TURN_READ, TURN_WRITTEN = 717, 196  # the interview's tokens a turn (docs/benchmarks.md)


def convert(source: str, into: Path) -> dict[str, str]:
    """The shipped file and its conversions, by name."""
    import llama_cpp

    files = {"Q4_1 (shipped)": source}
    for name, ftype in (("Q8_0", llama_cpp.LLAMA_FTYPE_MOSTLY_Q8_0), ("Q6_K", llama_cpp.LLAMA_FTYPE_MOSTLY_Q6_K),
                        ("F16", llama_cpp.LLAMA_FTYPE_MOSTLY_F16), ("Q4_0", llama_cpp.LLAMA_FTYPE_MOSTLY_Q4_0),
                        ("IQ4_NL", llama_cpp.LLAMA_FTYPE_MOSTLY_IQ4_NL)):
        params = llama_cpp.llama_model_quantize_default_params()
        params.ftype, params.allow_requantize, params.nthread = ftype, True, os.cpu_count() or 1
        target = into / f"{name}.gguf"
        # llama.cpp reports each tensor on stderr; a failed conversion says so by its return code
        with open(os.devnull, "w") as quiet:
            saved = os.dup(2)
            os.dup2(quiet.fileno(), 2)
            try:
                failed = llama_cpp.llama_model_quantize(source.encode(), str(target).encode(), ctypes.byref(params))
            finally:
                os.dup2(saved, 2)
                os.close(saved)
        if failed:
            print(f"{name}: llama.cpp could not convert the weights (code {failed}); left out")
            continue
        files[name] = str(target)
    return files


def nats_a_token(path: str, tokens: int = 1000) -> float:
    """Mean negative log-likelihood of each next token of the docs' prose, read once with every logit kept
    (a model of its own: keeping every logit slows the reading timed above)."""
    import llama_cpp
    import numpy as np

    model = llama_cpp.Llama(model_path=path, n_ctx=tokens + 24, n_threads=os.cpu_count() or 1,
                            n_threads_batch=os.cpu_count() or 1, logits_all=True, verbose=False)
    try:
        text = model.tokenize(text_of(tokens).encode())[:tokens]
        model.reset()
        model.eval(text)
        logits = np.asarray(model.scores[: len(text)], dtype=np.float64)
        shifted = logits - logits.max(axis=1, keepdims=True)
        logp = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
        return float(-np.mean(logp[np.arange(len(text) - 1), text[1:]]))
    finally:
        model.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=3)
    args = parser.parse_args()
    import llama_cpp

    threads = os.cpu_count() or 1  # what a call takes on an idle machine (studio.llm.local.threads_now)
    with tempfile.TemporaryDirectory() as tmp:
        files = convert(str(local.gguf_path()), Path(tmp))
        models = {name: llama_cpp.Llama(model_path=path, n_ctx=local.N_CTX, n_threads=threads,
                                        n_threads_batch=threads, verbose=False) for name, path in files.items()}
        shipped = next(iter(models))
        prompt = models[shipped].tokenize(text_of(PROMPT).encode())[:PROMPT]
        read: dict[str, list[float]] = {name: [] for name in models}
        write: dict[str, list[float]] = {name: [] for name in models}
        words: dict[str, str] = {}
        for rep in range(args.reps):
            for name in (list(models) if rep % 2 == 0 else list(reversed(models))):
                tps, mspt, words[name] = timed(models[name], prompt)
                read[name].append(tps)
                write[name].append(mspt)
        sizes = {name: Path(path).stat().st_size / 2**20 for name, path in files.items()}
        print(f"load average {os.getloadavg()[0]:.1f}, {threads} threads, a {len(prompt)}-token prompt, "
              f"{args.reps} runs of each, alternating")
        print(f"{'weights':<15} {'MiB':>5} {'read tok/s':>11} {'x shipped':>10} {'ms/token written':>17} "
              f"{'x shipped':>10} {'s a turn':>9}  same words")
        r0, w0 = statistics.median(read[shipped]), statistics.median(write[shipped])
        for name in models:
            r, w = statistics.median(read[name]), statistics.median(write[name])
            turn = TURN_READ / r + TURN_WRITTEN * w / 1000
            print(f"{name:<15} {sizes[name]:>5.0f} {r:>11.0f} {r / r0:>10.2f} {w:>17.1f} {w / w0:>10.2f} "
                  f"{turn:>9.2f}  {'yes' if words[name] == words[shipped] else 'no'}")
        for model in models.values():
            model.close()
        print("\npredicting the docs' prose, nats a token (lower is better): " +
              ", ".join(f"{name} {nats_a_token(path):.3f}" for name, path in files.items()))


if __name__ == "__main__":
    main()
