"""The `interview` experiment kind: characters interviewed N times, each interview assessed by up to four
methods, beside the self-report baselines, and the measured Big Five compared with a target the
character's prompt does not state.

An experiment file's own table:

    kind = "interview"
    reps = 3
    [interview]
    characters = ["characters/wren_cartographer.toml", "characters/tobias_baker.toml"]
    labels = "labels/big_five.toml"  # the target: a label file the characters never see
    scale = "ipip50"                 # or "mini"
    methods = ["oc", "doc", "er_all", "er_batch"]
    conditions = ["interview", "sr", "sr_cot"]
    assessor = "local/smollm2"       # optional: the assessor's model (default: the experiment's model)

The target (`target`) is a label file (`labels`), the sheet's own [traits] kept out of the prompt
("hidden", the default without labels) or, to measure only whether a model repeats its prompt, the
sheet's traits written into it ("sheet"); the report's protocol card says which.

Every repetition of every character and condition is one run in the store and one row in `lab_trials`;
a rerun plays only what is missing and an interview cut off continues its run. The report gives each
dimension's target and measure per method (mean with its interval over repetitions), and per method the
accuracy by the paper's rule (marginal targets left out) beside the strict one, and the scaled MAE; the
published figures of Wang et al. (2024), Table 2, stand beside the studio's under `--paper`.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any, Literal

from pydantic import Field, field_validator, model_validator

from studio.lab import interview as iv
from studio.lab.ipip import SCALES
from studio.lab.kinds import Cell, Radar, Report, Table, TrialContext, TrialSpec, register
from studio.lab.personality import (DIMENSIONS, HIGH, LOW, accuracy, accuracy_paper, mae_paper)
from studio.lab.settings import KindSettings, listed, read

SHORT = {"openness": "O", "conscientiousness": "C", "extraversion": "E", "agreeableness": "A", "neuroticism": "N"}
CONDITIONS = ("interview", *iv.SELF_REPORTS)
TARGETS = {
    "labels": "a label file the characters never see",
    "hidden": "the sheet's [traits], kept out of the character's prompt",
    "sheet": "the sheet's [traits], which are also written into the character's prompt",
}


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


def load_sheet(path: Path, source: str, *, needs_traits: bool = True) -> Any:
    from studio.model import InputError, load_character

    sheet = load_character(path)
    if needs_traits and sheet.traits is None:
        raise InputError(str(path), "traits", "sets no Big Five, so there is no target to compare with",
                         "add a [traits] table (openness, conscientiousness, extraversion, agreeableness, "
                         "neuroticism, each -2 to 2), or give the experiment a label file: labels = \"FILE\"")
    return sheet


def read_labels(path: Path, source: str) -> dict[str, dict[str, float | None]]:
    """A label file: one table per character (by name), each dimension 1-5 or "X" (no label), e.g.

        [Wren]
        openness = 4.5
        extraversion = "X"

    Keyed by the name folded to lower case. Bad input names the file, the field and the fix."""
    from studio.model import InputError
    from studio.model.outside_file import read_outside

    if not path.is_file():
        raise InputError(source, "interview.labels", f"no label file '{path}'",
                         "give the path of a TOML file of Big-Five labels, relative to the experiment file")
    try:
        data = tomllib.loads(read_outside(path, "label table").decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(str(path), None, f"is not TOML: {exc}", "fix the file's syntax") from None
    out: dict[str, dict[str, float | None]] = {}
    for name, table in data.items():
        if not isinstance(table, dict):
            continue  # a note about where the labels come from
        labels: dict[str, float | None] = {}
        for key, value in table.items():
            if key not in DIMENSIONS:
                raise InputError(str(path), f"{name}.{key}", "is not a Big-Five dimension",
                                 f"use {', '.join(DIMENSIONS)}")
            if value == "X":
                labels[key] = None
            elif isinstance(value, (int, float)) and not isinstance(value, bool) and LOW <= value <= HIGH:
                labels[key] = float(value)
            else:
                raise InputError(str(path), f"{name}.{key}", f"is {value!r}",
                                 f'give a number from {LOW} to {HIGH}, or "X" where the character has no label')
        out[name.casefold()] = labels
    return out


def _relative(ref: str, source: str) -> Path:
    path = Path(ref)
    if path.is_absolute() or path.is_file() or source in ("", "CHARACTER"):
        return path
    return Path(source).parent / ref


class InterviewSettings(KindSettings):
    """The `[interview]` table: whom to interview, against which target, with which scale and methods."""

    character: str | None = Field(default=None, min_length=1)
    characters: list[str] = Field(default_factory=list, max_length=200)
    scale: str = "mini"
    methods: list[str] = Field(default_factory=lambda: list(iv.METHODS))
    conditions: list[str] = Field(default_factory=lambda: ["interview"])
    target: Literal["labels", "hidden", "sheet"] | None = None
    labels: str | None = Field(default=None, min_length=1)
    seed: int = 1
    assessor: str | None = None  # the assessor's model; default: the character's
    prompts: str | None = Field(default=None, min_length=1)  # a file of the researcher's own prompt texts

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

    @field_validator("conditions")
    @classmethod
    def _conditions(cls, value: list[str]) -> list[str]:
        chosen = listed(value, CONDITIONS, "conditions")
        return [c for c in CONDITIONS if c in chosen]

    @model_validator(mode="after")
    def _whom(self) -> InterviewSettings:
        if self.character is not None and self.characters:
            raise ValueError('names a character and characters; give one list: characters = ["A.toml", "B.toml"]')
        if self.character is None and not self.characters:
            raise ValueError('names no character; add character = "characters/mara_lighthouse.toml"')
        if self.target is None:
            self.target = "labels" if self.labels else "hidden"
        if self.target == "labels" and not self.labels:
            raise ValueError('is "labels" but no label file is given; add labels = "labels/big_five.toml"')
        if self.target != "labels" and self.labels:
            raise ValueError(f'is "{self.target}" but a label file is given too; leave target out to use the labels')
        return self


class InterviewKind:
    name = "interview"
    summary = ("characters interviewed with a Big-Five scale, scored by OC, d-OC and ER beside self-report, "
               "against a target their prompt does not state (Wang et al., 2024)")

    def check(self, spec: dict[str, Any], source: str) -> dict[str, Any]:
        from studio.model import InputError

        own = read(InterviewSettings, spec, "interview", source)
        refs = own.characters or [own.character or ""]
        paths = [find_character(ref, source) for ref in refs]
        if len({p.stem for p in paths}) != len(paths):
            raise InputError(source, "interview.characters", "names the same character twice",
                             "list each character file once")
        labels: dict[str, dict[str, float | None]] = {}
        labels_path = None
        if own.target == "labels":
            assert own.labels is not None
            labels_path = _relative(own.labels, source)
            labels = read_labels(labels_path, source)
        for path in paths:
            sheet = load_sheet(path, source, needs_traits=own.target != "labels")
            if own.target == "labels" and sheet.name.casefold() not in labels:
                raise InputError(str(labels_path), sheet.name, f"holds no labels for {sheet.name} ({path})",
                                 f"add a [{sheet.name}] table with the five dimensions, 1-5")
        reps = spec.get("reps", 1)
        if not isinstance(reps, int) or isinstance(reps, bool) or not 1 <= reps <= 1000:
            raise InputError(source, "reps", f"must be a whole number from 1 to 1000, not {reps!r}", "e.g. reps = 3")
        checked = own.model_dump(exclude_none=True)
        if own.prompts is not None:
            from studio.lab.wording import read as read_wording

            prompts_path = _relative(own.prompts, source)
            checked["prompts"] = str(prompts_path)
            checked["wording"] = read_wording(prompts_path, iv.SLOTS, source, "interview.prompts")
        checked.pop("character", None)
        checked["characters"] = [str(p) for p in paths]
        if labels_path is not None:
            checked["labels"] = str(labels_path)
        return {**spec, "reps": reps, "interview": checked}

    def plan(self, spec: dict[str, Any]) -> list[TrialSpec]:
        """Every character x condition x repetition. A repetition's seed is shared by its conditions, so the
        interview and the self-reports of one repetition are paired. The key of the plain one-character
        interview stays `rep/N`, as it always was, so a rerun of an older experiment finds its trials."""
        own = spec["interview"]
        paths = own["characters"]
        out = []
        for path in paths:
            for condition in own["conditions"]:
                for rep in range(int(spec.get("reps", 1))):
                    parts = ([Path(path).stem] if len(paths) > 1 else []) + \
                            ([condition] if condition != "interview" else []) + ["rep", str(rep)]
                    label = " ".join(([Path(path).stem] if len(paths) > 1 else []) + [condition])
                    out.append(TrialSpec("/".join(parts), label, rep,
                                         {"seed": own["seed"] + rep, "character": path, "mode": condition}))
        return out

    async def run_trial(self, ctx: TrialContext, trial: TrialSpec) -> dict[str, Any]:
        from studio.model.play import DEFAULT_MODEL

        own = ctx.spec["interview"]
        path = trial.params.get("character") or own["characters"][0]
        mode = trial.params.get("mode", "interview")
        sheet = load_sheet(Path(path), ctx.source, needs_traits=own["target"] != "labels")
        model = ctx.model or DEFAULT_MODEL
        run_id = ctx.run_id
        if run_id is None:
            cast = iv.interview_cast(sheet, own["scale"], model=model, seed=trial.params["seed"], source=path,
                                     mode=mode, hide_traits=own["target"] != "sheet", wording=own.get("wording"))
            options = {"model": model, "seed": trial.params["seed"], "experiment": ctx.spec.get("name", "interview")}
            run_id = await iv.interview(ctx.store, ctx.gateway, cast, options=options, started=ctx.started)
        else:
            await iv.interview(ctx.store, ctx.gateway, run_id=run_id)
        given = iv.answers(ctx.store, run_id, own["scale"])
        chosen = [a for a in given if a.usable]  # an item without an answer is invalid: left out, never scored
        assessor = own.get("assessor") or model
        if mode in iv.SELF_REPORTS:
            result = await iv.self_report(chosen, mode, gateway=ctx.gateway, model=assessor, names=names_of(sheet.name),
                                          wording=own.get("wording"))
        else:
            result = await iv.assess(chosen, own["methods"], gateway=ctx.gateway, model=assessor,
                                     names=names_of(sheet.name), shuffle=trial.rep or None, wording=own.get("wording"))
        return {"run": run_id, "rep": trial.rep, "seed": trial.params["seed"], "character": sheet.name,
                "condition": mode, "answers": len(chosen), "unanswered": iv.unanswered(given, own["scale"]), **result}

    def report(self, spec: dict[str, Any], results: dict[str, dict[str, Any]]) -> Report:
        own = spec["interview"]
        targets = targets_of(own)
        methods = (own["methods"] if "interview" in own["conditions"] else []) + \
                  [c for c in own["conditions"] if c in iv.SELF_REPORTS]
        names = list(targets)
        who = names[0] if len(names) == 1 else f"{len(names)} characters"
        report = profile_report(targets, methods, list(results.values()),
                                title=f"The personality interview: {who}, {SCALES[own['scale']]}",
                                scale=own["scale"])
        report.protocol = protocol(own, int(spec.get("reps", 1)))
        report.paper = reproduction(report, list(results.values()))
        return report


def targets_of(own: dict[str, Any]) -> dict[str, dict[str, float | None]]:
    """Each character's target (by name), from the label file or the sheet's traits as the settings say."""
    labels = read_labels(Path(own["labels"]), "") if own["target"] == "labels" else {}
    out: dict[str, dict[str, float | None]] = {}
    for path in own["characters"]:
        sheet = load_sheet(Path(path), "", needs_traits=own["target"] != "labels")
        out[sheet.name] = labels[sheet.name.casefold()] if own["target"] == "labels" else dict(iv.designed(sheet) or {})
    return out


def names_of(name: str) -> list[str]:
    """The character's name and each word of it: what the assessor must not read."""
    return [name, *[w for w in name.split() if len(w) > 1]]


