"""The social game's experiments (Thudium et al., 2024, Outwit, Outplay, Out-Generate) as a kind of
experiment: `studio lab run` and `studio lab game`.

The experiment file's `[game]` table says which: `experiment = "architecture"` (the four cognitive
architectures, two players each, every game; the paper's section 5.1) or `"persona"` (`split` players of
the first and second of `archetypes`, by default 3 charismatic against 3 aloof; section 5.2). `reps` is
the number of games; `players` keeps that many of the play's players per game (the paper's persona games
have 6).

- **architecture**: every game, the players are given the four architectures (none, goals, impressions,
  both: the paper's A-D) in equal numbers, at random (seeded by the game's number).
- **persona**: every game, `split` players are given the two archetypes at random, the rest keep no
  archetype; each player's own sheet is reduced to its name and public description, so that the
  archetype's trait words are the only persona it has. All play with goals and impressions (D).

Each game is an ordinary run in the store (`studio show`, `export` and the app open it); a game cut off
midway continues from its last event. The report (`studio.lab.game_analysis`) gives, per group: the
games won with a Wilson interval and an exact binomial test against chance (seats/players), the mean
placement (ANOVA or Welch's t, Tukey's HSD), the share of talk, move and other actions (its interval
clustered by game: one game's actions share its players and its talk), and the audited
goal-completion scores by priority; then the paper's published figures beside the studio's
(`--paper`) and the protocol card. As in the paper, players voted out in the first round (a near-random
vote) are left out of the placement comparison unless `first_round` is asked for.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import field_validator

from studio.lab.kinds import Bars, Cell, Report, Table, TrialContext, TrialSpec, register
from studio.lab.settings import KindSettings, read

PAPER = "thudium2024"
# The paper's letters for the architectures (its Table 1).
LETTERS = {"none": "A", "goals": "B", "impressions": "C", "both": "D"}


class GameSettings(KindSettings):
    """The `[game]` table."""

    experiment: str
    play: str | None = None  # default: the island that ships with studio
    split: list[int] = [3, 3]  # players of the first and second archetype; "3:3" reads the same
    archetypes: list[str] = ["charismatic", "aloof"]
    players: int | None = None  # keep this many of the play's players per game (default: all)
    first_round: bool = False
    prompts: str | None = None  # a file of the researcher's own prompt texts (see docs/lab/game.md)

    @field_validator("experiment")
    @classmethod
    def _experiment(cls, value: str) -> str:
        if value not in ("architecture", "persona"):
            raise ValueError(f'must be "architecture" or "persona", not {value!r}; e.g. experiment = "architecture"')
        return value

    @field_validator("play", "prompts")
    @classmethod
    def _path(cls, value: str | None) -> str | None:
        if value is not None and not value.strip():
            raise ValueError("must be a file's path, not empty; e.g. play = \"plays/island.toml\"")
        return value

    @field_validator("archetypes")
    @classmethod
    def _archetypes(cls, value: list[str]) -> list[str]:
        from studio.model.archetypes import ARCHETYPES

        if len(value) != 2 or any(str(v).casefold() not in ARCHETYPES for v in value):
            raise ValueError(f"must be two of {', '.join(ARCHETYPES)}, not {value!r}; "
                             'e.g. archetypes = ["charismatic", "aloof"]')
        return [str(v).casefold() for v in value]

    @field_validator("players")
    @classmethod
    def _players(cls, value: int | None) -> int | None:
        if value is not None and value < 3:
            raise ValueError(f"must be 3 or more, not {value}; e.g. players = 6")
        return value

    @field_validator("split", mode="before")
    @classmethod
    def _split(cls, value: Any) -> Any:
        if isinstance(value, str):
            parts = value.split(":", 1)
            value = [int(p) for p in parts] if len(parts) == 2 and all(p.strip().isascii() and p.strip().isdigit() for p in parts) else value
        if (not isinstance(value, list) or len(value) != 2
                or any(not isinstance(s, int) or isinstance(s, bool) or s < 1 for s in value)):
            raise ValueError(f"must be two counts, of the first and the second archetype, not {value!r}; "
                             "e.g. split = [3, 3]")
        return value


@dataclass(frozen=True)
class GamePlan:
    """One game experiment's design: what `assignment` and `cast_for` need for game `index`."""

    experiment: str  # architecture | persona
    games: int
    model: str
    play: Path
    split: tuple[int, int] = (3, 3)
    archetypes: tuple[str, str] = ("charismatic", "aloof")
    players: int | None = None
    prompts: tuple[tuple[str, tuple[tuple[str, str], ...]], ...] = ()  # task -> (part, text), from the file

    @property
    def name(self) -> str:
        extra = f":{self.split[0]}v{self.split[1]}" if self.experiment == "persona" else ""
        if self.experiment == "persona" and self.archetypes != ("charismatic", "aloof"):
            extra += ":" + "-".join(self.archetypes)
        if self.players:
            extra += f":{self.players}p"
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
    first, second = plan.split
    groups = [plan.archetypes[0]] * first + [plan.archetypes[1]] * second
    return {name: groups[i] if i < len(groups) else "neutral" for i, name in enumerate(order)}


