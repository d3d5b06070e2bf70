"""The stage: the public play, one entry per line, with a cursor that selects a line to work on.

It is a Line API widget: only the rows on screen are rendered, each entry is wrapped once per width
and the streaming line is the only one re-wrapped as tokens arrive, so a thousand-turn run scrolls
as lightly as a fresh one.
"""

from __future__ import annotations

from bisect import bisect_right
from dataclasses import dataclass, field
from typing import Any
from collections.abc import Iterable

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.geometry import Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from studio.store import events as ev
from studio.tui import textual_parts
from studio.tui.controls import STAGE
from studio.tui.highlight import mark_matches
from studio.tui.wrap import Line, line_length, wrap

PALETTE = ("#5fafd7", "#d787d7", "#87d787", "#d7af5f", "#8787ff", "#ff8787", "#5fd7af", "#ffaf5f")
# the same hues, dark enough to read on a pale background (each above 4.5:1 contrast on white)
LIGHT_PALETTE = ("#005f87", "#87008a", "#1f6f1f", "#7a5500", "#3a3aaf", "#b00020", "#00695c", "#a34700")


@dataclass
class Entry:
    """One line of the play as the stage shows it. `event_id` is None while the line is being written."""

    event_id: int | None
    kind: str
    role: str | None
    character: str | None
    text: str
    tag: str = ""
    first: bool = False
    # how the line sits in a script (the event's data, as studio.engine.script reads it): a speech's
    # parenthetical and its cue's extension, a direction's shape
    parenthetical: str = ""
    extension: str = ""
    shape: str = "action"
    _lines: list[Line] = field(default_factory=list, repr=False)
    _width: int = -1

    def layout(self, width: int, colours: dict[str, str]) -> list[Line]:
        if width != self._width:
            self._lines = _layout(self, width, colours)
            self._width = width
        return self._lines

    def invalidate(self) -> None:
        self._width = -1


def palette(names: Iterable[str], dark: bool = True) -> dict[str, str]:
    """Each character's colour, by their place in the cast; the theme decides how light it may be."""
    colours = PALETTE if dark else LIGHT_PALETTE
    return {name: colours[i % len(colours)] for i, name in enumerate(names)}


SHAPES = ("centered", "transition", "lyric")
"""The directions the stage sets apart from an action line (studio.engine.script.DIRECTION_SHAPES)."""


def entry_for(event: Any, tag: str = "") -> Entry:
    text = event.text
    data = event.data or {}
    if event.kind == ev.SCENE and data.get("task") == "round":
        text = f"Round {event.scene}"  # a social game has rounds, not scenes
    entry = Entry(event.id, event.kind, event.role, event.character, text, tag)
    if event.kind == ev.STAGE and (data.get("parenthetical") or data.get("extension")):
        from studio.clean import one_line

        entry.parenthetical = one_line(data.get("parenthetical") or "").strip("() ")
        entry.extension = one_line(data.get("extension") or "").strip("() ")
    elif event.kind == ev.DIRECTION and data.get("shape") in SHAPES:
        entry.shape = data["shape"]
    return entry


def _layout(entry: Entry, width: int, colours: dict[str, str]) -> list[Line]:
    colour = colours.get(entry.character or "", "")
    name_style = Style(color=colour or None, bold=True)
    tag = [("  " + entry.tag, "tag")] if entry.tag else []
    live = [(" ▍", "live")] if entry.event_id is None else []
    if entry.kind == ev.SCENE:
        heading, _, brief = entry.text.partition(": ")
        title = f"━━ {heading.upper()} "
        rule: Line = [(title + "━" * max(0, width - len(title)), "scene")]
        lines: list[Line] = [] if entry.first else [[]]
        lines.append(rule)
        if brief:
            lines.extend(wrap([(brief, "brief"), *tag], width, 0))
        elif tag:
            lines.append(tag)
        return lines
    if entry.kind == ev.DIRECTION:
        style = Style(italic=True, color=colour or None, dim=not colour)
        if entry.shape != "action":
            return _shaped(entry, style, tag + live, width)
        return wrap([(entry.text, style), *tag, *live], width, 2)
    if entry.kind == ev.EPILOGUE:
        head = [((entry.character or "").upper() + ", AFTERWARDS", name_style)]
        return [[]] + wrap(head, width, 0) + wrap([(entry.text, Style(italic=True)), *tag, *live], width, 2)
    cue = (entry.character or "").upper() + (f" ({entry.extension.upper()})" if entry.extension else "")
    if entry.parenthetical:  # under the cue, as a script sets it, and the speech under that
        return (wrap([(cue, name_style)], width, 0)
                + wrap([("  (" + entry.parenthetical + ")", Style(italic=True, dim=True))], width, 3)
                + wrap([("  ", None), (entry.text, None), *tag, *live], width, 2))
    return wrap([(cue, name_style), ("  ", None), (entry.text, None), *tag, *live], width, 2)


