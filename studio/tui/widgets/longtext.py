"""A text area for anything long (a prompt, a line, a brief, a note) that can go out to an editor.

`ctrl+e` asks the app for an editor: in a terminal it suspends the app, as git does for a commit message,
opens the text in the playwright's own $EDITOR and puts what they saved back in the area; in a browser tab
it is the studio's own. `ctrl+s` submits; `ctrl+a` selects the whole text (Textual's own key for it is F7,
and its ctrl+a went to the line's start, which `home` still does) and `ctrl+l` empties the box. When the
terminal cannot be handed over (a test's headless driver), $EDITOR still runs, without the suspension.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from textual.message import Message
from textual.app import App
from textual.widgets import TextArea

from studio.tui.controls import TEXT

if TYPE_CHECKING:
    from studio.tui.studio_view import StudioView


async def edit_in_editor(app: App[Any], text: str, suffix: str = ".txt") -> str | None:
    """The text after a round trip through $EDITOR, or None (and a notification) if it failed."""
    from studio.editor import EditorError, edit_text

    try:
        try:
            with app.suspend():
                edited = edit_text(text, suffix)
        except Exception as exc:  # SuspendNotSupported, or the editor failing inside the suspension
            if type(exc).__name__ != "SuspendNotSupported":
                raise
            edited = edit_text(text, suffix)
    except EditorError as exc:
        app.notify(f"{exc}. The text is as it was.", title="Editor", severity="warning")
        return None
    app.refresh()
    return edited


class LongText(TextArea):
    """A soft-wrapped text area; `Submitted` carries the text when ctrl+s is pressed."""

    BINDINGS = [control.binding() for control in TEXT]
    DEFAULT_CSS = """
    LongText { height: auto; min-height: 4; max-height: 14; }
    LongText.short { max-height: 6; }
    """

    class Submitted(Message):
        def __init__(self, area: LongText, text: str) -> None:
            self.area = area
            self.text = text
            super().__init__()

        @property
        def control(self) -> LongText:
            return self.area

    def __init__(self, text: str = "", *, suffix: str = ".txt", starter: str | None = None, **kwargs: Any) -> None:
        kwargs.setdefault("soft_wrap", True)
        kwargs.setdefault("show_line_numbers", False)
        kwargs.setdefault("tab_behavior", "focus")
        # A starting file's advice on what to write here opens as a dim hint in an empty box, not as text
        # the playwright must first select and delete; left empty, the box keeps what the file says.
        self._starter = starter if starter is not None and text.strip() == starter.strip() else None
        if self._starter is not None:
            text = ""
            kwargs.setdefault("placeholder", self._starter)
        super().__init__(text, **kwargs)
        self._suffix = suffix

    @property
    def kept_text(self) -> str:
        """What the box holds, or the starting file's text where the box still shows it only as a hint."""
        if self._starter is not None and not self.text.strip():
            return self._starter
        return self.text

    def action_clear_text(self) -> None:
        """Empty the box as one edit, so ctrl+z brings the text back."""
        self.clear()

    def action_external_editor(self) -> None:
        cast("StudioView", self.app).edit_text(self.text, self._take_edit, self._suffix)

    def _take_edit(self, edited: str) -> None:
        if edited != self.text:
            self.load_text(edited)
            self.move_cursor(self.document.end)
            self.post_message(self.Changed(self))

    def action_submit_text(self) -> None:
        self.post_message(self.Submitted(self, self.text))
