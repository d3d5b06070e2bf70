"""How much does the studio's road cost the embedded model?

Times SmolLM2 answering the same prompt, greedily, for the same number of
tokens, two ways: through ``Gateway.complete`` (litellm, the custom provider,
the worker-thread bridge) and through llama-cpp-python directly, on the same
loaded model. Runs alternate so that warm-up, caches and CPU frequency affect
both sides alike. The goal is a studio path within 5% of direct.

    .venv/bin/python bench/bench_embedded.py [--tokens 128] [--reps 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studio.llm import CallContext, CallSettings, Gateway  # noqa: E402
from studio.llm import local  # noqa: E402

MESSAGES = [
    {
        "role": "system",
        "content": "You are Jenny, a retired lighthouse keeper in a two-hander play. "
        "Speak in short, plain sentences. Never describe yourself; act.",
    },
    {"role": "user", "content": "Tom: You kept the lamp burning for thirty years. Why stop now?"},
]


def direct(model: local.EmbeddedModel, max_tokens: int) -> tuple[str, int, float]:
    started = time.perf_counter()
    pieces, finish = [], None
    for chunk in model.llama.create_chat_completion(
        messages=MESSAGES, stream=True, temperature=0.0, max_tokens=max_tokens
    ):
        choice = chunk["choices"][0]
        if choice["delta"].get("content"):
            pieces.append(choice["delta"]["content"])
        finish = choice.get("finish_reason") or finish
    seconds = time.perf_counter() - started
    text = "".join(pieces)
    tokens = max_tokens if finish == "length" else len(model.llama.tokenize(text.encode(), add_bos=False))
    return text, tokens, seconds


async def studio(gateway: Gateway, max_tokens: int) -> tuple[str, int, float]:
    settings = CallSettings(model="local/smollm2", temperature=0.0, max_tokens=max_tokens)
    ctx = CallContext(role="ego", task="speak", character="Jenny", scene=1, turn=1)
    seen: list[str] = []
    started = time.perf_counter()
    done = await gateway.complete(settings, MESSAGES, ctx, on_token=seen.append)
    seconds = time.perf_counter() - started
    return done.text, done.usage["completion_tokens"], seconds


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tokens", type=int, default=128)
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()

    load = os.getloadavg()[0]
    gateway = Gateway()
    model = local.load()
    await studio(gateway, 8)  # warm: litellm import and first-call setup, model load
    direct(model, 8)

    rates: dict[str, list[float]] = {"direct": [], "studio": []}
    texts: dict[str, str] = {}
    for rep in range(args.reps):
        order = ("direct", "studio") if rep % 2 == 0 else ("studio", "direct")
        for way in order:
            if way == "direct":
                text, tokens, seconds = direct(model, args.tokens)
            else:
                text, tokens, seconds = await studio(gateway, args.tokens)
            rates[way].append(tokens / seconds)
            texts[way] = text

    if load > 0.5:
        print(f"warning: load average {load:.2f} before the run; other work on this machine skews the figures")
    print(f"model: {local.gguf_path().name}  n_ctx={model.n_ctx}  max_tokens={args.tokens}  reps={args.reps}")
    # Interference from other work only ever slows a run down, so the best run
    # is the steadiest estimate of each path's own speed; medians are shown too.
    for way, label in (("direct", "direct llama-cpp-python"), ("studio", "studio Gateway.complete")):
        runs = rates[way]
        print(
            f"{label} : best {max(runs):6.1f} tok/s  median {statistics.median(runs):6.1f}"
            f"  (runs: {', '.join(f'{r:.1f}' for r in runs)})"
        )
    best = max(rates["studio"]) / max(rates["direct"])
    median = statistics.median(rates["studio"]) / statistics.median(rates["direct"])
    print(f"studio / direct         : best {best:.3f} ({(1 - best) * 100:+.1f}% slower)  median {median:.3f}")
    print(f"same text both ways     : {texts['direct'] == texts['studio']}")


if __name__ == "__main__":
    asyncio.run(main())