def _mean_cell(values: list[float], digits: int = 2, within: tuple[float, float] = (LOW, HIGH)) -> Cell:
    """The mean with its t interval, the interval cut to what the quantity can be (`within`): with two or
    three repetitions a t interval runs far past both ends of a 1-5 score or a 0-100 MAE."""
    from studio.lab.stats import mean_ci

    if not values:
        return Cell(None, n=0, digits=digits)
    est = mean_ci(values)
    return Cell(float(est.mean), max(within[0], float(est.low)), min(within[1], float(est.high)), est.n, digits)


def _rate_cell(hits: list[bool], scale: float = 100.0) -> Cell:
    """A share with its Wilson 95% interval, which stays within 0-100% by construction."""
    if not hits:
        return Cell(None, n=0, digits=1)
    from studio.lab.stats import wilson

    k, n = sum(hits), len(hits)
    low, high = wilson(k / n, n)
    return Cell(scale * k / n, scale * low, scale * high, n, 1)


def _by_character(values: dict[str, list[Any]], scale: float = 100.0, digits: int = 1,
                  within: tuple[float, float] = (0.0, 100.0), rate: bool = True) -> Cell:
    """A share (or a mean) over characters: each character's repetitions and dimensions share its sheet, so
    the characters are the replications (`stats.clustered`: a t interval over the characters' own values on
    characters - 1 df, widened to the interval of the pooled values where that is wider). One character: the
    pooled interval, about that character alone. n is the number of characters."""
    from studio.lab.stats import Estimate, clustered

    kept = {name: v for name, v in values.items() if v}
    pooled = [x for v in kept.values() for x in v]
    if not pooled:
        return Cell(None, n=0, digits=digits)
    cell = _rate_cell(pooled, scale) if rate else _mean_cell(pooled, digits, within)
    if len(kept) < 2:
        return Cell(cell.value, cell.low, cell.high, len(kept), digits)
    units = [scale * sum(v) / len(v) if rate else sum(v) / len(v) for v in kept.values()]
    if cell.value is None or cell.low is None or cell.high is None:
        return Cell(cell.value, cell.low, cell.high, len(kept), digits)
    est = clustered(units, Estimate(len(pooled), float(cell.value), float(cell.low), float(cell.high)),
                    within[0], within[1])
    return Cell(est.mean, est.low, est.high, est.n, digits)


