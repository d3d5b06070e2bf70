"""What the panes say about an ensemble run: any number of characters, inner voices for any of them,
who is on stage, who picked the speaker and why, and the run through one character's eyes.

Pure functions of the engine, as `studio.tui.views` is; `views` hands an ensemble run over to these.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.console import RenderableType
from rich.text import Text

from studio.present.words import STRATEGY_LABELS, STRATEGY_WORDS
from studio.store import events as ev
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView


def is_ensemble(engine: EngineView) -> bool:
    return getattr(getattr(engine, "form", None), "name", "") == "ensemble"


def characters(engine: EngineView) -> list[Any]:
    """The speaking characters, in cast order (inner voices and the moderator or director left out)."""
    return [r for r in engine.cast.roles if r.kind == "other" and not r.key.endswith(".voice")]


def on_stage(engine: EngineView) -> list[str]:
    return engine.on_stage()


def voice_of(engine: EngineView, key: str) -> Any:
    """The inner voice seat of a character, or None."""
    return engine.cast.role(f"{key}.voice") if engine.cast.has(f"{key}.voice") else None


def _name(engine: EngineView, key: str) -> str:
    return engine.cast.role(key).name if engine.cast.has(key) else key


def _section(title: str, body: RenderableType | str, style: str = "") -> list[RenderableType]:
    if isinstance(body, str):
        body = Text(body, style=style)
    return [Text(title, style="bold"), body, Text("")]


# -- the status line ---------------------------------------------------------------------------


def status_tail(engine: EngineView, text: Text, level: int = 0) -> None:
    """Who decides the next speaker, who is on stage, and which inner voices are at work. `level` 1 counts
    the voices and names only what is switched off; 2 also counts what is off."""
    text.append(" · next: ")
    text.append(engine.policy() or "", style="bold")
    opened = getattr(engine.state, "scene", 1) >= 1  # before the first scene nobody has entered yet
    present = [_name(engine, k) for k in on_stage(engine)] if opened else []
    text.append(" · on stage: ")
    text.append(" ".join(present) if present else ("nobody" if opened else "nobody yet"),
                style="" if present else "dim")
    voices = []
    for role in characters(engine):
        voice = voice_of(engine, role.key)
        if voice is not None and voice.schedules is not None and voice.schedules.enabled:
            voices.append(f"{voice.name}→{role.name}")
    if not voices:
        return
    offs = []
    for key, states in voice_switches(engine).items():
        off = [STRATEGY_WORDS[n] for n, on in states.items() if not on]
        if off:
            offs.append(f"{engine.cast.role(key).name}: " + " ".join(off) + " off")
    if level == 0:
        text.append(" · voices: ")
        text.append(" ".join(voices), style="green")
    else:
        text.append(f" · {len(voices)} voice{'s' if len(voices) != 1 else ''}", style="green")
    if level >= 2 and offs:
        text.append(f" ({len(offs)} switched off: v)", style="dim")
    else:
        for switched in offs:
            text.append(f" ({switched})", style="dim")


def voice_switches(engine: EngineView) -> dict[str, dict[str, bool]]:
    """Each inner voice's three strategies, on or off: the playwright's switch for that voice if there was
    one (`v`), else one for every voice, else the voice's schedule in the play."""
    switched = engine.strategy_switches()
    out = {}
    for role in characters(engine):
        voice = voice_of(engine, role.key)
        if voice is None or voice.schedules is None or not voice.schedules.enabled:
            continue
        out[voice.key] = {
            name: switched.get(f"{voice.key}:{name}", switched.get(name, voice.schedules.schedule(name).enabled))
            for name in STRATEGY_LABELS
        }
    return out


def lens_mark(name: str) -> Text:
    """The status line's mark while the stage shows one character's view."""
    return Text(f" VIEW AS {name.upper()} (V: everyone) ", style="bold reverse")


