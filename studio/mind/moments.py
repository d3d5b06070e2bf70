"""What a moment of the play changes inside a character, as events to commit, and what its prompt carries.

The engine calls these at each turn with the folded World (state.fold) and commits what they return;
the same path gives the same events, so takes and rewinds replay a character's inner life exactly. A
playwright's hand-made change (a mood set, an item unlocked, goals edited) is the same event with
origin "human".
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from studio.mind.memory import Recall
from studio.mind.rules import NEUTRAL, Tally, draw_mood, holds, persona_text
from studio.model.inner_life import MindFields, Mood
from studio.mind.state import FACT, GOALS, MOOD, UNLOCK, MindState


def mood_event(sheet: MindFields, name: str, mind: MindState, *, seed: int, scene: int, turn: int) -> dict[str, Any] | None:
    """A seeded draw when one is due (first time, a new scene, or each turn), else None."""
    if not sheet.moods or sheet.mood_redraw == "never" and mind.mood_at is not None:
        return None
    if mind.mood_at is not None:
        drawn_scene, drawn_turn = mind.mood_at
        if sheet.mood_redraw == "scene" and drawn_scene == scene:
            return None
        if sheet.mood_redraw == "turn" and (drawn_scene, drawn_turn) == (scene, turn):
            return None
    draw_turn = turn if sheet.mood_redraw == "turn" else 0
    mood = draw_mood(sheet.moods, seed, name, scene, draw_turn)
    assert mood is not None
    return _mood_fields(name, mood, scene, turn, "studio", {"seed": seed, "scene": scene, "turn": draw_turn})


def set_mood(sheet: MindFields, name: str, mood_name: str, *, scene: int, turn: int) -> dict[str, Any]:
    """The playwright's choice of mood; it must be one the sheet lists, so its voice is known."""
    mood = next((m for m in sheet.moods if m.name.casefold() == mood_name.casefold()), None)
    if mood is None:
        known = ", ".join(m.name for m in sheet.moods) or "none"
        raise ValueError(f"{name} has no mood '{mood_name}' (the sheet lists: {known})")
    return _mood_fields(name, mood, scene, turn, "human", None)


def _mood_fields(name: str, mood: Mood, scene: int, turn: int, origin: str, drawn: dict | None) -> dict[str, Any]:
    """The mood as an event. The neutral remainder is an event too (a draw that changes the run), with no
    mood: the character's prompt then carries none."""
    neutral = mood is NEUTRAL
    return {
        "kind": MOOD,
        "text": f"{name} is in no particular mood" if neutral else f"{name} is {mood.name}" + (f": {mood.voice}" if mood.voice else ""),
        "character": name,
        "scene": scene,
        "turn": turn,
        "origin": origin,
        "data": {"mood": None if neutral else mood.name, "voice": "" if neutral else mood.voice, "drawn": drawn},
    }


def unlock_events(
    sheet: MindFields,
    name: str,
    mind: MindState,
    *,
    heard: str,
    present: Sequence[str],
    scene: int,
    turn: int,
    facts: Mapping[str, Any],
    line_event: int | None = None,
    lines: Sequence[tuple[int, str]] = (),
    tally: Tally | None = None,
) -> list[dict[str, Any]]:
    """Knowledge whose condition now holds. A keyword counts only if `name` is among `present` when it is said
    (a keyword counted `times` is counted over every line `name` witnessed, in `tally`).

    `lines` (event id, text) are the lines `heard` joins: an unlock names the one its keyword was said in.
    """
    here = name in present
    out = []
    for index, item in enumerate(sheet.knowledge):
        if item.when is None or index in mind.unlocked:
            continue
        words = ([item.when.keyword] if item.when.keyword else []) + list(item.when.keywords or [])
        if words and not here and item.when.times is None:
            continue
        if holds(item.when, heard=heard, scene=scene, turn=turn, facts=facts, tally=tally):
            source = next((i for i, text in lines if any(w.casefold() in text.casefold() for w in words)), line_event)
            out.append(_unlock_fields(name, index, item.text, scene, turn, "studio",
                                      item.when.model_dump(exclude_none=True), source if words else line_event))
    return out


