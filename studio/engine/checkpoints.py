"""Copies of a run's state every so many events, so moving the head back replays a few events, not the take.

A rewind at turn 1,000 used to read the whole take from the store and fold it again (86 ms). The state
is a fold of events, so a copy taken after event N plus the events after N is the same state; the
engine keeps one copy per EVERY events of the current take and drops those past a new head.
"""

from __future__ import annotations

import copy
from typing import Any

EVERY = 64


def snapshot(state: Any) -> Any:
    """A copy whose containers are its own (events and the cast are immutable and stay shared)."""
    out = copy.copy(state)
    for name, value in vars(state).items():
        if isinstance(value, (list, dict, set)):
            setattr(out, name, copy.copy(value))
    return out


class Checkpoints:
    def __init__(self) -> None:
        self.marks: dict[int, Any] = {}  # events folded -> the state after them

    def clear(self) -> None:
        self.marks.clear()

    def note(self, folded: int, state: Any) -> None:
        if folded and folded % EVERY == 0:
            self.marks[folded] = snapshot(state)

    def restore(self, folded: int) -> tuple[int, Any | None]:
        """The newest copy at or before `folded` events (a fresh copy of it), forgetting later ones."""
        for n in [n for n in self.marks if n > folded]:
            del self.marks[n]
        best = max(self.marks, default=0)
        return best, (snapshot(self.marks[best]) if best else None)
