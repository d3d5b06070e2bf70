"""Does the inner voice help? The Drama Machine's Table 2 as a repeated experiment (Magee et al., 2024).

One play, run N times without and N times with the superego; repetition r of every condition shares the
seed base + r, so the runs of a repetition differ only by the inner voice. As the paper's critic did
(section 5.1), the Critic reads the two scripts of a repetition together and scores each on the four
criteria (`reading = "paired"`, the default; `"single"` scores each run alone); unlike the paper's, it
reads blind: the scripts are A and B, each first in half the repetitions (the order alternates, one more
of one order in an odd number), so neither what the Critic expects of an inner voice nor a leaning towards
the script it reads second can pass for the inner voice's effect. The report gives each criterion's mean
per condition with its 95% t interval, and the same with each place counted alike (position-adjusted: what
the paper's figures are set beside); the difference, pair by repetition (what a seed does to both runs
cancels), with the position's effect estimated beside it; and the four criteria of a comparison corrected
together by Holm. An invalid
critique is no score: it is counted and left out, never read as 0.

In the paired reading a trial is a repetition: its runs, one per condition, are played in turn and
read together; each is an ordinary run in the store (`studio show`, `export`, the app open it), the
trial a row in `lab_trials`, so a rerun plays only what is missing and continues a run left unfinished.
"""

from __future__ import annotations

import math
import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from typing import Literal

from pydantic import Field, field_validator, model_validator

from studio.lab.kinds import Bars, Cell, Report, Table, TrialContext, TrialSpec, register
from studio.lab.settings import KindSettings, read
from studio.lab.stats import holm
from studio.lab.wording import Slot

# The prompts an experiment's own prompt file may replace (studio.lab.wording).
SLOTS = {
    "critic_system": Slot("the Critic's system message"),
    "critic_pair": Slot("the Critic's request to read both scripts of a repetition",
                        ("ego", "others", "criteria", "script_a", "script_b", "script_1", "script_2")),
}