def _target_shown(value: float | None) -> Any:
    return "X" if value is None else Cell(value, digits=1)


def agreement(targets: dict[str, dict[str, float | None]], method: str,
              results: list[dict[str, Any]]) -> dict[str, Any]:
    """One method's agreement over every character and repetition that measured it: the paper's rule and
    the strict one, per dimension and in full, and the scaled MAE (percent, as the paper prints it)."""
    paper_dim: dict[str, list[bool]] = {}
    paper_full: dict[str, list[bool]] = {}
    strict_dim: dict[str, list[bool]] = {}
    strict_full: dict[str, list[bool]] = {}
    per_dim: dict[str, dict[str, list[bool]]] = {d: {} for d in DIMENSIONS}
    maes: dict[str, list[float]] = {}
    invalid = 0
    for r in results:
        measured = r.get("measured", {}).get(method)
        if measured is None:
            continue
        invalid += int(r.get("invalid", {}).get(method, 0))
        who = r.get("character", "")
        target = targets.get(who, next(iter(targets.values())) if len(targets) == 1 else {})
        hit = accuracy_paper(target, measured)
        for d in DIMENSIONS:
            if hit[d] is not None:
                paper_dim.setdefault(who, []).append(bool(hit[d]))
                per_dim[d].setdefault(who, []).append(bool(hit[d]))
        if hit["full"] is not None:
            paper_full.setdefault(who, []).append(bool(hit["full"]))
        known = {d: v for d, v in target.items() if v is not None}
        strict = accuracy(known, measured)
        strict_dim.setdefault(who, []).extend(bool(strict[d]) for d in DIMENSIONS if strict[d] is not None)
        if strict["full"] is not None and len(known) == len(DIMENSIONS):
            strict_full.setdefault(who, []).append(bool(strict["full"]))
        mae = mae_paper(target, measured)
        if mae is not None:
            maes.setdefault(who, []).append(100 * mae)
    return {"acc_dim": _by_character(paper_dim), "acc_full": _by_character(paper_full),
            "mae": _by_character(maes, rate=False), "strict_dim": _by_character(strict_dim),
            "strict_full": _by_character(strict_full),
            "per_dim": {d: _by_character(v) for d, v in per_dim.items()}, "invalid": invalid}