def unlock_by_hand(sheet: MindFields, name: str, index: int, *, scene: int, turn: int) -> dict[str, Any]:
    if not 0 <= index < len(sheet.knowledge):
        raise ValueError(f"{name} has knowledge items 1 to {len(sheet.knowledge)}, not {index + 1}")
    return _unlock_fields(name, index, sheet.knowledge[index].text, scene, turn, "human", None, None)


def _unlock_fields(name: str, index: int, text: str, scene: int, turn: int, origin: str,
                   because: dict | None, line_event: int | None) -> dict[str, Any]:
    return {
        "kind": UNLOCK,
        "text": f"{name} now knows: {text}",
        "character": name,
        "scene": scene,
        "turn": turn,
        "origin": origin,
        "data": {"item": index, "knowledge": text, "because": because, "heard_in": line_event},
    }


def goals_by_hand(name: str, goals: Sequence[str], *, scene: int, turn: int) -> dict[str, Any]:
    cleaned = [g.strip() for g in goals if g.strip()]
    return {"kind": GOALS, "text": f"{name}'s goals: " + "; ".join(cleaned), "character": name, "scene": scene,
            "turn": turn, "origin": "human", "data": {"goals": cleaned}}


def fact_event(fact: str, value: Any, *, origin: str, scene: int, turn: int) -> dict[str, Any]:
    return {"kind": FACT, "text": f"{fact} = {value!r}", "scene": scene, "turn": turn, "origin": origin,
            "data": {"facts": {fact: value}}}


def current_goals(sheet: MindFields, mind: MindState, scene: int) -> list[str]:
    """A reflection's or the playwright's revision, else the sheet's goals for the whole play and this scene."""
    if mind.goals is not None:
        return list(mind.goals)
    return [g.text for g in sheet.goals if g.scene is None or g.scene == scene]


def known(sheet: MindFields, mind: MindState) -> list[str]:
    return [item.text for i, item in enumerate(sheet.knowledge) if item.when is None or i in mind.unlocked]


def mind_text(sheet: MindFields, mind: MindState, scene: int, recalled: Sequence[Recall] = ()) -> str:
    """The part of the character's prompt its inner life writes, in a fixed order so replays agree."""
    parts: list[str] = []
    persona = persona_text(sheet.traits, sheet.archetype)
    if persona:
        parts.append(persona)
    if mind.mood:
        parts.append(f"Your mood now: {mind.mood}" + (f" ({mind.mood_voice})." if mind.mood_voice else "."))
    facts = known(sheet, mind)
    if facts:
        parts.append("What you know:\n" + "\n".join(f"- {f}" for f in facts))
    goals = current_goals(sheet, mind, scene)
    if goals:
        parts.append("What you want:\n" + "\n".join(f"- {g}" for g in goals))
    if mind.impressions:
        parts.append("What you make of the others:\n" + "\n".join(
            f"- {n}: trust {i.trust:+d}, liking {i.liking:+d}" + (f"; you think they want {i.wants}" if i.wants else "")
            for n, i in sorted(mind.impressions.items())))
    if mind.reflections:
        parts.append(f"Your last private thought: {mind.reflections[-1][1]}")
    if recalled:
        parts.append(recall_text(recalled))
    return "\n\n".join(parts)


def recall_text(recalled: Sequence[Recall]) -> str:
    """Memories brought back past the prompt's window, oldest first, each with the turn it is from."""
    return "You remember:\n" + "\n".join(
        f"- (turn {r.memory.turn}) " + (f"{r.memory.speaker}: " if r.memory.speaker else "") + r.memory.text
        for r in sorted(recalled, key=lambda r: r.memory.turn))
