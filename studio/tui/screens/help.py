"""Every control and pane on one screen, read from the same table as the bindings."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Label, Static

from studio.tui.controls import ALL, APP, CAST, EDITING, FINDING, LINES, PANES, PEN, PICKER, RUN, TEXT, TREE

PANES_HELP = (
    ("Stage", "The play as an audience sees it, streaming as it is written. ↑/↓ select a line."),
    ("Backstage", "For the selected line: what was said and what the protagonist heard, the draft, the "
                  "superego's critique, kept or revised, and prompt rewrites as a diff."),
    ("Notes", "Scene briefs, the director's interventions and your notes; type a note and press Enter."),
    ("Cast", "Each character with the prompt they play under now; Enter edits the highlighted sheet, c "
             "chooses whose."),
)


IDS_FROM = 120
"""The narrowest screen whose help shows each control's id (for a palette search or docs/app.md): below it
the ids took a third of the width and squeezed the help to a few keys a page."""


def help_table(ids: bool = True) -> Table:
    table = Table(box=None, show_header=False, padding=(0, 2, 0, 0), expand=True)
    table.add_column("key", style="bold", no_wrap=True)
    table.add_column("what")
    if ids:
        table.add_column("id", style="dim", no_wrap=True)

    def row(key: object, what: object, ident: str = "") -> None:
        table.add_row(key, what, *((ident,) if ids else ()))  # type: ignore[arg-type]

    for group in (RUN, LINES, PEN, FINDING, EDITING, CAST, PANES, APP):
        row("", Text(group, style="bold underline"))  # not in the key column: it would widen it
        for control in ALL:
            if control.group == group:
                row(control.keys, control.help, control.id)
        row("", "")
    for title, controls in (("In a text box", TEXT), ("In the take tree", TREE), ("In the picker", PICKER)):
        row("", Text(title, style="bold underline"))
        for control in controls:
            row(control.keys, control.help, control.id)
        row("", "")
    row("", Text("Panes", style="bold underline"))
    for name, text in PANES_HELP:
        row(name, text)
    row("", "")
    row("ctrl+p", "The command palette: every control above, by name.")
    return table


class HelpScreen(ModalScreen[None]):
    BINDINGS = [
        Binding("escape,question_mark,q,f1", "dismiss", "Close", id="close-help"),
    ]

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog wide", id="help-dialog"):
            yield Label("studio · keys and panes", classes="dialog-title")
            with VerticalScroll():
                yield Static(help_table(ids=self.app.size.width >= IDS_FROM), id="help-table")
            yield Label("Esc closes.", classes="dialog-help")
