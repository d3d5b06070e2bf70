"""Four Fountain readers in use, each read the way it prints: fountain-py, screenplain, jouvence and
afterwriting (node). The tests hold the Fountain export to what all four print, line by line.

Each reader's document comes back as the lines a reader of its print sees, in order:
("heading", None, text), ("action", None, text), ("line", SPEAKER, text), ("business", SPEAKER, text)
and ("page_break", None, ""). Emphasis a reader resolves is gone from its text (screenplain and
afterwriting drop the markers when printing); blank lines inside a speech and notes print nothing.
What each reader prints, character for character, is tests/fountain_print.py's to read; this reading
is of the elements, for tests of which kind of element a line is.
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Callable

import aw_reader

Line = tuple[str, str | None, str]


def nfkc(text: str) -> str:
    return unicodedata.normalize("NFKC", text)


def _speech_line(out: list[Line], speaker: str | None, kind: str, text: str) -> None:
    for piece in text.split("\n"):
        piece = piece.strip()
        if piece:
            out.append((kind, speaker, piece))


def _action(out: list[Line], text: str) -> None:
    for piece in text.split("\n"):
        if piece.strip():
            out.append(("action", None, piece.strip()))


def _business(out: list[Line], speaker: str | None, text: str) -> None:
    """A parenthetical; a spoken line that only opens with a bracket is one to some readers, and prints
    as typed, so it counts as the line it is."""
    text = text.strip()
    if text.startswith("(") and text.endswith(")"):
        out.append(("business", speaker, text[1:-1]))
    else:
        out.append(("line", speaker, text))


def fountain_py(text: str) -> list[Line]:
    from fountain import ElementType, FountainParser

    out: list[Line] = []
    speaker = None
    for element in FountainParser().parse(text).elements:
        kind = element.type
        if kind == ElementType.CHARACTER:
            speaker = element.text
            continue
        if kind == ElementType.DIALOGUE:
            _speech_line(out, speaker, "line", element.text)
            continue
        if kind == ElementType.PARENTHETICAL:
            _business(out, speaker, element.text)
            continue
        speaker = None
        if kind == ElementType.SCENE_HEADING:
            out.append(("heading", None, element.text))
        elif kind == ElementType.ACTION:
            _action(out, element.text)
        elif kind == ElementType.PAGE_BREAK:
            out.append(("page_break", None, ""))
        elif kind != ElementType.NOTE:
            out.append((kind.value, None, element.text))
    return out


def screenplain(text: str) -> list[Line]:
    from screenplain import types
    from screenplain.parsers import fountain

    out: list[Line] = []
    for p in fountain.parse(io.StringIO(text)).paragraphs:
        if isinstance(p, types.Dialog):
            speaker = str(p.character)
            for parenthetical, line in p.blocks:
                if parenthetical:
                    _business(out, speaker, str(line))
                else:
                    _speech_line(out, speaker, "line", str(line))
        elif isinstance(p, types.Slug):
            out.append(("heading", None, str(p.line)))
        elif isinstance(p, types.Action):
            _action(out, "\n".join(str(line) for line in p.lines))
        elif isinstance(p, types.PageBreak):
            out.append(("page_break", None, ""))
        else:
            out.append((type(p).__name__.lower(), None, "\n".join(str(line) for line in getattr(p, "lines", []))))
    return out


def jouvence(text: str) -> list[Line]:
    from jouvence import document as d
    from jouvence.parser import JouvenceParser

    out: list[Line] = []
    for scene in JouvenceParser().parseString(text).scenes:
        if scene.header:
            out.append(("heading", None, scene.header))
        speaker = None
        for p in scene.paragraphs:
            if p.type == d.TYPE_CHARACTER:
                speaker = p.text
            elif p.type == d.TYPE_DIALOG:
                _speech_line(out, speaker, "line", p.text)
            elif p.type == d.TYPE_PARENTHETICAL:
                _business(out, speaker, p.text)
            elif p.type == d.TYPE_ACTION:
                _action(out, p.text)
            elif p.type == d.TYPE_PAGEBREAK:
                out.append(("page_break", None, ""))
            else:
                out.append((f"jouvence-{p.type}", None, p.text or ""))
    return out


def afterwriting(text: str) -> list[Line]:
    out: list[Line] = []
    speaker = None
    for token in aw_reader.read(text)["tokens"]:
        kind, value = token["type"], token["text"]
        if kind == "character":
            speaker = value
        elif kind == "dialogue":
            _speech_line(out, speaker, "line", value)
        elif kind == "parenthetical":
            _business(out, speaker, value)
        elif kind == "separator":
            continue
        else:
            speaker = None
            if kind == "scene_heading":
                out.append(("heading", None, value))
            elif kind == "action":
                _action(out, value)
            elif kind == "page_break":
                out.append(("page_break", None, ""))
            else:
                out.append((kind, None, value))
    return out


def available() -> dict[str, Callable[[str], list[Line]]]:
    """The readers installed here: the Python three always (the `test` extra), afterwriting where
    node and its package are (.ci/run installs them)."""
    found: dict[str, Callable[[str], list[Line]]] = {
        "fountain-py": fountain_py, "screenplain": screenplain, "jouvence": jouvence,
    }
    if aw_reader.modules() is not None:
        found["afterwriting"] = afterwriting
    return found


def normalised(lines: list[Line]) -> list[Line]:
    return [(kind, nfkc(who) if who else who, nfkc(text)) for kind, who, text in lines]
