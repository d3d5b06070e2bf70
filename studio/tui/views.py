"""What the side panes say, computed from the engine: the backstage of a line, the notes, the cast.

Kept apart from the widgets so that a pane is a thin shell over a pure function of the run, and what a
pane says can be checked without a screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import Group, RenderableType
from rich.text import Text

from studio.present.mind import inner_life
from studio.present.words import STRATEGY_WORDS, TASK_VERBS, origin_note, word_diff
from studio.store import events as ev
from studio.store.events import Event
from studio.tui import ensemble_views as ens

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView

def _section(title: str, body: RenderableType | str, style: str = "") -> list[RenderableType]:
    head = Text(title, style="bold")
    if isinstance(body, str):
        body = Text(body, style=style)
    return [head, body, Text("")]


def _take_label(engine: EngineView, event: Event, takes: dict[int, tuple[int, int]] | None) -> str:
    if event.kind == ev.SCENE:
        return ""
    if takes is not None:
        index, count = takes.get(event.id, (1, 1))
    else:
        siblings = [t.id for t in engine.takes(event.id)]
        index, count = (siblings.index(event.id) + 1 if event.id in siblings else 1), len(siblings)
    return f"take {index} of {count} (d compares)" if count > 1 else ""


def backstage(engine: EngineView, event_id: int | None, takes: dict[int, tuple[int, int]] | None = None,
              lens: str | None = None) -> RenderableType:
    """Everything that shaped the selected line, as the backstage pane shows it.

    `takes` maps a line to (which take, of how many) when the caller keeps count; else the store is asked.
    `lens`: the character the run is viewed as; its backstage shows only that character's own inner voice.
    """
    if event_id is None:
        return Text("Nothing on stage yet. Press s to play the first turn.", style="dim")
    event = engine.by_id.get(event_id)
    if event is None:
        return Text("")
    from studio.present.game import is_game, private_reasoning

    game = is_game(engine)
    parts: list[RenderableType] = []
    who = event.character or "The stage"
    part = "round" if game else "scene"  # a social game has rounds, as its stage and status line say
    facts = [f for f in (f"{part} {event.scene}" if event.scene else "", f"run turn {event.turn}" if event.turn else "",
                         _take_label(engine, event, takes), origin_note(event)) if f]
    parts.append(Text(f"{who} · " + " · ".join(facts) if facts else who, style="bold underline"))
    parts.append(Text(""))
    if event.origin == "override" and "override_of" in event.data:
        original = engine.by_id.get(event.data["override_of"]) or _safe_event(engine, event.data["override_of"])
        if original is not None:
            parts += _section("Your edit, against the old line", word_diff(original.text, event.text))
    direction = event.data.get("direction")
    if direction:
        said = [f"“{direction['note']}”"] if direction.get("note") else []
        if direction.get("temperature") is not None:
            said.append(f"temperature {direction['temperature']:g}")
        parts += _section("Your direction for this take", " · ".join(said), "italic")
    if game:
        line = f"Round {event.scene}" if event.kind == ev.SCENE else event.text or ""
        return Group(*parts, Text(line), Text(""), *private_reasoning(engine.path, event))
    if event.kind == ev.SCENE:
        parts += _backstage_scene(engine, event)
    if ens.is_ensemble(engine):
        parts += ens.backstage(engine, event, lens)
    elif getattr(engine.form, "name", "drama_machine") != "drama_machine":
        parts += _backstage_plain(engine, event)  # a dilemma, an interview: no inner voice, no rewrites
    elif event.role == "ego" and event.kind in (ev.STAGE, ev.DIRECTION, ev.EPILOGUE):
        parts += _backstage_ego(engine, event)
    elif event.role == "director":
        brief = engine.cast.play.brief(event.scene or 0)
        parts += _section("The scene's brief", brief or "(none: the director reads the premise)", "italic")
    elif event.kind in (ev.STAGE, ev.DIRECTION):
        parts += _backstage_other(engine, event)
    parts += lore_given(engine, event)
    return Group(*parts)


def lore_given(engine: EngineView, event: Event) -> list[RenderableType]:
    """The World Info entries the line's call was given, as the engine recorded them with the line (`lore`:
    the entries' names, then any key skipped for time), each with the start of its text as the run's
    books hold it. A line given none says nothing, so a play without lore shows no empty section."""
    recorded = event.data.get("lore") if event.kind == ev.STAGE else None
    if not isinstance(recorded, list) or not recorded:
        return []
    from studio.mind.worldinfo import named

    try:
        books = engine.cast.role(event.role or "").lore
    except KeyError:
        books = []
    texts = {name: entry.content for _book, entry, name in named(books)}
    body = Text()
    for item in (r for r in recorded if isinstance(r, str)):
        if body:
            body.append("\n")
        if item.startswith("skipped: "):
            body.append(item, style="dim")
            continue
        body.append("• ").append(item, style="bold")
        text = " ".join(texts.get(item, "").split())
        if text:
            body.append(" · " + (text if len(text) <= 90 else text[:89] + "…"), style="dim")
    return _section("World Info given to this line", body)


def _backstage_plain(engine: EngineView, event: Event) -> list[RenderableType]:
    """A line of a form without the Drama Machine's inner voice: who said it, the reason it gave, and the
    events it was shaped by, each named by who wrote it."""
    if event.kind == ev.SCENE:
        return []
    title = f"{event.character} said" if event.character else "The studio records"
    parts = _section(title, event.text)
    reason = (event.data or {}).get("reason")
    if reason and reason not in event.text:
        parts += _section("Their reason", str(reason), "italic")
    for shaping in (engine.by_id.get(i) for i in event.shaped_by):
        if shaping is not None and shaping.text:
            parts += _section(f"Shaped by {shaping.character or 'the studio'} (event #{shaping.id})", shaping.text,
                              "dim")
    return parts


def _safe_event(engine: EngineView, event_id: int) -> Event | None:
    try:
        return engine.store.event(event_id)
    except Exception:
        return None


def _backstage_scene(engine: EngineView, event: Event) -> list[RenderableType]:
    play = engine.cast.play
    parts = _section("Premise", play.premise.strip() or "(none)", "italic")
    brief = play.brief(event.scene or 0)
    if brief:
        parts += _section(f"Scene {event.scene}", brief, "italic")
    return parts


def _ego_name(engine: EngineView) -> str:
    return engine.cast.ego.name


def _superego_name(engine: EngineView) -> str:
    return engine.cast.role("superego").name if engine.cast.has("superego") else "The superego"


def _backstage_other(engine: EngineView, event: Event) -> list[RenderableType]:
    ego = _ego_name(engine)
    parts = _section(f"{event.character} said", event.text)
    heard = engine.lens().rewrite(engine.cast.ego.key, event)
    state = engine.state
    pending = engine.pending()
    if heard is not None:
        parts += _section(f"{ego} heard it as ({_superego_name(engine)}'s rewrite)", heard.text, "italic")
    elif (pending is not None and pending.step.kind == ev.REWRITE_SPEECH and state.other_line is not None
          and state.other_line.id == event.id):
        # the rewrite is the next step: say so, as the activity line does, rather than "as it was said"
        parts += _section(f"{ego} hears it", f"not yet: {_superego_name(engine)} rewrites it next", "dim")
    elif engine.cast.has("superego"):  # with no superego, nothing is ever rewritten: nothing to deny
        parts += _section(f"{ego} heard it", "as it was said (no rewrite)", "dim")
    if state.other_line is not None and state.other_line.id == event.id:
        if state.draft is not None:
            parts += _section(f"{ego}'s draft, so far", state.draft.text, "italic")
        if state.critique is not None:
            parts += _section(f"{_superego_name(engine)}'s critique", state.critique.text, "italic")
        parts.append(Text(f"{ego} has not answered yet.", style="dim"))
    return parts


def _backstage_ego(engine: EngineView, event: Event) -> list[RenderableType]:
    ego = event.character or _ego_name(engine)
    superego = _superego_name(engine)
    shaping = [e for e in (engine.by_id.get(i) for i in event.shaped_by) if e is not None]
    kinds = {e.kind: e for e in shaping}
    parts: list[RenderableType] = []
    other = _other_line_before(engine, event)
    if other is not None:
        parts += _section(f"{other.character} said", other.text)
    rewrite = kinds.get(ev.REWRITE_SPEECH)
    if rewrite is not None:
        parts += _section(f"{ego} heard it as ({superego}'s rewrite)", rewrite.text, "italic")
    elif other is not None and engine.cast.has("superego"):
        parts += _section(f"{ego} heard it", "as it was said (no rewrite this turn)", "dim")
    draft = kinds.get(ev.DRAFT)
    critique = kinds.get(ev.CRITIQUE)
    if draft is not None:
        parts += _section(f"{ego}'s draft", draft.text, "italic")
    if critique is not None:
        parts += _section(f"{superego}'s critique", critique.text, "italic")
    kept = event.data.get("kept_draft")
    if draft is not None and event.origin == "model":
        if kept:
            parts += _section("Verdict", f"{ego} kept the draft after the critique.", "green")
        else:
            parts += _section(f"Verdict: {ego} revised the draft", word_diff(draft.text, event.text))
    elif draft is None and event.origin == "model" and event.kind != ev.EPILOGUE and engine.cast.has("superego"):
        parts += _section("Verdict", "no draft this turn: the line went straight to the stage", "dim")
    parts += _prompt_sections(engine, event, kinds.get(ev.REWRITE_PROMPT))
    return parts


def _other_line_before(engine: EngineView, event: Event) -> Event | None:
    path = engine.path
    try:
        index = next(i for i, e in enumerate(path) if e.id == event.id)
    except StopIteration:
        return None
    for e in reversed(path[:index]):
        if e.kind in (ev.STAGE, ev.DIRECTION) and e.role not in ("ego", "director"):
            return e if e.turn == event.turn else None
        if e.role == "ego" and e.kind in (ev.STAGE, ev.DIRECTION):
            return None
    return None


def _prompt_sections(engine: EngineView, event: Event, fresh: Event | None) -> list[RenderableType]:
    ego = event.character or _ego_name(engine)
    superego = _superego_name(engine)
    parts: list[RenderableType] = []
    if fresh is not None:
        title = f"{ego} spoke under a new prompt ({superego}'s rewrite after turn {fresh.turn})"
        parts += _section(title, word_diff(fresh.data.get("replaces", ""), fresh.text))
    else:
        prompt_id = event.data.get("prompt_event")
        if prompt_id is not None:
            source = engine.by_id.get(prompt_id)
            turn = f" after turn {source.turn}" if source is not None else ""
            parts += _section("Prompt", f"{superego}'s rewrite{turn} (select that turn's line to see the diff)", "dim")
        elif event.role == "ego":
            parts += _section("Prompt", f"{ego}'s own sheet", "dim")
    for later in engine.path:
        if later.kind == ev.REWRITE_PROMPT and later.data.get("source") == event.id:
            title = f"After this line, {superego} rewrote {ego}'s prompt"
            parts += _section(title, word_diff(later.data.get("replaces", ""), later.text))
    return parts


def notes(engine: EngineView) -> RenderableType:
    """The director's pane: scene briefs, the director's interventions and the playwright's notes."""
    play = engine.cast.play
    state = engine.state
    pending = {n.id for n in getattr(state, "notes", ())}
    parts: list[RenderableType] = []
    if isinstance(play.scenes, list):
        for number, brief in enumerate(play.scenes, start=1):
            marker = "▶ " if number == state.scene else "  "
            line = Text(f"{marker}Scene {number}: ", style="bold" if number == state.scene else "dim bold")
            # a brief is words, or (in an ensemble) a scene with its words and its entrances
            words = brief if isinstance(brief, str) else getattr(brief, "brief", "")
            line.append(words, style="" if number == state.scene else "dim")
            parts.append(line)
    elif play.premise.strip():
        parts.append(Text("Premise: ", style="bold").append(play.premise.strip(), style="dim"))
    parts.append(Text(""))
    for event in engine.path:
        if event.role == "director" and event.kind in (ev.STAGE, ev.DIRECTION):
            line = Text(f"{event.character}, scene {event.scene}: ", style="bold")
            line.append(event.text, style="italic")
            parts.append(line)
        elif event.kind == ev.NOTE:
            line = Text(f"Your note for turn {(event.turn or 0) + 1}: ", style="bold")
            line.append(event.text)
            if event.id in pending:
                line.append(" (not heard yet)", style="yellow")
            parts.append(line)
        elif event.kind == ev.CONTROL:
            parts.append(Text(event.text, style="dim"))
        elif event.kind == ev.ERROR:
            parts.append(Text(f"Model error at turn {event.turn}: {event.text}", style="red"))
        elif event.origin == "human" and not event.on_stage and event.kind.startswith("mind."):
            # a mood set, an item unlocked, goals or a fact from the mind dialog: the playwright's events too
            line = Text(f"Your change for {event.character}: " if event.character else "Your change: ", style="bold")
            line.append(event.text)
            parts.append(line)
        elif event.origin == "human" and not event.on_stage:
            # a seat you play answered off stage (a contestant's goals or impressions): your answer, not a
            # change made from outside the play
            task = str(event.data.get("task") or event.kind.rpartition(".")[2])
            line = Text(f"{event.character or 'You'} (you) {TASK_VERBS.get(task, task)}: ", style="bold")
            line.append(event.text)
            parts.append(line)
    # The playwright's controls belong to the run, not to a take: one given on another take (a hand-back
    # before a new take of the line) is in force here too, and is listed so the notes and the status agree.
    controls = engine.store.controls(engine.run_id)
    standing = in_force(controls)
    for event in controls:
        if event.id not in engine.by_id and event.origin == "human" and event.id in standing:
            parts.append(Text(f"{event.text} (given on another take; in force here)", style="dim"))
    if len(parts) <= 1 or all(not p for p in parts if isinstance(p, Text)):
        parts.append(Text("No notes yet.", style="dim"))
    return Group(*parts)