CONDITIONS = ("without", "with", "critic_loop")
LABELS = {"without": "without the superego", "with": "with the superego",
          "critic_loop": "with the superego, the Critic talking back", "paired": "every condition, read together"}
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
    reading: Literal["paired", "single"] = "paired"
    prompts: str | None = Field(default=None, min_length=1)  # a file of the researcher's own prompt texts
    roles: dict[str, str] | None = None  # a model of its own for a role or character: {ego = "...", superego = "..."}

    @field_validator("roles")
    @classmethod
    def _roles(cls, value: dict[str, str] | None) -> dict[str, str] | None:
        if value is not None and any(not m.strip() or m.strip() == "human" for m in value.values()):
            raise ValueError('each role needs a model\'s name (compare runs unattended, so never "human"); '
                             'e.g. roles = { ego = "ollama_chat/llama3:8b", superego = "openai/gpt-4o" }')
        return value

    @field_validator("conditions")
    @classmethod
    def _conditions(cls, value: list[str]) -> list[str]:
        if not value or any(c not in CONDITIONS for c in value):
            raise ValueError(f"must be some of {list(CONDITIONS)}, not {value!r}; "
                             'use conditions = ["without", "with", "critic_loop"]')
        return list(dict.fromkeys(value))

    @model_validator(mode="after")
    def _reference(self) -> CompareSettings:
        if self.reading == "paired" and ("without" not in self.conditions or len(self.conditions) < 2):
            raise ValueError('reads each run beside the run without the superego, so it needs "without" and '
                             'another condition; use conditions = ["without", "with"], or set reading = "single"')
        return self


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
        try:
            experiment_casts(path, turns=own.turns, seed=own.seed, model=spec.get("model"), roles=own.roles)
        except InputError as err:
            if err.where != "--role":
                raise
            raise InputError(source, "compare.roles", err.problem, err.fix) from None
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
        checked = {**own.model_dump(exclude_none=True), "play": str(path), "seed": 1 if own.seed is None else own.seed}
        if own.prompts is not None:
            from studio.lab.wording import read as read_wording

            prompts = Path(own.prompts) if Path(own.prompts).is_absolute() else base / own.prompts
            checked["prompts"] = str(prompts)
            checked["wording"] = read_wording(prompts, SLOTS, source, "compare.prompts")
        return {**spec, "compare": checked}

    def plan(self, spec: dict[str, Any]) -> list[TrialSpec]:
        own = spec["compare"]
        reps = range(int(spec.get("reps", 1)))
        if own.get("reading", "paired") == "paired":
            return [TrialSpec(f"pair/{rep}", "paired", rep, {"seed": own["seed"] + rep}) for rep in reps]
        return [TrialSpec(f"{condition}/{rep}", condition, rep, {"seed": own["seed"] + rep})
                for rep in reps for condition in own["conditions"]]

    async def run_trial(self, ctx: TrialContext, trial: TrialSpec) -> dict[str, Any]:
        from studio.critic import critique_pair, critique_run

        own = ctx.spec["compare"]
        critic = own.get("critic") or ctx.model or None
        if trial.condition != "paired":
            run = await _play(ctx, trial.condition, trial.params["seed"],
                              {trial.condition: ctx.run_id} if ctx.run_id is not None else {})
            critique = await critique_run(ctx.store, run, model=critic, gateway=ctx.gateway)
            return {"run": run, "condition": trial.condition, "rep": trial.rep, "seed": trial.params["seed"],
                    **_scored(critique)}
        runs: dict[str, int] = {}
        if ctx.run_id is not None:  # an attempt cut off: its runs so far are named in the last run's options
            options = ctx.store.run(ctx.run_id).options
            runs = {k: int(v) for k, v in (options.get("pair_runs") or {}).items()}
            runs[options.get("condition", "with")] = ctx.run_id
        failures = []
        for condition in own["conditions"]:  # "without" first: it is what the others are read beside
            try:
                await _play(ctx, condition, trial.params["seed"], runs)
            except Exception as exc:  # the other conditions still play; the trial fails naming this run
                failures.append(f"run {runs.get(condition)} ({LABELS[condition]}): {exc}")
        if failures:
            raise RuntimeError("; ".join(failures))
        readings: dict[str, dict[str, Any]] = {}
        for condition in own["conditions"]:
            if condition == "without":
                continue
            first = "with" if balanced_first(own["seed"], trial.rep, condition) else "without"
            reference, other = await critique_pair(ctx.store, runs["without"], runs[condition], model=critic,
                                                   gateway=ctx.gateway, wording=own.get("wording"), first=first)
            readings[condition] = {**_scored(other), "beside": _scored(reference)}
            readings.setdefault("without", _scored(reference))  # the first reading scores the reference run
        return {"rep": trial.rep, "seed": trial.params["seed"], "runs": runs, "readings": readings,
                "run": runs[own["conditions"][-1]]}

    def report(self, spec: dict[str, Any], results: dict[str, dict[str, Any]]) -> Report:
        return table_two(spec, list(results.values()))


def balanced_first(seed: int, rep: int, condition: str) -> bool:
    """Whether the run with the inner voice is shown first in repetition `rep`'s reading of `condition`: the
    orders alternate from one repetition to the next, so each script comes first in exactly half of any even
    number of repetitions (and one more time in an odd number, which the report says); which order repetition
    0 gets is drawn from the experiment's seed. Asking again (a trial cut off, a rerun) shows the same order.
    A coin per repetition left one experiment in four of three repetitions with one order only."""
    from studio.critic import with_first

    return with_first(seed, "balanced", condition) == (rep % 2 == 0)


