"""What a prompt book keeps of each seat between the calls of one run, so a long run costs no more per call:
the counts of the history its budget leaves out (slid on by the few events a call moved them), and the
view it was last shown (shown again while nothing it could see came since). Both are kept on the run's form
(Form.windows, Form.views) and are only ever a faster way to the same prompt.
"""

from __future__ import annotations

from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass

from studio.engine.lens import SHOWN, View
from studio.store import events as ev
from studio.store.events import Event

SUMMARY_REACH = 200  # events before the shown history that the line standing for it counts
WINDOWS_PER_SEAT = 4  # the counts of that history kept between calls, one per budget a seat is shown at
VIEWS_KEPT = 16  # the views kept between calls, one per seat and budget (a Drama Machine's turn shows five)


def speaker(event: Event) -> str:
    """Who said a line, as a transcript names them."""
    return event.character or "Someone"


def index_of(path: list[Event], event_id: int) -> int:
    """Where an event is in a take (0 if it is not): a take's ids grow from its first event to its head,
    so a search halves it; a list in another order is walked."""
    at = bisect_left(path, event_id, key=lambda e: e.id)
    if at < len(path) and path[at].id == event_id:
        return at
    return next((i for i in range(len(path) - 1, -1, -1) if path[i].id == event_id), 0)


def _counted(event: Event, seat: str | None) -> bool:
    return event.kind in (ev.STAGE, ev.DIRECTION) and (seat is None or event.witnessed_by(seat))


class Window:
    """The lines a seat knows among the SUMMARY_REACH events before the first line it is shown: how many,
    how many each character spoke, and in which scenes. Kept between calls and slid forward as the shown
    history moves on, so a call counts the few events it moved by, not the whole reach again."""

    def __init__(self, seat: str | None, anchor: int = 0, at: int = 0):
        self.seat = seat
        self.anchor, self.at = anchor, at  # the first shown event's id and its place in the take
        self.lines = 0
        self.speakers: Counter[str] = Counter()
        self.scenes: Counter[int | None] = Counter()

    def count(self, path: list[Event], start: int, stop: int, sign: int) -> None:
        for event in path[start:stop]:
            if _counted(event, self.seat):
                self.lines += sign
                self.scenes[event.scene] += sign
                if event.kind == ev.STAGE:
                    self.speakers[speaker(event)] += sign

    def speaking_order(self, path: list[Event]) -> list[str]:
        """The characters who spoke in the window, in the order they first did."""
        left = {who for who, n in self.speakers.items() if n}
        order: list[str] = []
        for i in range(max(self.at - SUMMARY_REACH, 0), self.at):  # most calls stop within a few lines
            if not left:
                break
            event = path[i]
            who = speaker(event)
            if event.kind == ev.STAGE and who in left and _counted(event, self.seat):
                order.append(who)
                left.discard(who)
        return order


def slid(windows: list[Window], path: list[Event], at: int, seat: str | None) -> Window:
    """The window before `path[at]`, slid on from the nearest of a seat's last few that lies earlier in the
    same take (the events before an event never change), else counted afresh. A seat is shown its history
    at more than one budget, so it keeps a window for each."""
    anchor = path[at].id
    low = max(at - SUMMARY_REACH, 0)
    usable = [w for w in windows if w.at <= at and w.at < len(path) and path[w.at].id == w.anchor]
    if not usable:
        window = Window(seat, anchor, at)
        window.count(path, low, at, 1)
        windows.append(window)
        if len(windows) > WINDOWS_PER_SEAT:
            windows.remove(min(windows, key=lambda w: w.at))
        return window
    window = max(usable, key=lambda w: w.at)
    old_low = max(window.at - SUMMARY_REACH, 0)
    window.count(path, old_low, min(low, window.at), -1)
    window.count(path, max(low, window.at), at, 1)
    window.anchor, window.at = anchor, at
    return window


@dataclass(frozen=True)
class Seen:
    """A view a seat was shown (at a budget: the key it is kept under), through which rewrites heard, of
    which take up to where."""

    heard: dict[tuple[int, str], int]
    length: int
    first: int
    last: int
    view: View

    def stands(self, path: list[Event], seat: str | None) -> bool:
        """Whether `path` is the take this view was made of, with nothing since that the view could hold: no
        line or direction, no summary of the seat's own. A take's ids run from its first event to its head,
        so the same first and last event at the same places mean the same events between."""
        n = self.length
        if len(path) < n or path[0].id != self.first or path[n - 1].id != self.last:
            return False
        return not any(e.kind in SHOWN or (e.kind == ev.SUMMARY and e.role == seat) for e in path[n:])
