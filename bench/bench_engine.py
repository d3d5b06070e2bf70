"""The engine's own cost per turn, and the prompt size per call as a run grows.

1. Time per turn excluding the model call, with the scripted model, for runs of 10, 100 and 1,000
   turns: the engine's wall time minus the time spent inside the gateway (which includes litellm's
   own streaming path, so it is the model call however fast the model). Goal: median <= 1 ms and
   flat as the run grows.
2. Prompt tokens per call over a 200-turn run: the largest call per role against its context
   budget, and the tokens sent in the first and second hundred turns. Goal: bounded per call, so
   the total grows linearly with turns.

Run: .venv/bin/python bench/bench_engine.py [--only instant] [--turns 10 100 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from studio.engine import Engine  # noqa: E402
from studio.llm import Completion, Gateway  # noqa: E402
from studio.engine.forms import load_play, resolve_cast  # noqa: E402
from studio.store import Store  # noqa: E402


class InstantModel:
    """Answers at once without litellm: what is left of a turn's time is the engine's alone."""

    async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
        text = f"(scripted) {ctx.character}, scene {ctx.scene} turn {ctx.turn}: a line of about ten words here."
        if on_token:
            on_token(text)
        return Completion(text, settings.model, {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}, 1, 0.0)


class TimedGateway:
    def __init__(self, instant: bool = False):
        self.inner = InstantModel() if instant else Gateway()
        self.spent = 0.0
        self.calls: list[tuple[str, int]] = []

    async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
        start = time.perf_counter()
        try:
            completion = await self.inner.complete(settings, messages, ctx, on_token=on_token, on_retry=on_retry)
        finally:
            self.spent += time.perf_counter() - start
        self.calls.append((ctx.role, int(completion.usage.get("prompt_tokens", 0))))
        return completion


def make_engine(turns: int, db: Path, instant: bool = False) -> tuple[Engine, TimedGateway]:
    path = ROOT / "plays" / "interview.toml"
    play = load_play(path).model_copy(update={"turns": turns, "epilogue": False})
    cast = resolve_cast(play, path, model="scripted")
    gateway = TimedGateway(instant)
    return Engine.create(Store(db), cast, {}, gateway=gateway), gateway


async def per_turn(turns: int, instant: bool) -> list[float]:
    with tempfile.TemporaryDirectory() as tmp:
        engine, gateway = make_engine(turns, Path(tmp) / "bench.db", instant)
        out = []
        while not engine.finished:
            gateway.spent = 0.0
            start = time.perf_counter()
            await engine.play_turn()
            out.append(time.perf_counter() - start - gateway.spent)
        engine.store.close()
        return out


async def prompt_growth(turns: int = 200) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        engine, gateway = make_engine(turns, Path(tmp) / "bench.db")
        marks = []
        while not engine.finished:
            await engine.play_turn()
            marks.append(len(gateway.calls))
        half = marks[turns // 2 - 1]
        first = sum(t for _, t in gateway.calls[:half])
        second = sum(t for _, t in gateway.calls[half:])
        print(f"\nPrompt tokens per call over a {turns}-turn run ({len(gateway.calls)} calls):")
        for role in engine.cast.roles:
            sizes = [t for r, t in gateway.calls if r == role.kind]
            if sizes:
                print(
                    f"  {role.kind:9s} max {max(sizes):5d}  median {int(statistics.median(sizes)):5d}"
                    f"  budget {role.context_tokens:5d}"
                )
        print(f"  tokens sent in turns 1-{turns // 2}: {first}; in turns {turns // 2 + 1}-{turns}: {second}")
        print(f"  ratio second/first half: {second / first:.2f} (1.00 = linear growth; quadratic would be ~3)")


def machine_pace() -> float:
    """Seconds this machine takes for ten million additions in a plain Python loop, best of three: the
    same code's time per turn moved by half between days on the same virtual machine, so a figure from
    another day is compared through this, not as it stands."""
    best = float("inf")
    for _ in range(3):
        start = time.perf_counter()
        total = 0
        for i in range(10_000_000):
            total += i
        best = min(best, time.perf_counter() - start)
    return best


async def main(only_instant: bool, lengths: list[int]) -> None:
    print(f"Machine pace: ten million additions in a Python loop take {machine_pace():.2f} s (best of 3); "
          f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores\n")
    for instant, label in (
        (False, "the scripted model through litellm, time inside the gateway subtracted"),
        (True, "an instant in-process model, no litellm: the engine and the store alone"),
    ):
        if only_instant and not instant:
            continue
        print(f"Engine time per turn, excluding the model call ({label}; all three strategies on):")
        medians = {}
        for turns in lengths:
            times = await per_turn(turns, instant)
            medians[turns] = statistics.median(times)
            p95 = sorted(times)[int(len(times) * 0.95) - 1] if len(times) > 1 else times[0]
            print(f"  {turns:5d} turns: median {medians[turns] * 1000:.3f} ms  p95 {p95 * 1000:.3f} ms")
        first, last = lengths[0], lengths[-1]
        print(f"  flatness: median at {last} turns / median at {first} turns = {medians[last] / medians[first]:.2f}\n")
    if only_instant:
        return
    await prompt_growth()
    from bench_ensemble import ensemble_rows

    print()
    await ensemble_rows()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0])
    parser.add_argument("--only", choices=["instant"], help="only the instant in-process model's rows (the "
                        "engine and the store alone), without litellm, the prompt sizes or the ensemble")
    parser.add_argument("--turns", type=int, nargs="+", default=[10, 100, 1000], metavar="N",
                        help="run lengths to time, shortest first (default: 10 100 1000)")
    args = parser.parse_args()
    asyncio.run(main(args.only == "instant", sorted(args.turns)))