async def _play(ctx: TrialContext, condition: str, seed: int, runs: dict[str, int]) -> int:
    """One condition's run of a repetition played to its end, or continued when `runs` names it; a new run
    is added to `runs` as soon as it exists and names the earlier ones in its options, so a trial cut off
    anywhere finds them all again."""
    from studio.critic import experiment_casts
    from studio.engine import Engine

    own = ctx.spec["compare"]
    run_id = runs.get(condition)
    if run_id is not None:
        engine = Engine(ctx.store, run_id, ctx.gateway)
    else:
        without, with_ = experiment_casts(own["play"], turns=own.get("turns"), seed=seed, model=ctx.model or None,
                                          roles=own.get("roles"))
        cast = without if condition == "without" else with_
        if condition == "critic_loop":
            cast.play = cast.play.model_copy(update={"critic_loop": True})
        options = {"model": ctx.model or None, "no_superego": condition == "without",
                   "critic_loop": condition == "critic_loop", "seed": cast.play.seed, "turns": cast.play.turns,
                   "experiment": ctx.spec.get("name", "compare"), "condition": condition, "pair_runs": dict(runs)}
        engine = Engine.create(ctx.store, cast, options, gateway=ctx.gateway)
        runs[condition] = engine.run_id
    ctx.playing(engine)
    await engine.play_to_end()
    return engine.run_id


def _scored(critique: Any) -> dict[str, Any]:
    scores = {k: v["score"] for k, v in (critique.criteria or {}).items()} if critique.valid else {}
    return {"run": critique.run_id, "valid": critique.valid, "scores": scores, "critique": critique.id,
            "error": critique.error, "character": critique.character,
            **({"shown": critique.shown} if critique.shown is not None else {})}


