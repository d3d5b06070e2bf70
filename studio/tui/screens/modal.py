"""The one base of the studio's dialogs, kept apart from the dialogs themselves.

The run screen's controls define dialogs of their own (the ensemble's who-speaks-next, say) and are
imported before the first frame; the dialogs' module brings in Textual's text area, switches and radio
sets, which nothing on that frame uses. This module costs the run screen nothing it does not have.
"""

from __future__ import annotations

from typing import Any

from textual.binding import Binding
from textual.screen import ModalScreen


class Dialog(ModalScreen[Any]):
    BINDINGS = [Binding("escape", "dismiss_none", "Close", id="close-dialog")]
    _handed_back = False

    def action_dismiss_none(self) -> None:
        self.dismiss(None)

    def dismiss(self, result: Any = None) -> Any:
        """Once only: a second Enter already on its way to a closing dialog would hand its choice back again
        and pop whatever screen is on top by then (Textual pops the top screen, not this one)."""
        if self._handed_back or self.app.screen is not self:
            return None
        self._handed_back = True
        return super().dismiss(result)