def item_consistency(method: str, results: list[dict[str, Any]], scale: str) -> dict[str, float | None]:
    """Std Item and Std Dim (InCharacter's Table 2) of one method, from each interview's keyed item scores;
    an interview from before they were kept counts for nothing."""
    from studio.lab.ipip import items
    from studio.lab.personality import consistency

    dimension_of = {str(i): item.dimension for i, item in enumerate(items(scale))}
    runs: dict[str, dict[int, dict[str, float]]] = {}
    for r in results:
        scored = (r.get("items") or {}).get(method)
        if scored:
            runs.setdefault(r.get("character", ""), {})[int(r.get("rep", len(runs)))] = scored
    return consistency(runs.values(), dimension_of)


def profile_report(targets: dict[str, dict[str, float | None]], methods: list[str], results: list[dict[str, Any]], *,
                   title: str, scale: str | None = None) -> Report:
    """Target vs measured per character, dimension and method, agreement per method, and the radar of the means.

    `targets` maps a character's name to its target per dimension (1-5; None: no label); a result names
    its character (a result without one belongs to the only character)."""
    several = len(targets) > 1
    only = next(iter(targets)) if len(targets) == 1 else None

    def of(name: str) -> list[dict[str, Any]]:
        return [r for r in results if r.get("character", only) == name]

    rows: list[list[Any]] = []
    means: dict[str, list[float | None]] = {iv.LABELS[m]: [] for m in methods}
    for name, target in targets.items():
        mine = of(name)
        for d in DIMENSIONS:
            row: list[Any] = ([name] if several else []) + [d, _target_shown(target.get(d))]
            for m in methods:
                values = [r["measured"][m][d] for r in mine if r.get("measured", {}).get(m, {}).get(d) is not None]
                cell = _mean_cell(values)
                row.append(cell)
                if not several:
                    means[iv.LABELS[m]].append(cell.value)
            rows.append(row)
    profiles = Table("Target and measured, 1-5 (mean and 95% t interval over repetitions, cut to 1-5)",
                     (["character"] if several else []) + ["dimension", "target"] + [iv.LABELS[m] for m in methods],
                     rows, note=f"{len(results)} trials; X: no label for this dimension")
    agree_rows: list[list[Any]] = []
    for m in methods:
        a = agreement(targets, m, results)
        spread = item_consistency(m, results, scale) if scale else {"std_item": None, "std_dim": None}
        agree_rows.append([iv.LABELS[m], a["acc_dim"], a["acc_full"], a["mae"], a["strict_dim"], a["strict_full"],
                           *[a["per_dim"][d] for d in DIMENSIONS], a["invalid"],
                           *(Cell(spread[k], digits=1) if spread[k] is not None else "-" for k in ("std_item", "std_dim"))])
    if results:
        # What knowing nothing scores: every dimension at the midpoint. A method must beat this to have read anything.
        flat = {d: 3.0 for d in DIMENSIONS}
        a = agreement(targets, "flat", [{"character": n, "measured": {"flat": flat}} for n in targets])
        agree_rows.append(["baseline: all 3", a["acc_dim"], a["acc_full"], a["mae"], a["strict_dim"],
                           a["strict_full"], *[a["per_dim"][d] for d in DIMENSIONS], "-", "-", "-"])
    agreement_table = Table(
        "Agreement with the target, per method (%)",
        ["method", "Acc dim", "Acc full", "MAE", "strict dim", "strict full"] + [SHORT[d] for d in DIMENSIONS]
        + ["invalid replies", "Std Item", "Std Dim"],
        agree_rows,
        note="Acc dim / full and MAE by the paper's rule: a target 2.6-3.4 (40-60% of the range) is marginal and "
             "left out, a measure above 3 is high, else low; strict: every labelled dimension counts and a target "
             "of 3 is hit only by exactly 3. O..N: the paper's rule per dimension. Intervals are over characters "
             "(n: characters), each character's repetitions and dimensions counting once: a t interval over the "
             "characters' own shares or MAEs, widened to the pooled Wilson (shares) or t (MAE) interval where that "
             "is wider, cut to 0-100; one character: the pooled interval. MAE is scaled to the range (0 exact, 100 "
             "as far as the scale allows). Std Item: how far an item's keyed score moves between a character's "
             "runs; Std Dim: how far a dimension's items disagree within a run (the paper's consistency, "
             "section 4.1), each in % of the scale's range, from the item scores of OC, d-OC and the "
             "self-reports; ER rates a dimension whole, so it has neither (-)")
    series: dict[str, list[float | None]] = {}
    if not several and only is not None:
        series["target"] = [targets[only].get(d) for d in DIMENSIONS]
        series.update(means)
    runs = ", ".join(str(r["run"]) for r in results if "run" in r)
    silent = sum(len(r.get("unanswered", [])) for r in results)
    asked = sum(int(r.get("answers", 0)) for r in results) + silent
    notes = [f"{len(results)} interviews (runs {runs or 'none'}).",
             f"{silent} of {asked} items had no usable answer (the character said nothing of its own) and were "
             "left out as invalid, never scored." if asked else "No item was asked.",
             "An assessor reply that was invalid twice is no score: it is left out, never guessed; a self-report "
             "with no option even after the assessor read it counts as the middle (invalid replies)."]
    figures: list[Any] = [Radar("interview", title, list(DIMENSIONS), series)] if series else []
    return Report(title=title, tables=[profiles, agreement_table], figures=figures, notes=notes)


