"""A word wrapper fast enough to lay out a thousand-turn stage inside one frame.

Rich and Textual wrap beautifully but cost a few hundred microseconds a line; a stage of two thousand
lines re-wrapped on every resize would stall the screen. Stage lines are plain words in two or three
styles, so a greedy wrap over words is all they need.
"""

from __future__ import annotations

import re
from typing import Any

from rich.cells import cell_len

Span = tuple[str, Any]
Line = list[Span]

_TOKEN = re.compile(r"\n|[^\S\n]+|[^\s]+")


def wrap(spans: list[Span], width: int, indent: int = 0) -> list[Line]:
    """Greedy word wrap of styled spans; continuation lines start with `indent` spaces."""
    width = max(width, indent + 4, 4)
    lines: list[Line] = []
    line: Line = []
    used = 0
    pad = " " * indent

    def newline() -> None:
        nonlocal line, used
        while line and line[-1][0].isspace():
            used -= len(line.pop()[0])
        lines.append(line)
        line = [(pad, None)] if indent else []
        used = indent

    for text, style in spans:
        for token in _TOKEN.findall(text):
            if token == "\n":
                newline()
                continue
            if token.isspace():
                if used == (indent if lines else 0) and lines:
                    continue
                if used + len(token) > width:
                    newline()
                    continue
                line.append((token, style))
                used += len(token)
                continue
            size = cell_len(token) if not token.isascii() else len(token)
            if used + size > width and used > (indent if lines else 0):
                newline()
            while used + size > width:
                room = width - used
                head, token = _split_cells(token, room)
                line.append((head, style))
                used += cell_len(head)
                newline()
                size = cell_len(token)
            if token:
                line.append((token, style))
                used += size
    if line and (len(line) > 1 or line[0][0].strip() or not lines):
        lines.append(line)
    return lines or [[]]


def _split_cells(token: str, room: int) -> tuple[str, str]:
    room = max(room, 1)
    if token.isascii():
        return token[:room], token[room:]
    total = 0
    for i, ch in enumerate(token):
        total += cell_len(ch)
        if total > room:
            return token[: max(i, 1)], token[max(i, 1) :]
    return token, ""


def line_length(line: Line) -> int:
    return sum(cell_len(text) for text, _ in line)
