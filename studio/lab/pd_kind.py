"""The iterated Prisoner's Dilemma as Phelps and Russell (2023) ran it, as a kind of experiment for `studio lab run`.

The experiment file's `[pd]` table chooses the groups and partners (all six and all four by default),
the personas repetitions rotate through, and the paper's sampling settings (temperature 0.2, 100 tokens);
`prompts` names a file of the user's own texts to run with instead of the studio's wording,
`hold_to_schema` holds replies to a JSON shape, `mixed_model` adds the paper repository's model fit.
`reps` is the number of trials per group and partner. A trial is a run of the dilemma form
(`studio/engine/forms/dilemma/`): one conversation of six rounds against a rule partner, framed as the
paper frames it, in a run that `studio show`, `export` and the app open and that a trial cut off midway
continues. The lab's record of it (`lab_trials`) keeps the run, the moves, the scores and the model's
replies. The report gives each cell's cooperation rate (Wilson interval) and mean score, the hypotheses
H1-H9 as their words say with Holm's correction (`studio.lab.stats`), the paper's published figures beside
the studio's, and the protocol card: each step with the paper's section, and every remaining difference.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field, field_validator

from studio.engine.forms.dilemma import game as pd
from studio.lab.kinds import Bars, Cell, Grid, Report, Table, TrialContext, TrialSpec, register
from studio.lab.stats import ALPHA
from studio.lab.settings import KindSettings, listed, read
from studio.model import InputError
from studio.model.outside_file import read_outside

# The paper's sampling settings for the dilemma.
TEMPERATURE = 0.2
MAX_TOKENS = 100
SUPPORTED = {True: "yes", False: "no", None: "too few data"}


class PDSettings(KindSettings):
    """The `[pd]` table: which groups meet which partners, the wordings repetitions rotate through, and
    the paper's sampling settings."""

    groups: list[str] = Field(default_factory=lambda: list(pd.GROUPS))
    partners: list[str] = Field(default_factory=lambda: list(pd.PARTNERS))
    wordings: list[int] = Field(default_factory=lambda: [0, 1, 2])
    temperature: float = Field(TEMPERATURE, ge=0, le=2)
    max_tokens: int = Field(MAX_TOKENS, ge=16, le=4096)
    # Also fit a mixed model after the paper's repository (statsmodels): seconds on the paper's 2,160 trials.
    mixed_model: bool = False
    # Hold each reply to a JSON shape naming a project (small models need it to answer at all); the paper
    # asked for free text, read by its "Choice:" line.
    hold_to_schema: bool = False
    # A TOML file of the user's own texts to run with instead of the studio's (relative to this file):
    # `instructions`, `next_round`, `again`, and a `[personas]` table of group = [wordings].
    prompts: str | None = None

    @field_validator("groups")
    @classmethod
    def _groups(cls, value: list[str]) -> list[str]:
        return listed(value, pd.GROUPS, "groups")

    @field_validator("partners")
    @classmethod
    def _partners(cls, value: list[str]) -> list[str]:
        return listed(value, pd.PARTNERS, "partners")

    @field_validator("wordings")
    @classmethod
    def _wordings(cls, value: list[int]) -> list[int]:
        if not value or any(w < 0 for w in value):
            raise ValueError(f"must be a list of wordings counted from 0, not {value!r}; e.g. wordings = [0, 1, 2] "
                             "(each group's three personas)")
        return value