def in_force(controls: list[Any]) -> set[int]:
    """The controls still in force: for each thing a control sets (a role's player, a strategy, the turn
    policy), the newest control that sets it; a take-over handed back later is not among them."""
    newest: dict[tuple[str, ...], int] = {}
    for event in sorted(controls, key=lambda e: e.id):
        for field, value in (event.data or {}).items():
            for key in (value if isinstance(value, dict) else {"": value}):
                newest[("human" if field == "held_by" else field, str(key))] = event.id
    return set(newest.values())


def note_count(engine: EngineView) -> int:
    """How many entries the notes pane has below the briefs."""
    return sum(
        1
        for e in engine.path
        if e.kind in (ev.NOTE, ev.CONTROL, ev.ERROR) or (e.role == "director" and e.kind in (ev.STAGE, ev.DIRECTION))
        or (e.origin == "human" and not e.on_stage)
    )


def role_card(engine: EngineView, role: Any) -> Text:
    """One cast member as the sheets pane shows them: who, how they are played, the prompt in force."""
    state = engine.state
    human = role.key in engine.humans()
    text = Text()
    text.append(role.name.upper(), style="bold")
    text.append(f"  {role.key}", style="dim")
    text.append(f"  · played by {played_by(engine, role.key)}" if human else f"  · {role.model}",
                style="yellow" if human else "")
    text.append(f"\ntemperature {role.temperature:g} · max {role.max_tokens} tokens", style="dim")
    if ens.is_ensemble(engine):
        text.append_text(ens.card_line(engine, role) or Text())
    if role.sheet.description:
        text.append("\n" + role.sheet.description, style="italic")
    prompt = role.sheet.prompt.strip()
    label = "prompt"
    if role.key == "ego" and state.ego_prompt_event is not None:
        prompt = state.ego_prompt.strip()
        rewrite = engine.by_id.get(state.ego_prompt_event)
        label = f"prompt, as {_superego_name(engine)} rewrote it after turn {rewrite.turn if rewrite else '?'}"
    text.append(f"\n{label}: ", style="bold")
    text.append(_named(engine, role, prompt))
    if role.sheet.has_inner_life:
        inner_life(engine, role, text)
    return text