def readings(results: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every scored run as one record (condition, rep, valid, scores, run), from paired or single trials."""
    out = []
    for r in results:
        if "readings" in r:
            out += [{"condition": c, "rep": r["rep"], **reading} for c, reading in r["readings"].items()]
        else:
            out.append(r)
    return out


def table_two(spec: dict[str, Any], results: list[dict[str, Any]]) -> Report:
    """The paper's Table 2 from finished trials: per criterion, each condition's mean and interval; the
    difference, pair by repetition, with its interval and test; and, beside it, what being shown second
    rather than first did to a score. The four criteria of a comparison are one family, corrected together."""
    from studio.critic import CRITERIA
    from studio.lab.stats import mean_ci

    results = readings(results)
    own = spec.get("compare", {})
    conditions = [c for c in own.get("conditions", CONDITIONS) if c in CONDITIONS]
    valid = {c: [r for r in results if r.get("condition") == c and r.get("valid")] for c in conditions}
    invalid = {c: sum(1 for r in results if r.get("condition") == c and not r.get("valid")) for c in conditions}
    pairs = [(a, b) for a, b in PAIRS if a in conditions and b in conditions]
    rows: list[list[Any]] = []
    bars: dict[str, list[tuple[float, float, float]]] = {LABELS[c]: [] for c in conditions}
    paired = own.get("reading", "paired") == "paired"
    adjusted_rows: list[list[Any]] = []
    for key, (title, _) in CRITERIA.items():
        row: list[Any] = [title]
        adjusted_row: list[Any] = [title]
        for c in conditions:
            scored = [(float(r["scores"][key]), int(r.get("shown", 0))) for r in valid[c] if key in r.get("scores", {})]
            est = _within_scale(mean_ci([score for score, _ in scored]))
            row.append(Cell(est.mean, est.low, est.high, est.n) if est.n else Cell(None, n=0))
            fair = _within_scale(position_adjusted(scored)) if paired else est
            adjusted_row.append(Cell(fair.mean, fair.low, fair.high, fair.n) if fair.n else Cell(None, n=0))
            bars[LABELS[c]].append((fair.mean, fair.low, fair.high))
        rows.append(row)
        adjusted_rows.append(adjusted_row)
    position_rows: list[list[Any]] = [[title] for title, _ in CRITERIA.values()]
    gaps: dict[str, Cell] = {}
    for base, other in pairs:
        found = [effects(*_paired_scores(results, base, other, key)) for key in CRITERIA]
        if (base, other) == ("without", "with"):
            gaps = {key: f["effect"].cells(None)[0] for key, f in zip(CRITERIA, found)}
        for family in ("effect", "position"):
            adjusted = holm([f[family].p for f in found])
            for i, (f, p_holm) in enumerate(zip(found, adjusted)):
                (rows if family == "effect" else position_rows)[i] += f[family].cells(p_holm)
    columns = ["criterion"] + [f"{SHORT[c]}: mean" for c in conditions]
    position_columns = ["criterion"]
    for base, other in pairs:
        columns += [f"{SHORT[other]} - {SHORT[base]}", "p", "p (Holm)", "differs at 5%"]
        position_columns += [f"{SHORT[other]} - {SHORT[base]} read: second - first", "p", "p (Holm)",
                             "differs at 5%"]
    counts = "; ".join(f"{SHORT[c]} = {LABELS[c]}: {len(valid[c])} scored, {invalid[c]} invalid" for c in conditions)
    play = Path(own.get("play", "?")).name
    tables = [Table(f"The Critic's scores (0-10), {play}", columns, rows, note=counts)]
    if pairs and paired:
        tables.append(Table(
            f"Where the Critic read a script: second minus first (0-10), {play}", position_columns, position_rows,
            note="The Critic reads the two scripts as A and B, the order alternating between repetitions; this is what "
                 "being shown second rather than first added to a score, estimated beside the inner voice's "
                 "effect (both from one regression of each pair's difference on its order)."))
    if paired:
        firsts = _first_counts(results, conditions)
        tables.append(Table(
            f"The Critic's scores, each position counted alike (0-10), {play}",
            ["criterion"] + [f"{SHORT[c]}: adjusted mean" for c in conditions], adjusted_rows,
            note="Each condition's mean of its mean score when shown first and its mean score when shown second, so "
                 "a Critic that prefers one place moves neither condition; these are what the paper's figures are "
                 "set beside. Shown first: " + firsts + "."))
    return Report(
        title=f"Does the inner voice help? {play}",
        tables=tables,
        figures=[Bars("compare", f"The Critic's scores, {play}", [t for t, _ in CRITERIA.values()], bars,
                      ylabel="score (0-10)")],
        notes=["An invalid critique is left out, never counted as 0.",
               "A score is 0 to 10, so a mean's interval is shown within 0 to 10 (with few repetitions the t "
               "interval runs far past both ends); the tests use the scores themselves.",
               "Each repetition's runs share a seed: they differ only by the inner voice, so each difference is "
               "taken pair by pair (a repetition missing either score is left out of it). Where both orders "
               "were shown, the difference and the position's effect are estimated together (the pair's "
               "difference regressed on its order, t tests on n - 2 degrees of freedom); where every pair was "
               "shown in one order, the paired t test, and the position cannot be told from the inner voice.",
               "The four criteria of one comparison are corrected together by Holm's method (Holm, 1979, A "
               "Simple Sequentially Rejective Multiple Test Procedure): 'differs at 5%' reads the corrected p."],
        protocol=protocol(own),
        paper=_reproduction(adjusted_rows, conditions, _scenarios(results, own), gaps),
    )


@dataclass(frozen=True)
class Effect:
    """An estimated difference with its 95% interval and two-sided p; `why` says why there is no test."""

    n: int
    value: float | None
    low: float | None = None
    high: float | None = None
    p: float | None = None
    why: str = ""

    def cells(self, p_holm: float | None) -> list[Any]:
        cell = Cell(self.value, self.low, self.high, self.n)
        if self.p is None:
            return [cell, None, None, self.why]
        return [cell, self.p, p_holm, "yes" if p_holm is not None and p_holm < 0.05 else "no"]


def position_adjusted(scored: list[tuple[float, int]]) -> Any:
    """A condition's mean with each place counted alike: the mean of its mean score when shown first and its
    mean score when shown second (`scored`: score and place, 1 or 2), with a t interval from the spread
    within places (n - 2 df). Where every score came from one place (or places are unknown, 0), the plain
    mean stands: there is nothing to balance against."""
    from studio.lab.stats import Estimate, mean_ci

    one = [s for s, place in scored if place == 1]
    two = [s for s, place in scored if place == 2]
    if not one or not two or len(scored) < 3:
        return mean_ci([s for s, _ in scored])
    from scipy import stats

    m1, m2 = sum(one) / len(one), sum(two) / len(two)
    df = len(one) + len(two) - 2
    pooled = (sum((s - m1) ** 2 for s in one) + sum((s - m2) ** 2 for s in two)) / df
    half = float(stats.t.ppf(0.975, df)) * 0.5 * math.sqrt(pooled * (1 / len(one) + 1 / len(two)))
    mean = (m1 + m2) / 2
    return Estimate(len(scored), mean, mean - half, mean + half)


def _first_counts(results: list[dict[str, Any]], conditions: list[str]) -> str:
    """How many repetitions showed each condition's script first, said so a reader sees the balance (an odd
    number of repetitions cannot split evenly)."""
    said = []
    for c in conditions:
        places = [int(r.get("shown", 0)) for r in results if r.get("condition") == c and r.get("valid")]
        if places and any(places):
            said.append(f"{SHORT[c]} {places.count(1)} of {len(places)}")
    text = ", ".join(said) or "not recorded"
    if len(said) and any(int(part.rsplit(" of ", 1)[1]) % 2 for part in said):
        text += " (an odd number of repetitions: one order comes once more)"
    return text


def _paired_scores(results: list[dict[str, Any]], base: str, other: str,
                   key: str) -> tuple[list[float], list[float]]:
    """Each repetition's difference (other minus base) on one criterion, and its order: +1 where `other`'s
    script was shown second and `base`'s first, -1 the other way round, 0 where both sat in the same place
    (two readings). A score read beside `other` is taken from that reading. A reading from before the
    scripts were shown in a drawn order showed the run without the inner voice first."""
    def place(r: dict[str, Any], condition: str) -> int:
        return int(r.get("shown", 1 if condition == "without" else 2))

    base_by_rep = {r["rep"]: r for r in results if r.get("condition") == base and r.get("valid")}
    diffs: list[float] = []
    order: list[float] = []
    for r in results:
        if r.get("condition") != other or not r.get("valid") or key not in r.get("scores", {}):
            continue
        beside = r.get("beside") if base == "without" else None
        a = beside if beside and beside.get("valid") else base_by_rep.get(r["rep"])
        if a is None or key not in a.get("scores", {}):
            continue
        diffs.append(float(r["scores"][key]) - float(a["scores"][key]))
        order.append(float((place(r, other) == 2) - (place(a, base) == 2)))
    return diffs, order


def effects(diffs: list[float], order: list[float]) -> dict[str, Effect]:
    """The inner voice's effect and the position's, from each pair's difference and its order.

    Where the pairs were shown in both orders, d = effect + position x order is fitted by least squares and
    each coefficient tested by t on n - 2 degrees of freedom; where every pair came in one order the two
    cannot be told apart, so the effect is the paired mean (its t test on n - 1) and the position has none."""
    import numpy as np
    from scipy import stats

    from studio.lab.stats import mean_ci

    n = len(diffs)
    if n < 2:
        est = mean_ci(diffs)
        effect = Effect(n, est.mean if n else None, why="too few data")
        return {"effect": effect, "position": Effect(n, None, why="too few data")}
    if len(set(order)) < 2:
        est = mean_ci(diffs)
        spread = any(d != diffs[0] for d in diffs)
        p = float(stats.ttest_1samp(diffs, 0.0).pvalue) if spread else None
        effect = Effect(n, est.mean, est.low, est.high, p, "" if spread else "no spread")
        why = "one order only" if order[0] else "same place in both"
        return {"effect": effect, "position": Effect(n, None, why=why)}
    if n < 3:
        return {"effect": Effect(n, float(np.mean(diffs)), why="too few data"),
                "position": Effect(n, None, why="too few data")}
    x = np.column_stack([np.ones(n), np.asarray(order, dtype=float)])
    y = np.asarray(diffs, dtype=float)
    beta, *_ = np.linalg.lstsq(x, y, rcond=None)
    residual = y - x @ beta
    df = n - 2
    variance = float(residual @ residual) / df
    se = np.sqrt(np.diag(np.linalg.inv(x.T @ x)) * variance)
    crit = float(stats.t.ppf(0.975, df))
    out = {}
    for name, b, e in zip(("effect", "position"), beta, se):
        if variance <= 1e-12:
            out[name] = Effect(n, float(b), why="no spread")
        else:
            t = float(b) / float(e)
            out[name] = Effect(n, float(b), float(b - crit * e), float(b + crit * e), float(2 * stats.t.sf(abs(t), df)))
    return out


def _scenarios(results: list[dict[str, Any]], own: dict[str, Any]) -> list[str]:
    """Which of the paper's scenarios this experiment played, by its protagonist: Jenny's interview or
    Timothy's night with Sasha; a play of neither is none of them."""
    names = {str(r.get("character", "")).split()[0].casefold() for r in results if r.get("character")}
    if not names and own.get("play"):
        try:
            from studio.engine.forms import load_play

            play = load_play(own["play"])
            names = {str(play.cast.ego.character if play.cast.ego else "").casefold()}
        except Exception:  # a play moved since: no scenario is claimed
            names = set()
    return [s for s in SCENARIOS if s in names]


