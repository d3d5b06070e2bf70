"""The social game's two experiments from Thudium et al., 2024, Outwit, Outplay, Out-Generate,
run as ordinary games in the store.

- **architecture**: every game, the eight players are given the four architectures (none, goals,
  impressions, both) two each, at random (seeded by the game's number); placement is compared across
  the four with a one-way ANOVA and Tukey's HSD.
- **persona**: every game, `split` players (e.g. 3:3 or 2:4) are made charismatic and aloof at random,
  the rest neutral; each player's own sheet is reduced to its name and public description so that the
  persona given is the only one it has; placement is compared between the two.

As in the paper, players voted out in the first round (a near-random vote) are left out of the
comparison unless `first_round` is asked for. Each game is a run that `studio show` and the app open;
the lab's trials table records which run each game is, so a rerun plays only what is missing.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from studio.model.island import ARCHITECTURES

TRAITS = {
    "charismatic": {"extraversion": 2, "agreeableness": 1},
    "aloof": {"extraversion": -2, "agreeableness": -1},
    "neutral": {"extraversion": 0, "agreeableness": 0},
}


@dataclass(frozen=True)
class GamePlan:
    experiment: str  # architecture | persona
    games: int
    model: str
    play: Path
    split: tuple[int, int] = (3, 3)

    @property
    def name(self) -> str:
        extra = f":{self.split[0]}v{self.split[1]}" if self.experiment == "persona" else ""
        return f"game:{self.experiment}{extra}:{self.model}"


def assignment(plan: GamePlan, names: list[str], index: int) -> dict[str, str]:
    """Who is in which condition in game `index`: balanced, shuffled by a seeded draw."""
    rng = random.Random(f"{plan.name}:{index}")
    order = list(names)
    rng.shuffle(order)
    if plan.experiment == "architecture":
        arms = list(ARCHITECTURES)
        return {name: arms[i % len(arms)] for i, name in enumerate(order)}
    charismatic, aloof = plan.split
    groups = ["charismatic"] * charismatic + ["aloof"] * aloof
    return {name: groups[i] if i < len(groups) else "neutral" for i, name in enumerate(order)}


def cast_for(plan: GamePlan, index: int) -> tuple[Any, dict[str, str]]:
    from studio.engine.forms import load_play, resolve_cast

    play = load_play(plan.play)
    cast = resolve_cast(play, plan.play, model=plan.model)
    names = [r.name for r in cast.roles if r.kind == "other"]
    groups = assignment(plan, names, index)
    game = play.game
    if plan.experiment == "architecture":
        game = game.model_copy(update={"architecture": groups})
    cast.play = play.model_copy(update={"game": game, "seed": play.seed + index, "title": f"{play.title} ({plan.name}, game {index + 1})"})
    if plan.experiment == "persona":
        from studio.mind.sheet import Traits

        for role in cast.roles:
            if role.name in groups:
                group = groups[role.name]
                traits = (role.sheet.traits or Traits()).model_copy(update=TRAITS[group])
                role.sheet = role.sheet.model_copy(update={
                    "prompt": f"You are {role.name}. {role.sheet.description}".strip(),
                    "archetype": None if group == "neutral" else group, "traits": traits,
                })
    return cast, groups


async def run(store: Any, plan: GamePlan, gateway: Any = None, progress: Any = None,
              first_round: bool = False) -> tuple[dict[str, list[float]], list[dict[str, Any]], dict[str, str]]:
    """Play what is missing; return placements by group, each game's record, and failures."""
    from studio.engine import Engine
    from studio.lab.trials import Trials

    trials = Trials(store)
    done = trials.done(plan.name)
    for index in range(plan.games):
        key = f"game/{index}"
        if key in done:
            continue
        cast, groups = cast_for(plan, index)
        try:
            engine = Engine.create(store, cast, {"lab": plan.name}, gateway=gateway)
            await engine.play_to_end()
        except Exception as exc:  # a failed game is recorded; the others go on
            trials.record(plan.name, key, "failed", error=str(exc)[:500])
        else:
            state = engine.state
            first_out = state.tallies[0]["eliminated"] if state.tallies else None
            trials.record(plan.name, key, "done", {"run": engine.run_id, "groups": groups,
                                                   "placements": state.game.placements(), "first_out": first_out})
        if progress is not None:
            progress(index + 1, plan.games)
    records = [r for k, r in sorted(trials.done(plan.name).items()) if int(k.split("/")[1]) < plan.games]
    by_group: dict[str, list[float]] = {}
    for record in records:
        for name, group in record["groups"].items():
            if group == "neutral" or (not first_round and name == record["first_out"]):
                continue
            by_group.setdefault(group, []).append(float(record["placements"][name]))
    failed = {k: v for k, v in trials.failed(plan.name).items() if int(k.split("/")[1]) < plan.games}
    return by_group, records, failed


def run_sync(store: Any, plan: GamePlan, **kwargs: Any):
    return asyncio.run(run(store, plan, **kwargs))
