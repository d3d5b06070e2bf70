"""Memory retrieval's cost per call at 10,000 memories per character, beside the engine's own turn time.

A call is what a turn adds for one character: one new memory indexed, then one recall for the line
being answered (the weighted sum of normalised recency, importance and BM25 relevance, top 3). Goal:
median <= 5 ms per call.

For scale it also times rank-bm25's BM25Okapi over the same memories, which must be rebuilt when a
memory is added and scans every memory per query word, and the engine's own per-turn time (instant
model, 100 turns; from bench_engine.py), so the added cost reads as a ratio.

It then plays one long ensemble run (Mara, with moods, knowledge, memory and reflections, and two
plain characters; an instant model) and times, per turn, the engine and the part of it spent folding
the take's mind events (MindRunner.world and pending_scores), early and late in the run: if that part
grows with the run's length, each turn walks the whole take.

Run: .venv/bin/python bench/bench_memory.py [--memories N] [--calls N] [--fold-turns N]
"""

from __future__ import annotations

import argparse
import asyncio
import random
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from studio.mind.memory import Memory, MemoryIndex, terms  # noqa: E402

# A vocabulary shaped like a play's: a few hundred everyday words used often, a long tail used rarely.
_COMMON = ("sea lamp night door letter storm boat harbour light rope bread kettle stairs window coat "
           "money truth lie promise father mother brother sister friend stranger keeper log wreck rock "
           "tide wind rain fire smoke glass key drawer table chair garden road town church bell").split()


def _line(rng: random.Random, tail: list[str]) -> str:
    words = [rng.choice(_COMMON) if rng.random() < 0.7 else rng.choice(tail) for _ in range(rng.randint(6, 18))]
    return "I said the " + " and the ".join(" ".join(words[i:i + 2]) for i in range(0, len(words), 2)) + "."


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--memories", type=int, default=10_000)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--fold-turns", type=int, default=3000, help="the long run's length (0: skip it)")
    parser.add_argument("--only-fold", action="store_true")
    args = parser.parse_args()
    if args.fold_turns:
        asyncio.run(fold_rows(args.fold_turns))
    if args.only_fold:
        return
    rng = random.Random(7)
    tail = [f"word{i}" for i in range(5000)]
    lines = [_line(rng, tail) for _ in range(args.memories + args.calls)]
    importance = {i: float(rng.randint(1, 10)) for i in range(len(lines))}

    start = time.perf_counter()
    index = MemoryIndex()
    for turn, text in enumerate(lines[: args.memories]):
        index.add(Memory(event_id=turn, turn=turn, text=text), importance=importance[turn])
    build = time.perf_counter() - start

    times, cpu = [], []
    for i in range(args.calls):
        turn = args.memories + i
        query = lines[turn]
        t0, c0 = time.perf_counter(), time.process_time()
        index.add(Memory(event_id=turn, turn=turn, text=query), importance=importance[turn])
        index.recall(query, now_turn=turn + 1, half_life=40, k=3, exclude=(turn,))
        times.append(time.perf_counter() - t0)
        cpu.append(time.process_time() - c0)
    median = statistics.median(times)
    p95 = sorted(times)[int(len(times) * 0.95) - 1]
    print(f"Retrieval per call over {args.memories:,} memories (add one, recall 3; {args.calls} calls):")
    print(f"  this index: median {median * 1000:.3f} ms  p95 {p95 * 1000:.3f} ms  worst {max(times) * 1000:.3f} ms"
          f"  (CPU time median {statistics.median(cpu) * 1000:.3f} ms; building it from {args.memories:,}"
          f" memories once: {build * 1000:.0f} ms)")

    from rank_bm25 import BM25Okapi

    corpus = [terms(t) for t in lines[: args.memories]]
    okapi_query, okapi_build = [], []
    for i in range(min(args.calls, 10)):
        corpus.append(terms(lines[args.memories + i]))
        t0 = time.perf_counter()
        bm = BM25Okapi(corpus)
        t1 = time.perf_counter()
        bm.get_scores(terms(lines[args.memories + i]))
        okapi_build.append(t1 - t0)
        okapi_query.append(time.perf_counter() - t1)
    oq, ob = statistics.median(okapi_query), statistics.median(okapi_build)
    print(f"  rank-bm25 BM25Okapi: query alone median {oq * 1000:.3f} ms ({oq / median:.1f}x this index's whole "
          f"call); rebuilt per added memory {ob * 1000:.1f} ms")

    from bench_engine import per_turn

    turn_times = asyncio.run(per_turn(100, True))
    engine = statistics.median(turn_times)
    print(f"Engine's own time per turn (instant model, 100 turns): median {engine * 1000:.3f} ms")
    print(f"  retrieval adds {median / engine:.2f}x that per character per turn"
          f" (goal: retrieval median <= 5 ms: {'met' if median <= 0.005 else 'NOT met'})")


async def fold_rows(turns: int) -> None:
    """Per-turn engine time and mind-fold time in windows of 100 turns, early and late in one long run."""
    import tempfile

    from bench_ensemble import PickingModel

    from studio.engine import Engine
    from studio.mind.runner import MindRunner
    from studio.engine.forms import resolve_cast
    from studio.model.play import Play
    from studio.store import Store

    play = Play.model_validate({
        "title": "Bench minds", "form": "ensemble", "next": "round_robin", "turns": turns, "epilogue": False,
        "cast": {"characters": [{"character": c} for c in ("mara_lighthouse", "sasha_interviewer", "jenny")]},
    })
    cast = resolve_cast(play, ROOT / "plays" / "bench.toml", model="scripted")
    model = PickingModel()
    engine = Engine.create(Store(Path(tempfile.mkdtemp()) / "fold.db"), cast, {}, gateway=model)
    spent = {"fold": 0.0, "depth": 0}

    def timed(method):
        def wrapper(*args, **kwargs):  # only the outermost call counts: world() may call fold()
            spent["depth"] += 1
            start = time.perf_counter()
            try:
                return method(*args, **kwargs)
            finally:
                spent["depth"] -= 1
                if not spent["depth"]:
                    spent["fold"] += time.perf_counter() - start
        return wrapper

    import studio.mind.state as mind_state

    patched = [(MindRunner, name) for name in ("world", "pending_scores")] + [(mind_state, "fold")]
    originals = [(owner, name, getattr(owner, name)) for owner, name in patched]
    for owner, name, method in originals:
        setattr(owner, name, timed(method))
    rows: list[tuple[float, float, int]] = []  # (engine time, fold time, events in the take)
    try:
        while not engine.finished:
            model.spent, spent["fold"] = 0.0, 0.0
            start = time.perf_counter()
            await engine.play_turn()
            rows.append((time.perf_counter() - start - model.spent, spent["fold"], len(engine.path)))
    finally:
        for owner, name, method in originals:
            setattr(owner, name, method)
    print(f"Mind fold in one {turns:,}-turn ensemble run (Mara with an inner life + 2 plain characters, instant model):")
    for first in sorted({0, 900, len(rows) - 100} if len(rows) >= 1000 else {0, len(rows) - 100}):
        window = rows[max(first, 0): first + 100]
        engine_ms = statistics.fmean(r[0] for r in window) * 1000
        fold_ms = statistics.fmean(r[1] for r in window) * 1000
        median_ms = statistics.median(r[0] for r in window) * 1000
        print(f"  turns {first + 1:5d}-{first + len(window):5d} ({window[-1][2]:,} events in the take): engine per turn"
              f" mean {engine_ms:.2f} ms (median {median_ms:.2f}), of which folding minds {fold_ms:.2f} ms")
    engine.store.close()


if __name__ == "__main__":
    main()
