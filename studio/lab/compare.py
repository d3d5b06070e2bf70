"""Does the inner voice help? The Drama Machine's table 2 as a repeated experiment.

One play, run N times without and N times with the superego (repetition r of both conditions shares
the seed base + r, so the pairs differ only by the inner voice), each run critiqued by the Critic. The
report gives each criterion's mean score with a 95% t interval per condition, the difference (with
minus without) and Welch's t test of it: the scores are means of whole numbers on 0-10 that need not
share a variance between conditions, and with the few repetitions a small lab affords a rank test
(Mann-Whitney) cannot reach 5% below four trials a side, while Welch's test states an effect with
its p at any N >= 2. An invalid critique is no score: it is counted and left out, never read as 0.

Every trial is an ordinary run in the store (`studio show`, `export`, the app open it) and a row in
`lab_trials`, so a rerun plays only what is missing and continues a run left unfinished.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from studio.lab.kinds import Bars, Report, Table, TrialContext, TrialSpec, register
from studio.lab.settings import KindSettings, read

CONDITIONS = ("without", "with", "critic_loop")
LABELS = {"without": "without the superego", "with": "with the superego",
          "critic_loop": "with the superego, the Critic talking back"}
SHORT = {"without": "without", "with": "with", "critic_loop": "loop"}
# The differences reported, each (baseline, condition): the inner voice's, then the critic loop's on top of it.
PAIRS = (("without", "with"), ("with", "critic_loop"))


class CompareSettings(KindSettings):
    """The `[compare]` table: the play (relative to the experiment file), its turns and first seed, the
    Critic's model and the conditions compared."""

    play: str = Field(min_length=1)
    turns: int | None = Field(None, ge=1)
    seed: int | None = Field(None, ge=0)
    critic: str | None = None
    conditions: list[str] = Field(default_factory=lambda: ["without", "with"])

    @field_validator("conditions")
    @classmethod
    def _conditions(cls, value: list[str]) -> list[str]:
        if not value or any(c not in CONDITIONS for c in value):
            raise ValueError(f"must be some of {list(CONDITIONS)}, not {value!r}; "
                             'use conditions = ["without", "with", "critic_loop"]')
        return list(dict.fromkeys(value))


