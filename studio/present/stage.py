"""A stage line as it reads: who says it, in what style, and what is known about the line itself
(which take it is, whether the playwright wrote or edited it, a star or a name given to its take)."""

from __future__ import annotations

from collections.abc import Collection, Iterable
from typing import Any

from studio.store import events as ev

BACKSTAGE_LABELS = {
    ev.REWRITE_SPEECH: "hears it as",
    ev.DRAFT: "drafts",
    ev.CRITIQUE: "critiques",
    ev.REWRITE_PROMPT: "rewrites the prompt",
    ev.PICK: "picks",
    ev.SUMMARY: "sums up",
    ev.CHOICE: "could not use",
    ev.GOALS: "sets goals",
    ev.VOTE: "votes",
    ev.MEMORY: "remembers",
    ev.IMPRESSIONS: "sizes up the others",
    ev.REFLECTION: "reflects",
    ev.REVIEW: "scores the play so far",
}
"""What a backstage event's author is doing, as a lead before its text."""

NOTICE_KINDS = (ev.CONTROL, ev.NOTE, "mind.mood", "mind.unlock", "mind.goals", "mind.fact")
"""Events that are said in passing, in brackets: the playwright's notes and switches, a mind's facts."""


def backstage_label(kind: str) -> str:
    return BACKSTAGE_LABELS.get(kind, kind.rsplit(".", 1)[-1].replace("_", " "))


def line_style(kind: str, role: str | None) -> str:
    """The style a line's text is written in: backstage dimmed, directions and the director in italics."""
    if kind in ev.BACKSTAGE:
        return "dim italic"
    if kind == ev.DIRECTION or role == "director":
        return "italic"
    return ""


def take_counts(events: Iterable[Any], hidden: Collection[int] = ()) -> dict[int, tuple[int, int]]:
    """Which take of its line each on-stage event is, (take, of how many): one pass over every take. The
    events of hidden takes (`hidden`) are not counted."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for event in events:
        if event.kind in (ev.STAGE, ev.DIRECTION, ev.EPILOGUE) and event.id not in hidden:
            slot = "line" if event.kind in (ev.STAGE, ev.DIRECTION) else event.kind
            groups.setdefault((event.parent, event.role, slot), []).append(event.id)
    counts: dict[int, tuple[int, int]] = {}
    for ids in groups.values():
        if len(ids) > 1:
            for index, event_id in enumerate(ids):
                counts[event_id] = (index + 1, len(ids))
    return counts


def tag(event: Any, takes: dict[int, tuple[int, int]], marks: dict[int, Any] | None = None) -> str:
    """What is known about a line beside its words: its take's star and name, who wrote it, which take."""
    tags = []
    mark = marks.get(event.id) if marks else None
    if mark is not None and mark.starred:
        tags.append("★")
    if mark is not None and mark.name:
        tags.append(f"“{mark.name}”")
    if event.origin == "human":
        tags.append("yours")
    elif event.origin == "override":
        tags.append("edited")
    if event.data.get("kept"):
        tags.append("kept")  # copied as written onto the take an edit before it made (studio/engine/pen.py)
    if event.data.get("heard_as"):
        tags.append(f"as {event.data['heard_as']} heard it")
    index, count = takes.get(event.id, (1, 1))
    if count > 1:
        tags.append(f"take {index}/{count}")
    return " · ".join(tags)
