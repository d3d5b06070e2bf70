"""The one base of the studio's dialogs, kept apart from the dialogs themselves, and the question every
editor asks before what was typed in it is thrown away.

The run screen's controls define dialogs of their own (the ensemble's who-speaks-next, say) and are
imported before the first frame; the dialogs' module brings in Textual's text area, switches and radio
sets, which nothing on that frame uses. This module costs the run screen nothing it does not have.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen, Screen
from textual.widgets import Input, Label, Static


def typed(screen: Screen[Any]) -> tuple[Any, ...]:
    """What the playwright can change on a screen: every box's text, every tick and every choice, by
    widget. Only the widget kinds already loaded are looked for: a kind not loaded is on no screen."""
    loaded = {name: getattr(sys.modules.get(module), name, None) for module, name in _KINDS}
    kinds = {name: kind for name, kind in loaded.items() if isinstance(kind, type)}
    found: list[Any] = []
    for widget in screen.query("*"):
        shown: Any = widget
        if isinstance(widget, Input):
            found.append((widget.id, widget.value))
        elif "TextArea" in kinds and isinstance(widget, kinds["TextArea"]) and not shown.read_only:
            found.append((widget.id, shown.text))
        elif any(k in kinds and isinstance(widget, kinds[k]) for k in ("ToggleButton", "Switch")):
            found.append((widget.id, shown.value))
        elif "RadioSet" in kinds and isinstance(widget, kinds["RadioSet"]):
            found.append((widget.id, shown.pressed_index))
    return tuple(found)


_KINDS = (("textual.widgets._text_area", "TextArea"), ("textual.widgets._toggle_button", "ToggleButton"),
          ("textual.widgets._switch", "Switch"), ("textual.widgets._radio_set", "RadioSet"))


class DiscardScreen(ModalScreen[bool]):
    """Discard changes? y or Enter throws them away; n or Esc goes back to the text, as it was."""

    BINDINGS = [
        Binding("y,enter", "answer(True)", "Discard", id="discard-yes", priority=True),
        Binding("n,escape", "answer(False)", "Back to the text", id="discard-no", priority=True),
    ]

    def __init__(self, what: str = "") -> None:
        super().__init__()
        self._what = what

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="discard-dialog"):
            yield Label("Discard changes?", classes="dialog-title")
            yield Static(Text(self._what or "What you typed here is not saved."), id="discard-question")
            yield Label("y or Enter: discard them · n or Esc: back to the text.", classes="dialog-help")

    def on_mount(self) -> None:
        self.query_one("#discard-dialog").styles.height = "auto"

    def action_answer(self, discard: bool) -> None:
        if self.app.screen is self:
            self.dismiss(discard)


class KeepsTyping:
    """Mixed into an editor: closing it with changes not saved asks first (`close`), and quitting the app
    asks too (StudioApp.action_quit reads `unsaved`). What the editor holds as it opens is what counts as
    unchanged; an editor that loads other text into its boxes later (a lorebook's entries) calls
    `keep_typed` once it has."""

    _kept: tuple[Any, ...] | None = None
    discard_what = "What you typed here is not saved."

    def keep_typed(self) -> None:
        self._kept = typed(self)  # type: ignore[arg-type]

    def on_mount(self) -> None:
        self.call_after_refresh(self._keep_if_unset)  # type: ignore[attr-defined]

    def _keep_if_unset(self) -> None:
        if self._kept is None:
            self.keep_typed()

    def unsaved(self) -> bool:
        return self._kept is not None and typed(self) != self._kept  # type: ignore[arg-type]

    def close(self, leave: Callable[[], Any]) -> None:
        """`leave` at once with nothing changed; else after a yes to "Discard changes?"."""
        if not self.unsaved():
            leave()
            return
        app = self.app  # type: ignore[attr-defined]
        app.push_screen(DiscardScreen(self.discard_what), lambda discard: leave() if discard else None)


class Dialog(ModalScreen[Any]):
    """Esc closes; a dialog that holds the playwright's writing mixes in KeepsTyping, and asks first."""

    BINDINGS = [Binding("escape", "dismiss_none", "Close", id="close-dialog")]
    _handed_back = False

    def action_dismiss_none(self) -> None:
        if isinstance(self, KeepsTyping):
            self.close(lambda: self.dismiss(None))
        else:
            self.dismiss(None)

    def dismiss(self, result: Any = None) -> Any:
        """Once only: a second Enter already on its way to a closing dialog would hand its choice back again
        and pop whatever screen is on top by then (Textual pops the top screen, not this one)."""
        if self._handed_back or self.app.screen is not self:
            return None
        self._handed_back = True
        return super().dismiss(result)
