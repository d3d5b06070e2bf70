"""Does flash attention make the embedded model read and write faster on this machine?

Loads SmolLM2 twice, with llama.cpp's flash attention and without, and times both, alternating, on the
same prompts: reading a prompt of each length from nothing (tokens a second), then writing 64 tokens
greedily after it (milliseconds a token). Prints each side and flash over plain; under 1 is faster.

    .venv/bin/python bench/bench_attention.py [--reps 4]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studio.llm import local  # noqa: E402

LENGTHS = (300, 700, 1200)  # a first turn's prompt, a mid-scene one, the interview's last turns
WRITTEN = 64


def text_of(tokens: int) -> str:
    """Plain prose from the docs, long enough for `tokens` tokens."""
    docs = Path(__file__).resolve().parents[1] / "docs"
    return "\n".join(p.read_text(encoding="utf-8") for p in sorted(docs.glob("*.md")))[: tokens * 8]


def timed(llama, prompt: list[int]) -> tuple[float, float, str]:
    llama.reset()
    started = time.perf_counter()
    llama.eval(prompt)
    read = time.perf_counter() - started
    started = time.perf_counter()
    done = llama.create_completion(prompt=prompt, max_tokens=WRITTEN, temperature=0.0)
    written = time.perf_counter() - started
    count = max(done["usage"]["completion_tokens"], 1)
    return len(prompt) / read, 1000 * written / count, done["choices"][0]["text"]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=4)
    args = parser.parse_args()
    import llama_cpp

    path = str(local.gguf_path())
    threads = os.cpu_count() or 1  # what a call takes on an idle machine (studio.llm.local.threads_now)
    models = {
        flash: llama_cpp.Llama(model_path=path, n_ctx=local.N_CTX, n_threads=threads, n_threads_batch=threads,
                               flash_attn=flash, verbose=False)
        for flash in (False, True)
    }
    source = text_of(max(LENGTHS))
    print(f"load average {os.getloadavg()[0]:.1f}, {threads} threads, {args.reps} runs of each, alternating")
    print(f"{'prompt':>7} {'read tok/s plain':>17} {'flash':>7} {'ratio':>6} {'ms/token written plain':>23} {'flash':>7} "
          f"{'ratio':>6}  same words")
    for length in LENGTHS:
        prompt = models[False].tokenize(source.encode())[:length]
        read: dict[bool, list[float]] = {False: [], True: []}
        write: dict[bool, list[float]] = {False: [], True: []}
        texts: dict[bool, str] = {}
        for rep in range(args.reps):
            for flash in ((False, True) if rep % 2 == 0 else (True, False)):
                tps, mspt, texts[flash] = timed(models[flash], prompt)
                read[flash].append(tps)
                write[flash].append(mspt)
        r0, r1 = statistics.median(read[False]), statistics.median(read[True])
        w0, w1 = statistics.median(write[False]), statistics.median(write[True])
        # time for the same work: reading takes 1/rate, so flash's time over plain's is r0/r1
        print(f"{length:>7} {r0:>17.0f} {r1:>7.0f} {r0 / r1:>6.2f} {w0:>23.1f} {w1:>7.1f} {w1 / w0:>6.2f}  "
              f"{'yes' if texts[False] == texts[True] else 'no'}")


if __name__ == "__main__":
    main()