class CompareKind:
    name = "compare"
    summary = "a play without and with the superego, N times each, scored by the Critic (the paper's table 2)"

    def check(self, spec: dict[str, Any], source: str) -> dict[str, Any]:
        from studio.critic import experiment_casts
        from studio.model import InputError

        if not (spec.get("compare") or {}).get("play"):
            raise InputError(source, "compare.play", "names no play", 'add play = "plays/interview.toml"')
        own = read(CompareSettings, spec, "compare", source)
        base = Path(source).parent if source else Path(".")
        path = Path(own.play) if Path(own.play).is_absolute() or Path(own.play).exists() else base / own.play
        experiment_casts(path, turns=own.turns, seed=own.seed, model=spec.get("model"))
        conditions = own.conditions
        if "critic_loop" in conditions:
            from studio.engine.forms import load_play

            looped = load_play(path)
            if looped.scene_count < 2:
                raise InputError(source, "compare.conditions", "critic_loop needs a play of two scenes or more "
                                 "(the Critic talks back as a scene ends, before the next opens)",
                                 "use a play with several scenes, e.g. plays/detective.toml")
            if looped.cast.director is None:
                raise InputError(source, "compare.conditions", "critic_loop needs a play with a director, who reads "
                                 "the Critic's review as the next scene opens; this play has none",
                                 "add a [cast.director] to the play, or leave critic_loop out")
        return {**spec, "compare": {**own.model_dump(exclude_none=True), "play": str(path),
                                    "seed": 1 if own.seed is None else own.seed}}

    def plan(self, spec: dict[str, Any]) -> list[TrialSpec]:
        own = spec["compare"]
        return [TrialSpec(f"{condition}/{rep}", condition, rep, {"seed": own["seed"] + rep})
                for rep in range(int(spec.get("reps", 1))) for condition in own["conditions"]]

    async def run_trial(self, ctx: TrialContext, trial: TrialSpec) -> dict[str, Any]:
        from studio.critic import critique_run, experiment_casts
        from studio.engine import Engine

        own = ctx.spec["compare"]
        if ctx.run_id is not None:  # an attempt that was cut off: its run goes on from its last event
            engine = Engine(ctx.store, ctx.run_id, ctx.gateway)
        else:
            without, with_ = experiment_casts(own["play"], turns=own.get("turns"), seed=trial.params["seed"],
                                              model=ctx.model or None)
            cast = without if trial.condition == "without" else with_
            if trial.condition == "critic_loop":
                cast.play = cast.play.model_copy(update={"critic_loop": True})
            options = {"model": ctx.model or None, "no_superego": trial.condition == "without",
                       "critic_loop": trial.condition == "critic_loop", "seed": cast.play.seed,
                       "turns": cast.play.turns, "experiment": ctx.spec.get("name", "compare")}
            engine = Engine.create(ctx.store, cast, options, gateway=ctx.gateway)
        ctx.playing(engine)
        await engine.play_to_end()
        critique = await critique_run(ctx.store, engine.run_id, model=own.get("critic") or ctx.model or None,
                                      gateway=ctx.gateway)
        scores = {k: v["score"] for k, v in (critique.criteria or {}).items()} if critique.valid else {}
        return {"run": engine.run_id, "condition": trial.condition, "rep": trial.rep, "seed": trial.params["seed"],
                "valid": critique.valid, "scores": scores, "critique": critique.id, "error": critique.error}

    def report(self, spec: dict[str, Any], results: dict[str, dict[str, Any]]) -> Report:
        return table_two(spec, list(results.values()))


def table_two(spec: dict[str, Any], results: list[dict[str, Any]]) -> Report:
    """The paper's table 2 from finished trials: per criterion, each condition's mean and interval, the
    difference and Welch's t test."""
    from studio.critic import CRITERIA
    from studio.lab.stats import mean_ci

    own = spec.get("compare", {})
    conditions = [c for c in own.get("conditions", CONDITIONS) if c in CONDITIONS]
    valid = {c: [r for r in results if r.get("condition") == c and r.get("valid")] for c in conditions}
    invalid = {c: sum(1 for r in results if r.get("condition") == c and not r.get("valid")) for c in conditions}
    pairs = [(a, b) for a, b in PAIRS if a in conditions and b in conditions]
    rows: list[list[Any]] = []
    bars: dict[str, list[tuple[float, float, float]]] = {LABELS[c]: [] for c in conditions}
    for key, (title, _) in CRITERIA.items():
        row: list[Any] = [title]
        values = {c: [float(r["scores"][key]) for r in valid[c] if key in r.get("scores", {})] for c in conditions}
        for c in conditions:
            est = _within_scale(mean_ci(values[c]))
            row.append(_estimate(est))
            bars[LABELS[c]].append((est.mean, est.low, est.high))
        for base, other in pairs:
            row += _difference(values[base], values[other])
        rows.append(row)
    columns = ["criterion"] + [f"{SHORT[c]}: mean (95% CI)" for c in conditions]
    for base, other in pairs:
        columns += [f"{SHORT[other]} - {SHORT[base]}", "p (Welch's t)", "differs at 5%"]
    counts = "; ".join(f"{SHORT[c]} = {LABELS[c]}: {len(valid[c])} scored, {invalid[c]} invalid" for c in conditions)
    play = Path(own.get("play", "?")).name
    return Report(
        title=f"Does the inner voice help? {play}",
        tables=[Table(f"The Critic's scores (0-10), {play}", columns, rows, note=counts)],
        figures=[Bars("compare", f"The Critic's scores, {play}", [t for t, _ in CRITERIA.values()], bars,
                      ylabel="score (0-10)")],
        notes=["An invalid critique is left out, never counted as 0.",
               "A score is 0 to 10, so an interval is shown within 0 to 10 (with few repetitions the t "
               "interval runs far past both ends); the tests use the scores themselves.",
               "Each repetition's two runs share a seed: they differ only by the inner voice."],
    )


