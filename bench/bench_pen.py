"""What do the playwright's pen and undo cost as a run grows?

Plays the interview on the scripted model (the studio's own share: no model time) without its inner
voice, and at turns 10, 100 and 1,000 times, on the newest turn: an edit of the other's line (one new take,
the protagonist's answer after it kept as written), its undo, an insert after the other's line and its
undo. Each repetition starts from the same take. The goal is 20 ms each, and flat: the figures at the three
turns are printed side by side. Last, at turn 1,000, the dearest edit there is: an insert before the first
line, every later event of the run copied onto the new take (one transaction).

    .venv/bin/python bench/bench_pen.py [--reps 20] [--turns 10,100,1000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from studio.engine import Engine  # noqa: E402
from studio.engine.forms import load_play, resolve_cast  # noqa: E402
from studio.store import Store  # noqa: E402
from studio.store import events as ev  # noqa: E402

ACTIONS = ("edit", "undo edit", "insert", "undo insert")


def timed(act) -> float:
    started = time.perf_counter()
    act()
    return (time.perf_counter() - started) * 1000


def at_turn(engine: Engine, reps: int) -> dict[str, float]:
    other = next(e for e in reversed(engine.path) if e.kind == ev.STAGE and e.role == "other")
    times: dict[str, list[float]] = {name: [] for name in ACTIONS}
    for n in range(reps):
        times["edit"].append(timed(lambda n=n: engine.override(other.id, f"Tell me again, take {n}.")))
        times["undo edit"].append(timed(engine.undo))
        times["insert"].append(timed(lambda n=n: engine.insert(other.id, f"(a beat, take {n})", direction=True)))
        times["undo insert"].append(timed(engine.undo))
    return {name: statistics.median(values) for name, values in times.items()}


async def measure(turns: list[int], reps: int) -> tuple[dict[int, dict[str, float]], float, int]:
    play = ROOT / "plays" / "interview.toml"
    cast = resolve_cast(load_play(play).model_copy(update={"turns": max(turns), "epilogue": False}), play,
                        model="scripted", superego=False)
    figures: dict[int, dict[str, float]] = {}
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "bench.db")
        engine = Engine.create(store, cast, {}, gateway=None)
        for turn in turns:
            while engine.state.turn < turn:
                await engine.play_turn()
            figures[turn] = at_turn(engine, reps)
        first = next(e for e in engine.path if e.kind == ev.STAGE)
        kept = len(engine.path) - engine.path.index(first)
        whole = timed(lambda: engine.insert(first.id, "Lights up.", direction=True, before=True))
        store.close()
    return figures, whole, kept


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=20)
    parser.add_argument("--turns", default="10,100,1000")
    args = parser.parse_args()
    turns = sorted(int(t) for t in args.turns.split(","))
    started = time.perf_counter()
    figures, whole, kept = asyncio.run(measure(turns, args.reps))
    print(f"scripted model, no inner voice; median of {args.reps} each, on the newest turn (goal 20 ms)")
    print(f"{'':12}" + "".join(f"{f'turn {t:,}':>13}" for t in turns) + f"{'ratio':>8}")
    for name in ACTIONS:
        row = [figures[t][name] for t in turns]
        print(f"{name:12}" + "".join(f"{v:10.2f} ms" for v in row) + f"{row[-1] / row[0]:8.2f}")
    print(f"insert before the first line at turn {turns[-1]:,}: {whole:.1f} ms, {kept:,} events copied in one "
          "transaction")
    print(f"(bench took {time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
