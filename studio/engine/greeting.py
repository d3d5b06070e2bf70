"""A card's greeting as its character's opening line.

A card's first message is the character's first line of the run, committed with origin "card" and its
macros filled then, so a replay reads it back. Its alternate greetings (and, in an ensemble, its
group-only ones) are the next takes of that line; once every greeting has been a take, a new take is
the model's.
"""

from __future__ import annotations

from typing import Any

from studio.engine.forms.base import Step
from studio.model.play import ResolvedCast, ResolvedRole
from studio.store import events as ev
from studio.store.events import Event


def greetings_of(cast: ResolvedCast, role: ResolvedRole) -> list[str]:
    """The greetings `role`'s card offers in this play, first message first; none without a card, or in a
    play that turned greetings off."""
    card = role.sheet.card
    if card is None or not cast.play.greeting:
        return []
    group = list(getattr(card, "group_greetings", None) or []) if cast.play.form == "ensemble" else []
    return [g for g in [card.first_message, *card.greetings, *group] if g.strip()]


def opens(step: Step, role: ResolvedRole, path: list[Event]) -> bool:
    """Whether this step is `role`'s first spoken line of the take, the one a greeting may be."""
    if step.kind != ev.STAGE or step.task != "speak":
        return False
    return not any(e.kind == ev.STAGE and e.role == role.key for e in reversed(path))


def unused(count: int, takes: list[Event], role: ResolvedRole) -> int | None:
    """The first of `count` greetings no earlier take of this line (`takes`, the events written at the
    same point) has been; None when every one has."""
    used = {e.data.get("greeting") for e in takes if e.role == role.key and e.origin == "card"}
    return next((i for i in range(count) if i not in used), None)


def greeting(engine: Any, step: Step, role: ResolvedRole) -> tuple[str, dict[str, Any]] | None:
    """The greeting this line is, macros filled, with what the line's data records of it; None: the line
    is not a greeting's."""
    if role.sheet.card is None or not engine.cast.play.greeting or not opens(step, role, engine.path):
        return None
    options = greetings_of(engine.cast, role)
    if not options:
        return None
    takes = engine.store.children(engine.head) if engine.head is not None else [
        e for e in engine.store.events(engine.run_id) if e.parent is None]
    index = unused(len(options), takes, role)
    if index is None:
        return None
    from studio.engine.forms.drama.prompts import card_context
    from studio.model.macros import resolve

    text = resolve(options[index], card_context(engine.cast, engine.path, role))
    return text, {"greeting": index, "greetings": len(options)}
