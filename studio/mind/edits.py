"""The playwright's hand on a character's inner life, checked in one place for the command line and the app.

Each function takes what a person typed or chose, refuses what cannot be meant (a mood the sheet does
not list, an item already known, an empty goal, a fact that is not a name and a scalar) with an
EditError naming the field and the fix, and otherwise returns the fields of a human event for
`Engine.mind_event`. The same rules for a fact's name and value guard a play's `[facts]` table.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from studio.clean import LINE_CONTROLS
from studio.model.facts import MAX_FACT_NAME, MAX_FACT_TEXT, RESERVED_FACTS, fact_problem  # noqa: F401

MAX_GOALS = 12
MAX_GOAL = 500
_CONTROL = LINE_CONTROLS


class EditError(ValueError):
    """A hand-made change that cannot be committed: which field, what is wrong, what to do instead."""

    def __init__(self, field: str, problem: str, fix: str):
        super().__init__(problem)
        self.field = field
        self.problem = problem
        self.fix = fix


def parse_fact(text: str) -> tuple[str, Any]:
    """`storm=rising`, `door_locked=true`, `visits=3`, `storm=null` (removes it): the value is read as JSON
    when it parses, else taken as text."""
    key, sep, raw = text.partition("=")
    key, raw = key.strip(), raw.strip()
    if not sep or not key:
        raise EditError("fact", f"expected NAME=VALUE, not {text!r}", "e.g. storm=rising or door_locked=true")
    try:
        value = json.loads(raw)
    except (ValueError, RecursionError):  # not JSON, or nested past reading: text, held to a fact's length
        value = raw
    problem = fact_problem(key, value)
    if problem:  # the fix in this door's own syntax, not a play file's
        fix = f"e.g. {key}=rising, {key}=3 or {key}=true" if problem[1].startswith("write it as") else problem[1]
        raise EditError("fact", f"{key}: {problem[0]}", fix)
    return key, value


def fact(text: str, *, scene: int, turn: int) -> dict[str, Any]:
    from studio.mind.moments import fact_event

    key, value = parse_fact(text)
    return fact_event(key, value, origin="human", scene=scene, turn=turn)


def mood(sheet: Any, name: str, chosen: str, *, scene: int, turn: int) -> dict[str, Any]:
    from studio.mind.moments import set_mood

    if not sheet.moods:
        raise EditError("mood", f"{name}'s sheet lists no moods", "add [[moods]] tables to the sheet first")
    try:
        return set_mood(sheet, name, chosen.strip(), scene=scene, turn=turn)
    except ValueError as exc:
        raise EditError("mood", str(exc), "choose one of the moods the sheet lists") from None


def locked(sheet: Any, mind: Any) -> list[tuple[int, str]]:
    """(item number from 1, text) of the knowledge still locked on this path: what can be unlocked by hand."""
    return [(i + 1, item.text) for i, item in enumerate(sheet.knowledge)
            if item.when is not None and i not in mind.unlocked]


def unlock(sheet: Any, name: str, mind: Any, number: int, *, scene: int, turn: int) -> dict[str, Any]:
    """Unlock knowledge item `number` (1 = the sheet's first); it must exist and not be known already."""
    from studio.mind.moments import unlock_by_hand

    count = len(sheet.knowledge)
    if not 1 <= number <= count:
        raise EditError("unlock", f"{name} has knowledge items 1 to {count}, not {number}" if count
                        else f"{name}'s sheet has no knowledge items", f"see 'studio mind RUN {name}' for the list")
    item = sheet.knowledge[number - 1]
    if item.when is None or (number - 1) in mind.unlocked:
        how = "from the start" if item.when is None else f"since event #{mind.unlocked[number - 1]}"
        raise EditError("unlock", f"{name} already knows item {number} ({how})", "choose a locked item")
    return unlock_by_hand(sheet, name, number - 1, scene=scene, turn=turn)


def goals(name: str, lines: Sequence[str], *, scene: int, turn: int) -> dict[str, Any]:
    """Replace the character's goals: one to twelve, each one line of text."""
    from studio.mind.moments import goals_by_hand

    cleaned = [g.strip() for g in lines if g.strip()]
    if not cleaned:
        raise EditError("goals", "no goal given", "write at least one goal, one per line")
    if len(cleaned) > MAX_GOALS:
        raise EditError("goals", f"at most {MAX_GOALS} goals, not {len(cleaned)}", "keep the ones that drive the scene")
    for goal in cleaned:
        if len(goal) > MAX_GOAL or _CONTROL.search(goal):
            raise EditError("goals", f"a goal is one line of at most {MAX_GOAL} characters: {goal[:40]!r}...",
                            "shorten it or split it in two")
    return goals_by_hand(name, cleaned, scene=scene, turn=turn)
