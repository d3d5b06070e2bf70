"""The side panes and the human's input box: thin shells over `studio.tui.views`."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Input, Label, OptionList, Static
from textual.widgets.option_list import Option

from studio.tui import views


class BackstagePane(VerticalScroll):
    """Everything that shaped the selected stage line."""

    def compose(self) -> ComposeResult:
        yield Static(Text("Opening…", style="dim"), id="backstage")

    def show(self, engine: Any, event_id: int | None, takes: dict[int, tuple[int, int]] | None = None,
             lens: str | None = None) -> None:
        self.query_one("#backstage", Static).update(views.backstage(engine, event_id, takes, lens))


class NotesPane(Vertical):
    """Scene briefs, the director's interventions and the playwright's notes, with a box for a new note."""

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="notes-scroll"):
            yield Static(id="notes")
        yield Input(placeholder="A note for the next turn ⏎", id="note-input")

    _count = 0

    def show(self, engine: Any, latest: bool = True) -> None:
        """Scrolls to a note only when one was added; a run just opened starts at its briefs."""
        self.query_one("#notes", Static).update(views.notes(engine))
        count = views.note_count(engine)
        if latest and count > self._count:
            scroll = self.query_one("#notes-scroll", VerticalScroll)
            self.call_after_refresh(scroll.scroll_end, animate=False, immediate=True)
        self._count = count


class CastPane(OptionList):
    """The cast with the prompt each is playing under now; Enter or `c` edits the highlighted sheet."""

    def show(self, engine: Any) -> None:
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