def _difference(a: list[float], b: list[float]) -> list[str]:
    """b's mean minus a's, Welch's t test of it, and whether it differs at 5%."""
    from scipy import stats as sp

    if not a or not b:
        return ["-", "-", "too few data"]
    diff = f"{sum(b) / len(b) - sum(a) / len(a):+.2f}"
    if min(len(a), len(b)) < 2:
        return [diff, "-", "too few data"]
    if not (_spread(a) or _spread(b)):
        return [diff, "-", "no spread"]
    p = float(sp.ttest_ind(b, a, equal_var=False).pvalue)
    return [diff, f"{p:.3f}", "yes" if p < 0.05 else "no"]


def _spread(values: list[float]) -> bool:
    return any(v != values[0] for v in values)


def _within_scale(est: Any, low: float = 0.0, high: float = 10.0) -> Any:
    """The estimate with its interval cut to what a score can be."""
    import dataclasses

    if est.n == 0 or math.isnan(est.mean) or math.isnan(est.low):
        return est
    return dataclasses.replace(est, low=max(low, est.low), high=min(high, est.high))


def _estimate(est: Any) -> str:
    if est.n == 0 or math.isnan(est.mean):
        return "-"
    if est.n == 1:
        return f"{est.mean:.2f} (n=1)"
    return f"{est.mean:.2f} ({est.low:.2f} to {est.high:.2f}), n={est.n}"


KIND = register(CompareKind())


@dataclass
class Comparison:
    """One play, the same settings and seed, run without and with the superego, and both critiques;
    `failed` names each condition that did not finish, with its run (kept, to resume) and its error."""

    play: str
    runs: tuple[int, ...]  # (without, with)
    critiques: tuple[Any, ...]
    failed: dict[str, tuple[int | None, str]]


async def compare_once(store: Any, play_path: str | Path, *, turns: int | None = None, seed: int | None = None,
                       model: str | None = None, critic_model: str | None = None, gateway: Any = None,
                       on_run: Callable[[str, Any], None] | None = None) -> Comparison:
    """`studio compare PLAY`: one repetition of both conditions, one after the other, through the lab's
    runner under a name of its own (so it never meets an earlier comparison's trials), every run kept.

    `on_run(label, engine)` is told before each run plays, so a caller can follow its events.
    """
    from studio.critic import DEFAULT_CRITIC_MODEL, stored_critiques
    from studio.lab.experiment import built
    from studio.lab.runner import run_experiment
    from studio.engine.forms import load_play

    if seed is None:
        seed = load_play(play_path).seed
    spec = {"name": f"compare-{secrets.token_hex(4)}", "model": model, "reps": 1, "concurrency": 1,
            "compare": {"play": str(play_path), "turns": turns, "seed": seed,
                        "critic": critic_model or model or DEFAULT_CRITIC_MODEL}}
    experiment = built("compare", {k: v for k, v in spec.items() if v is not None})
    outcome = await run_experiment(store, experiment, gateway=gateway,
                                   on_engine=(lambda trial, engine: on_run(LABELS[trial.condition], engine))
                                   if on_run is not None else None)
    done = [outcome.finished[k] for k in ("without/0", "with/0") if k in outcome.finished]
    critiques = {c.id: c for r in done for c in stored_critiques(store, r["run"])}
    return Comparison(str(play_path), tuple(r["run"] for r in done), tuple(critiques[r["critique"]] for r in done),
                      {LABELS[k.split("/")[0]]: (outcome.runs.get(k), error) for k, error in outcome.failed.items()})
