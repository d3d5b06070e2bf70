"""Every Fountain reader prints the planted run with the characters the playwright typed: afterwriting's
PDF, screenplain's PDF and HTML, Jouvence's HTML and fountain-py, line by line against the stage.

Where a reader cannot print a typed character by any means Fountain allows, docs/exports.md says so,
naming the reader and the case; `printed` below holds each of those cases and nothing else, so a
line a reader gets wrong in any other way fails here.
"""

from __future__ import annotations

import dataclasses
import os
import re
from functools import lru_cache

import pytest

import fountain_print
from planted import planted_run
from studio.export import render
from studio.export.fountain import inline
from studio.export.script import Direction, Epilogue, Heading, Speech, build_script

READERS = fountain_print.available()
NOTE = re.compile(r"\[\[.*?\]\]", re.S)
PDF_READERS = ("screenplain-pdf", "afterwriting-pdf")


@lru_cache(maxsize=1)
def courier() -> frozenset[int]:
    """The characters Courier Prime has: the one face of both readers' PDFs."""
    import screenplain.export.pdf as screenplain_pdf
    from reportlab.pdfbase.ttfonts import TTFont

    folder = os.path.join(os.path.dirname(screenplain_pdf.__file__), "courier_prime")
    return frozenset(TTFont("courier-check", os.path.join(folder, "Courier Prime.ttf")).face.charToGlyph)


def elements(script) -> list[tuple[str, str]]:
    """The stage as (kind, text): heading, action, cue, business and speech, as every format shows it."""
    out: list[tuple[str, str]] = []

    def speech(name: str, parts) -> None:
        out.append(("cue", " ".join(name.split()).upper()))
        for kind, text in parts:
            out.append(("business", f"({' '.join(text.split())})") if kind == "business" else ("speech", text))
        if not parts:
            out.append(("business", "(silence)"))

    for block in script.blocks:
        if isinstance(block, Heading):
            out.append(("heading", block.title))
            if block.brief:
                out.append(("action", block.brief))
        elif isinstance(block, Direction):
            out.append(("action", block.text))
        elif isinstance(block, Speech):
            speech(block.character, block.parts)
        elif isinstance(block, Epilogue):
            out.append(("heading", "EPILOGUE"))
            speech(block.character, block.parts)
    return out


def _forcing_resolved(line: str) -> str:
    """A dialogue line as fountain-py reads it: a forcing character at its start forces it."""
    if re.fullmatch(r"={3,}", line):
        return ""
    if re.fullmatch(r">.*<", line):
        return line[1:-1].strip()
    if line.startswith("#"):
        return line.lstrip("#").strip()
    if len(line) > 1 and (line[0] in "!@~>=" or re.match(r"\.[A-Za-z0-9]", line)):
        return line[1:].strip()
    return line


def printed(reader: str, kind: str, text: str) -> list[str]:
    """What `reader` prints for one element of the stage: the typed lines, but for the cases
    docs/exports.md lists for that reader."""
    text = NOTE.sub("", text)  # a Fountain note prints in no reader
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    out = []
    for i, line in enumerate(lines):
        if reader == "fountain-py" and kind == "speech":
            line = _forcing_resolved(line)
        if reader.startswith("screenplain") and "_" in line:
            from screenplain.richstring import parse_emphasis  # no `\_`: the backslash prints, `_` pairs underline

            line = str(parse_emphasis(inline(line)))
        if reader == "jouvence-html":
            if re.search(r"[*_]", line):
                from jouvence.renderer import NullTextRenderer  # a backslash counts only before an opening pair

                line = NullTextRenderer().render_text(inline(line))
            if kind == "action" and i == 0:
                line = line.lstrip("!")  # every `!` that opens a forced paragraph is taken
        if reader == "afterwriting-pdf":
            if kind == "action" and re.search(r".+ TO:|^TO:$", line):
                line = line.upper()  # a transition wherever it stands, and transitions print in capitals
            if kind == "speech" and line.startswith("~"):
                line = line[1:]  # a lyric, printed in italics
            if kind == "speech" and re.fullmatch(r"={3,}", line):
                line = ""  # a page break wherever it stands
        if kind == "cue" and line.endswith("^") and reader != "jouvence-html":
            line = line[:-1].rstrip()  # dual dialogue: the caret sets the speech beside the one before
        out.append(line)
    return out


def _squash(text: str) -> str:
    return "".join(text.split())


def compare(reader: str, script, got: list[str]) -> str | None:
    """The stage against the reader's print, spaces aside (a PDF wraps long lines and spaces words its
    own way): None, or the first stage line that does not print as it should."""
    owners: list[tuple[str, str]] = []
    want = ""
    for kind, text in elements(script):
        typed = [line.strip() for line in NOTE.sub("", text).splitlines() if line.strip()]
        for typed_line, line in zip(typed, printed(reader, kind, text)):
            line = line.replace("*\u2060/", "*/")  # a reader's own reading of the file (screenplain's) keeps it
            want += _squash(line)
            owners += [(typed_line, line)] * len(_squash(line))
    # The joiner that holds a typed `*/` apart prints as nothing (docs/exports.md): it is not a character typed.
    have = "".join(_squash(line) for line in got).replace("*\u2060/", "*/")
    if want == have:
        return None
    at = next((i for i, (a, b) in enumerate(zip(want, have)) if a != b), min(len(want), len(have)))
    typed_line, line = owners[min(at, len(owners) - 1)] if owners else ("", "")
    return (f"{reader}: typed {typed_line!r} should print as {line!r}; the print has "
            f"{have[max(0, at - 30) : at]!r} then {have[at : at + 40]!r}")


