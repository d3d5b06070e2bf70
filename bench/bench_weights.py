"""How fast does the embedded model read a prompt and write a line, from the shipped 4-bit file and
from the 8-bit copy the studio loads (studio/llm/weights.py)?

Both files are loaded side by side with the same threads; each round reads the same prompt of about
450 tokens from an empty context and then writes 40 tokens greedily, on one file and then the other,
so the machine's load falls on both alike. Prints tokens per second for each and their ratio.

    .venv/bin/python bench/bench_weights.py [--rounds 5] [--threads 2]
"""

from __future__ import annotations

import argparse
import logging
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studio.llm import local, weights  # noqa: E402

PASSAGE = (
    "Jenny kept the shop's accounts for twenty years in a ledger with a green spine. Her father checked "
    "the sums each Sunday at the kitchen table, reading the columns aloud in the voice he kept for church. "
    "Her mother wrote letters to newspapers nobody read, and told her daughters to leave the suburb "
    "before it closed around them like a coat done up to the chin. "
)


def read_and_write(llama, prompt: list[int], tokens: int) -> tuple[float, float]:
    """(prompt tokens read a second, tokens written a second) for one round."""
    llama.reset()
    started = time.perf_counter()
    llama.eval(prompt)
    read = len(prompt) / (time.perf_counter() - started)
    started = time.perf_counter()
    for _ in range(tokens):
        llama.eval([llama.sample(temp=0.0)])
    return read, tokens / (time.perf_counter() - started)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--tokens", type=int, default=40)
    args = parser.parse_args()
    import llama_cpp

    logging.getLogger("llama-cpp-python").setLevel(logging.CRITICAL + 1)
    shipped = local.gguf_path()
    files = {"shipped (Q4_1)": shipped, f"the studio's copy ({weights.LAYOUT})": weights.fastest(shipped)}
    if files[f"the studio's copy ({weights.LAYOUT})"] == shipped:
        sys.exit("the 8-bit copy could not be made here (or STUDIO_LLAMA_WEIGHTS=shipped is set)")
    models = {name: llama_cpp.Llama(model_path=str(path), n_ctx=2048, n_threads=args.threads,
                                    n_threads_batch=args.threads, verbose=False) for name, path in files.items()}
    first = next(iter(models.values()))
    prompt = first.tokenize((PASSAGE * 6).encode())[:450]
    figures: dict[str, list[tuple[float, float]]] = {name: [] for name in models}
    for llama in models.values():
        read_and_write(llama, prompt[:64], 4)  # warm each once
    for _ in range(args.rounds):
        for name, llama in models.items():
            figures[name].append(read_and_write(llama, prompt, args.tokens))
    print(f"{len(prompt)}-token prompt, {args.tokens} tokens written greedily, {args.threads} threads, "
          f"{args.rounds} alternating rounds, load average {os.getloadavg()[0]:.1f} at the end")
    medians = {}
    for name, rows in figures.items():
        read, write = statistics.median(r for r, _ in rows), statistics.median(w for _, w in rows)
        medians[name] = (read, write)
        print(f"  {name:28} reads {read:6.0f} tokens/s   writes {write:5.1f} tokens/s")
    (r0, w0), (r1, w1) = medians.values()
    print(f"  copy / shipped: reading {r1 / r0:.2f} x, writing {w1 / w0:.2f} x")


if __name__ == "__main__":
    main()