def _named(engine: EngineView, role: Any, prompt: str) -> str:
    """A sheet's prompt with the cast's names where it says {ego}, {other}, {superego}, {director}, as the
    model reads it: the card shows who `inner voice of {ego}` is."""
    from studio.model.loading import fill

    cast = engine.cast
    characters = cast.characters
    owner = role.key.removesuffix(".voice")  # an ensemble's inner voice speaks for its own character
    if owner != role.key and cast.has(owner):
        ego = cast.role(owner).name
    else:
        ego = cast.ego.name if cast.has("ego") else (characters[0].name if characters else "the protagonist")
    others = ", ".join(r.name for r in characters if r.name != ego) or "the others"
    return fill(prompt, ego=ego, other=others,
                superego=cast.role("superego").name if cast.has("superego") else "the inner voice",
                director=cast.role("director").name if cast.has("director") else "the director")


def status(engine: EngineView, lens: str | None = None, width: int | None = None) -> Text:
    """The top line: where the run is and which voices are on; `lens`, the character the stage is seen as.
    Given the `width` it has, it says less rather than be cut: first the run's turn and the cost go, then the
    inner voices are counted rather than named, then the run number, then the title."""
    text = Text()
    for level in range(5):
        text = _status(engine, lens, level)
        if width is None or text.cell_len <= width:
            break
    return text


