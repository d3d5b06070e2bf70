"""The ensemble rows of the engine benchmark (run through bench/bench_engine.py).

8 characters, 4 with inner voices (all three strategies on their schedules), a moderator picking
every speaker, 1,000 turns, an instant in-process model: the engine's own time per turn, and the
playwright's hand at turn 1,000 (rewind one turn, switch takes, regenerate a line) and reopening.
"""

from __future__ import annotations

import re
import statistics
import tempfile
import time
from pathlib import Path

from studio.engine import Engine
from studio.llm import Completion
from studio.engine.forms import resolve_cast
from studio.model.play import Play
from studio.store import Store

ROOT = Path(__file__).resolve().parent.parent
CHARACTERS = ["ines_ferry", "tomas_ferry", "marit_ferry", "oskar_ferry", "jenny", "timothy", "mara_lighthouse",
              "sasha_interviewer"]
# The same eight without an inner life (mara_lighthouse has moods, goals and knowledge): the ensemble's
# own cost, apart from what studio/mind adds to every step of a character that has one.
PLAIN = [c if c != "mara_lighthouse" else "ashley" for c in CHARACTERS]
VOICES = ["pride_ferry", "doubt_ferry", "cleo", "ben"]


class PickingModel:
    """Answers at once; a moderator's pick names someone offered, as a good model would."""

    def __init__(self) -> None:
        self.spent = 0.0
        self.calls: list[tuple[str, int]] = []

    async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
        start = time.perf_counter()
        if ctx.task == "pick":
            offered = re.search(r"Choose one of: ([^\n]+)\.", messages[-1]["content"])
            names = offered.group(1).split(", ") if offered else [ctx.character]
            text = f"{names[ctx.turn * 7 % len(names)]} - the scene needs them now"
        else:
            text = f"(scripted) {ctx.character}, scene {ctx.scene} turn {ctx.turn}: a line of about ten words here."
        tokens = sum(len(m["content"]) for m in messages) // 4
        self.calls.append((ctx.role if ctx.role != "superego" else "voice", tokens))
        self.spent += time.perf_counter() - start
        return Completion(text, settings.model, {"prompt_tokens": tokens, "completion_tokens": 1,
                                                 "total_tokens": tokens + 1}, 1, 0.0)


def ensemble_play(turns: int, cast: list[str] = CHARACTERS) -> Play:
    characters = []
    for i, stem in enumerate(cast):
        member: dict = {"character": stem}
        if i < len(VOICES):
            member["voice"] = {"character": VOICES[i], "rewrite_prompt": {"every": 10},
                               "rewrite_speech": {"every": 3}, "critique": {"every": 2}}
        characters.append(member)
    return Play.model_validate({
        "title": "Bench ensemble", "form": "ensemble", "next": "moderator", "turns": turns, "epilogue": False,
        "cast": {"characters": characters, "moderator": {"character": "chart_ferry"}},
    })


def make(turns: int, db: Path, names: list[str] = CHARACTERS) -> tuple[Engine, PickingModel]:
    cast = resolve_cast(ensemble_play(turns, names), ROOT / "plays" / "bench.toml", model="scripted")
    model = PickingModel()
    return Engine.create(Store(db), cast, {}, gateway=model), model


async def per_turn(turns: int, names: list[str] = CHARACTERS) -> tuple[list[float], Engine, PickingModel]:
    engine, model = make(turns, Path(tempfile.mkdtemp()) / "bench.db", names)
    out = []
    while not engine.finished:
        model.spent = 0.0
        start = time.perf_counter()
        await engine.play_turn()
        out.append(time.perf_counter() - start - model.spent)
    return out, engine, model


def _median_ms(samples: list[float]) -> str:
    return f"{statistics.median(samples) * 1000:.2f} ms"


async def hand_at_the_end(engine: Engine, model: PickingModel, repeats: int = 7) -> dict[str, list[float]]:
    times: dict[str, list[float]] = {"rewind one turn": [], "switch take": [], "regenerate (model excluded)": [],
                                     "reopen the run": []}
    for _ in range(repeats):
        tip = engine.head
        start = time.perf_counter()
        engine.rewind(1)
        times["rewind one turn"].append(time.perf_counter() - start)
        start = time.perf_counter()
        engine.choose_take(tip)
        times["switch take"].append(time.perf_counter() - start)
        line = next(e for e in reversed(engine.path) if e.kind == "stage")
        model.spent = 0.0
        start = time.perf_counter()
        await engine.regenerate(line.id)
        times["regenerate (model excluded)"].append(time.perf_counter() - start - model.spent)
        engine.choose_take(line.id)
        start = time.perf_counter()
        Engine(engine.store, engine.run_id, gateway=model)
        times["reopen the run"].append(time.perf_counter() - start)
    return times


async def ensemble_rows() -> None:
    for names, label in ((CHARACTERS, "one of them (mara_lighthouse) with an inner life"),
                         (PLAIN, "no inner lives (ashley in mara_lighthouse's place)")):
        await _rows(names, label)


async def _rows(names: list[str], label: str) -> None:
    print(f"Ensemble: 8 characters, 4 inner voices, a moderator picking each speaker, instant model; {label}:")
    medians = {}
    for turns in (10, 100, 1000):
        times, engine, model = await per_turn(turns, names)
        medians[turns] = statistics.median(times)
        print(f"  {turns:5d} turns: engine time per turn median {medians[turns] * 1000:.3f} ms")
    print(f"  flatness: median at 1000 turns / median at 10 turns = {medians[1000] / medians[10]:.2f}")
    over = {}
    for role in {r for r, _ in model.calls}:
        sizes = [t for r, t in model.calls if r == role]
        over[role] = max(sizes)
    budget = engine.cast.roles[0].context_tokens
    print("  largest prompt per seat kind (tokens, estimated): "
          + ", ".join(f"{k} {v}" for k, v in sorted(over.items())) + f"; budget {budget}")
    print(f"  at turn 1,000 ({len(engine.path)} events in the take):")
    for name, samples in (await hand_at_the_end(engine, model)).items():
        print(f"    {name}: median {_median_ms(samples)}")
    engine.store.close()


if __name__ == "__main__":
    import argparse
    import asyncio

    argparse.ArgumentParser(description=(__doc__ or "").splitlines()[0]).parse_args()
    asyncio.run(ensemble_rows())
