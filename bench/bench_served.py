"""Seconds per Prisoner's Dilemma trial on one and on two local servers, and the studio's per-call overhead.

Serves the bundled SmolLM2 with llama-cpp-python's own OpenAI-compatible server (its `[server]` extra) on
127.0.0.1, then, side by side in one run:

1. the same dilemma experiment (experiments/pd_small.toml, 8 trials of six rounds) through `studio lab run
   --endpoint`, on one server and on two servers behind the Router: seconds per trial, and the ratio;
2. one short completion asked N times straight over HTTP (urllib, no client library) and N times through
   the studio's gateway (litellm, retries, usage, cleaning) against the same server: the median of each
   and the difference, which is what the studio adds to every call.

    .venv/bin/python bench/bench_served.py [--reps N] [--calls N]

Every server it starts is stopped when it ends (each also has a lifetime), so the benchmark finishes on
its own. On 2 cores two servers share the CPU with each other and the client: the figure says what a
second server buys on this machine, not on one with a core per server.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))
os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def lab_seconds(urls: list[str], reps: int) -> tuple[float, int]:
    """Wall seconds for pd_small with `reps` per cell over `urls`, and the trials played."""
    from studio.cli import main

    with tempfile.TemporaryDirectory() as folder:
        os.environ["STUDIO_DB"] = str(Path(folder) / "bench.db")
        args = ["lab", "run", str(ROOT / "experiments" / "pd_small.toml"), "--model", "openai/smollm2", "--max-parallel", "1",
                "--reps", str(reps), "--json"]
        for url in urls:
            args += ["--endpoint", url]
        started = time.perf_counter()
        import contextlib
        import io

        out = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
            code = main(args)
        seconds = time.perf_counter() - started
        if code != 0:
            raise SystemExit(f"lab run failed ({code})")
        return seconds, int(json.loads(out.getvalue()).get("trials", 4 * reps))


def direct(url: str, body: dict) -> float:
    started = time.perf_counter()
    request = urllib.request.Request(url + "/chat/completions", data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=60) as reply:  # noqa: S310 - 127.0.0.1
        json.loads(reply.read())
    return time.perf_counter() - started


async def through_gateway(url: str, calls: int, prompt: str) -> list[float]:
    from studio.llm import CallContext, CallSettings, Gateway

    gateway = Gateway()
    settings = CallSettings(model="openai/smollm2", temperature=0, max_tokens=8, api_base=url, small=False)
    out = []
    for _ in range(calls):
        started = time.perf_counter()
        await gateway.complete(settings, [{"role": "user", "content": prompt}], CallContext("ego", "speak", "A"))
        out.append(time.perf_counter() - started)
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=2, help="trials per group and partner (pd_small: 4 cells)")
    parser.add_argument("--calls", type=int, default=20, help="calls for the overhead figure")
    args = parser.parse_args()
    from llama_server import LlamaServer, missing

    why = missing()
    if why:
        raise SystemExit(f"cannot serve the model here: {why}")
    with LlamaServer(lifetime=1800) as one:
        prompt = "Say yes."
        body = {"model": "smollm2", "messages": [{"role": "user", "content": prompt}], "max_tokens": 8,
                "temperature": 0}
        direct(one.url, body)  # warm
        asyncio.run(through_gateway(one.url, 1, prompt))  # warm: litellm's import is not a call's cost
        straight = [direct(one.url, body) for _ in range(args.calls)]
        studio_calls = asyncio.run(through_gateway(one.url, args.calls, prompt))
        single, trials = lab_seconds([one.url], args.reps)
        with LlamaServer(lifetime=1800, threads=1) as two:
            double, _ = lab_seconds([one.url, two.url], args.reps)
    print(f"server: llama-cpp-python {__import__('llama_cpp').__version__} serving SmolLM2-135M-Instruct Q4_1, "
          f"{os.cpu_count()} cores")
    print(f"pd_small, {trials} trials: one server {single / trials:.2f} s/trial, "
          f"two servers {double / trials:.2f} s/trial (ratio {double / single:.2f})")
    d, g = statistics.median(straight), statistics.median(studio_calls)
    print(f"one 8-token call, median of {args.calls}: direct HTTP {d * 1000:.1f} ms, through the studio "
          f"{g * 1000:.1f} ms (overhead {(g - d) * 1000:.1f} ms, ratio {g / d:.2f})")


if __name__ == "__main__":
    main()