def cast_for(plan: GamePlan, index: int) -> tuple[Any, dict[str, str]]:
    """Game `index`'s cast, its players given their conditions, and who is in which."""
    from studio.engine.forms import load_play, resolve_cast

    play = load_play(plan.play)
    cast = resolve_cast(play, plan.play, model=plan.model)
    names = [r.name for r in cast.roles if r.kind == "other"]
    if plan.players and plan.players < len(names):  # a seeded choice of who plays this game
        kept = sorted(random.Random(f"{plan.name}:players:{index}").sample(names, plan.players), key=names.index)
        cast.roles = [r for r in cast.roles if r.kind != "other" or r.name in kept]
        names = kept
    groups = assignment(plan, names, index)
    game = play.game
    if game is None:
        raise ValueError(f"{plan.play} is not a social game")
    update: dict[str, Any] = {"start": {k: v for k, v in game.start.items() if k in names},
                              "prompts": {task: dict(parts) for task, parts in plan.prompts}}
    if plan.experiment == "architecture":
        update["architecture"] = groups
    else:
        update["architecture"] = {name: "both" for name in names}  # the paper's persona games: all D
    game = game.model_copy(update=update)
    cast.play = play.model_copy(update={"game": game, "seed": play.seed + index,
                                        "title": f"{play.title} ({plan.name}, game {index + 1})"})
    if plan.experiment == "persona":
        for role in cast.roles:
            if role.name in groups:
                group = groups[role.name]
                role.sheet = role.sheet.model_copy(update={
                    "prompt": f"You are {role.name}. {role.sheet.description}".strip(),
                    "archetype": None if group == "neutral" else group, "traits": None,
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


def placements_by_game(records: Any, first_round: bool) -> list[list[tuple[str, float]]]:
    """Each game's placed players as (group, place); neutral players and (unless asked for) those voted out
    in round 1 are left out, as in the paper."""
    games = []
    for record in records:
        games.append([(group, float(record["placements"][name])) for name, group in record["groups"].items()
                      if group != "neutral" and (first_round or name != record.get("first_out"))
                      and name in record["placements"]])
    return games


def placements_by_group(records: Any, first_round: bool) -> dict[str, list[float]]:
    """Every placed player's place, by the group it was in (`placements_by_game`, games pooled)."""
    by_group: dict[str, list[float]] = {}
    for game in placements_by_game(records, first_round):
        for group, place in game:
            by_group.setdefault(group, []).append(place)
    return by_group


def prompt_file(value: str, source: str) -> tuple[tuple[str, tuple[tuple[str, str], ...]], ...]:
    """The researcher's prompt texts: a TOML file with a table per task (`[act]`, `[vote]`, ...) holding a
    `system` and/or `user` text; each text may name the fields of the moment in braces ({situation},
    {options}, ...). Checked here, so a misspelt task or field is one message before any game starts."""
    import tomllib

    from pydantic import ValidationError

    from studio.model import InputError
    from studio.model.outside_file import read_outside
    from studio.model.island import GameRules

    base = Path(source).parent if source else Path(".")
    path = Path(value) if Path(value).is_absolute() or Path(value).exists() else base / value
    if not path.is_file():
        raise InputError(source, "game.prompts", f"{value} is not a file", 'e.g. prompts = "my_prompts.toml"')
    try:
        data = tomllib.loads(read_outside(path, "prompt table").decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as err:
        raise InputError(str(path), None, f"is not readable TOML ({err})", "fix the file's syntax") from None
    if not all(isinstance(v, dict) and all(isinstance(t, str) for t in v.values()) for v in data.values()):
        raise InputError(str(path), None, "holds something other than tables of texts",
                         'write [act] with system = "..." and user = "..."')
    try:
        GameRules.model_validate({"places": [{"name": "here"}], "prompts": data})
    except ValidationError as err:
        first = err.errors()[0]
        raise InputError(str(path), None, str(first.get("msg", "")).removeprefix("Value error, "),
                         "see docs/lab/game.md for the tasks and fields") from None
    return tuple((task, tuple(sorted(parts.items()))) for task, parts in sorted(data.items()))


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
        if own.players is not None and own.players > players:
            raise InputError(source, "game.players", f"{own.players} is more than the play's {players} players",
                             f"e.g. players = {players}")
        seats = own.players or players
        if own.experiment == "persona" and sum(split) > seats:
            raise InputError(source, "game.split", f"{split[0]}:{split[1]} is more than the game's {seats} players",
                             "e.g. split = [3, 3]")
        prompts = prompt_file(own.prompts, source) if own.prompts else ()
        return {**spec, "game": {**own.model_dump(), "play": str(path), "split": split,
                                 "prompt_texts": [[task, [list(p) for p in parts]] for task, parts in prompts]}}

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
        return game_record(engine, groups)

    def report(self, spec: dict[str, Any], results: dict[str, dict[str, Any]]) -> Report:
        return game_report(spec, results)


def game_record(engine: Any, groups: dict[str, str]) -> dict[str, Any]:
    """What a finished game leaves for the report: placements, the winner, every player's actions by the
    paper's three groups (talk, move, other) and the audited goal scores by priority."""
    from studio.engine.forms.social.rules import ACTION_GROUP
    from studio.store import events as ev

    state = engine.state
    first_out = state.tallies[0]["eliminated"] if state.tallies else None
    actions: dict[str, dict[str, int]] = {name: {"talk": 0, "move": 0, "other": 0} for name in state.names.values()}
    audits: list[list[Any]] = []
    for event in engine.path:
        task = event.data.get("task")
        if task == "act" and event.kind == ev.DIRECTION and event.character in actions:
            actions[event.character][ACTION_GROUP.get(event.data.get("action"), "other")] += 1
        elif task == "audit" and event.character:
            for level, score in (event.data.get("scores") or {}).items():
                audits.append([event.character, level, score])
    return {"run": engine.run_id, "groups": groups, "placements": state.game.placements(), "first_out": first_out,
            "winner": state.game.winner, "players": len(state.names), "actions": actions, "audits": audits}


def _group_name(experiment: str, group: str) -> str:
    return f"{LETTERS[group]} ({group})" if experiment == "architecture" and group in LETTERS else group


def game_report(spec: dict[str, Any], results: dict[str, dict[str, Any]]) -> Report:
    """Win rates against chance, placements, action shares and goal scores per group, the paper's figures
    beside the studio's, and the protocol card."""
    from studio.lab.game_analysis import compare_placements
    from studio.lab.papers import reproduction

    own = spec["game"]
    experiment = own["experiment"]
    records = [results[k] for k in sorted(results)]
    label = lambda g: _group_name(experiment, g)  # noqa: E731
    first_round = bool(own.get("first_round"))
    placed = compare_placements({label(g): v for g, v in placements_by_group(records, first_round).items()},
                                [[(label(g), v) for g, v in game] for game in placements_by_game(records, first_round)])
    order = list(LETTERS) if experiment == "architecture" else list(own.get("archetypes") or ["charismatic", "aloof"])
    rates = _win_rates(records, order, label)
    shares, per_player = _action_counts(records, label)
    tables = [*_win_and_place_tables(rates, placed), *_action_and_goal_tables(records, shares)]
    measured = _measured(own, records, placed, rates, per_player)
    runs = sorted(r["run"] for r in records)
    what = "architecture" if experiment == "architecture" else f"persona {own['split'][0]}:{own['split'][1]}"
    return Report(
        title=spec.get("title") or f"The social game: {what}",
        tables=tables,
        figures=[Bars(f"game_{experiment}", f"Mean place by {experiment} (lower is better)",
                      [g.name for g in placed.groups],
                      {"mean place": [(g.mean, g.ci_low, g.ci_high) for g in placed.groups]}, ylabel="place")],
        notes=[f"{len(results)} games on {spec.get('model')}" + (f", runs {', '.join(map(str, runs))}" if runs else "") + ".",
               "Players voted out in round 1 are left out of the placements, as in the paper." if not own.get("first_round")
               else "Players voted out in round 1 are kept.",
               *([placed.note] if placed.note and placed.p is not None else [])],
        protocol=protocol(own),
        paper=reproduction(PAPER, measured),
    )


def _win_rates(records: list[dict[str, Any]], order: list[str], label: Any) -> list[Any]:
    """Each group's wins against chance, over the finished games it played, in the experiment's order."""
    from studio.lab.game_analysis import win_rate

    rates = []
    for group in order:
        played = [r for r in records if r.get("winner") and group in r["groups"].values()]
        if not played:
            continue
        seats = sum(1 for g in played[0]["groups"].values() if g == group)
        wins = sum(1 for r in played if r["groups"].get(r["winner"]) == group)
        players = played[0].get("players") or len(played[0]["placements"])
        rates.append(win_rate(label(group), wins, len(played), seats, players))
    return rates


KINDS_OF_ACTION = ("talk", "move", "other")


def _action_counts(records: list[dict[str, Any]], label: Any) -> tuple[dict[str, dict[str, list[tuple[int, int]]]],
                                                                       dict[str, dict[str, list[float]]]]:
    """Actions by the paper's three kinds: per group and kind, one (count, all actions) for each game the group
    played, since a game's actions are not independent (the same players, the same talk); and per player,
    each kind's count, by kind and group. A neutral player or one in no group counts in neither."""
    shares: dict[str, dict[str, list[tuple[int, int]]]] = {}
    per_player: dict[str, dict[str, list[float]]] = {k: {} for k in KINDS_OF_ACTION}
    for record in records:
        game: dict[str, dict[str, int]] = {}
        for name, counts in (record.get("actions") or {}).items():
            group = record["groups"].get(name)
            if group is None or group == "neutral":
                continue
            tally = game.setdefault(label(group), {"all": 0, **dict.fromkeys(KINDS_OF_ACTION, 0)})
            tally["all"] += sum(counts.values())
            for kind in KINDS_OF_ACTION:
                tally[kind] += counts.get(kind, 0)
                per_player[kind].setdefault(label(group), []).append(float(counts.get(kind, 0)))
        for group, tally in game.items():
            for kind in KINDS_OF_ACTION:
                shares.setdefault(group, {}).setdefault(kind, []).append((tally[kind], tally["all"]))
    return shares, per_player


def _talk_by_game(records: list[dict[str, Any]]) -> list[tuple[int, int]]:
    """Talk over all actions of every group, one (count, all) a game: the paper's share of talk."""
    games = []
    for record in records:
        one = _action_counts([record], str)[0]
        talk = [pair for tally in one.values() for pair in tally.get("talk", [])]
        games.append((sum(h for h, _ in talk), sum(n for _, n in talk)))
    return games


def _win_and_place_tables(rates: list[Any], placed: Any) -> list[Table]:
    win_rows = [[w.name, w.seats, w.games, w.wins, Cell(w.rate, w.low, w.high, w.games), round(w.chance, 4), w.p]
                for w in rates]
    tables = [Table("Games won by group, against chance (each player 1/players)",
                    ["group", "players per game", "games", "wins", "win rate", "chance", "binomial p"], win_rows,
                    note="Wilson 95% intervals; exact two-sided binomial test of the wins against seats/players.")]
    place_rows = [[g.name, g.n, Cell(g.mean if g.n else None, g.ci_low if g.n > 1 else None,
                                     g.ci_high if g.n > 1 else None, g.n)] for g in placed.groups]
    test = (f"{placed.test}: statistic {placed.statistic:.2f}, p = {placed.p:.3g} (the paper's figure)"
            if placed.p is not None and placed.statistic is not None else (placed.note or "no test"))
    if placed.permutation_p is not None:
        test = (f"Verdict: group labels shuffled among each game's players ({placed.permutations} draws): "
                f"p = {placed.permutation_p:.3g}, "
                + ("the groups place differently" if placed.differs else "no difference in place shown")
                + "; " + test)
    tables.append(Table("Placement by group (1 = the winner)", ["group", "players", "mean place"], place_rows, note=test))
    pairs = [[f"{p.a} - {p.b}", p.difference, Cell(p.difference, p.ci_low, p.ci_high), p.p] for p in placed.pairs]
    if pairs:
        tables.append(Table("Placement: Tukey's HSD between pairs", ["pair", "difference", "95% CI", "p"], pairs))
    return tables


def _action_and_goal_tables(records: list[dict[str, Any]], shares: dict[str, dict[str, list[tuple[int, int]]]]) -> list[Table]:
    """The action shares per group with their intervals, and the audited goal scores by priority; each table
    only when there is something in it."""
    from studio.lab.stats import game_share

    action_rows = []
    for group, tally in sorted(shares.items()):
        row: list[Any] = [group, sum(n for _, n in tally["talk"])]
        for kind in KINDS_OF_ACTION:
            est = game_share(tally[kind])
            row.append(Cell(est.mean, est.low, est.high, est.n))
        action_rows.append(row)
    tables = []
    if action_rows:
        tables.append(Table("Actions by kind (the paper's talk, move and other)", ["group", "actions", "talk", "move",
                                                                                  "other"], action_rows,
                            note="Each share is the mean of the games' own shares (n: games), its 95% interval a t "
                                 "interval over games (games - 1 df), widened to the Wilson interval on the effective "
                                 "count where that is wider: a game's actions come from the same players in the same "
                                 "talk, so the games are the replications"))
    goal_rows = _goal_rows(records)
    if goal_rows:
        tables.append(Table("Goal completion audited, by priority (1-5)", ["priority", "mean score"], goal_rows))
    return tables


def _goal_rows(records: list[dict[str, Any]]) -> list[list[Any]]:
    scores: dict[str, list[float]] = {}
    for record in records:
        for _, level, score in record.get("audits") or []:
            scores.setdefault(level, []).append(float(score))
    goal_rows = []
    for level in ("high", "medium", "low"):
        if scores.get(level):
            from studio.lab.stats import mean_ci

            est = mean_ci(scores[level])
            goal_rows.append([level, Cell(est.mean, est.low, est.high, len(scores[level]))])
    return goal_rows


def _measured(own: dict[str, Any], records: list[dict[str, Any]], placed: Any, rates: list[Any],
              per_player: dict[str, dict[str, list[float]]]) -> dict[str, Cell]:
    """The studio's value for each of the paper's figures this experiment measures, by the figure's id."""
    from studio.lab.game_analysis import compare_placements
    from studio.lab.stats import game_share

    games = len(records)
    out: dict[str, Cell] = {}
    if own["experiment"] == "architecture":
        if placed.statistic is not None:
            out["arch_anova_f"] = Cell(placed.statistic, n=games)
        if placed.p is not None:
            out["arch_anova_p"] = Cell(placed.p, n=games, digits=3)
        talk = game_share(_talk_by_game(records))
        if talk.n:
            out["talk_share"] = Cell(talk.mean, talk.low, talk.high, talk.n, digits=3)
        for kind, prefix in (("talk", "talk"), ("move", "move"), ("other", "other")):
            groups = per_player[kind]
            if len(groups) < 2:
                continue
            pairs = {(p.a, p.b): p.p for p in compare_placements(groups).pairs}
            for other in ("A", "B", "C"):
                a, d = _group_name("architecture", _arch(other)), _group_name("architecture", "both")
                p = pairs.get((a, d), pairs.get((d, a)))
                if p is not None:
                    out[f"{prefix}_tukey_p_{other.lower()}d"] = Cell(p, n=games, digits=3)
    elif list(own.get("archetypes") or []) == ["charismatic", "aloof"]:
        split = tuple(own["split"])
        tag = {(3, 3): "3v3", (2, 4): "2v4"}.get(split)
        if tag and rates:
            w = rates[0]
            out[f"persona_{tag}_win_rate"] = Cell(w.rate, w.low, w.high, w.games)
            if placed.pairs:
                out[f"persona_{tag}_tukey_p"] = Cell(placed.pairs[0].p, n=games, digits=4)
            if tag == "3v3":
                for g in placed.groups:
                    if g.n:
                        out[f"persona_3v3_place_{g.name}"] = Cell(g.mean, g.ci_low if g.n > 1 else None,
                                                                  g.ci_high if g.n > 1 else None, g.n)
    return out


def _arch(letter: str) -> str:
    return next(k for k, v in LETTERS.items() if v == letter)


def protocol(own: dict[str, Any]) -> list[str]:
    """How the games were run, step by step, and every way they still differ from the paper's."""
    steps = [
        "Each game is a run of the island play: players start at their places, and each round every player "
        "still in takes the round's actions (the play's actions_per_round; 5 in the paper, appendix J.1) in an "
        "order shuffled each tick by a seeded draw (section 4.1).",
        "An action is one of the paper's thirteen verbs (Table B.1); one whose preconditions fail still takes "
        "the turn and is remembered as a failure (appendix D.1). An unreadable answer is asked again once, "
        "then the turn passes.",
        "The idol is found by searching its place with the tool it needs, with the chance of the paper's "
        "repository (0.7, +0.1 per failed search, +0.1 with the clue at hand); each draw is seeded and recorded.",
        "What a player is shown of the past is chosen by retrieval: recency (0.95 per memory), importance "
        "and relevance, each min-max scaled and summed with equal weights (section 3.2.1, after Park et al., 2023).",
        "Players with the goals module set goals at three priorities each round, given the last two rounds' "
        "goals and their audited scores (section 3.1, appendix B.1).",
        "After the secret vote (ties broken by a seeded uniform draw, appendix J.1) every player still in "
        "reflects on the memories the paper's four questions retrieve (appendix B.4), writing up to five "
        "insights that may revise earlier ones (section 3.2.2); an auditor scores each goal 1-5 (appendix H.1).",
        "With two left, the jury of the voted-out picks the winner (section 4.1).",
    ]
    if own["experiment"] == "architecture":
        steps.append("Each game gives the four architectures (A none, B goals, C impressions, D both) to two "
                     "players each at random (section 5.1, Table 1).")
    else:
        a, b = own.get("archetypes") or ["charismatic", "aloof"]
        steps.append(f"Each game makes {own['split'][0]} players {a} and {own['split'][1]} {b} at random, every "
                     "player with architecture D; each sheet is cut to its name and public description, so the "
                     "archetype's trait words are its persona (section 5.2, appendix J.2).")
    steps.append("The report tests each group's wins against chance (seats/players) with an exact binomial test "
                 "and compares placements with ANOVA (Welch's t for two groups) and Tukey's HSD, as the paper does; "
                 "its verdict on placement reads the permutation of group labels within each game (places are "
                 "1 to a game's size whatever the players do, so only within a game are they exchangeable).")
    differences = [
        "Difference: every agent of the paper thinks with GPT-4, frozen (abstract, section 6); the studio's "
        "players all run on the experiment's model, so only a model of GPT-4's kind makes its figures comparable.",
        "Difference: the paper's parser is a model that maps free text to a verb (appendix D.1); the studio reads "
        "the reply with fixed word rules and a JSON schema of the actions in reach.",
        "Difference: importance is rated per memory by a model in the paper (section 3.1); the studio weighs a "
        "memory by its kind (an action 4, a line of talk 5, a conversation's summary 6, a reflection or a vote's "
        "reading 8, finding the idol 10, a failed action 3), so a game costs no extra call per memory.",
        "Difference: relevance is word overlap (BM25) unless a player's sheet names memory.embedding_model; "
        "the paper uses cosine similarity of embeddings (section 3.2.1).",
        "Difference: a conversation ends when a speaker leaves it, as in the paper, but also after the play's "
        "talk_lines lines a side (1 on the shipped island, to keep games short), where the paper's runs on "
        "until it goes in circles (section 3.2.3, Figure L.4).",
        "Difference: the paper's persona adjectives are written by a model from the trait scores (section 3.1); "
        "the studio maps each score to fixed words (very/somewhat low, between, somewhat/very high).",
        "Impressions are a theory of mind under the paper's headings (strategy, next move, what they make of "
        "you, what to keep from them; Figure L.2), with trust and liking for the report's alliances; they are "
        "updated after each conversation rather than when an old one is judged outdated (appendix B.2).",
        "Difference: the paper publishes placement and action counts per architecture only as box plots (Figures "
        "4, 7, G.1, G.2); only their tests can be set beside the studio's, and no win rate by architecture is "
        "published to compare with.",
    ]
    if own.get("prompt_texts"):
        differences.insert(0, "The researcher's own prompt texts were used for: "
                           + ", ".join(task for task, _ in own["prompt_texts"]) + ".")
    return steps + differences


def plan_of(spec: dict[str, Any], model: str) -> GamePlan:
    own = spec["game"]
    texts = tuple((task, tuple((part, text) for part, text in parts)) for task, parts in own.get("prompt_texts") or [])
    return GamePlan(own["experiment"], int(spec.get("reps", 1)), model, Path(own["play"]),
                    (int(own["split"][0]), int(own["split"][1])),
                    tuple(own.get("archetypes") or ("charismatic", "aloof")), own.get("players"), texts)


KIND = register(GameKind())
