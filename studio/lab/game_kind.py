"""The social game's experiments (Thudium et al., 2024, Outwit, Outplay, Out-Generate) as a kind of
experiment: `studio lab run` and `studio lab game`.

The experiment file's `[game]` table says which: `experiment = "architecture"` (the four cognitive
architectures, two players each, every game) or `"persona"` (`split` charismatic against aloof players).
`reps` is the number of games.

- **architecture**: every game, the players are given the four architectures (none, goals, impressions,
  both) in equal numbers, at random (seeded by the game's number); placement is compared across the four
  with a one-way ANOVA and Tukey's HSD.
- **persona**: every game, `split` players (e.g. 3:3 or 2:4) are made charismatic and aloof at random,
  the rest neutral; each player's own sheet is reduced to its name and public description so that the
  persona given is the only one it has; placement is compared between the two.

As in the paper, players voted out in the first round (a near-random vote) are left out of the
comparison unless `first_round` is asked for. Each game is an ordinary run in the store (`studio show`,
`export` and the app open it); a game cut off midway continues from its last event. The report compares
placements between the groups (`studio.lab.game_analysis`): the mean place with a 95% interval per group, a
one-way ANOVA (Welch's t for two groups) and Tukey's HSD between pairs.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import field_validator

from studio.lab.kinds import Bars, Report, Table, TrialContext, TrialSpec, register
from studio.lab.settings import KindSettings, read

TRAITS = {
    "charismatic": {"extraversion": 2, "agreeableness": 1},
    "aloof": {"extraversion": -2, "agreeableness": -1},
    "neutral": {"extraversion": 0, "agreeableness": 0},
}


class GameSettings(KindSettings):
    """The `[game]` table."""

    experiment: str
    play: str | None = None  # default: the island that ships with studio
    split: list[int] = [3, 3]  # charismatic, aloof; "3:3" reads the same
    first_round: bool = False

    @field_validator("experiment")
    @classmethod
    def _experiment(cls, value: str) -> str:
        if value not in ("architecture", "persona"):
            raise ValueError(f'must be "architecture" or "persona", not {value!r}; e.g. experiment = "architecture"')
        return value

    @field_validator("play")
    @classmethod
    def _play(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must be a play's path, not empty; e.g. play = \"plays/island.toml\"")
        return value

    @field_validator("split", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):
            parts = value.split(":", 1)
            value = [int(p) for p in parts] if len(parts) == 2 and all(p.strip().isascii() and p.strip().isdigit() for p in parts) else value
        if (not isinstance(value, list) or len(value) != 2
                or any(not isinstance(s, int) or isinstance(s, bool) or s < 1 for s in value)):
            raise ValueError(f"must be two counts, charismatic and aloof, not {value!r}; e.g. split = [3, 3]")
        return value


@dataclass(frozen=True)
class GamePlan:
    """One game experiment's design: what `assignment` and `cast_for` need for game `index`."""

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
    from studio.model.island import ARCHITECTURES

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
    """Game `index`'s cast, its players given their conditions, and who is in which."""
    from studio.engine.forms import load_play, resolve_cast

    play = load_play(plan.play)
    cast = resolve_cast(play, plan.play, model=plan.model)
    names = [r.name for r in cast.roles if r.kind == "other"]
    groups = assignment(plan, names, index)
    game = play.game
    if game is None:
        raise ValueError(f"{plan.play} is not a social game")
    if plan.experiment == "architecture":
        game = game.model_copy(update={"architecture": groups})
    cast.play = play.model_copy(update={"game": game, "seed": play.seed + index,
                                        "title": f"{play.title} ({plan.name}, game {index + 1})"})
    if plan.experiment == "persona":
        from studio.model.inner_life import Traits

        for role in cast.roles:
            if role.name in groups:
                group = groups[role.name]
                traits = (role.sheet.traits or Traits()).model_copy(update=TRAITS[group])
                role.sheet = role.sheet.model_copy(update={
                    "prompt": f"You are {role.name}. {role.sheet.description}".strip(),
                    "archetype": None if group == "neutral" else group, "traits": traits,
                })
    return cast, groups


def default_island() -> Path:
    """The island that ships with studio: found from the working folder or from the package, not the cwd alone."""
    from studio.model import InputError

    import studio

    for root in (Path.cwd(), Path(studio.__file__).resolve().parent.parent):
        if (root / "plays" / "island.toml").is_file():
            return root / "plays" / "island.toml"
    raise InputError("--play", None, "has no default here: plays/island.toml is neither in this folder nor beside the studio package",
                     "name a social-game play, e.g. --play path/to/island.toml")