def suggestion_reason(engine: EngineView) -> str:
    """Why the first name of "who speaks next" is suggested, in the dialog's words."""
    state = engine.state
    if state.policy in ("mentions", "moderator") and state.mentioned() is not None:
        return "named in the last line"
    if state.policy == "random":
        return "drawn at random"
    return "next in the rotation"


def next_pick() -> str:
    return "Next: you pick who speaks next"


# -- the backstage of a line ---------------------------------------------------------------------


def backstage(engine: EngineView, event: Event, lens: str | None = None) -> list[RenderableType]:
    """What shaped an ensemble line: the pick and its reason, its speaker's inner voice at work, how
    each character who heard it heard it, who was not there, and the brief a voice rewrote after it.

    Viewing the run as one character (`lens`, its name), only that character's own inner voice is shown,
    as that character's: what it made of its own line and how it heard the others'."""
    from studio.engine.lens import seat_named

    seen = engine.lens()
    seat = seat_named(engine.cast, lens) if lens else None
    if event.kind == ev.SCENE:
        return _present(engine, event)
    if event.data.get("task") == "stage_move" or (event.kind == ev.DIRECTION and event.role is None):
        return _stage_move(engine, event) + _present(engine, event)
    if event.role == "director":
        brief = engine.cast.play.brief(event.scene or 0)
        return _section("The scene's brief", brief or "(none: the director reads the premise)", "italic") + \
            _present(engine, event)
    parts: list[RenderableType] = []
    own = seat is None or event.role == seat  # a line's inner work is its speaker's alone
    shaping = [e for e in (engine.by_id.get(i) for i in event.shaped_by) if e is not None]
    shaping = [e for e in shaping if seat is None or seen.knows(seat, e)]
    pick = next((e for e in shaping if e.kind == ev.PICK), None)
    if seat is None:
        parts += _pick(engine, event, pick)  # nobody on stage hears the moderator
    if own:
        parts += _inner_work(engine, event, shaping)
    parts += _hearers(engine, event, seen, seat)
    parts += _present(engine, event)
    parts += _briefs_rewritten_after(engine, event, seen, seat)
    return parts


def _inner_work(engine: EngineView, event: Event, shaping: list[Event]) -> list[RenderableType]:
    """The speaker's draft, its inner voice's critique and what the speaker did with it, and the brief
    that voice had rewritten for it before the line."""
    parts: list[RenderableType] = []
    owner = event.character or _name(engine, event.role or "")
    voice = voice_of(engine, event.role or "")
    voice_name = voice.name if voice is not None else "the inner voice"
    draft = next((e for e in shaping if e.kind == ev.DRAFT), None)
    critique = next((e for e in shaping if e.kind == ev.CRITIQUE), None)
    if draft is not None:
        parts += _section(f"{owner}'s draft", draft.text, "italic")
    if critique is not None:
        parts += _section(f"{voice_name}'s critique ({owner}'s inner voice)", critique.text, "italic")
    if draft is not None and event.origin == "model":
        from studio.present.words import word_diff

        if event.data.get("kept_draft"):
            parts += _section("Verdict", f"{owner} kept the draft after {voice_name}'s critique.", "green")
        else:
            parts += _section(f"Verdict: {owner} revised the draft", word_diff(draft.text, event.text))
    if draft is not None or critique is not None:
        parts += _section("Shaped by", f"{voice_name}, {owner}'s inner voice", "green")
    elif event.kind in (ev.STAGE, ev.DIRECTION) and event.role is not None:
        parts += _section("Shaped by", "no inner voice this turn: the line went straight to the stage", "dim")
    brief = _brief_rewrite_before(engine, event)
    if brief is not None:
        parts += _section(f"{owner} spoke under a brief {voice_name} rewrote after turn {brief.turn}", brief.text,
                          "italic")
    return parts