def _shaped(entry: Entry, style: Style, after: Line, width: int) -> list[Line]:
    """A direction set apart from the action: a transition to the right (CUT TO:), a centred line
    between brackets, a lyric marked as sung; what is known about the line follows on its own row."""
    if entry.shape == "lyric":
        return wrap([("♪ " + entry.text, style), *after], width, 2)
    text = entry.text.upper() if entry.shape == "transition" else f"> {entry.text} <"
    lines = wrap([(text, style)], max(width - 4, 8), 0)
    placed: list[Line] = []
    for line in lines:
        room = max(0, width - line_length(line))
        pad = room if entry.shape == "transition" else room // 2
        placed.append([(" " * pad, None), *line] if pad else line)
    if after:
        placed.append([(" " * 2, None), *[(t.lstrip() if i == 0 else t, s) for i, (t, s) in enumerate(after)]])
    return placed


class StageView(ScrollView, can_focus=True):
    """Scrollable stage with a line cursor; `Selected` tells the screen which line to explain."""

    BINDINGS = [control.binding() for control in STAGE]

    COMPONENT_CLASSES = {
        "stage--cursor", "stage--gutter", "stage--scene", "stage--brief", "stage--tag", "stage--live", "stage--match"
    }

    DEFAULT_CSS = """
    StageView { scrollbar-gutter: stable; }
    StageView > .stage--match { background: $warning 50%; color: $foreground; text-style: bold; }
    """

    class Selected(Message):
        """The cursor moved; `followed` when it moved by itself to a line just written."""

        def __init__(self, event_id: int | None, followed: bool = False) -> None:
            self.event_id = event_id
            self.followed = followed
            super().__init__()

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.entries: list[Entry] = []
        self.starts: list[int] = []
        self.total = 0
        self.cursor = -1
        self.follow = True
        self.colours: dict[str, str] = {}
        self._names: list[str] = []
        self._wrap_width = 0
        self._styles: dict[str, Style] = {}
        self.highlight: Any = None  # a compiled search pattern whose matches are marked on screen

    # -- content -------------------------------------------------------------------------

    def on_mount(self) -> None:
        self.app.theme_changed_signal.subscribe(self, lambda _theme: self.set_cast(self._names))

    def set_cast(self, names: Iterable[str]) -> None:
        self._names = list(names)
        colours = palette(self._names, self.app.current_theme.dark)
        if colours != self.colours:
            self.colours = colours
            for entry in self.entries:
                entry.invalidate()
            self.refresh()

    @property
    def wrap_width(self) -> int:
        return self._wrap_width

    @property
    def live(self) -> Entry | None:
        if self.entries and self.entries[-1].event_id is None:
            return self.entries[-1]
        return None

    @property
    def selected(self) -> Entry | None:
        if 0 <= self.cursor < len(self.entries):
            return self.entries[self.cursor]
        return None

    @property
    def selected_id(self) -> int | None:
        entry = self.selected
        return entry.event_id if entry is not None else None

    def replace(self, entries: list[Entry], select: int | None = None) -> None:
        """Show a new take: entries shared with the old one keep their layout, the rest are laid out anew."""
        old = self.entries
        keep = 0
        while (
            keep < len(old)
            and keep < len(entries)
            and old[keep].event_id is not None
            and old[keep].event_id == entries[keep].event_id
            and old[keep].tag == entries[keep].tag
        ):
            keep += 1
        previous = self.selected_id
        self.entries = old[:keep] + entries[keep:]
        if self.entries and not self.entries[0].first:
            self.entries[0].first = True
            self.entries[0].invalidate()
        del self.starts[keep:]
        self.total = self.starts[-1] + len(self._lines_of(keep - 1)) if keep else 0
        self._extend_starts(keep)
        wanted = select if select is not None else (None if self.follow else previous)
        self._select_id(wanted)

    def append(self, entry: Entry) -> None:
        live = self.live
        if live is not None:
            self.entries.pop()
            self.starts.pop()
            self.total -= len(live._lines)
        entry.first = not self.entries
        self.entries.append(entry)
        self._extend_starts(len(self.entries) - 1)
        if self.follow:
            self._move(len(self.entries) - 1, follow=True, by_itself=True)
        else:
            self.refresh()

    def stream(self, kind: str, role: str | None, character: str | None, token: str) -> None:
        live = self.live
        first = live is None
        if live is None:
            live = Entry(None, kind, role, character, "", first=not self.entries)
            self.entries.append(live)
            self.starts.append(self.total)
        else:
            self.total -= len(live._lines)
        live.text += token
        live.invalidate()
        self.total += len(live.layout(self._wrap_width, self.colours))
        self._resize_virtual()
        if self.follow:
            self._to_bottom()
        self.refresh()
        if first:
            self._draw_now()

    def _draw_now(self) -> None:
        """Ask the screen for a frame at once rather than when its queue falls idle. A repaint reaches the
        screen as a message behind the rest of the line's tokens, and a fast voice can keep that queue busy
        until its line is whole, so a new line's first words would wait for the whole line. Textual has no
        public call for this: the stage joins the screen's dirty widgets and wakes its frame timer, which
        draws on its own task between two messages, as it does when the queue is idle."""
        if not textual_parts.has(textual_parts.FRAME):
            return  # Textual's own behaviour: the frame comes when the screen's queue falls idle
        if self._layout_required:  # the scrollbar came or went: the screen's layout comes first
            return
        screen = self.screen
        dirty = getattr(screen, "_dirty_widgets", None)
        compositor = getattr(screen, "_compositor", None)
        if not isinstance(dirty, set) or compositor is None or self not in compositor:
            return
        dirty.add(self)
        screen._update_timer.resume()

    def drop_live(self) -> None:
        live = self.live
        if live is None:
            return
        self.entries.pop()
        self.starts.pop()
        self.total -= len(live._lines)
        if self.cursor >= len(self.entries):
            self.cursor = len(self.entries) - 1
        self._resize_virtual()
        self.refresh()

    def retag(self, event_id: int, tag: str) -> None:
        for index, entry in enumerate(self.entries):
            if entry.event_id == event_id and entry.tag != tag:
                entry.tag = tag
                entry.invalidate()
                self._relayout_from(index)
                return

    # -- layout --------------------------------------------------------------------------

    def _lines_of(self, index: int) -> list[Line]:
        return self.entries[index].layout(self._wrap_width, self.colours)

    def _extend_starts(self, start: int) -> None:
        total = self.total
        colours = self.colours
        width = self._wrap_width
        for entry in self.entries[start:]:
            self.starts.append(total)
            total += len(entry.layout(width, colours))
        self.total = total
        self._resize_virtual()

    def _relayout_from(self, index: int) -> None:
        del self.starts[index:]
        self.total = self.starts[-1] + len(self._lines_of(index - 1)) if index else 0
        self._extend_starts(index)
        self.refresh()

    def _resize_virtual(self) -> None:
        """Grow the scrollable area. A full screen layout is paid only when the scrollbar appears or
        goes; a streaming line that wraps onto one more row costs a repaint of the stage alone."""
        size = Size(self._wrap_width + 2, self.total)
        old = self.virtual_size
        if size == old:
            return
        height = self.scrollable_content_region.height
        if size.width != old.width or (size.height > height) != (old.height > height) or not self.is_mounted:
            self.virtual_size = size
            return
        self.set_reactive(ScrollView.virtual_size, size)
        self._scroll_update(size)
        self.refresh()

    def on_resize(self, event: events.Resize) -> None:
        width = max(self.scrollable_content_region.width - 2, 8)
        if width != self._wrap_width:
            self._wrap_width = width
            self._relayout_from(0)
            if self.follow:
                self.scroll_end(animate=False, immediate=True, x_axis=False)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def _style(self, name: str) -> Style:
        style = self._styles.get(name)
        if style is None:
            style = self._styles[name] = self.get_component_rich_style(f"stage--{name}", partial=True)
        return style

    # -- rendering -----------------------------------------------------------------------

    def render_line(self, y: int) -> Strip:
        scroll_x, scroll_y = self.scroll_offset
        width = self.scrollable_content_region.width
        base = self._styles.get("base")
        if base is None:
            base = self._styles["base"] = self.rich_style
        row = scroll_y + y
        if row >= self.total or not self.entries:
            return Strip.blank(width, base)
        index = bisect_right(self.starts, row) - 1
        entry = self.entries[index]
        lines = entry.layout(self._wrap_width, self.colours)
        offset = row - self.starts[index]
        if offset >= len(lines):
            return Strip.blank(width, base)
        # Rows are cheap to rebuild from the wrapped words and are not kept: a Strip caches its own crops,
        # some of them itself, so a kept row that is later dropped is garbage only a full collection finds.
        strip = self._strip(lines[offset], index == self.cursor, base)
        return strip.crop_extend(scroll_x, scroll_x + width, base).apply_offsets(scroll_x, row)

    def _strip(self, line: Line, selected: bool, base: Style) -> Strip:
        cursor = self._style("cursor") if selected else None
        gutter = Segment("▌ ", base + self._style("gutter")) if selected else Segment("  ", base)
        segments = [gutter]
        for text, style in line:
            if isinstance(style, str):
                style = self._style(style)
            full = base + style if style is not None else base
            if cursor is not None:
                full = full + cursor
            segments.append(Segment(text, full))
        if self.highlight is not None:
            segments = mark_matches(segments, self.highlight, self._style("match"))
        if cursor is not None:
            used = sum(segment.cell_length for segment in segments)
            segments.append(Segment(" " * max(0, self._wrap_width + 2 - used), base + cursor))
        return Strip(segments)

    # -- the cursor ----------------------------------------------------------------------

    def _select_id(self, event_id: int | None) -> None:
        if not self.entries:
            self.cursor = -1
            self.post_message(self.Selected(None))
            self.refresh()
            return
        target = len(self.entries) - 1
        if event_id is not None:
            for index, entry in enumerate(self.entries):
                if entry.event_id == event_id:
                    target = index
                    break
        self._move(target, follow=target == len(self.entries) - 1 and (self.follow or event_id is None))

    def select_event(self, event_id: int) -> None:
        self._select_id(event_id)

    def select_index(self, index: int) -> None:
        """Put the cursor on an entry and show it, as a jump or a search does."""
        if self.entries:
            self._move(index, follow=index == len(self.entries) - 1)

    def set_highlight(self, pattern: Any) -> None:
        self.highlight = pattern
        self.refresh()

    def _move(self, index: int, follow: bool, by_itself: bool = False) -> None:
        self.cursor = max(0, min(index, len(self.entries) - 1))
        self.follow = follow
        self._scroll_to_cursor()
        self.refresh()
        self.post_message(self.Selected(self.selected_id, followed=by_itself))

    def _scroll_to_cursor(self) -> None:
        if self.cursor < 0:
            return
        if self.follow:
            self._to_bottom()
            return
        top = self.starts[self.cursor]
        bottom = self.starts[self.cursor + 1] if self.cursor + 1 < len(self.starts) else self.total
        height = self.scrollable_content_region.height
        if top < self.scroll_offset.y:
            self.scroll_to(y=top, animate=False, immediate=False)
        elif bottom > self.scroll_offset.y + height:
            self.scroll_to(y=max(top, bottom - height), animate=False, immediate=False)

    def _to_bottom(self) -> None:
        """Scroll in the same frame as the line that needs it: a deferred scroll costs a frame of latency."""
        bottom = max(0, self.total - self.scrollable_content_region.height)
        if bottom <= self.max_scroll_y:
            self.scroll_to(y=bottom, animate=False, immediate=True)
        else:
            self.scroll_end(animate=False, immediate=False, x_axis=False)

    def action_cursor(self, delta: int) -> None:
        if not self.entries:
            return
        index = max(0, min(self.cursor + delta, len(self.entries) - 1))
        self._move(index, follow=index == len(self.entries) - 1 and delta > 0)

    def action_page(self, direction: int) -> None:
        if not self.entries:
            return
        height = max(1, self.scrollable_content_region.height - 1)
        row = (self.starts[self.cursor] if self.cursor >= 0 else 0) + direction * height
        row = max(0, min(row, self.total - 1))
        index = bisect_right(self.starts, row) - 1
        self._move(index, follow=index == len(self.entries) - 1 and direction > 0)

    def action_first(self) -> None:
        if self.entries:
            self._move(0, follow=False)

    def action_last(self) -> None:
        if self.entries:
            self._move(len(self.entries) - 1, follow=True)

    def on_click(self, event: events.Click) -> None:
        row = self.scroll_offset.y + event.y
        if 0 <= row < self.total and self.entries:
            index = bisect_right(self.starts, row) - 1
            self._move(index, follow=index == len(self.entries) - 1)