SCENARIOS = ("jenny", "timothy")  # the paper's two scenarios, as its Table 2 names their protagonists
TABLE_2 = ("behavioural_change", "introspection", "narrative_divergence")  # the criteria the paper's Table 2 prints


def _reproduction(rows: list[list[Any]], conditions: list[str], scenarios: list[str],
                  gaps: dict[str, Cell] | None = None) -> Any:
    """The paper's Table 2 rows for the scenario this play is (Jenny's or Timothy's), beside this play's
    position-adjusted means, and the paper's gap (with minus without) beside the fitted effect; a play that is
    neither sets none of its figures beside the paper's."""
    from studio.critic import CRITERIA
    from studio.lab.papers import reproduction

    measured: dict[str, Cell] = {}
    for key in TABLE_2:
        row = rows[list(CRITERIA).index(key)]
        for i, c in enumerate(conditions):
            if c in ("without", "with"):
                for who in scenarios:
                    measured[f"{who}.{c}.{key}"] = row[1 + i]
        for who in scenarios:
            if gaps and key in gaps:
                measured[f"{who}.gap.{key}"] = gaps[key]
    note = "" if scenarios else ("This play is neither of the paper's scenarios (Jenny's interview; Timothy and "
                                 "Sasha), so none of its means is set beside the paper's.")
    return reproduction("drama_machine", measured, only=tuple(f"{who}." for who in scenarios), note=note)


