"""The lab's concurrency: Prisoner's Dilemma trials against local OpenAI-compatible stub servers.

Every trial goes through the real runner (studio/lab/runner.py: the semaphore, the store's trials
table) as `studio lab pd` hands it over, is played by the engine as a run of the dilemma form, and calls
the real gateway and litellm over HTTP to stub servers on 127.0.0.1, which answer every call with a
valid move after a fixed latency. The stubs run in a child process (a server is not the
client's CPU), answer a bounded number of requests and stop after a bounded lifetime.

    .venv/bin/python bench/bench_lab.py [--trials 30] [--latency 0.2]

Measured:
  (a) one trial of 6 rounds (6 calls in a row, 200 ms each) alone;
  (b) 30 trials at concurrency 30 against one stub with no cap, and their wall time over (a)'s
      (goal <= 2; the paper's code ran trials one after another: 30);
  (c) the runner's own overhead per trial: (a) minus its six latencies, the same 30 trials against a
      0 ms stub (runner + engine + litellm + HTTP), and against an instant in-process model (runner,
      engine and store alone);
  (d) throughput in trials per minute with 1, 2 and 4 stub endpoints behind the litellm Router, each
      stub serving at most 4 calls at once and the router sending each at most 4 (goal: 4 endpoints
      >= 3.5 x one), with the most requests any stub saw open at once.
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests"))

MOVE = '{"move": "C", "reason": "I keep faith while they do."}'
MODEL = "openai/pd-stub"
ROUNDS = 6
STUB_LIFETIME = 600.0  # seconds: the stubs stop by themselves even if this process dies
STUB_REQUESTS = 20_000


# --------------------------------------------------------------------------- the stubs, in a child process


def _serve(conn, count: int, latency: float, concurrency: int | None) -> None:
    """Child process: `count` stubs; answers 'stats' with (requests, peak) per stub, stops on 'stop'."""
    from stub_server import Reply, StubServer

    stubs = [StubServer([Reply(MOVE, latency=latency, chunks=3)], models=(MODEL.split("/", 1)[1],),
                        max_requests=STUB_REQUESTS, lifetime=STUB_LIFETIME, concurrency=concurrency).start()
             for _ in range(count)]
    conn.send([s.url for s in stubs])
    try:
        while conn.poll(STUB_LIFETIME):
            command = conn.recv()
            if command == "stats":
                conn.send([(len(s.requests), s.peak) for s in stubs])
            elif command == "reset":
                for s in stubs:
                    with s._lock:
                        s.requests.clear()
                        s.peak = s.open
                conn.send("ok")
            else:
                break
    except EOFError:
        pass
    finally:
        for s in stubs:
            s.stop()


class Stubs:
    def __init__(self, count: int, latency: float, concurrency: int | None = None):
        ctx = multiprocessing.get_context("spawn")
        self.conn, child = ctx.Pipe()
        self.process = ctx.Process(target=_serve, args=(child, count, latency, concurrency), daemon=True)
        self.process.start()
        self.urls: list[str] = self.conn.recv()

    def ask(self, command: str):
        self.conn.send(command)
        return self.conn.recv()

    def __enter__(self) -> Stubs:
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.conn.send("stop")
        except OSError:
            pass
        self.process.join(5)
        if self.process.is_alive():
            self.process.terminate()
            self.process.join(5)


# --------------------------------------------------------------------------- trials through the real runner


class InstantGateway:
    """Answers every move at once, in-process: what is left is the runner and the store."""

    async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
        from studio.llm import Completion

        return Completion(MOVE, settings.model, {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}, 1, 0.0)


def experiment_of(trials: int, concurrency: int):
    """`trials` trials over the six groups, against tit-for-tat starting with C, as `studio lab pd` builds them."""
    from studio.engine.forms.dilemma import game as pd
    from studio.lab.experiment import built

    groups = list(pd.GROUPS)
    if trials % len(groups) == 0:
        groups, reps = groups, trials // len(groups)
    else:
        groups, reps = ["control"], trials
    return built("pd", {"name": f"pd:{MODEL}", "model": MODEL, "reps": reps, "concurrency": concurrency,
                        "pd": {"groups": groups, "partners": ["tit_for_tat_c"]}})


def gateway_for(urls: list[str], max_parallel: int):
    from studio.llm import Gateway
    from studio.llm.router import make_router

    return Gateway(routers=[make_router(MODEL, urls, max_parallel)], backoff=0.05)


async def timed(trials: int, concurrency: int, gateway) -> float:
    """Wall time of `trials` trials at `concurrency` on a fresh store; every trial must finish."""
    from studio.lab.runner import run_experiment
    from studio.store import Store

    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.db")
        try:
            started = time.perf_counter()
            outcome = await run_experiment(store, experiment_of(trials, concurrency), gateway=gateway)
            wall = time.perf_counter() - started
            finished, failed = outcome.finished, outcome.failed
            if len(store.runs()) != trials:
                raise SystemExit(f"bench: {trials} trials left {len(store.runs())} runs")
        finally:
            store.close()
    if failed or len(finished) != trials:
        raise SystemExit(f"bench: {len(failed)} trials failed, e.g. {next(iter(failed.values()), '')}")
    return wall


async def litellm_own_cap(url: str, cap: int, calls: int) -> int:
    """How many of `calls` simultaneous calls a litellm Router deployment with max_parallel_requests=`cap`
    refuses: why studio/llm/router.py queues calls for a slot itself instead."""
    from litellm import Router

    router = Router(model_list=[{"model_name": "capped", "litellm_params": {
        "model": MODEL, "api_base": url, "api_key": "none", "max_parallel_requests": cap}}], num_retries=0)

    async def one() -> bool:
        try:
            stream = await router.acompletion(model="capped", messages=[{"role": "user", "content": "move?"}],
                                              stream=True, num_retries=0)
            async for _ in stream:
                pass
            return False
        except Exception as exc:  # noqa: BLE001 - counted, by kind
            return getattr(exc, "status_code", None) == 429

    return sum(await asyncio.gather(*(one() for _ in range(calls))))


async def best(runs: int, measure) -> float:
    """The least of a few runs: the machine is shared, and the best run is the one least disturbed."""
    return min([await measure() for _ in range(runs)])


def main() -> None:
    asyncio.run(measure_all())


async def measure_all() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=30)
    parser.add_argument("--latency", type=float, default=0.2, help="seconds per call at the stub")
    parser.add_argument("--runs", type=int, default=3, help="runs per figure; the best is kept")
    parser.add_argument("--only-endpoints", action="store_true", help="measure (d) alone")
    args = parser.parse_args()
    n, latency = args.trials, args.latency
    from studio.llm.litellm_loader import warm_up

    warm_up()
    rows: list[tuple[str, str]] = []
    if not args.only_endpoints:
        rows += await concurrency_rows(n, latency, args.runs)
    rows += await endpoint_rows(n, latency, args.runs)
    if not args.only_endpoints:
        with Stubs(1, latency, concurrency=4) as stubs:
            refused = await litellm_own_cap(stubs.urls[0], cap=4, calls=8)
        rows.append(("(e) litellm's own max_parallel_requests=4, 8 calls at once: refused", f"{refused} of 8 (429)"))

    width = max(len(name) for name, _ in rows)
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(f"Lab benchmark: PD trials of {ROUNDS} rounds, stub latency {latency * 1000:.0f} ms, best of "
          f"{args.runs} runs, {os.cpu_count()} cores, load average {load:.1f}")
    for name, value in rows:
        print(f"  {name.ljust(width)}  {value}")


async def concurrency_rows(n: int, latency: float, runs: int) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    with Stubs(1, latency) as stubs:
        gateway = gateway_for(stubs.urls, max_parallel=256)  # one endpoint, no cap: the runner's own concurrency
        await timed(1, 1, gateway)  # first connection, litellm's first call
        one = await best(runs, lambda: timed(1, 1, gateway))
        batch = await best(runs, lambda: timed(n, n, gateway))
    rows += [
        ("(a) one trial, 6 calls x %.0f ms" % (latency * 1000), f"{one:.2f} s"),
        (f"(b) {n} trials at concurrency {n}", f"{batch:.2f} s"),
        (f"(b) ratio to one trial (goal <= 2; one after another: {n})", f"{batch / one:.2f}"),
        ("(c) overhead in one trial: wall - 6 x latency", f"{(one - ROUNDS * latency) * 1000:.0f} ms"),
    ]

    with Stubs(1, 0.0) as stubs:
        gateway = gateway_for(stubs.urls, max_parallel=256)
        await timed(1, 1, gateway)
        zero_one = await best(runs, lambda: timed(1, 1, gateway))
        zero_batch = await best(runs, lambda: timed(n, n, gateway))
        cpu = time.process_time()
        await timed(n, n, gateway)
        cpu = (time.process_time() - cpu) / (n * ROUNDS)
    instant = await best(runs, lambda: timed(n, n, InstantGateway()))
    rows += [
        ("(c) one trial against a 0 ms stub (runner + engine + litellm + HTTP)", f"{zero_one * 1000:.0f} ms"),
        (f"(c) {n} trials at concurrency {n}, 0 ms stub: per trial", f"{zero_batch / n * 1000:.0f} ms"),
        (f"(c) {n} trials, instant in-process model (runner + engine + store): per trial", f"{instant / n * 1000:.1f} ms"),
        ("(c) this process's CPU per model call (gateway + litellm + HTTP client)", f"{cpu * 1000:.1f} ms"),
    ]

    return rows


async def endpoint_rows(n: int, latency: float, runs: int) -> list[tuple[str, str]]:
    rows: list[tuple[str, str]] = []
    per_minute: dict[int, float] = {}
    for count in (1, 2, 4):
        with Stubs(count, latency, concurrency=4) as stubs:
            gateway = gateway_for(stubs.urls, max_parallel=4)
            await timed(count, count, gateway)  # a first connection to each stub
            stubs.ask("reset")
            wall = await best(runs, lambda gateway=gateway: timed(n, n, gateway))
            seen = stubs.ask("stats")
        per_minute[count] = n / wall * 60
        peaks = "/".join(str(peak) for _, peak in seen)
        rows.append((f"(d) {count} endpoint{'s' if count > 1 else ''}, 4 calls each at most: {n} trials",
                     f"{wall:.2f} s, {per_minute[count]:.0f} trials/min, peak open per stub {peaks}"))
    rows += [
        ("(d) throughput, 2 endpoints over 1", f"{per_minute[2] / per_minute[1]:.2f}"),
        ("(d) throughput, 4 endpoints over 1 (goal >= 3.5)", f"{per_minute[4] / per_minute[1]:.2f}"),
    ]
    return rows


if __name__ == "__main__":
    main()
