"""The social game's experiments (Thudium et al., 2024) as a kind of experiment for `studio lab run`.

The experiment file's `[game]` table says which: `experiment = "architecture"` (the four cognitive
architectures, two players each, every game) or `"persona"` (`split` charismatic against aloof players).
`reps` is the number of games. Each game is an ordinary run in the store (`studio show`, `export` and the
app open it); a game cut off midway continues from its last event. The report compares placements
between the groups as `studio lab game` does (`studio.game.analysis`): the mean place with a 95% interval
per group, a one-way ANOVA (Welch's t for two groups) and Tukey's HSD between pairs.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.lab.kinds import Bars, Report, Table, TrialContext, TrialSpec, register


class GameKind:
    name = "game"
    summary = "the social game's experiments: architecture or persona against placement (Thudium et al., 2024)"

    def check(self, spec: dict[str, Any], source: str) -> dict[str, Any]:
        from studio.model import InputError
        from studio.engine.forms import load_play

        own = dict(spec.get("game") or {})
        known = {"experiment", "play", "split", "first_round"}
        for key in own:
            if key not in known:
                raise InputError(source, f"game.{key}", "is not a setting of the social game's experiments",
                                 f"use only {', '.join(sorted(known))}")
        experiment = own.get("experiment")
        if experiment not in ("architecture", "persona"):
            raise InputError(source, "game.experiment", f"must be \"architecture\" or \"persona\", not {experiment!r}",
                             'e.g. experiment = "architecture"')
        play = own.get("play")
        if play is None:
            from studio.game import default_island

            path = default_island()
        elif not isinstance(play, str) or not play:
            raise InputError(source, "game.play", f"must be a play's path, not {play!r}", 'e.g. play = "plays/island.toml"')
        else:
            base = Path(source).parent if source else Path(".")
            path = Path(play) if Path(play).is_absolute() or Path(play).exists() else base / play
            if not path.is_file():
                raise InputError(source, "game.play", f"{play} is not a file", 'e.g. play = "plays/island.toml"')
        loaded = load_play(path)
        if loaded.form != "social_game":
            raise InputError(source, "game.play", f"{path} is not a social game", 'name a play with form = "social_game"')
        split = own.get("split", [3, 3])
        if isinstance(split, str) and ":" in split:
            parts = split.split(":", 1)
            split = [int(p) for p in parts] if all(p.strip().isdigit() for p in parts) else split
        if (not isinstance(split, list) or len(split) != 2 or any(not isinstance(s, int) or isinstance(s, bool) or s < 1 for s in split)):
            raise InputError(source, "game.split", f"must be two counts, charismatic and aloof, not {split!r}",
                             "e.g. split = [3, 3]")
        players = len(loaded.cast.characters)
        if experiment == "persona" and sum(split) > players:
            raise InputError(source, "game.split", f"{split[0]}:{split[1]} is more than the play's {players} players",
                             "e.g. split = [3, 3]")
        first_round = own.get("first_round", False)
        if not isinstance(first_round, bool):
            raise InputError(source, "game.first_round", f"must be true or false, not {first_round!r}",
                             "e.g. first_round = false (the paper leaves out players voted out in round 1)")
        own.update(experiment=experiment, play=str(path), split=split, first_round=first_round)
        return {**spec, "game": own}

    def plan(self, spec: dict[str, Any]) -> list[TrialSpec]:
        own = spec["game"]
        return [TrialSpec(f"game/{i}", own["experiment"], i) for i in range(int(spec.get("reps", 1)))]

    async def run_trial(self, ctx: TrialContext, trial: TrialSpec) -> dict[str, Any]:
        from studio.engine import Engine
        from studio.game.experiments import cast_for

        plan = _plan(ctx.spec, ctx.model)
        cast, groups = cast_for(plan, trial.rep)
        if ctx.run_id is not None:  # an attempt that was cut off: its game goes on from its last event
            engine = Engine(ctx.store, ctx.run_id, ctx.gateway)
        else:
            engine = Engine.create(ctx.store, cast, {"lab": ctx.spec["name"]}, gateway=ctx.gateway)
            ctx.started(engine.run_id)
        await engine.play_to_end()
        state = engine.state
        first_out = state.tallies[0]["eliminated"] if state.tallies else None
        return {"run": engine.run_id, "groups": groups, "placements": state.game.placements(), "first_out": first_out}

    def report(self, spec: dict[str, Any], results: dict[str, dict[str, Any]]) -> Report:
        from studio.game.analysis import compare_placements

        own = spec["game"]
        by_group: dict[str, list[float]] = {}
        for record in results.values():
            for name, group in record["groups"].items():
                if group == "neutral" or (not own.get("first_round") and name == record.get("first_out")):
                    continue
                if name in record["placements"]:
                    by_group.setdefault(group, []).append(float(record["placements"][name]))
        result = compare_placements(by_group)
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


def _plan(spec: dict[str, Any], model: str):
    from studio.game.experiments import GamePlan

    own = spec["game"]
    return GamePlan(own["experiment"], int(spec.get("reps", 1)), model, Path(own["play"]), tuple(own["split"]))


KIND = register(GameKind())