class PDKind:
    name = "pd"
    summary = "the iterated Prisoner's Dilemma: six groups of simulacra against four rule partners (Phelps and Russell)"

    def check(self, spec: dict[str, Any], source: str) -> dict[str, Any]:
        own = read(PDSettings, spec, "pd", source).model_dump()
        texts = read_prompts(own["prompts"], source) if own["prompts"] else {}
        personas = {**pd.GROUPS, **texts.get("personas", {})}
        for group in own["groups"]:
            if max(own["wordings"]) >= len(personas[group]):
                where = own["prompts"] if group in texts.get("personas", {}) else source
                raise InputError(where, "pd.wordings", f"asks for wording {max(own['wordings'])} of the {group} group, "
                                 f"which has {len(personas[group])} (counted from 0)",
                                 f"use wordings below {len(personas[group])}, or give the group more personas")
        return {**spec, "pd": {**own, "texts": texts}}

    def plan(self, spec: dict[str, Any]) -> Grid:
        own = spec["pd"]
        wordings = own["wordings"]

        def trial(cell: tuple[str, str], rep: int) -> TrialSpec:
            group, partner = cell
            wording = wordings[rep % len(wordings)]
            return TrialSpec(trial_key(group, wording, partner, rep), f"{group} vs {partner}", rep,
                             {"group": group, "wording": wording, "partner": partner})

        cells = [(group, partner) for group in own["groups"] for partner in own["partners"]]
        return Grid(cells, int(spec.get("reps", 1)), trial)

    async def run_trial(self, ctx: TrialContext, trial: TrialSpec) -> dict[str, Any]:
        """Play the trial as a run of the dilemma form (studio/engine/forms/dilemma.py), or go on with the
        run an interrupted attempt left; a run that ended on two unreadable replies fails the trial, and
        the next attempt starts a new one."""
        from studio.engine import Engine
        from studio.store import events as ev

        engine = None
        if ctx.run_id is not None:
            engine = Engine(ctx.store, ctx.run_id, ctx.gateway)
            if engine.state.invalid:
                engine = None
        if engine is None:
            cast = trial_cast(ctx.spec, trial, ctx.model, ctx.source)
            options = {"model": ctx.model, "experiment": ctx.spec.get("name", "pd"), "trial": trial.key}
            engine = Engine.create(ctx.store, cast, options, gateway=ctx.gateway)
        ctx.playing(engine)
        await engine.play_to_end()
        state = engine.state
        if state.invalid:
            raise ValueError(state.invalid)
        game = pd.Game(list(state.moves), list(state.partner))
        replies = [e.data.get("reply", e.text) for e in engine.path if e.role == "simulacrum" and e.kind in (ev.STAGE, ev.CHOICE)]
        p = trial.params
        return {"run": engine.run_id, "group": p["group"], "wording": p["wording"], "partner": p["partner"],
                "rep": trial.rep, "moves": "".join(game.moves), "partner_moves": "".join(game.partner_moves),
                "total": game.total, "cooperation": game.cooperation, "replies": replies, "usage": engine.usage()}

    def report(self, spec: dict[str, Any], results: dict[str, dict[str, Any]]) -> Report:
        return pd_report(spec, list(results.values()))


def pd_report(spec: dict[str, Any], results: list[dict[str, Any]]) -> Report:
    from studio.lab.papers import reproduction
    from studio.lab.stats import Trial, cells, hypotheses

    own = spec.get("pd", {})
    trials = [Trial(r["group"], r["partner"], float(r["cooperation"]), int(r["total"]), int(r.get("wording", 0)),
                    int(r.get("rep", -1)), max(1, len(r.get("moves", "")) or pd.ROUNDS))
              for r in results]
    table = cells(trials)
    found = hypotheses(trials)
    tables = _tables(own, table, found)
    if own.get("mixed_model"):
        tables.append(_model_table(trials))
    groups = [g for g in own.get("groups", pd.GROUPS)]
    partners = [p for p in own.get("partners", pd.PARTNERS)]
    return Report(
        title=spec.get("title") or "The iterated Prisoner's Dilemma",
        tables=tables,
        figures=[Bars("pd_cooperation", "Cooperation rate by group and partner", groups,
                      _cooperation_series(table, groups, partners), ylabel="cooperation rate")],
        notes=_notes(spec, results),
        protocol=protocol(spec),
        paper=reproduction(PAPER, _measured(table, found)),
    )


