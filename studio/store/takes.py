"""Names and stars on takes, and finding a take by its name.

A take is marked on the line where it starts (the line a regenerate, an edit or a swipe wrote), so a
name survives the run going on: following a named take means following that line to the newest end
of its branch. Marks are labels for the playwright, not part of the play, so they live beside the
immutable events in their own table (created on first open of any older database).
"""

from __future__ import annotations

import re
import time
from collections.abc import Callable
from dataclasses import dataclass, replace

from studio.store.db import Store, StoreError, parse_id

_NAME = re.compile(r"^[\w][\w .'-]{0,59}$")


@dataclass(frozen=True)
class TakeMark:
    event_id: int
    name: str | None
    starred: bool
    hidden: bool = False  # left out of the take tree and the take counts; its events stay


def check_name(name: str) -> str:
    """A take's name: short, printable, not a number (a number already means an event id)."""
    name = name.strip()
    if not name or not _NAME.match(name) or name.isdigit():
        raise StoreError(
            f"'{name}' cannot name a take: use up to 60 letters, digits, spaces, . ' - or _, not only digits"
        )
    return name


def marks(store: Store, run_id: int) -> dict[int, TakeMark]:
    rows = store._all("SELECT event_id, name, starred, hidden FROM take_marks WHERE run_id = ?", (run_id,))
    return {r[0]: TakeMark(r[0], r[1], bool(r[2]), bool(r[3])) for r in rows}


def _upsert(store: Store, event_id: int, change: Callable[[TakeMark], TakeMark]) -> TakeMark:
    event = store.event(event_id)
    current = marks(store, event.run_id).get(event_id) or TakeMark(event_id, None, False)
    changed = change(current)
    name, starred, hidden = changed.name, changed.starred, changed.hidden
    with store.lock:
        try:
            store.conn.execute(
                "INSERT INTO take_marks (event_id, run_id, name, starred, hidden, updated) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(event_id) DO UPDATE SET name = excluded.name, starred = excluded.starred, "
                "hidden = excluded.hidden, updated = excluded.updated",
                (event_id, event.run_id, name, int(starred), int(hidden), time.time()),
            )
        except Exception as exc:  # the unique index: another take of this run has the name
            if "UNIQUE" in str(exc):
                raise StoreError(f"run {event.run_id} already has a take called '{name}'; choose another") from None
            raise
    return TakeMark(event_id, name, starred, hidden)


def name_take(store: Store, event_id: int, name: str | None) -> TakeMark:
    """Name (or, with None or '', unname) the take that starts at this line."""
    named = check_name(name) if name and name.strip() else None
    return _upsert(store, event_id, lambda mark: replace(mark, name=named))


def star_take(store: Store, event_id: int, starred: bool | None = None) -> TakeMark:
    """Star or unstar a take; without `starred`, toggle it."""
    if starred is None:
        current = marks(store, store.event(event_id).run_id).get(event_id)
        starred = not (current.starred if current else False)
    return _upsert(store, event_id, lambda mark: replace(mark, starred=bool(starred)))


def hide_take(store: Store, event_id: int, hidden: bool = True) -> TakeMark:
    """Hide the take that starts at this line from the take tree and the take counts, or show it again.
    Only a label: every event stays, so rewinds, resumes and exports read the run as before."""
    return _upsert(store, event_id, lambda mark: replace(mark, hidden=bool(hidden)))


def hidden_events(store: Store, run_id: int) -> set[int]:
    """Every event of the run's hidden takes (a hidden take's later forks included), but for the take the
    run follows now: a line on stage is always counted."""
    rows = store._all(
        """WITH RECURSIVE hidden(id) AS (
               SELECT event_id FROM take_marks WHERE run_id = ? AND hidden = 1
               UNION SELECT e.id FROM events e JOIN hidden h ON e.parent = h.id
           )
           SELECT id FROM hidden""",
        (run_id,),
    )
    found = {r[0] for r in rows}
    if found:
        found -= {e.id for e in store.take(run_id)}
    return found


def newest_tip(store: Store, event_id: int) -> int:
    """The last event of the newest branch through this line: where following it leads."""
    tip = event_id
    while True:
        children = store.children(tip)
        if not children:
            return tip
        tip = children[-1].id


def resolve_take(store: Store, run_id: int, take: str | int | None) -> int | None:
    """The head of the take a user means: an event id (the take's last event) or a take's name."""
    if take is None:
        return None
    text = str(take).strip()
    if text.isdigit():
        event = store.event(parse_id(text, "event"))
        if event.run_id != run_id:
            raise StoreError(f"event {text} belongs to run {event.run_id}, not run {run_id}")
        return event.id
    row = store._one("SELECT event_id FROM take_marks WHERE run_id = ? AND name = ?", (run_id, text))
    if row is None:
        names = sorted(m.name for m in marks(store, run_id).values() if m.name)
        known = ", ".join(names) if names else "none named yet"
        raise StoreError(f"run {run_id} has no take called '{text}' (named takes: {known})")
    return newest_tip(store, row[0])
