"""The `interview` experiment kind: a character interviewed N times, each interview assessed by up to four
methods, and the measured Big Five compared with the one its sheet was designed with.

An experiment file's own table:

    kind = "interview"
    reps = 3
    [interview]
    character = "characters/mara_lighthouse.toml"
    scale = "mini"                 # or "ipip50"
    methods = ["oc", "doc", "er_all", "er_batch"]
    assessor = "local/smollm2"     # optional: the assessor's model (default: the experiment's model)

Every repetition is one interview run in the store and one row in `lab_trials`; a rerun plays only what
is missing and an interview cut off continues its run. The report gives each dimension's designed and
measured score (mean and standard deviation over repetitions), and per method the mean absolute error
scaled to the range and the accuracy (same side of the midpoint) per dimension and in full.
"""

from __future__ import annotations

import statistics
from pathlib import Path
from typing import Any

from pydantic import Field, field_validator

from studio.lab import interview as iv
from studio.lab.ipip import SCALES
from studio.lab.kinds import Radar, Report, Table, TrialContext, TrialSpec, register
from studio.lab.personality import DIMENSIONS, accuracy, mae_scaled
from studio.lab.settings import KindSettings, read

SHORT = {"openness": "O", "conscientiousness": "C", "extraversion": "E", "agreeableness": "A", "neuroticism": "N"}


def find_character(ref: str, source: str = "CHARACTER") -> Path:
    """A character file from a path or a stem (looked up in ./characters and beside the studio package)."""
    from studio.model import InputError

    import studio

    path = Path(ref)
    if path.is_file():
        return path
    roots = [Path.cwd(), Path(source).parent if source not in ("CHARACTER", "") else Path.cwd(),
             Path(studio.__file__).resolve().parent.parent]
    for root in roots:
        for candidate in (root / ref, root / "characters" / f"{ref}.toml", root / "characters" / ref):
            if candidate.is_file():
                return candidate
    raise InputError(source, "character", f"no character file '{ref}'",
                     "give a path to a character's .toml, or a name in characters/, e.g. mara_lighthouse")


def load_sheet(path: Path, source: str) -> Any:
    from studio.model import InputError, load_character

    sheet = load_character(path)
    if sheet.traits is None:
        raise InputError(str(path), "traits", "sets no Big Five, so there is no design to compare with",
                         "add a [traits] table: openness, conscientiousness, extraversion, agreeableness, "
                         "neuroticism, each -2 to 2")
    return sheet


class InterviewSettings(KindSettings):
    """The `[interview]` table: whom to interview, with which scale, scored by which methods."""

    character: str = Field(min_length=1)
    scale: str = "mini"
    methods: list[str] = Field(default_factory=lambda: list(iv.METHODS))
    seed: int = 1
    assessor: str | None = None  # the assessor's model; default: the character's

    @field_validator("scale")
    @classmethod
    def _scale(cls, value: str) -> str:
        if value not in SCALES:
            raise ValueError(f"is {value!r}, not a scale studio ships; use one of: {', '.join(SCALES)}")
        return value

    @field_validator("methods")
    @classmethod
    def _methods(cls, value: list[str]) -> list[str]:
        if not value or any(m not in iv.METHODS for m in value):
            raise ValueError(f"must be some of {list(iv.METHODS)}, not {value!r}; "
                             'use methods = ["oc", "doc", "er_all", "er_batch"]')
        return [m for m in iv.METHODS if m in value]


class InterviewKind:
    name = "interview"
    summary = "a character interviewed with a Big-Five scale, scored by OC, d-OC and ER against its design (Wang et al., 2024)"

    def check(self, spec: dict[str, Any], source: str) -> dict[str, Any]:
        from studio.model import InputError

        if not (spec.get("interview") or {}).get("character"):
            raise InputError(source, "interview.character", "names no character",
                             'add character = "characters/mara_lighthouse.toml"')
        own = read(InterviewSettings, spec, "interview", source)
        path = find_character(own.character, source)
        load_sheet(path, source)
        reps = spec.get("reps", 1)
        if not isinstance(reps, int) or isinstance(reps, bool) or not 1 <= reps <= 1000:
            raise InputError(source, "reps", f"must be a whole number from 1 to 1000, not {reps!r}", "e.g. reps = 3")
        return {**spec, "reps": reps, "interview": {**own.model_dump(exclude_none=True), "character": str(path)}}

    def plan(self, spec: dict[str, Any]) -> list[TrialSpec]:
        own = spec["interview"]
        return [TrialSpec(f"rep/{rep}", "interview", rep, {"seed": own["seed"] + rep})
                for rep in range(int(spec.get("reps", 1)))]

    async def run_trial(self, ctx: TrialContext, trial: TrialSpec) -> dict[str, Any]:
        from studio.model.play import DEFAULT_MODEL

        own = ctx.spec["interview"]
        sheet = load_sheet(Path(own["character"]), ctx.source)
        model = ctx.model or DEFAULT_MODEL
        run_id = ctx.run_id
        if run_id is None:
            cast = iv.interview_cast(sheet, own["scale"], model=model, seed=trial.params["seed"],
                                     source=own["character"])
            options = {"model": model, "seed": trial.params["seed"], "experiment": ctx.spec.get("name", "interview")}
            run_id = await iv.interview(ctx.store, ctx.gateway, cast, options=options, started=ctx.started)
        else:
            await iv.interview(ctx.store, ctx.gateway, run_id=run_id)
        chosen = iv.answers(ctx.store, run_id, own["scale"])
        result = await iv.assess(chosen, own["methods"], gateway=ctx.gateway, model=own.get("assessor") or model,
                                 names=names_of(sheet.name))
        return {"run": run_id, "rep": trial.rep, "seed": trial.params["seed"], "answers": len(chosen), **result}

    def report(self, spec: dict[str, Any], results: dict[str, dict[str, Any]]) -> Report:
        own = spec["interview"]
        sheet = load_sheet(Path(own["character"]), "")
        return profile_report(iv.designed(sheet), own["methods"], list(results.values()),
                              title=f"The personality interview: {sheet.name}, {SCALES[own['scale']]}")