def _tables(own: dict[str, Any], table: dict[Any, Any], found: list[Any]) -> list[Table]:
    """The cells, the hypotheses, and each hypothesis's parts."""
    from studio.lab.stats import POWER_GAP

    rows = []
    for (group, partner), cell in table.items():
        c, s = cell["cooperation"], cell["score"]
        rows.append([group, partner, cell["trials"], c.n, Cell(c.mean, c.low, c.high, c.n),
                     Cell(s.mean, s.low, s.high, s.n, 1)])
    tests = [[f.name, f.claim, f.test, f.effect, f.p, f.p_adjusted, SUPPORTED[f.supported], f.power]
             for f in found]
    parts = [[f.name, part.name, part.claim, part.test, part.effect, part.p, SUPPORTED[part.supported], part.power]
             for f in found for part in f.parts]
    power = (f"power: the chance that the test finds a partner gap of {POWER_GAP} at p < 0.05 before Holm's "
             "correction (H6-H9, given the number of personas and the spread of their differences measured, itself "
             "poorly known with three personas; empty for the group hypotheses)")
    return [Table("Cooperation and score per group and partner",
                  ["group", "partner", "trials", "personas", "cooperation", "score"],
                  rows, note=f"temperature {own.get('temperature')}, {own.get('max_tokens')} tokens, "
                  f"payoffs T={pd.T} R={pd.R} P={pd.P} S={pd.S} (dollars), {pd.ROUNDS} rounds; intervals are for the "
                  "group's rate, its personas the replications (t on personas - 1 df)"),
            Table("The paper's hypotheses",
                  ["hypothesis", "claim", "test", "effect", "p", "p (Holm)", "supported", "power"],
                  tests, note="Holm's correction across the nine hypotheses; a hypothesis of several parts holds only if "
                       "every part does: its p is the largest part's, its effect the smallest, its power at most the "
                       "weakest part's; " + power),
            Table("Each hypothesis's parts", ["hypothesis", "part", "claim", "test", "effect", "p", "holds", "power"],
                  parts, note="raw p of each part; the hypothesis holds only if every part does; " + power)]


def _cooperation_series(table: dict[Any, Any], groups: list[str], partners: list[str]) -> dict[str, list[tuple[float, float, float]]]:
    """Each partner's cooperation rate with every group, for the bar chart; a cell with no trials is a gap."""
    nan = (float("nan"),) * 3
    series = {}
    for partner in partners:
        values = []
        for group in groups:
            rate = table.get((group, partner), {}).get("cooperation")
            values.append((rate.mean, rate.low, rate.high) if rate is not None else nan)  # Wilson: within 0-1
        series[pd.PARTNER_WORDS[partner]] = values
    return series


def _notes(spec: dict[str, Any], results: list[dict[str, Any]]) -> list[str]:
    """What was played and what it cost, and how the report's numbers are to be read."""
    calls = sum(int((r.get("usage") or {}).get("calls", 0)) for r in results)
    tokens = sum(int((r.get("usage") or {}).get(k, 0)) for r in results for k in ("prompt_tokens", "completion_tokens"))
    moves = "".join(r.get("moves", "") for r in results)
    return [f"{len(results)} trials on {spec.get('model')}, {len(moves)} moves ({moves.count(pd.C)} C, {moves.count(pd.D)} D); "
            f"{calls} calls, {tokens} tokens.",
            "Effects are differences of mean cooperation rates in the direction each hypothesis predicts (H4: the "
            "smallest absolute difference of any pair); a hypothesis of several parts is supported only when every "
            "part is, and its p is the largest part's.",
            "Groups are compared persona by persona (H1-H5): every trial of a persona shares its text, so the unit is "
            "the persona, its rate averaged over the partners it met (a partner it missed filled in from its group's "
            "other personas), and each side's error is the spread between its own personas (Welch); partners are "
            "compared within a persona (H6-H9): each persona's difference between two partners is one unit, in a "
            "paired t test over the group's personas.",
            f"The nine p-values are corrected together by Holm's method (Holm, 1979): 'supported' means the adjusted p "
            f"is below {ALPHA}; 'too few data' when a side has no trials, a group comparison has fewer than "
            "two personas a side to measure their spread, or a partner comparison fewer than two personas.",
            "A cell's cooperation rate and score have 95% intervals for the group's value: a t interval over its "
            "personas' means (personas - 1 df), widened to the Wilson interval on the effective number of moves "
            "where that is wider (personas that all agree show no spread)."]


def _measured(table: dict[Any, Any], found: list[Any]) -> dict[str, Cell]:
    """What the paper's published figures are set beside: each hypothesis's verdict and each cell's rate."""
    measured: dict[str, Cell] = {f"h{f.name[1:]}": Cell(float(f.supported), n=f.n, digits=0)
                                 for f in found if f.supported is not None}
    for (group, partner), cell in table.items():
        c = cell["cooperation"]
        measured[f"coop_{group}_{partner}"] = Cell(c.mean, c.low, c.high, c.n)
    return measured