@pytest.fixture(scope="module")
def planted():
    from studio.store import Store

    store = Store(":memory:")
    try:
        yield build_script(store, planted_run(store))
    finally:
        store.close()


def _printable(text: str) -> str:
    """The lines of `text` that Courier Prime can set whole."""
    keep = [line for line in text.splitlines() if all(ord(c) in courier() or c.isspace() for c in line)]
    return "\n".join(keep)


def for_reader(script, reader: str):
    """The planted run as a reader's print is compared. Both readers' PDFs set every line in Courier
    Prime, which has Latin alone: lines in other scripts are left out (the docs say so). afterwriting's
    PDF draws dual dialogue's right column first: those lines are left out of its comparison too, and
    the docs name the case."""
    if reader not in PDF_READERS:
        return script
    blocks = []
    for block in script.blocks:
        if isinstance(block, Direction):
            block = dataclasses.replace(block, text=_printable(block.text))
            keep = bool(block.text.strip())
        elif isinstance(block, Heading):
            block = dataclasses.replace(block, brief=_printable(block.brief))
            keep = True
        elif isinstance(block, Speech):
            parts = tuple((k, _printable(t)) for k, t in block.parts if _printable(t).strip())
            block, keep = dataclasses.replace(block, parts=parts), bool(parts) and _printable(block.character) != ""
        elif isinstance(block, Epilogue):
            block = dataclasses.replace(block, text=_printable(block.text))
            keep = True
        else:
            keep = True
        if keep:
            blocks.append(block)
    if reader == "afterwriting-pdf":
        dual = {i for i, b in enumerate(blocks) if isinstance(b, Speech) and b.character.endswith("^")}
        blocks = [b for i, b in enumerate(blocks) if i not in dual and i + 1 not in dual]
    return dataclasses.replace(script, blocks=blocks)


@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_prints_what_was_typed(planted, reader):
    script = for_reader(planted, reader)
    problem = compare(reader, script, READERS[reader](render(script, "fountain")))
    assert problem is None, problem


def test_the_file_holds_the_typed_characters(planted):
    """Take out what Fountain's syntax asks for (a backslash before `*` and `_`, a `!` forcing an action
    paragraph, `@` a cue, `.` a heading, the brackets of a business) and every typed line is there."""
    text = render(planted, "fountain")
    file_lines = [re.sub(r"\\([*_])", r"\1", line.replace("*\u2060/", "*/")).strip() for line in text.splitlines()]
    assert "\uff0a" not in text and "\uff3f" not in text and "\uff1a" not in text.split("[[BACKSTAGE")[0]
    at = 0
    for _kind, element in elements(planted):
        for line in (line.strip() for line in element.splitlines() if line.strip()):
            found = next((i for i in range(at, len(file_lines))
                          if line in (file_lines[i], file_lines[i][1:] if file_lines[i][:1] in "!@." else None)), None)
            assert found is not None, f"{line!r} is not in the file as typed"
            at = found + 1


def test_jouvence_keeps_an_exit_and_an_entrance_apart(store):
    """Two directions in a row are two paragraphs in every reader: Jouvence joins forced action
    paragraphs one blank line apart, so the export leaves two."""
    from jouvence.document import TYPE_ACTION
    from jouvence.parser import JouvenceParser

    from conftest import make_cast
    from studio.store import events as ev

    cast = make_cast("interview.toml")
    run_id = store.create_run(cast.play.title, cast.play_path, cast.model_dump_json(), {})
    head = store.append(run_id, None, ev.SCENE, "Scene 1", scene=1, turn=1).id
    for text in ("Sasha leaves.", "JENNY ENTERS."):
        head = store.append(run_id, head, ev.DIRECTION, text, role="director", character="Ashley", scene=1, turn=1).id
    text = render(build_script(store, run_id), "fountain")
    actions = [p.text for s in JouvenceParser().parseString(text).scenes for p in s.paragraphs if p.type == TYPE_ACTION]
    assert "\n\n".join(["Sasha leaves.", "JENNY ENTERS."]) in "".join(actions)
    for reader, lines in ((r, READERS[r](text)) for r in READERS):
        assert lines[-2:] == ["Sasha leaves.", "JENNY ENTERS."], reader


def test_a_typed_scene_heading_and_transition_print_as_typed(store):
    """A spoken "INT. HOUSE - NIGHT", a direction "CUT TO:" and markup characters come back whole."""
    from test_export_fountain import synthetic_run

    run_id = synthetic_run(store, ["CUT TO:", "INT. HOUSE - NIGHT", "", "", "", "a *star* and _under_ here"])
    text = render(build_script(store, run_id), "fountain")
    for reader in ("fountain-py", "afterwriting-pdf", "screenplain-pdf"):
        if reader not in READERS:
            continue
        lines = READERS[reader](text)
        assert "CUT TO:" in lines and "INT. HOUSE - NIGHT" in lines, (reader, lines)
        if reader != "screenplain-pdf":  # screenplain has no `\_` (see the docs)
            assert "a *star* and _under_ here" in lines, (reader, lines)


@pytest.mark.parametrize("reader", list(READERS))
def test_every_reader_prints_every_writing_system_as_typed(reader):
    """The second corpus (a line in each of thirty-odd writing systems, tests/world.py) prints as typed
    in every reader, but for what docs/exports.md lists (a PDF reader's one Latin face)."""
    from studio.store import Store
    from world import world_run

    store = Store(":memory:")
    try:
        script = for_reader(build_script(store, world_run(store)), reader)
    finally:
        store.close()
    problem = compare(reader, script, READERS[reader](render(script, "fountain")))
    assert problem is None, problem