def placements_by_group(records: Any, first_round: bool) -> dict[str, list[float]]:
    """Every placed player's place, by the group it was in; neutral players and (unless asked for) those
    voted out in round 1 are left out, as in the paper."""
    by_group: dict[str, list[float]] = {}
    for record in records:
        for name, group in record["groups"].items():
            if group == "neutral" or (not first_round and name == record.get("first_out")):
                continue
            if name in record["placements"]:
                by_group.setdefault(group, []).append(float(record["placements"][name]))
    return by_group


class GameKind:
    name = "game"
    summary = "the social game's experiments: architecture or persona against placement (Thudium et al., 2024)"

    def check(self, spec: dict[str, Any], source: str) -> dict[str, Any]:
        from studio.engine.forms import load_play
        from studio.model import InputError

        own = read(GameSettings, spec, "game", source)
        if own.play is None:
            path = default_island()
        else:
            base = Path(source).parent if source else Path(".")
            path = Path(own.play) if Path(own.play).is_absolute() or Path(own.play).exists() else base / own.play
            if not path.is_file():
                raise InputError(source, "game.play", f"{own.play} is not a file", 'e.g. play = "plays/island.toml"')
        loaded = load_play(path)
        if loaded.form != "social_game":
            raise InputError(source, "game.play", f"{path} is not a social game", 'name a play with form = "social_game"')
        split = list(own.split)
        players = len(loaded.cast.characters)
        if own.experiment == "persona" and sum(split) > players:
            raise InputError(source, "game.split", f"{split[0]}:{split[1]} is more than the play's {players} players",
                             "e.g. split = [3, 3]")
        return {**spec, "game": {**own.model_dump(), "play": str(path), "split": split}}

    def plan(self, spec: dict[str, Any]) -> list[TrialSpec]:
        own = spec["game"]
        return [TrialSpec(f"game/{i}", own["experiment"], i) for i in range(int(spec.get("reps", 1)))]

    async def run_trial(self, ctx: TrialContext, trial: TrialSpec) -> dict[str, Any]:
        from studio.engine import Engine

        cast, groups = cast_for(plan_of(ctx.spec, ctx.model), trial.rep)
        if ctx.run_id is not None:  # an attempt that was cut off: its game goes on from its last event
            engine = Engine(ctx.store, ctx.run_id, ctx.gateway)
        else:
            engine = Engine.create(ctx.store, cast, {"lab": ctx.spec["name"]}, gateway=ctx.gateway)
        ctx.playing(engine)
        await engine.play_to_end()
        state = engine.state
        first_out = state.tallies[0]["eliminated"] if state.tallies else None
        return {"run": engine.run_id, "groups": groups, "placements": state.game.placements(), "first_out": first_out}

    def report(self, spec: dict[str, Any], results: dict[str, dict[str, Any]]) -> Report:
        from studio.lab.game_analysis import compare_placements

        own = spec["game"]
        result = compare_placements(placements_by_group(results.values(), bool(own.get("first_round"))))
        rows = [[g.name, g.n, "-" if not g.n else f"{g.mean:.2f}",
                 "-" if g.n < 2 else f"{g.ci_low:.2f} to {g.ci_high:.2f}"] for g in result.groups]
        test = (f"{result.test}: statistic {result.statistic:.2f}, p = {result.p:.3g}"
                if result.p is not None and result.statistic is not None else (result.note or "no test"))
        pairs = [[f"{p.a} - {p.b}", f"{p.difference:+.2f}", f"{p.ci_low:+.2f} to {p.ci_high:+.2f}", f"{p.p:.3g}",
                  "yes" if p.significant else "no"] for p in result.pairs]
        tables = [Table("Placement by group (1 = the winner)", ["group", "players", "mean place", "95% CI"], rows, note=test)]
        if pairs:
            tables.append(Table("Tukey's HSD between pairs", ["pair", "difference", "95% CI", "p", "differs at 5%"], pairs))
        runs = sorted(r["run"] for r in results.values())
        what = "architecture" if own["experiment"] == "architecture" else f"persona {own['split'][0]}:{own['split'][1]}"
        return Report(
            title=spec.get("title") or f"The social game: {what}",
            tables=tables,
            figures=[Bars(f"game_{own['experiment']}", f"Mean place by {own['experiment']} (lower is better)",
                          [g.name for g in result.groups],
                          {"mean place": [(g.mean, g.ci_low, g.ci_high) for g in result.groups]}, ylabel="place")],
            notes=[f"{len(results)} games on {spec.get('model')}" + (f", runs {', '.join(map(str, runs))}" if runs else "") + ".",
                   "Players voted out in round 1 are left out, as in the paper." if not own.get("first_round")
                   else "Players voted out in round 1 are kept.",
                   *([result.note] if result.note and result.p is not None else [])],
        )


def plan_of(spec: dict[str, Any], model: str) -> GamePlan:
    own = spec["game"]
    return GamePlan(own["experiment"], int(spec.get("reps", 1)), model, Path(own["play"]),
                    (int(own["split"][0]), int(own["split"][1])))


KIND = register(GameKind())