PAPER = "phelps_russell"  # studio/lab/data/papers/phelps_russell.toml


def protocol(spec: dict[str, Any]) -> list[str]:
    """The protocol card: how the trials were run, step by step with the section of the paper each step
    follows, then every way this run still differs from the paper's."""
    own = spec.get("pd", {})
    texts = own.get("texts") or {}
    reps, wordings = int(spec.get("reps", 1)), own.get("wordings", [0, 1, 2])
    steps = [
        "Each trial is one conversation with a new simulacrum, closed when the game ends (Methods).",
        "The opening user message holds the persona, then the study's description (Parameters and experimental "
        "protocol: the persona and the study both in the user role, at the start of the chat).",
        f"The study: two investment projects, {pd.LABELS[pd.C]} (cooperate) and {pd.LABELS[pd.D]} (defect); payoffs "
        f"in dollars, both green {pd.dollars(pd.R)} each, both blue {pd.dollars(pd.P)} each, blue against green "
        f"{pd.dollars(pd.T)} to {pd.dollars(pd.S)} (Experimental Design); the answer asked as 'Choice: [...]'.",
        f"{pd.ROUNDS} rounds: each round the simulacrum replies, and its reply stays in the conversation as it wrote "
        "it; a user message then names the partner's project and asks for the next choice (Methods).",
        "Partners are rules: unconditional defect, unconditional cooperation, tit-for-tat starting with C or D, "
        "which answer the simulacrum's previous choice (Experimental Conditions).",
        f"Sampling: temperature {own.get('temperature')}, at most {own.get('max_tokens')} tokens a reply "
        "(Parameters and experimental protocol).",
        f"{reps} trials per group and partner, the group's personas {', '.join(str(w + 1) for w in wordings)} in turn.",
        unit_of_replication(reps, wordings),
        "A move is read from the reply's 'Choice:' line, else from the one project (or move) it names, a negated "
        "one counting as the other (Data Collection and Analysis: a regular expression).",
    ]
    differences = []
    if texts:
        differences.append(f"The texts are the user's own, from {own.get('prompts')} "
                           f"({', '.join(k for k in texts if k != 'personas' or texts[k])}); the rest are the studio's.")
    if not texts.get("personas") or not texts.get("instructions"):
        differences.append("The personas and the investigator's messages are the studio's own words for the paper's "
                           "(Appendices A and B); name a file of the paper's texts with [pd] prompts to run those.")
    differences += [
        "The simulacra's model is the run's own; the paper's was gpt-3.5-turbo (Participants and Simulacra).",
        "A reply that names no project is asked once more, in the conversation; the paper's script counted that "
        "trial as missing (Data Collection and Analysis).",
        "The paper states N = 30 chats per condition (Experimental Design); its script at the time played 30 for "
        "each of a group's three personas, 90 per group and partner.",
        "The paper judged the hypotheses from its figures without tests (Conclusion); the studio tests each as its "
        "words say, groups persona by persona, corrected by Holm's method.",
        "Tit-for-tat answers the simulacrum's previous choice, as the paper defines it (Experimental Conditions); as "
        "we read its script of the time, its tit-for-tat read the partner's own last announcement and so kept "
        "its first choice.",
    ]
    empty = _empty_personas(own)
    if empty:
        steps.append(f"Control persona {', '.join(map(str, empty))} is empty, as the paper's third: the opening user "
                     "message is the study's description alone (Appendix A).")
    else:
        differences.append("The paper's third control persona was empty; the control personas run here each say a "
                           "sentence (an empty one in the prompts file runs as the paper's).")
    if own.get("hold_to_schema"):
        differences.append("Replies are held to a JSON shape naming a project ([pd] hold_to_schema); the paper's "
                           "were free text.")
    if own.get("mixed_model"):
        differences.append("The mixed model is linear in each trial's rate with a random intercept per persona (REML); "
                           "the paper's repository fits a beta-binomial model of the count of cooperative choices.")
    if own.get("temperature") != TEMPERATURE or own.get("max_tokens") != MAX_TOKENS:
        differences.append(f"Sampling differs from the paper's temperature {TEMPERATURE} and {MAX_TOKENS} tokens.")
    return steps + ["Differences from the paper: " + d for d in differences]


