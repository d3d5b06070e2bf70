"""What a card costs at play time: World Info evaluation per call, and a card character's turn beside a
plain one's as a run grows.

1. `activate` alone: a 200-entry lorebook (every entry marked `use_regex` as SillyTavern exports them, a
   quarter with `/pattern/` keys, a quarter selective with secondary keys, a fifth in inclusion groups
   with weights and scoring, a seventh sticky with a cooldown, recursion on, ten constant entries)
   against the four newest lines, per call, with the timed effects of earlier calls, for scale: a
   book eight times the size of a typical card's. Then a crowded book, where common words are keys and fill
   every entry's text, so most of it activates and each recursion pass searches a long text: the worst
   case, for scale.
2. The engine's own time per turn (instant model, no litellm) for a drama play whose other is an
   imported card with a 24-entry lorebook and macros, beside the same play with a plain sheet, at turns
   1-50 and 250-300 of one run: if the late figure grows, something walks the whole take each call.
   Goal: the card adds under 5 ms to a turn, against model calls of a second or more.

Run: .venv/bin/python bench/bench_lore.py [--entries N] [--calls N] [--turns N]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from bench_engine import TimedGateway  # noqa: E402
from studio.engine import Engine  # noqa: E402
from studio.engine.forms import load_play, resolve_cast  # noqa: E402
from studio.mind.worldinfo import activate, timed  # noqa: E402
from studio.model.lorebook import Lorebook  # noqa: E402
from studio.store import Store  # noqa: E402

WORDS = ("sea lamp night door letter storm boat harbour light rope bread kettle stairs window coat money truth "
         "lie promise father mother brother sister friend stranger keeper log wreck rock tide wind rain").split()


def book(entries: int, rng: random.Random, crowded: bool = False) -> Lorebook:
    """Keys are names (`harbour17`) that a line rarely says, a few of them common words; entries' text is
    prose that names two other entries, so recursion has something to find. `crowded`: every third key
    is a common word, in the lines and in every entry's text, so most of the book activates."""
    out = []
    for n in range(entries):
        key = rng.choice(WORDS) if (crowded and n % 3 == 0) or n % 25 == 0 else f"{rng.choice(WORDS)}{n}"
        prose = " ".join(rng.choice(WORDS) for _ in range(40)) if crowded else " ".join(
            f"word{rng.randint(0, 5000)}" for _ in range(40))
        entry = {"keys": [key, f"other{n}"], "content": f"{prose} {rng.choice(WORDS)}{rng.randrange(entries)}",
                 "insertion_order": n, "enabled": True, "use_regex": True, "extensions": {}}
        if n % 4 == 1:
            entry.update(keys=[f"/{key}(st|nd)?/i"])
        if n % 5 == 0:
            entry["extensions"].update(group=f"group{n % 3}", group_weight=50 + n, use_group_scoring=n % 2 == 0)
        if n % 7 == 0:
            entry["extensions"].update(sticky=2, cooldown=3)
        if n % 4 == 2:
            entry.update(selective=True, secondary_keys=[rng.choice(WORDS), rng.choice(WORDS)])
            entry["extensions"]["selectiveLogic"] = n % 4
        if n < 10:
            entry["constant"] = True
        out.append(entry)
    return Lorebook.model_validate({"entries": out, "recursive_scanning": True, "scan_depth": 4})


def bench_activate(entries: int, calls: int, crowded: bool = False) -> None:
    rng = random.Random(1)
    lore = book(entries, rng, crowded)
    times: list[float] = []
    active: list[int] = []
    given: list[tuple[int, list[str]]] = []
    for n in range(calls):
        lines = [" ".join(rng.choice(WORDS) for _ in range(25)) for _ in range(4)]
        start = time.perf_counter()
        found = activate([lore], lines, budget_tokens=2048, seed=1, moment=(1, n),
                         timed=timed([lore], given[-20:], 2 * n + 1))
        times.append((time.perf_counter() - start) * 1000)
        given.append((2 * n + 1, found.names))
        active.append(len(found.entries) + len(found.skipped))
    times.sort()
    print(f"activate, {entries} entries{' (crowded)' if crowded else ''}, {statistics.median(active):.0f} active, "
          f"{calls} calls: median {statistics.median(times):.2f} ms, "
          f"p95 {times[int(len(times) * 0.95)]:.2f} ms")


def _play(folder: Path, other: str, turns: int) -> Path:
    (folder / "characters").mkdir(parents=True)
    (folder / "plays").mkdir()
    shutil.copy(ROOT / "characters" / "jenny.toml", folder / "characters")
    if other == "saltcombe":
        from studio.cli import main

        main(["import", str(ROOT / "tests" / "data" / "cards" / "saltcombe.v2.json"), "--dir", str(folder),
              "--out", str(folder / "characters" / "saltcombe.toml")])
    else:
        shutil.copy(ROOT / "characters" / f"{other}.toml", folder / "characters")
    play = folder / "plays" / "bench.toml"
    play.write_text(f'title = "Bench"\nseed = 1\nturns = {turns}\nepilogue = false\n\n[cast.ego]\ncharacter = "jenny"\n\n'
                    f'[[cast.others]]\ncharacter = "{other}"\ncontext_tokens = 8192\n')
    return play


async def _turns(other: str, turns: int) -> tuple[float, float]:
    with tempfile.TemporaryDirectory() as tmp:
        play = _play(Path(tmp) / other, other, turns)
        store = Store(Path(tmp) / "bench.db")
        gateway = TimedGateway(instant=True)
        engine = Engine.create(store, resolve_cast(load_play(play), play, model="scripted"), {}, gateway=gateway)
        per: list[float] = []
        while not engine.finished:
            spent, start = gateway.spent, time.perf_counter()
            await engine.play_turn()
            per.append((time.perf_counter() - start - (gateway.spent - spent)) * 1000)
        store.close()
    early, late = per[:50], per[-50:]
    return statistics.median(early), statistics.median(late)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=200)
    parser.add_argument("--calls", type=int, default=500)
    parser.add_argument("--turns", type=int, default=300)
    args = parser.parse_args()
    bench_activate(args.entries, args.calls)
    bench_activate(args.entries, args.calls // 5, crowded=True)
    print(f"\nengine time per turn (instant model), median, turns 1-50 | turns {args.turns - 49}-{args.turns}:")
    for other, label in (("sasha_interviewer", "plain sheet"), ("saltcombe", "card, 24-entry lorebook")):
        early, late = asyncio.run(_turns(other, args.turns))
        print(f"  {label:<26} {early:6.2f} ms | {late:6.2f} ms")


if __name__ == "__main__":
    main()