def reproduction(report: Report, results: list[dict[str, Any]]) -> Any:
    """Table 2's Big Five columns (GPT-4 as the interviewer) beside the studio's, method by method; each
    figure's n is the interviews it rests on, as the paper's is (32 characters, three runs)."""
    import dataclasses

    from studio.lab.papers import reproduction as beside

    measured: dict[str, Cell] = {}
    table = next((t for t in report.tables if t.title.startswith("Agreement")), None)
    if table is not None:
        key = {label: m for m, label in iv.LABELS.items()}
        for row in table.rows:
            method = key.get(row[0])
            if method is None:
                continue
            interviews = sum(1 for r in results if r.get("measured", {}).get(method) is not None)
            for i, figure in ((1, "acc_dim"), (2, "acc_full"), (3, "mae"), (-2, "std_item"), (-1, "std_dim")):
                cell = row[i]
                if isinstance(cell, Cell):
                    measured[f"bfi.{method}.{figure}"] = dataclasses.replace(cell, n=interviews)
    return beside("incharacter", measured)


def protocol(own: dict[str, Any], reps: int) -> list[str]:
    """How the trials were run, step by step, and where the studio still differs from the paper."""
    methods = ", ".join(iv.LABELS[m] for m in own["methods"])
    batch = ("one batch a dimension (the paper's rule gives one batch below six answers, so ER (batch) equals ER (all) here)"
             if own["scale"] == "mini" else "batches of three or four answers (ten a dimension: 3, 4, 3)")
    lines = [
        f"Target: {TARGETS[own['target']]}"
        + (f" ({own['labels']})." if own["target"] == "labels" else ".")
        + (" This measures whether the model repeats its prompt, not the character's personality (Wang et al. "
           "compare with human labels the agent never sees, section 4.1)." if own["target"] == "sheet" else ""),
        f"Characters: {len(own['characters'])}; {reps} repetitions of each condition, interview and assessment "
        "both repeated, as the paper's three runs (section 4.1).",
        f"Interview: each item of {SCALES[own['scale']]} asked as an open question in the studio's wording, "
        "each in a fresh context holding only the character and that question (section 3.2; the paper's "
        "repository clears the dialogue before every question); nothing said for one item is held against "
        "another's answer, and an item left without an answer of the character's own is invalid, counted and "
        "left out, never scored.",
        f"Assessment: {methods}, by an assessor told neither the character's name nor the scale's key, "
        "replies held to JSON and asked again once (appendix D.1).",
        f"ER (batch): {batch}; each repetition after the first shuffles a dimension's answers before batching, "
        "as the paper's repository does.",
        "Self-report: SR puts each item with its five options and wants a number; SR-CoT asks for reasons "
        "first, then a 'Choice: N' line; a reply with no clear option is read by the assessor, and one still "
        "without counts as neutral (section 4.1, appendix D.1).",
        "Accuracy: the paper's rule (marginal targets, 40-60% of the range, left out; a measure above the "
        "midpoint high, else low; section 4.1, appendix C) beside the strict rule; MAE over the same dimensions, "
        "scaled to the range.",
        ("Prompts: the researcher's own texts from " + own["prompts"] + " for " + ", ".join(own.get("wording") or {})
         + ", each reply's JSON shape added after the text; the studio's wording for the rest."
         if own.get("prompts") else
         "Prompts: the studio's own wording (not the paper's; `prompts = FILE` runs with a researcher's texts)."),
        "Differs: the scale is the public-domain IPIP (Goldberg, 1992; Mini-IPIP, Donnellan et al., 2006), not "
        "the BFI of 44 items the paper's Big Five figures use (section 4.1), so its items and their number differ.",
        "Differs: the paper's characters are 32 well-known fictional figures labelled by the Personality "
        "Database and annotators (section 4.1, appendix C); the studio's targets come from "
        + ("a label file" if own["target"] == "labels" else "the sheets")
        + ", and its characters are the ones listed here, so the figures compare in kind, not in number.",
        "Differs: the assessor's temperature is 0.2 from the first reply (the paper: 0 first, 0.2 when asking "
        "again, appendix D.1), and the character answers at its sheet's temperature (default 0.7).",
    ]
    return lines


KIND = register(InterviewKind())