def unit_of_replication(reps: int, wordings: list[int]) -> str:
    """The protocol card's line on what the group verdicts count as one replication, and what it costs."""
    personas = min(reps, len(wordings))
    line = (f"Unit of replication for the group hypotheses (H1-H5): the persona, {personas} a group, since every "
            "trial of a persona shares its text; a Welch t test on persona means, each side's error the spread "
            "between its own personas. Partner hypotheses (H6-H9) take each persona's difference between two "
            "partners as one unit, in a paired t test over the group's personas.")
    if personas < 2:
        return line + (" With one persona a group, a group cannot be told from its persona: H1-H9 have too few "
                       "data.")
    if personas <= 3:
        return line + (f" {personas} personas a group give little power: only a gap large against the persona "
                       "spread is found, however many trials each persona plays (docs/lab/dilemma.md gives the power).")
    return line


def _model_table(trials: list[Any]) -> Table:
    """The mixed model after the paper's repository, when the experiment asks for it (`mixed_model = true`)."""
    from studio.lab.stats import MIXED_FORMULA, mixed_model

    fitted = mixed_model(trials)
    title = "Mixed model: cooperation by group and group x partner, a random intercept per simulacrum"
    columns = ["term", "estimate", "se", "p"]
    if fitted is None:
        return Table(title, columns, [], note="not fitted: it needs the control group and the unconditional defector "
                                               "as references, rates that differ, and a fit that converges")
    terms, spread = fitted
    return Table(title, columns, [[t.term, t.estimate, t.se, t.p] for t in terms],
                 note=f"linear mixed model of each trial's rate (statsmodels MixedLM, REML); estimates are differences "
                      f"of rates from the references (control, always_defect); personas' sd {spread:.3f}; its Wald p "
                      f"reads the normal curve, as if the personas were many: the verdicts above test persona means; "
                      f"formula rate ~ {MIXED_FORMULA}")


def trial_key(group: str, wording: int, partner: str, rep: int) -> str:
    """A trial's key, the same from one run of the command to the next (`lab pd` and `lab run` alike)."""
    return f"{group}/{wording}/{partner}/{rep}"


# What an empty control persona's sheet says where the studio shows a cast; the model is never sent it.
EMPTY_PERSONA = "No persona: the study's description alone, as the paper's empty control."


def _empty_personas(own: dict[str, Any]) -> list[int]:
    """The control personas the run plays that are empty (counted from 1)."""
    control = ((own.get("texts") or {}).get("personas") or {}).get("control", [])
    return [w + 1 for w in own.get("wordings", []) if "control" in own.get("groups", []) and w < len(control) and not control[w]]


def trial_cast(spec: dict[str, Any], trial: TrialSpec, model: str, source: str = "") -> Any:
    """One trial's cast: the simulacrum (its group's wording as its sheet) against a rule partner."""
    from studio.llm.sampling import EMBEDDED_TEMPERATURE_SCALE, is_embedded
    from studio.model.play import (Cast, CastMember, CharacterSheet, Play, ResolvedCast, ResolvedRole,
                                   SuperegoSettings)

    own, p = spec["pd"], trial.params
    group, partner = p["group"], p["partner"]
    texts = own.get("texts") or {}
    persona = (texts.get("personas") or {}).get(group, pd.GROUPS[group])[p["wording"]]
    facts: dict[str, Any] = {"pd.schema": bool(own.get("hold_to_schema", False))}
    if not persona:  # the paper's empty control: the study's description opens the conversation alone
        facts["pd.no_persona"] = True
        persona = EMPTY_PERSONA
    facts.update({f"pd.{name}": texts[name] for name in ("next_round", "again") if name in texts})
    me = f"Simulacrum {trial.rep + 1} ({group.replace('_', '-')})"
    them = f"Partner ({pd.PARTNER_WORDS[partner]})"
    play = Play(title=f"Prisoner's Dilemma: {group.replace('_', '-')} against {pd.PARTNER_WORDS[partner]}, "
                      f"trial {trial.rep + 1}",
                premise=pd.instructions(pd.ROUNDS, texts.get("instructions")), turns=pd.ROUNDS, scenes=1,
                epilogue=False, form="dilemma", facts=facts,
                seed=trial.rep, cast=Cast(ego=CastMember(character=me), others=[CastMember(character=them, rule=f"pd_{partner}")]))
    # The engine halves every temperature sent to the embedded model (studio/llm/sampling.py); the
    # experiment's temperature is what the call is sent with, so the seat asks for twice it there.
    temperature = own["temperature"] / EMBEDDED_TEMPERATURE_SCALE if is_embedded(model) else own["temperature"]
    from studio.model.play import DEFAULT_CONTEXT_TOKENS

    roles = [
        ResolvedRole(key="simulacrum", kind="other", sheet=CharacterSheet(name=me, prompt=persona,
                     description=f"a simulacrum of the {group.replace('_', '-')} group, wording {p['wording'] + 1}"),
                     model=model, temperature=min(2.0, temperature), max_tokens=own["max_tokens"],
                     context_tokens=DEFAULT_CONTEXT_TOKENS),
        ResolvedRole(key="partner", kind="other", sheet=CharacterSheet(name=them, prompt=f"A partner who plays by rule: {pd.PARTNER_WORDS[partner]}.",
                     description=pd.PARTNER_WORDS[partner]),
                     model=model, temperature=0.0, max_tokens=16, context_tokens=DEFAULT_CONTEXT_TOKENS,
                     rule=f"pd_{partner}"),
    ]
    return ResolvedCast(play=play, play_path=source, roles=roles, superego=SuperegoSettings(enabled=False))


