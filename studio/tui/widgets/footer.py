"""The footer: the keys a screen names first, as many as fit the width, Help and the palette always.

Textual's footer lays out every shown binding in a row and lets the last ones run under the palette key
at 80 columns (`e Edit n▏^p palettee`). This one asks the screen which keys matter most there
(`footer_actions`, most important first: an ensemble puts who-speaks-next and entrances before the rest),
keeps those that fit, and always ends with Help and the palette.
"""

from __future__ import annotations

from typing import Any

from textual import events
from textual.app import ComposeResult
from textual.reactive import reactive
from textual.widgets import Footer
from textual.widgets._footer import FooterKey

PALETTE_ROOM = 13  # "▏^p palette" and a space


class StudioFooter(Footer):
    """Composed from the start (Textual's footer waits for the screen's first report of its bindings, a
    frame or two later, so the first frame had an empty footer), and composed again only when the keys it
    shows change: each composing takes every key off and puts it back, and the row is blank for a frame."""

    _bindings_ready = reactive(True, repaint=False)
    _shown_keys: tuple = ()

    def _keys(self) -> tuple[list[tuple], tuple | None]:
        """The keys that fit, as (binding, enabled, tooltip), and the palette's key."""
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
            shown.append(by_action[action])
        if help_key is not None:
            shown.append(help_key)
        palette = None
        if self.show_command_palette and self.app.ENABLE_COMMAND_PALETTE:
            found = active.get(self.app.COMMAND_PALETTE_BINDING)
            if found is not None:
                palette = (found.binding, found.enabled, found.binding.tooltip)
        return shown, palette

    @staticmethod
    def _signature(keys: tuple[list[tuple], tuple | None]) -> tuple:
        shown, palette = keys
        return tuple((b.key, b.action, b.description, enabled) for b, enabled, _ in [*shown, *([palette] if palette else [])])

    def compose(self) -> ComposeResult:
        if not self._bindings_ready:
            return
        shown, palette = keys = self._keys()
        self._shown_keys = self._signature(keys)
        self.styles.grid_size_columns = len(shown)
        # A key born with its "-compact" class (the palette's key is compact whatever the footer is) finds
        # it already set when its watcher runs at mount: set there, each key's styles were worked out
        # afresh, ten times over before the first frame.
        compact = "-compact" if self.compact else ""
        for binding, enabled, tooltip in shown:
            key = FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            disabled=not enabled, tooltip=tooltip or binding.description, classes=compact)
            key.compact = self.compact
            yield key
        if palette is not None:
            binding, enabled, tooltip = palette
            yield FooterKey(binding.key, self.app.get_key_display(binding), binding.description, binding.action,
                            classes="-command-palette -compact", disabled=not enabled,
                            tooltip=tooltip or binding.description)

    def refresh_keys(self) -> None:
        """Composed again if the keys to show have changed (the screen learnt what its run needs, a key was
        enabled or disabled, the width changed)."""
        if self.is_attached and self._signature(self._keys()) != self._shown_keys:
            self.call_after_refresh(self.recompose)

    def bindings_changed(self, screen: Any) -> None:
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.refresh_keys()

    def _cell(self, binding) -> int:
        """Columns a key takes: its key, a space, its label and the gap after it (two when not compact)."""
        return len(self.app.get_key_display(binding)) + 1 + len(binding.description) + (1 if self.compact else 2)

    def on_resize(self, event: events.Resize) -> None:
        self.refresh_keys()
