"""The playwright's own actions on a run, in order, per window: what `undo` takes back and `redo` does again.

Every action the playwright takes on a run (an edit, an insert, a cut, a move, a rewind, a new take of a
line, a continued line, a take chosen, an import) ends with the run's head somewhere else. Nothing an
action wrote is ever removed: undo points the head back at exactly the take that was on stage before it,
redo points it at the take the action left. So the history is a list of (head before, head after), and
undo and redo are head moves, like a rewind.

It lives in a table of its own beside the events (`pen_history` in studio/store/schema.py, made on the
first open of an older database, as take marks are), not in the events, because it is about the
playwright's hands, not the play: an undo written as an event would itself sit on a take, and undoing
back past it would take the undo away; a rewind is no event either. Each row names the window that acted (the engine's `holder`; NULL for the command line),
so an undo in one window never takes back what another window did. A new action after some undos drops
that window's redo tail (its rows, never the takes they led to: those stay in the store as takes).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

from studio.store.db import _Immediate

# The actions the history records, as `record`'s `action` names them.
ACTIONS = ("edit", "insert", "cut", "move", "rewind", "regenerate", "continue", "take", "import")


@dataclass(frozen=True)
class Action:
    id: int
    holder: str | None
    action: str
    before_head: int | None
    after_head: int | None
    description: str
    undone: bool


def record(engine: Any, action: str, before_head: int | None, after_head: int | None, description: str) -> None:
    """Note one action of the playwright in `engine`'s window: the run went from `before_head` to
    `after_head`. The window's undone actions (its redo tail) are dropped in the same transaction."""
    if action not in ACTIONS:
        raise ValueError(f"unknown action {action!r}; use one of {', '.join(ACTIONS)}")
    store = engine.store
    text = " ".join(str(description).split())[:200]
    with store.lock, _Immediate(store):
        store.conn.execute("DELETE FROM pen_history WHERE run_id = ? AND holder IS ? AND undone = 1",
                           (engine.run_id, engine.holder))
        store.conn.execute(
            "INSERT INTO pen_history (run_id, holder, action, before_head, after_head, description, created) "
            "VALUES (?, ?, ?, ?, ?, ?, ?)",
            (engine.run_id, engine.holder, action, before_head, after_head, text, time.time()))


def actions(store: Any, run_id: int, holder: str | None) -> list[Action]:
    """One window's actions on a run, oldest first (the undone ones last of all, as they were done)."""
    rows = store._all("SELECT id, holder, action, before_head, after_head, description, undone FROM pen_history "
                      "WHERE run_id = ? AND holder IS ? ORDER BY id", (run_id, holder))
    return [Action(r[0], r[1], r[2], r[3], r[4], r[5], bool(r[6])) for r in rows]


def _next(engine: Any, undone: bool) -> Action | None:
    """The action undo would take back (the newest done one) or redo would do again (the oldest undone)."""
    order = "ASC" if undone else "DESC"
    row = engine.store._one(
        "SELECT id, holder, action, before_head, after_head, description, undone FROM pen_history "
        f"WHERE run_id = ? AND holder IS ? AND undone = ? ORDER BY id {order} LIMIT 1",
        (engine.run_id, engine.holder, int(undone)))
    return None if row is None else Action(row[0], row[1], row[2], row[3], row[4], row[5], bool(row[6]))


def upcoming(engine: Any, redo: bool = False) -> Action | None:
    """The action this window's undo (or redo) would act on now, for the app to say before it does."""
    return _next(engine, redo)


def can_undo(engine: Any) -> bool:
    return _next(engine, False) is not None


def can_redo(engine: Any) -> bool:
    return _next(engine, True) is not None


def _step(engine: Any, undoing: bool) -> str | None:
    found = _next(engine, not undoing)
    if found is None:
        return None
    store = engine.store
    target = found.before_head if undoing else found.after_head
    engine.rewind_to(target)
    store._run("UPDATE pen_history SET undone = ? WHERE id = ?", (int(undoing), found.id))
    return f"{'Undid' if undoing else 'Redid'} {found.description}"


def undo(engine: Any) -> str | None:
    """Take back this window's newest action: the run's head goes back to the take on stage before it.
    One line saying what was undone, or None when this window has nothing to undo."""
    return _step(engine, True)


def redo(engine: Any) -> str | None:
    """Do again the action this window undid last: the head goes to the take that action left."""
    return _step(engine, False)


class History:
    """The Engine's undo and redo (studio/engine/engine.py has these as its own methods)."""

    @property
    def head(self) -> int | None:
        raise NotImplementedError

    def undo(self) -> str | None:
        """Take back this window's newest action (see studio.engine.history.undo)."""
        return undo(self)

    def redo(self) -> str | None:
        """Do again this window's newest undone action (see studio.engine.history.redo)."""
        return redo(self)

    def can_undo(self) -> bool:
        return can_undo(self)

    def can_redo(self) -> bool:
        return can_redo(self)

    def _record(self, action: str, before_head: int | None, description: str) -> None:
        """Note an action this engine just took, unless it left the head where it was."""
        after = self.head
        if after != before_head:
            record(self, action, before_head, after, description)
