"""Text that can be read in every theme: WCAG AA, a contrast of at least 4.5:1 between a letter and what
is behind it.

A theme's muted text, a character's colour or a tag faded with `dim` can fall well short of that on a
pale background (white on pale grey was measured at 1.3:1). Rather than pick colours theme by theme, the
app runs every row it draws through `Legible`, a Textual line filter: a letter already legible keeps its
colour, one that is not is moved towards black or white, whichever stands further from its background,
just far enough to reach the ratio. `dim` is resolved into a colour first (as a terminal would draw it),
so what is measured is what is seen.
"""

from __future__ import annotations

from functools import lru_cache

from rich.color import Color as RichColor
from rich.segment import Segment
from rich.style import Style
from textual.color import Color
from textual.filter import LineFilter

AA = 4.5
"""The least contrast for body text under WCAG 2 level AA."""

DIM = 0.5
"""How far a dimmed letter fades towards its background, as Textual's own dim filter draws it."""


def luminance(rgb: tuple[int, int, int]) -> float:
    """Relative luminance as WCAG 2 defines it (sRGB, 0 black to 1 white)."""

    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = rgb
    return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)


def ratio(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    """The contrast ratio of two colours, 1 (the same) to 21 (black on white)."""
    high, low = sorted((luminance(a), luminance(b)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def _mix(a: tuple[int, int, int], b: tuple[int, int, int], amount: float) -> tuple[int, int, int]:
    return tuple(round(x + (y - x) * amount) for x, y in zip(a, b))  # type: ignore[return-value]


def readable(fg: tuple[int, int, int], bg: tuple[int, int, int], least: float = AA) -> tuple[int, int, int]:
    """`fg` if it reads on `bg`; else the nearest colour between it and black or white that does (or the
    pole itself, on a background so mid-grey that nothing quite does)."""
    if ratio(fg, bg) >= least:
        return fg
    pole = (0, 0, 0) if ratio((0, 0, 0), bg) >= ratio((255, 255, 255), bg) else (255, 255, 255)
    low, high = 0.0, 1.0
    for _ in range(12):  # a binary search on how far to go: a 4096th of the way is finer than a colour step
        middle = (low + high) / 2
        if ratio(_mix(fg, pole, middle), bg) >= least:
            high = middle
        else:
            low = middle
    return _mix(fg, pole, high)


def _rgb(color: RichColor) -> tuple[int, int, int]:
    triplet = color.get_truecolor()
    return (triplet.red, triplet.green, triplet.blue)


@lru_cache(maxsize=4096)
def legible_style(style: Style, background: RichColor) -> Style:
    """The style with its letters readable on its own background (or `background` where it has none)."""
    if style.color is None or style.color.is_default:
        return style
    bg_colour = style.bgcolor if style.bgcolor is not None and not style.bgcolor.is_default else background
    fg, bg = _rgb(style.color), _rgb(bg_colour)
    if style.reverse:
        fg, bg = bg, fg
    if style.dim:
        fg = _mix(fg, bg, 1 - DIM)
    fixed = readable(fg, bg)
    if fixed == fg and not style.dim:
        return style
    new = RichColor.from_rgb(*fixed)
    if style.reverse:
        return style + Style(bgcolor=new, dim=False)
    return style + Style(color=new, dim=False)


def _drawing(text: str) -> bool:
    """Blank, or only lines and blocks (a pane's border, a rule): those are edges, not letters to read."""
    return all(c == " " or "\u2500" <= c <= "\u259f" for c in text)


class Legible(LineFilter):
    """Every letter on screen at AA contrast or better; blank cells and colours left to the terminal pass
    as they are."""

    def apply(self, segments: list[Segment], background: Color) -> list[Segment]:
        back = background.rich_color
        out = []
        for segment in segments:
            style = segment.style
            if style is None or segment.control or _drawing(segment.text):
                out.append(segment)
            else:
                legible = legible_style(style, back)
                out.append(segment if legible is style else Segment(segment.text, legible, None))
        return out