def _status(engine: EngineView, lens: str | None, level: int) -> Text:
    state = engine.state
    play = engine.cast.play
    text = Text()
    if lens:
        text.append_text(ens.lens_mark(lens))
        text.append(" ")
    if level < 4:
        text.append(play.title, style="bold")
    if level < 3:
        text.append(f" · run {engine.run_id}")
    game = getattr(state, "game", None)
    if game is not None and hasattr(game, "alive"):  # the social game counts rounds and ticks, not scenes
        text.append(f"{' · ' if text.plain else ''}round {game.round} · tick {min(game.tick, state.rules.actions_per_round)}"
                    f"/{state.rules.actions_per_round} · {len(game.alive)} players left")
    else:
        text.append(f"{' · ' if text.plain else ''}scene {max(state.scene, 1)}/{play.scene_count}")
        # two counts, named apart: the scene's own exchanges, and the run's turn the backstage quotes
        text.append(f" · turn {state.turn_in_scene}/{play.turns}")
    if state.turn and level == 0:
        text.append(f" · run turn {state.turn}", style="dim")
    if engine.finished:
        text.append(" · finished", style="bold green")
    humans = engine.humans()
    if humans:  # before the superego: the one fact here that changes what a key does
        by_window: dict[str, list[str]] = {}
        for key in sorted(humans):
            by_window.setdefault(played_by(engine, key), []).append(engine.cast.role(key).name)
        for who, names in sorted(by_window.items(), key=lambda item: item[0] != "you"):
            text.append(" · you play " if who == "you" else f" · {who} plays ")
            text.append(", ".join(names), style="bold yellow")
    if engine.cast.has("superego") and engine.cast.superego.enabled:
        on = [word for name, word in STRATEGY_WORDS.items() if state.strategy_on(name)]
        text.append(" · superego: ")
        text.append(" ".join(on) if on else "all off", style="bold green" if on else "dim")
    if ens.is_ensemble(engine):
        ens.status_tail(engine, text, level=max(0, level - 1))
    from studio import usage  # not before the first frame, which shows no run yet

    spent = usage.live(engine).total
    if spent.calls and level == 0:
        text.append(f" · {usage.tokens(spent.prompt_tokens + spent.completion_tokens)} tokens, {usage.money(spent.cost)}",
                    style="dim")
    return text


def next_step(engine: EngineView) -> str:
    """What happens next, in words: the activity line's lead when nothing is being written."""
    pending = engine.pending()
    if pending is None:
        return "The play is finished"
    step = pending.step
    if step.kind == ev.SCENE:
        return f"Next: round {step.scene} begins" if step.task == "round" else f"Next: scene {step.scene} opens"
    if step.kind == ev.PICK and pending.role is None:
        return ens.next_pick()
    name = pending.role.name if pending.role is not None else "?"
    if pending.human and pending.role is not None:  # the verbs are a character's: "you, as Jenny, writes"
        who = f"{name} ({played_by(engine, pending.role.key)})"
    else:
        who = name
    return f"Next: {who} {TASK_VERBS.get(step.task, step.task)}"


def played_by(engine: EngineView, key: str) -> str:
    """Who writes a human role's lines, as every window says it: "you", or the other window that holds it.
    A role no window holds is asked of whichever window comes to its line, so it is "you" here too."""
    from studio.store.leases import window_name

    holder = engine.holders().get(key)
    return "you" if holder is None or holder == engine.holder else window_name(holder)
