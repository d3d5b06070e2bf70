"""Two takes of one line, compared word by word: side by side, or as one text with the changes marked.

Words are compared, not characters: a playwright reads a change of phrasing, and a character diff of
two model takes is mostly noise. Punctuation stays attached to its word, so "night." and "night?"
differ as words do on the page.
"""

from __future__ import annotations

from difflib import SequenceMatcher
from typing import TYPE_CHECKING, Any

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Label, Static

from studio.tui.screens.modal import Dialog

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView

GONE = "bold red strike"
NEW = "bold green underline"


def word_diff(old: str, new: str) -> tuple[Text, Text, Text]:
    """The old take with what was cut marked, the new with what was added marked, and both in one."""
    a, b = old.split(), new.split()
    left, right, merged = Text(), Text(), Text()

    def put(text: Text, words: list[str], style: str = "") -> None:
        for word in words:
            if text.plain:
                text.append(" ")
            text.append(word, style=style)

    for op, i1, i2, j1, j2 in SequenceMatcher(a=a, b=b, autojunk=False).get_opcodes():
        if op == "equal":
            for text in (left, right, merged):
                put(text, a[i1:i2])
            continue
        put(left, a[i1:i2], GONE)
        put(right, b[j1:j2], NEW)
        put(merged, a[i1:i2], GONE)
        put(merged, b[j1:j2], NEW)
    return left, right, merged


def similarity(old: str, new: str) -> float:
    return SequenceMatcher(a=old.split(), b=new.split(), autojunk=False).ratio()


def take_title(event: Any, index: int, count: int) -> str:
    who = {"human": "yours", "override": "edited by you"}.get(event.origin or "", event.model or "the model")
    return f"take {index} of {count} · {who}"


class DiffScreen(Dialog):
    """`events` are every take of one line in order; `shown` is the take on the right, compared with
    `other` on the left. `[`/`]` change the take compared against, `w` switches the layout."""

    DEFAULT_CSS = """
    #diff-body { height: auto; max-height: 70vh; }
    """
    BINDINGS = [
        Binding("w", "layout", "Side by side / word diff", id="diff-layout"),
        Binding("left_square_bracket", "other(-1)", "Other take", key_display="[", id="diff-previous"),
        Binding("right_square_bracket", "other(1)", "Other take", key_display="]", id="diff-next"),
    ]

    def __init__(self, events: list[Any], shown: int, other: int) -> None:
        super().__init__()
        self._events = events
        self._shown = shown
        self._other = other
        self._side_by_side = True

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="diff-dialog"):
            yield Label("", id="diff-title", classes="dialog-title")
            with VerticalScroll(id="diff-body"):
                yield Static(id="diff")
            yield Label("[ ] compare with another take · w side by side or one text · Esc closes.",
                        classes="dialog-help")

    def on_mount(self) -> None:
        self.query_one("#diff-dialog").styles.width = "96%"
        self.query_one("#diff-dialog").styles.max_width = "96%"
        self._show()

    def _show(self) -> None:
        new, old = self._events[self._shown], self._events[self._other]
        count = len(self._events)
        who = new.character or "the line"
        score = similarity(old.text, new.text)
        self.query_one("#diff-title", Label).update(
            Text(f"{who} · turn {new.turn} · {score:.0%} of the words in common")
        )
        left, right, merged = word_diff(old.text, new.text)
        if self._side_by_side:
            table = Table(expand=True, show_lines=False, box=None, padding=(0, 2))
            table.add_column(take_title(old, self._other + 1, count), ratio=1)
            table.add_column(take_title(new, self._shown + 1, count), ratio=1)
            table.add_row(left, right)
            self.query_one("#diff", Static).update(table)
        else:
            head = Text(f"{take_title(old, self._other + 1, count)} → {take_title(new, self._shown + 1, count)}\n\n",
                        style="bold")
            self.query_one("#diff", Static).update(head + merged)

    def action_layout(self) -> None:
        self._side_by_side = not self._side_by_side
        self._show()

    def action_other(self, delta: int) -> None:
        count = len(self._events)
        other = (self._other + delta) % count
        if other == self._shown:
            other = (other + delta) % count
        self._other = other
        self._show()


def open_diff(screen: Any, engine: EngineView, event_id: int) -> None:
    """Compare a line's take with the one before it (the next, for the first take). Takes the playwright
    hid are left out, as they are from the counts on stage; the line on stage always counts."""
    hidden = getattr(screen, "hidden", ())
    takes = [t for t in engine.takes(event_id) if t.id not in hidden or t.id == event_id]
    ids = [t.id for t in takes]
    if len(ids) < 2 or event_id not in ids:
        screen.notify("This line has only one take: g writes another, then d compares them.", severity="warning")
        return
    shown = ids.index(event_id)
    other = shown - 1 if shown > 0 else 1
    screen.app.push_screen(DiffScreen(takes, shown, other))
