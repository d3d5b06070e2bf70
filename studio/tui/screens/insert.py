"""A line of the playwright's own, to put before or after the selected line: a character's speech (with
how it is said, a parenthetical), a direction (an action line, centred, a transition or a lyric) or a
scene heading. The dialog hands back what was written; the pen (studio/tui/screens/pen.py) commits it."""

from __future__ import annotations

from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.suggester import SuggestFromList
from textual.widgets import Input, Label, RadioButton, RadioSet

from studio.tui.screens.modal import Dialog, KeepsTyping
from studio.tui.widgets.longtext import LongText

KINDS = (("speech", "A speech"), ("direction", "A direction"), ("heading", "A scene heading"))
SHAPES = (("action", "action"), ("centered", "centred"), ("transition", "transition (CUT TO:)"),
          ("lyric", "lyric"))
HINTS = {
    "speech": "What they say",
    "direction": "What happens (a stage direction)",
    "heading": "The heading, as a script prints it: INT. KITCHEN - NIGHT",
}


class InsertLineScreen(KeepsTyping, Dialog):
    DEFAULT_CSS = """
    #insert-dialog RadioSet { layout: horizontal; height: auto; width: 100%; border: none; padding: 0; }
    #insert-dialog RadioButton { width: auto; margin-right: 2; }
    #insert-who { height: auto; }
    #insert-who Vertical { height: auto; width: 1fr; margin-right: 1; }
    """
    discard_what = "The line you wrote is not in the play yet."

    def __init__(self, title: str, names: list[str], speaker: str) -> None:
        super().__init__()
        self._title = title
        self._names = names
        self._speaker = speaker

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="insert-dialog"):
            yield Label(Text(self._title), classes="dialog-title")
            with RadioSet(id="insert-kind"):
                for i, (kind, label) in enumerate(KINDS):
                    yield RadioButton(label, value=i == 0, id=f"insert-{kind}")
            with Horizontal(id="insert-who"):
                with Vertical():
                    yield Label("Who speaks (new: joins the cast)")
                    yield Input(self._speaker, id="insert-character", select_on_focus=False,
                                suggester=SuggestFromList(self._names, case_sensitive=False))
                with Vertical():
                    yield Label("How (a parenthetical, optional)")
                    yield Input(id="insert-parenthetical", placeholder="quietly")
            with RadioSet(id="insert-shape"):
                for i, (shape, label) in enumerate(SHAPES):
                    yield RadioButton(label, value=i == 0, id=f"shape-{shape}")
            yield Label(HINTS["speech"], id="insert-hint")
            yield LongText("", id="insert-text", classes="short")
            yield Label("ctrl+s puts it in: a new take from here, the lines after it kept as written (u undoes it). "
                        "Tab moves between fields; in a box ctrl+a selects all, ctrl+e opens $EDITOR. Esc cancels "
                        "(asking first if you wrote something).", classes="dialog-help")

    def on_mount(self) -> None:
        self.query_one("#insert-dialog").styles.height = "auto"
        self._show_fields()
        self.query_one("#insert-text", LongText).focus()

    @property
    def kind(self) -> str:
        index = self.query_one("#insert-kind", RadioSet).pressed_index
        return KINDS[max(index, 0)][0]

    @on(RadioSet.Changed, "#insert-kind")
    def _show_fields(self) -> None:
        kind = self.kind
        self.query_one("#insert-who").display = kind == "speech"
        self.query_one("#insert-shape").display = kind == "direction"
        self.query_one("#insert-hint", Label).update(HINTS[kind])

    @on(Input.Submitted)
    def _next_field(self) -> None:
        self.focus_next()

    def on_long_text_submitted(self, event: LongText.Submitted) -> None:
        text = event.text.strip()
        if not text:
            self.notify("Write the line first; Esc cancels.", severity="warning")
            return
        kind = self.kind
        choice: dict[str, Any] = {"text": text}
        if kind == "speech":
            name = self.query_one("#insert-character", Input).value.strip()
            if not name:
                self.notify("Say who speaks: a name of the cast, or a new one.", severity="warning")
                self.query_one("#insert-character", Input).focus()
                return
            known = {n.casefold(): n for n in self._names}
            choice["character"] = known.get(name.casefold(), name)
            choice["parenthetical"] = self.query_one("#insert-parenthetical", Input).value.strip().strip("()")
        elif kind == "direction":
            index = self.query_one("#insert-shape", RadioSet).pressed_index
            choice["direction"] = True
            choice["shape"] = SHAPES[max(index, 0)][0]
        else:
            choice["heading"] = True
        self.dismiss(choice)