def protocol(own: dict[str, Any]) -> list[str]:
    paired = own.get("reading", "paired") == "paired"
    return [
        "Each repetition plays the play once per condition with the same seed, the runs differing only by "
        "the superego (Magee et al., 2024, section 4).",
        ("The Critic reads the two scripts of a repetition together, as Script A and Script B, and scores each "
         "(section 5.1). It is never told which script has the inner voice, nor that one has: each script is shown "
         "first in half the repetitions (the order alternates, the first repetition's drawn from the "
         "experiment's seed), kept with each critique (`shown`) so a rerun shows the same order, and the report "
         "sets the position's effect beside the inner voice's and the paper's scores beside position-adjusted "
         "means. "
         "Narrative divergence is judged against the predictable arc, the other script being one telling of "
         "the same play." if paired else
         "The Critic reads each run alone, blind to the other (reading = \"single\"); the paper's critic read "
         "both scripts together (section 5.1), and its narrative divergence is relative to the run without "
         "the superego, which a lone reading can only imagine."),
        "The Critic reads the stage and the protagonist's epilogue, never the backstage (the paper's note 13), "
        "and scores four criteria from 0 to 10 with an interpretation each, as defined in section 3.1.",
        "Each difference is taken pair by pair over the repetitions, with the position's effect estimated beside "
        "it, and the four criteria of a comparison corrected together (Holm); the paper reports one reading per "
        "character and no test.",
        ("Prompts: the researcher's own texts from " + own["prompts"] + " for " + ", ".join(own.get("wording") or {})
         + ", the reply's JSON shape added after the text." if own.get("prompts") else
         "Prompts: the studio's own wording (`prompts = FILE` runs with a researcher's texts, e.g. the paper's "
         "command in section 5.1)."),
        "Differs: the paper's Critic was given both transcripts of a scenario and asked, in one short command, to "
        "score the main character's development in the two scripts on the four criteria, named without their "
        "definitions, and to interpret the result; the command did not say which script had the superego. Its "
        "comments on both scenarios find the more developed character in Script 2, the one the paper reads as "
        "the superego's; with one reading of each scenario in one order, a critic's leaning towards the second "
        "script cannot be told from the superego's effect there. The studio's Critic is given the definitions, "
        "and the order is balanced.",
        "Differs: the paper gives each role a model of its own (section 3.2.1): Claude or ChatGPT as the User "
        "(the other) and the Director, Llama 3 variants of 7B-8B parameters as the Ego, Claude 3.5 Sonnet or "
        "GPT-4o as the Superego (in the plot-driven scenario the Ego's 8B model), and Claude 3.5 Sonnet as the "
        "Critic (section 5.1). Here: " + _role_models(own) + " ([compare] roles = { ego = ..., superego = ... } "
        "or --role ROLE=MODEL gives a role its own).",
        "Differs: the paper's Table 2 scores two scenarios (Jenny's interview, Timothy and Sasha) once each; the "
        "studio repeats one play N times and sets its means beside the rows of that play's scenario only, so "
        "they compare with them in kind, not in number.",
    ]


