"""The footer: the keys a screen names first, as many as fit the width, Help and the palette always.

Textual's footer lays out every shown binding in a row and lets the last ones run under the palette key
at 80 columns (`e Edit n▏^p palettee`). This one asks the screen which keys matter most there
(`footer_actions`, most important first: an ensemble puts who-speaks-next and entrances before the rest),
keeps those that fit, and always ends with Help and the palette.

The row is one widget that draws every key itself, cell for cell as Textual's footer draws its keys: a
widget per key was ten of the first frame's widgets, each styled at mount and again when the screen was
shown. A click, the hover's highlight and pointer, and the tooltip go to the key under the mouse.
"""

from __future__ import annotations

from typing import Any, NamedTuple

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.strip import Strip
from textual.widget import Widget

PALETTE_ROOM = 13  # "▏^p palette" and a space


class _Key(NamedTuple):
    key: str
    display: str
    description: str
    enabled: bool
    tooltip: str
    start: int  # first column of the key's own cells
    end: int  # one past its last


class StudioFooter(Widget, can_focus=False):
    """Knows its keys from the start (Textual's footer waits for the screen's first report of its
    bindings, a frame or two later, so the first frame had an empty footer), and works them out again only
    when the screen's bindings or the width change."""

    ALLOW_SELECT = False
    COMPONENT_CLASSES = {
        "footer-key--key",
        "footer-key--description",
        "footer-key--item",
        "footer-key--hover",
        "footer-key--border",
    }
    # The colours and spacing of Textual's own footer keys, which themes style through these variables.
    DEFAULT_CSS = """
    StudioFooter {
        dock: bottom;
        height: 1;
        color: $footer-foreground;
        background: $footer-background;
        .footer-key--key {
            color: $footer-key-foreground;
            background: $footer-key-background;
            text-style: bold;
        }
        .footer-key--description {
            color: $footer-description-foreground;
            background: $footer-description-background;
        }
        .footer-key--item { background: $footer-item-background; }
        .footer-key--hover {
            color: $footer-key-foreground;
            background: $block-hover-background;
        }
        .footer-key--border { color: $foreground 20%; }
    }
    """

    def __init__(self, *, compact: bool = False, show_command_palette: bool = True) -> None:
        super().__init__()
        self.compact = compact
        self.show_command_palette = show_command_palette
        self._shown_keys: tuple = ()
        self._laid_out: tuple[int, list[_Key], _Key | None] | None = None  # (width, keys, palette key)
        self._hover: int | None = None  # index into keys + [palette]

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

    def _layout(self) -> tuple[list[_Key], _Key | None]:
        """Where each key sits: from the left, a gap after each when compact; the palette's at the right."""
        width = self.size.width
        if self._laid_out is not None and self._laid_out[0] == width:
            return self._laid_out[1], self._laid_out[2]
        shown, palette = found = self._keys()
        self._shown_keys = self._signature(found)
        display = self.app.get_key_display
        keys = []
        x = 0
        for binding, enabled, tooltip in shown:
            cell = self._cell(binding)
            own = cell - (1 if self.compact else 0)  # a compact key's gap after it is the row's, not the key's
            keys.append(_Key(binding.key, display(binding), binding.description, enabled,
                             tooltip or binding.description, x, x + own))
            x += cell
        palette_key = None
        if palette is not None:
            binding, enabled, tooltip = palette
            text = display(binding)
            # its left border, "^p palette", a cell of padding when not compact and a cell of margin when compact
            own = 1 + len(text) + 1 + len(binding.description) + 1
            start = width - own
            palette_key = _Key(binding.key, text, binding.description, enabled, tooltip or binding.description,
                               start, start + own - (1 if self.compact else 0))
        self._laid_out = (width, keys, palette_key)
        return keys, palette_key

    def _styles(self, hover: bool, enabled: bool) -> tuple[Style, Style, Style]:
        """A key's styles (its key, its label, its padding), blended over the row as Textual blends a key
        widget's over its footer."""
        _, row = self.background_colors
        item = row + self.get_component_styles("footer-key--item").background
        if hover:
            item = item + self.get_component_styles("footer-key--hover").background
        dim = Style() if enabled else Style(dim=True)

        def part(name: str) -> Style:
            styles = self.get_component_styles(name)
            under = item + styles.background
            blended = Style.from_color((under + styles.color).rich_color, under.rich_color if under.a else None)
            return dim + styles.text_style + blended

        return part("footer-key--key"), part("footer-key--description"), Style(bgcolor=item.rich_color)

    def render_line(self, y: int) -> Strip:
        width = self.size.width
        keys, palette = self._layout()
        _, row = self.background_colors
        blank = Style(bgcolor=row.rich_color)
        segments: list[Segment] = []
        x = 0
        right = palette.start if palette is not None else width
        for index, key in enumerate(keys):
            if key.start >= right:
                break
            if key.start > x:
                segments.append(Segment(" " * (key.start - x), blank))
            key_style, description_style, _ = self._styles(self._hover == index, key.enabled)
            if self.compact:
                segments += [Segment(key.display, key_style), Segment(" " + key.description, description_style)]
            else:
                segments += [Segment(f" {key.display} ", key_style), Segment(key.description + " ", description_style)]
            x = key.end
        if x > right:
            segments = list(Strip(segments).crop(0, right))
            x = right
        if palette is not None:
            if right > x:
                segments.append(Segment(" " * (right - x), blank))
            key_style, description_style, pad_style = self._styles(self._hover == len(keys), palette.enabled)
            border = self.get_component_styles("footer-key--border").color
            segments += [
                Segment("▏", Style.from_color((row + border).rich_color, pad_style.bgcolor)),
                Segment(palette.display, key_style),
                Segment(" " + palette.description, description_style),
            ]
            x = palette.end
            if not self.compact:
                segments.append(Segment(" ", pad_style))
        if width > x:
            segments.append(Segment(" " * (width - x), blank))
        return Strip(segments).crop(0, width)

    def _key_at(self, x: int) -> int | None:
        keys, palette = self._layout()
        if palette is not None and palette.start <= x < palette.end:
            return len(keys)
        return next((index for index, key in enumerate(keys) if key.start <= x < key.end), None)

    def _key(self, index: int) -> _Key:
        keys, palette = self._layout()
        return [*keys, *([palette] if palette else [])][index]

    def _hover_over(self, index: int | None) -> None:
        if index == self._hover:
            return
        self._hover = index
        self.tooltip = None if index is None else self._key(index).tooltip
        self.styles.pointer = "default" if index is None else "pointer"
        self.screen.update_pointer_shape()
        self.refresh()
        if index is not None and not getattr(self.app, "_disable_tooltips", False):
            self.set_timer(self.app.TOOLTIP_DELAY, lambda: self._show_tooltip(index))

    def _show_tooltip(self, index: int) -> None:
        """The screen shows a tooltip once the mouse has come onto a widget and hides it when the mouse moves
        on inside it; from key to key the mouse stays on this one widget, so the next key's is shown here."""
        show = getattr(self.screen, "_handle_tooltip_timer", None)  # Textual's own; absent, no tooltip moves
        if show is not None and self._hover == index and self.app.mouse_over is self:
            show(self)

    def on_mouse_move(self, event: events.MouseMove) -> None:
        self._hover_over(self._key_at(event.x))

    def on_leave(self, event: events.Leave) -> None:
        self._hover_over(None)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        index = self._key_at(event.x)
        if index is None:
            return
        key = self._key(index)
        if key.enabled:
            self.app.simulate_key(key.key)
        else:
            self.app.bell()

    def refresh_keys(self) -> None:
        """Drawn again if the keys to show have changed (the screen learnt what its run needs, a key was
        enabled or disabled, the width changed)."""
        if self.is_attached and self._signature(self._keys()) != self._shown_keys:
            self._laid_out = None
            self._hover = None
            self.refresh()

    def bindings_changed(self, screen: Any) -> None:
        if screen.app.app_focus and self.is_attached and screen is self.screen:
            self.refresh_keys()

    def _cell(self, binding) -> int:
        """Columns a key takes: its key, a space, its label and the gap after it (two when not compact)."""
        return len(self.app.get_key_display(binding)) + 1 + len(binding.description) + (1 if self.compact else 2)

    def on_resize(self, event: events.Resize) -> None:
        self._laid_out = None
        self.refresh()

    def on_mount(self) -> None:
        self.screen.bindings_updated_signal.subscribe(self, self.bindings_changed)

    def on_unmount(self) -> None:
        self.screen.bindings_updated_signal.unsubscribe(self)
