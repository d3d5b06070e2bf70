"""The studio's own editor, for a host where $EDITOR cannot run.

In a browser tab the app's screen and keys are the tab's alone: an editor started on the serving machine
would take the server's terminal, or none, and outlive the tab. There ctrl+e opens this full-screen box.
"""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import Label

from studio.tui.widgets.longtext import LongText


class EditorScreen(ModalScreen[str | None]):
    """The whole window for one text: ctrl+s keeps what is written, Esc leaves the text as it was."""

    BINDINGS = [Binding("escape", "leave", "Leave as it was", id="leave-editor")]
    DEFAULT_CSS = """
    EditorScreen { align: center middle; }
    EditorScreen > Vertical { width: 100%; height: 100%; padding: 0 1; background: $surface; }
    EditorScreen #editor-text { height: 1fr; max-height: 100%; }
    """

    def __init__(self, text: str) -> None:
        super().__init__()
        self._text = text

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Label(Text("The studio's editor · ctrl+s keeps it · Esc leaves it as it was"),
                        classes="dialog-title")
            yield LongText(self._text, id="editor-text")

    def on_mount(self) -> None:
        area = self.query_one(LongText)
        area.focus()
        area.move_cursor(area.document.end)

    def on_long_text_submitted(self, event: LongText.Submitted) -> None:
        event.stop()
        self.dismiss(event.text)

    def action_leave(self) -> None:
        self.dismiss(None)