def names_of(name: str) -> list[str]:
    """The character's name and each word of it: what the assessor must not read."""
    return [name, *[w for w in name.split() if len(w) > 1]]


def _mean_sd(values: list[float]) -> tuple[float | None, float | None]:
    if not values:
        return None, None
    return statistics.fmean(values), (statistics.stdev(values) if len(values) > 1 else 0.0)


def _shown(mean: float | None, sd: float | None, n: int, of: int) -> str:
    """Mean ± sd; the count only when some repetitions measured nothing here."""
    if mean is None:
        return "-"
    return f"{mean:.2f} ± {sd:.2f}" + (f" (n={n})" if n != of else "")


def profile_report(design: dict[str, float] | None, methods: list[str], results: list[dict[str, Any]], *,
                   title: str) -> Report:
    """Designed vs measured per dimension and method, agreement per method, and the radar of the means."""
    design = design or {}
    rows: list[list[Any]] = []
    means: dict[str, list[float | None]] = {iv.LABELS[m]: [] for m in methods}
    for d in DIMENSIONS:
        row: list[Any] = [d, f"{design[d]:.0f}" if d in design else "-"]
        for m in methods:
            values = [r["measured"][m][d] for r in results if r.get("measured", {}).get(m, {}).get(d) is not None]
            mean, sd = _mean_sd(values)
            row.append(_shown(mean, sd, len(values), len(results)))
            means[iv.LABELS[m]].append(mean)
        rows.append(row)
    profiles = Table("Designed and measured, 1-5 (mean ± sd over repetitions)",
                     ["dimension", "designed"] + [iv.LABELS[m] for m in methods], rows,
                     note=f"designed = the sheet's trait (-2..+2) + 3; {len(results)} repetitions, n where fewer measured")
    agree_rows: list[list[Any]] = []
    for m in methods:
        measured = [r["measured"][m] for r in results if m in r.get("measured", {})]
        maes = [x for x in (mae_scaled(design, p) for p in measured) if x is not None]
        mae, sd = _mean_sd(maes)
        hits = [accuracy(design, p) for p in measured]
        row = [iv.LABELS[m], "-" if mae is None else f"{mae:.3f} ± {sd:.3f}"]
        for key in (*DIMENSIONS, "full"):
            known = [hit for h in hits if (hit := h.get(key)) is not None]
            row.append(f"{sum(known)}/{len(known)}" if known else "-")
        row.append(sum(int(r.get("invalid", {}).get(m, 0)) for r in results))
        agree_rows.append(row)
    if design and results:
        # What knowing nothing scores: every dimension at the midpoint. A method must beat this to have read anything.
        flat = {d: 3.0 for d in DIMENSIONS}
        baseline = accuracy(design, flat)
        mae = mae_scaled(design, flat)
        agree_rows.append(["baseline: all 3", "-" if mae is None else f"{mae:.3f}",
                           *[("hit" if baseline[k] else "miss") for k in (*DIMENSIONS, "full")], "-"])
    agreement = Table("Agreement with the design, per method",
                      ["method", "MAE / range"] + [SHORT[d] for d in DIMENSIONS] + ["full", "invalid replies"],
                      agree_rows,
                      note="accuracy: repetitions where measured and designed sit on the same side of 3 "
                           "(a designed 3 is hit only by exactly 3); MAE / range: 0 exact, 1 as far as the scale allows")
    series: dict[str, list[float | None]] = {"designed": [design.get(d) for d in DIMENSIONS]}
    series.update(means)
    runs = ", ".join(str(r["run"]) for r in results if "run" in r)
    notes = [f"{len(results)} interviews (runs {runs or 'none'}).",
             "An assessor reply that was invalid twice is no score: it is left out, never guessed."]
    return Report(
        title=title,
        tables=[profiles, agreement],
        figures=[Radar("interview", title, list(DIMENSIONS), series)],
        notes=notes,
    )


KIND = register(InterviewKind())
