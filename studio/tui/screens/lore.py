"""A character's World Info in the app: every entry of every book its lines can be given, to read and edit.

The books are read from their files as saved now (studio.model.book_edit), and an edit is written back
to the file the book came from, in that file's own form. A run keeps the books it started with, so an
edit reaches new runs, never the lines already played: the dialog says so, and never touches the run.
"""

from __future__ import annotations

from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical, VerticalScroll
from textual.widgets import Checkbox, Input, Label, OptionList
from textual.widgets.option_list import Option

from studio.model.book_edit import BookFile, EntryEdit, save_entry, start_book
from studio.model.errors import InputError
from studio.tui.screens.modal import Dialog, KeepsTyping


def _entry_line(entry_label: str, keys: list[str], enabled: bool, constant: bool) -> Text:
    text = Text("  ")
    text.append("✓ " if enabled else "✗ ", style="green" if enabled else "red")
    text.append(entry_label, style="bold" if enabled else "dim")
    when = "always" if constant else ("keys: " + ", ".join(keys) if keys else "no keys")
    text.append(f"  {when}", style="dim")
    return text


class LorebookScreen(KeepsTyping, Dialog):
    """At 80x24 the list and the editor share the screen between the title and the help line, which stay in
    sight: the list keeps to eight rows, and the part between scrolls (Tab brings each field into view)."""

    BINDINGS = [Binding("ctrl+s", "save", "Save", id="save-lore")]
    discard_what = "The entry's keys, text or tick are not saved to its book."
    DEFAULT_CSS = """
    #lore-body { height: 1fr; }
    #lore-entries { max-height: 8; }
    .lore-label { color: $text-muted; margin-top: 0; }
    #lore-title { margin-bottom: 0; }
    """

    def __init__(self, name: str, sheet_path: Path, books: list[BookFile]) -> None:
        super().__init__()
        self._character = name
        self._sheet_path = sheet_path
        self.books = books
        self.at: tuple[int, int | None] | None = None  # (book, entry; None for a new one) in the editor
        self.saved: list[Path] = []

    def compose(self) -> ComposeResult:
        from studio.tui.widgets.longtext import LongText

        with Vertical(classes="dialog wide", id="lore-dialog"):
            yield Label(Text(f"{self._character}'s World Info · {self._sheet_path.name}"), classes="dialog-title",
                        id="lore-title")
            with VerticalScroll(id="lore-body"):
                yield OptionList(*self._options(), id="lore-entries")
                yield Label("Keys, separated by commas: a line that mentions one gives the entry", classes="lore-label")
                yield Input(id="lore-keys", placeholder="lighthouse, the lamp")
                yield Label("What the character is told", classes="lore-label")
                yield LongText("", id="lore-content", classes="short")
                yield Checkbox("In use (unticked: kept in the book, never given)", True, id="lore-enabled")
                yield Label("", id="lore-error")
            yield Label("Enter on an entry (or + a new one) edits it; ctrl+s saves it to its file. This run keeps its "
                        "books; new runs read the edit. ctrl+a selects all in a box. Esc closes (asking first if the "
                        "entry has changes not saved).", classes="dialog-help", id="lore-help")

    def _options(self) -> list[Option]:
        if not self.books:
            return [Option(Text(f"{self._character} has no World Info yet: start a book here, or import a World Info "
                                "file (studio import NAME.json) and name it on the sheet, lorebooks = [\"NAME\"]",
                                style="dim"), disabled=True),
                    Option(Text(f"  + start {self._character}'s World Info book with a first entry (a file in "
                                "lorebooks/, named on the sheet)", style="italic"), id="start:-1")]
        options: list[Option] = []
        for b, source in enumerate(self.books):
            entries = source.book.entries
            head = Text(source.label, style="bold underline")
            where = f"{source.path.parent.name}/{source.path.name}"
            head.append(f"  {len(entries)} entr{'y' if len(entries) == 1 else 'ies'} · {where}", style="dim")
            options.append(Option(head, disabled=True))
            for e, entry in enumerate(entries):
                options.append(Option(_entry_line(entry.label, entry.keys, entry.enabled, bool(entry.constant)),
                                      id=f"entry:{b}:{e}"))
            options.append(Option(Text("  + a new entry in this book", style="italic"), id=f"new:{b}"))
        return options

    def on_mount(self) -> None:
        entries = self.query_one("#lore-entries", OptionList)
        entries.focus()
        first = next((i for i, o in enumerate(entries.options) if not o.disabled), None)
        if first is not None:
            entries.highlighted = first

    @on(OptionList.OptionHighlighted, "#lore-entries")
    def _shown(self, event: OptionList.OptionHighlighted) -> None:
        self._load(event.option.id)

    @on(OptionList.OptionSelected, "#lore-entries")
    def _chosen(self, event: OptionList.OptionSelected) -> None:
        self._load(event.option.id)
        self.query_one("#lore-keys", Input).focus()

    def _load(self, option_id: str | None) -> None:
        from studio.tui.widgets.longtext import LongText

        kind, _, where = (option_id or "").partition(":")
        if kind == "entry":
            b, e = (int(n) for n in where.split(":"))
            entry = self.books[b].book.entries[e]
            self.at = (b, e)
            keys, content, enabled = ", ".join(entry.keys), entry.content, entry.enabled
        elif kind in ("new", "start"):  # a new entry; in book -1, the first of a book not started yet
            self.at = (int(where), None)
            keys, content, enabled = "", "", True
        else:
            return
        self.query_one("#lore-keys", Input).value = keys
        self.query_one("#lore-content", LongText).load_text(content)
        self.query_one("#lore-enabled", Checkbox).value = enabled
        self.query_one("#lore-error", Label).update("")
        self.keep_typed()  # the entry as its book holds it: moving to another entry is no change

    def on_long_text_submitted(self, event: object) -> None:
        self.action_save()

    def action_save(self) -> None:
        from studio.tui.widgets.longtext import LongText

        error = self.query_one("#lore-error", Label)
        if self.at is None:
            error.update(Text("Choose an entry, or + a new entry, first.", style="bold red"))
            return
        b, e = self.at
        edit = EntryEdit(keys=self.query_one("#lore-keys", Input).value.split(","),
                         content=self.query_one("#lore-content", LongText).text,
                         enabled=self.query_one("#lore-enabled", Checkbox).value)
        try:
            if b < 0:
                saved = start_book(self._sheet_path, self._character, edit)
                self.books.append(saved)
                b = len(self.books) - 1
            else:
                saved = save_entry(self.books[b], e, edit)
        except (InputError, OSError) as exc:
            problem = f"{exc.field + ': ' if isinstance(exc, InputError) and exc.field else ''}" + (
                f"{exc.problem} ({exc.fix})" if isinstance(exc, InputError) else str(exc))
            error.update(Text(problem, style="bold red"))
            return
        self.books[b] = saved
        self.saved.append(saved.path)
        index = e if e is not None else len(saved.book.entries) - 1
        entries = self.query_one("#lore-entries", OptionList)
        entries.set_options(self._options())
        entries.highlighted = entries.get_option_index(f"entry:{b}:{index}")
        error.update(Text(f"Saved to {saved.path}; new runs read it.", style="green"))
        self.keep_typed()
        self.app.notify(f"Saved {saved.book.entries[index].label} to {saved.path}. This run keeps its books; new "
                        "runs read the edit.", title="World Info", markup=False)