def read_prompts(name: str, source: str) -> dict[str, Any]:
    """The user's own texts (`[pd] prompts`), checked whole before any trial runs: each text a string whose
    placeholders are the ones `game.PLACEHOLDERS` lists, each persona words. The path is taken relative to
    the experiment file."""
    import tomllib
    from pathlib import Path

    from studio.model.play import MAX_PROMPT

    base = Path(source).parent if Path(source).is_file() else Path(".")
    path = base / name
    where = str(path)
    if not path.is_file():
        raise InputError(source, "pd.prompts", f"names {where}, which is not a file",
                         "give the path of a TOML file of your texts, relative to the experiment file")
    try:
        data = tomllib.loads(read_outside(path, "prompt table").decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise InputError(where, None, f"is not UTF-8 TOML ({exc})", "fix the line it names") from None
    known = [*pd.PLACEHOLDERS, "personas"]
    for key in data:
        if key not in known:
            raise InputError(where, key, "is not one of the texts", f"use only {', '.join(known)}")
    out: dict[str, Any] = {}
    for key, allowed in pd.PLACEHOLDERS.items():
        if key not in data:
            continue
        text = data[key]
        limit = MAX_PROMPT if key == "instructions" else 500
        if not isinstance(text, str) or not text.strip() or len(text) > limit:
            raise InputError(where, key, f"must be text of 1 to {limit} characters", f'e.g. {key} = """..."""')
        try:
            text.format(**{a: "" for a in allowed})
        except (KeyError, IndexError, ValueError) as exc:
            raise InputError(where, key, f"has a placeholder it cannot fill ({exc})",
                             f"use only {', '.join('{' + a + '}' for a in allowed)}; write {{{{ and }}}} for a brace") from None
        out[key] = text
    personas = data.get("personas", {})
    if not isinstance(personas, dict):
        raise InputError(where, "personas", "must be a table", 'write [personas] and then cooperative = ["...", "..."]')
    out["personas"] = {}
    for group, wordings in personas.items():
        if group not in pd.GROUPS:
            raise InputError(where, f"personas.{group}", "is not a group", f"use some of {', '.join(pd.GROUPS)}")
        if (not isinstance(wordings, list) or not wordings
                or any(not isinstance(w, str) or len(w) > MAX_PROMPT for w in wordings)):
            raise InputError(where, f"personas.{group}", f"must be a list of personas, each words (1 to {MAX_PROMPT} characters)",
                             f'e.g. {group} = ["You are ...", "You are ..."]')
        if group != "control" and any(not w.strip() for w in wordings):
            raise InputError(where, f"personas.{group}", "has an empty persona, which only the control group may have "
                             "(the paper's third control persona was empty)", f"give each {group} persona words")
        out["personas"][group] = [w if w.strip() else "" for w in wordings]
    return out


KIND = register(PDKind())