def _briefs_rewritten_after(engine: EngineView, event: Event, seen: Any, seat: str | None) -> list[RenderableType]:
    parts: list[RenderableType] = []
    for later in engine.path:
        if later.kind == ev.REWRITE_PROMPT and later.data.get("source") == event.id and later.data.get("owner"):
            if seat is not None and seen.owner(later) != seat:
                continue
            from studio.present.words import word_diff

            who = _name(engine, later.data["owner"])
            parts += _section(f"After this line, {later.character} rewrote {who}'s brief",
                              word_diff(later.data.get("replaces", ""), later.text))
    return parts


def _pick(engine: EngineView, event: Event, pick: Event | None) -> list[RenderableType]:
    if event.role is None or event.kind == ev.EPILOGUE:
        return []
    if pick is None:
        return _section("Who speaks next", f"{event.character}, by the rotation (no pick this turn)", "dim")
    reason = str(pick.data.get("reason") or "").strip()
    if pick.origin == "human":
        return _section("Who speaks next", f"{event.character}: your pick", "yellow")
    body = Text()
    body.append(f"{pick.character} picked {event.character}", style="bold")
    if reason:
        body.append(": ")
        body.append(reason, style="italic")
    return _section(f"Who speaks next ({pick.role}'s pick, and why)", body)


def _brief_rewrite_before(engine: EngineView, event: Event) -> Event | None:
    """The newest rewrite of the speaker's brief before this line, if its inner voice made one."""
    found = None
    for e in engine.path:
        if e.id == event.id:
            return found
        if e.kind == ev.REWRITE_PROMPT and e.data.get("owner") == event.role:
            found = e
    return None


def _hearers(engine: EngineView, event: Event, seen: Any, seat: str | None) -> list[RenderableType]:
    """Each witness who heard the line through its own inner voice's rewrite (viewing as one character:
    that character alone), credited to the hearer's voice."""
    parts: list[RenderableType] = []
    for key, rewrite in seen.hearers(event):
        if seat is not None and key != seat:
            continue
        hearer = _name(engine, key)
        title = f"{hearer} heard it as ({rewrite.character}, {hearer}'s inner voice, rewrote it)"
        parts += _section(title, rewrite.text, "italic")
    return parts


def _present(engine: EngineView, event: Event) -> list[RenderableType]:
    present = event.present
    if present is None:
        return []
    names = [r.name for r in characters(engine) if r.key in present]
    away = [r.name for r in characters(engine) if r.key not in present]
    body = Text(", ".join(names) if names else "nobody")
    if away:
        body.append("\nnot there: " + ", ".join(away), style="dim")
    return _section("Witnessed by", body)


def _stage_move(engine: EngineView, event: Event) -> list[RenderableType]:
    if event.origin == "human":
        who = "you (E)"
    elif event.origin == "studio":
        who = "the scene's plan in the play"
    else:
        who = event.character or "the director"
    return _section("Entrance or exit", f"{event.text} Sent by {who}.")


# -- the cast pane -------------------------------------------------------------------------------


def card_line(engine: EngineView, role: Any) -> Text | None:
    """A cast card's ensemble line: on or off stage, and whose inner voice is whose."""
    if role.key.endswith(".voice"):
        owner = role.key[: -len(".voice")]
        return Text(f"\ninner voice of {_name(engine, owner)}", style="green")
    if role.kind != "other":
        return None
    text = Text("\n")
    here = role.key in on_stage(engine)
    text.append("on stage" if here else "off stage", style="bold" if here else "dim")
    voice = voice_of(engine, role.key)
    if voice is not None:
        text.append(f" · inner voice: {voice.name}", style="green")
    return text


# -- view as -------------------------------------------------------------------------------------


def through_eyes(engine: EngineView, name: str) -> list[Event]:
    """The take's stage lines as one character knows them (studio.engine.lens, as `studio show --as`); a
    line the character heard through its inner voice's rewrite carries `heard_as`, so the stage can say so."""
    import dataclasses

    from studio.engine.lens import seat_named

    seen, seat = engine.lens(), seat_named(engine.cast, name)
    return [dataclasses.replace(e, data={**e.data, "heard_as": name}) if seen.rewrite(seat, e) is not None else e
            for e in seen.events(seat) if e.on_stage]