def _role_models(own: dict[str, Any]) -> str:
    """Which model played each role of this experiment, as the protocol card says it."""
    roles = own.get("roles") or {}
    shown = [f"{role} {model}" for role, model in sorted(roles.items())]
    rest = "every other role the experiment's model" if shown else "every role the experiment's model"
    critic = own.get("critic")
    return ", ".join(shown + [rest]) + (f", the Critic {critic}" if critic else ", the Critic the experiment's model")


def _within_scale(est: Any, low: float = 0.0, high: float = 10.0) -> Any:
    """The estimate with its interval cut to what a score can be."""
    import dataclasses

    if est.n == 0 or math.isnan(est.mean) or math.isnan(est.low):
        return est
    return dataclasses.replace(est, low=max(low, est.low), high=min(high, est.high))


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
    pair = outcome.finished.get("pair/0")
    done = [pair["readings"][c] for c in ("without", "with")] if pair else []
    critiques = {c.id: c for r in done for c in stored_critiques(store, r["run"])}
    failed: dict[str, tuple[int | None, str]] = {}
    for key, error in outcome.failed.items():
        for part in error.split("; "):
            found = re.match(r"run (\d+|None) \((.+?)\): (.*)", part, re.S)
            if found:
                failed[found.group(2)] = (None if found.group(1) == "None" else int(found.group(1)), found.group(3))
            else:
                failed["the pair of runs"] = (outcome.runs.get(key), part)
    return Comparison(str(play_path), tuple(r["run"] for r in done), tuple(critiques[r["critique"]] for r in done),
                      failed)
