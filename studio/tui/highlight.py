"""Marking search matches inside a row of the stage, across the styled pieces it is made of."""

from __future__ import annotations

import re

from rich.segment import Segment
from rich.style import Style


def mark_matches(segments: list[Segment], pattern: re.Pattern[str], style: Style) -> list[Segment]:
    """The same row with every match restyled; a match may span several pieces of the row."""
    text = "".join(segment.text for segment in segments)
    spans = [m.span() for m in pattern.finditer(text) if m.end() > m.start()]
    if not spans:
        return segments
    out: list[Segment] = []
    offset = 0
    for segment in segments:
        start, end = offset, offset + len(segment.text)
        offset = end
        cuts = {start, end}
        for a, b in spans:
            if a < end and b > start:
                cuts.update(x for x in (a, b) if start < x < end)
        points = sorted(cuts)
        for a, b in zip(points, points[1:]):
            piece = segment.text[a - start : b - start]
            inside = any(x <= a and b <= y for x, y in spans)
            out.append(Segment(piece, (segment.style or Style()) + style if inside else segment.style))
    return out
