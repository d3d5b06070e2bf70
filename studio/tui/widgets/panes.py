"""The side panes and the human's input box: thin shells over `studio.tui.views`.

Every pane keeps itself current: it hears each committed event and each redraw of the run as a message
(`studio.tui.messages`) and decides for itself what to draw, so the screen never has to know which panes
exist. A new pane subclasses `RunPane`, says when an event concerns it, and is composed on the screen.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from studio.store import events as ev
from studio.tui import views
from studio.tui.messages import EventCommitted, LineSelected, RunRedrawn

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView


class RunPane:
    """A pane over the open run. Mixed into a widget: it keeps the engine and the take counts the latest
    message brought, redraws when a committed event `concerns` it, and, when hidden, once it is shown."""

    engine: EngineView | None = None
    takes: dict[int, tuple[int, int]] | None = None
    _stale = False

    def concerns(self, event: Any) -> bool:
        """Whether a committed event changes what this pane says."""
        return True

    def redraw(self, latest: bool = True) -> None:
        """Draw the pane from `self.engine`; `latest`: scroll to what is new."""

    def _visible(self) -> bool:
        return bool(self.display)  # type: ignore[attr-defined]

    def on_event_committed(self, message: EventCommitted) -> None:
        self.engine, self.takes = message.engine, message.takes
        if self.concerns(message.event):
            self._redraw_if_shown()

    def on_run_redrawn(self, message: RunRedrawn) -> None:
        self.engine, self.takes = message.engine, message.takes
        self._redraw_if_shown(message.latest)

    def _redraw_if_shown(self, latest: bool = True) -> None:
        if self.engine is None:
            return
        if self._visible():
            self._stale = False
            self.redraw(latest)
        else:
            self._stale = True  # drawn once it is shown: a hidden pane costs nothing while the run moves

    def on_show(self, event: events.Show) -> None:
        if self._stale and self.engine is not None:
            self._stale = False
            self.redraw()


class BackstagePane(RunPane, VerticalScroll):
    """Everything that shaped the selected stage line."""

    BORDER_TITLE = "Backstage"
    selected: int | None = None
    _timer: Any = None

    def compose(self) -> ComposeResult:
        yield Static(Text("Opening…", style="dim"), id="backstage")

    def concerns(self, event: Any) -> bool:
        return not event.on_stage  # a line's own commit moves the stage's cursor, which says so

    def on_event_committed(self, message: EventCommitted) -> None:
        self.engine, self.takes = message.engine, message.takes
        if self.concerns(message.event):
            self._later(message.soon)

    def on_line_selected(self, message: LineSelected) -> None:
        self.selected = message.event_id
        self._later(message.soon)

    def _later(self, soon: bool) -> None:
        """`soon`: while the engine writes, explain at most a few times a second; each explanation
        reflows the side pane, and a frame spent there is a frame late for the next token."""
        if not soon:
            self._redraw_if_shown()
        elif self._timer is None:
            self._timer = self.set_timer(0.2, self._redraw_if_shown)

    def redraw(self, latest: bool = True) -> None:
        if self._timer is not None:
            self._timer.stop()
            self._timer = None
        if self.engine is not None:
            self.query_one("#backstage", Static).update(views.backstage(self.engine, self.selected, self.takes))


class NotesPane(RunPane, Vertical):
    """Scene briefs, the director's interventions and the playwright's notes, with a box for a new note."""

    BORDER_TITLE = "Director's notes"

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="notes-scroll"):
            yield Static(id="notes")
        yield Input(placeholder="A note for the next turn ⏎", id="note-input")

    _count = 0

    def concerns(self, event: Any) -> bool:
        return event.kind in (ev.NOTE, ev.CONTROL, ev.ERROR, ev.SCENE) or event.role == "director"

    def redraw(self, latest: bool = True) -> None:
        """Scrolls to a note only when one was added; a run just opened starts at its briefs."""
        if self.engine is not None:
            self.show(self.engine, latest)

    def show(self, engine: EngineView, latest: bool = True) -> None:
        self.query_one("#notes", Static).update(views.notes(engine))
        count = views.note_count(engine)
        if latest and count > self._count:
            scroll = self.query_one("#notes-scroll", VerticalScroll)
            self.call_after_refresh(scroll.scroll_end, animate=False, immediate=True)
        self._count = count


class CastPane(RunPane, OptionList):
    """The cast with the prompt each is playing under now; Enter or `c` edits the highlighted sheet."""

    BORDER_TITLE = "Cast"

    def concerns(self, event: Any) -> bool:
        return event.kind in (ev.REWRITE_PROMPT, ev.CONTROL)

    def redraw(self, latest: bool = True) -> None:
        if self.engine is not None:
            self.show(self.engine)

    def show(self, engine: EngineView) -> None:
        highlighted = self.highlighted
        self.clear_options()
        for role in engine.cast.roles:
            self.add_option(Option(views.role_card(engine, role), id=role.key))
            self.add_option(None)
        if engine.cast.roles:
            self.highlighted = highlighted if highlighted is not None else 0

    @property
    def role_key(self) -> str | None:
        if self.highlighted is None:
            return None
        option = self.get_option_at_index(self.highlighted)
        return option.id


class HumanInput(Vertical):
    """Opens when a human role's step comes: marked with the role and character it speaks for."""

    def compose(self) -> ComposeResult:
        yield Label(id="human-label")
        yield Input(id="human-line")

    def open(self, label: str, placeholder: str) -> None:
        self.query_one("#human-label", Label).update(Text(label))
        line = self.query_one("#human-line", Input)
        line.value = ""
        line.placeholder = placeholder
        self.display = True
        line.focus()

    def close(self) -> None:
        self.display = False
