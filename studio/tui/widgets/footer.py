"""The footer: the keys a screen names first, as many as fit the width, Help and the palette always.

Textual's footer lays out every shown binding in a row and lets the last ones run under the palette key
at 80 columns (`e Edit n▏^p palettee`). This one asks the screen which keys matter most there
(`footer_actions`, most important first: an ensemble puts who-speaks-next and entrances before the rest),
keeps those that fit, and always ends with Help and the palette.
"""

from __future__ import annotations

from textual import events
from textual.app import ComposeResult
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

PALETTE_ROOM = 13  # "▏^p palette" and a space


class StudioFooter(Footer):
    _width = 0

    def compose(self) -> ComposeResult:
        if not getattr(self, "_bindings_ready", True):
            return
        active = self.screen.active_bindings
        by_action: dict[str, tuple] = {}
        for _node, binding, enabled, tooltip in active.values():
            by_action.setdefault(binding.action, (binding, enabled, tooltip))
        ask = getattr(self.screen, "footer_actions", None)
        order = list(ask()) if ask is not None else [a for a, (b, _, _) in by_action.items() if b.show]
        keys = [a for a in order if a in by_action and a != "help"]
        room = (self.size.width or self.app.size.width) - PALETTE_ROOM
        help_key = by_action.get("help")
        if help_key is not None:
            room -= self._cell(help_key[0])
        shown = []
        for action in keys:
            cell = self._cell(by_action[action][0])
            if cell > room:
                break
            room -= cell
            shown.append(action)
        if help_key is not None:
            shown.append("help")
        self.styles.grid_size_columns = len(shown)
        for action in shown:
            binding, enabled, tooltip = by_action[action]
            key = FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip or binding.description)
            key.compact = self.compact
            yield key
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            try:
                _node, binding, enabled, tooltip = active[self.app.COMMAND_PALETTE_BINDING]
            except KeyError:
                return
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            classes="-command-palette", disabled=not enabled,
                            tooltip=binding.tooltip or binding.description)

    def _cell(self, binding) -> int:
        """Columns a key takes: its key, a space, its label and the gap after it (two when not compact)."""
        return len(self.app.get_key_display(binding)) + 1 + len(binding.description) + (1 if self.compact else 2)

    def on_resize(self, event: events.Resize) -> None:
        if event.size.width != self._width:
            self._width = event.size.width
            self.call_after_refresh(self.recompose)
