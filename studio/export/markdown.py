"""A script as a readable Markdown play: title, cast, scenes, bold names, italic directions, epilogue.

Markdown, like Fountain, reads meaning into plain characters, so model text is escaped with
CommonMark's backslash escapes: inline markup (`*`, `_`, backticks, brackets, `<`, `|`, `~`,
entities) everywhere, and block markup (`#`, `>`, `-`, `+`, `=`, `1.`) at the start of a line.
Leading spaces are dropped, so no line turns into a code block. The backstage, when asked for, is
an appendix after the epilogue, each entry naming the line it shaped.
"""

from __future__ import annotations

import re

from studio.export.script import Backstage, Direction, Epilogue, Heading, Script, Speech, cue, dual_mark

_INLINE = re.compile(r"([\\`*_\[\]<>|~])")
_ENTITY = re.compile(r"&(?=#\d+;|#[xX][0-9a-fA-F]+;|[A-Za-z][A-Za-z0-9]*;)")
_BLOCK_START = re.compile(r"^([#>+=-])")
_ORDERED = re.compile(r"^(\d+)([.)])")


def escape(line: str) -> str:
    """One line of any text made literal for CommonMark."""
    line = line.strip()
    line = _INLINE.sub(r"\\\1", line)
    line = _ENTITY.sub(r"\\&", line)
    line = _BLOCK_START.sub(r"\\\1", line)
    line = _ORDERED.sub(r"\1\\\2", line)
    return line


def heading(text: str) -> str:
    """Heading text: also no `#` that could close the heading early."""
    return re.sub(r"(?<!\\)#", r"\\#", escape(" ".join(text.split())))


def paragraphs(text: str) -> list[list[str]]:
    """Text as paragraphs of escaped lines; blank lines separate paragraphs."""
    out: list[list[str]] = [[]]
    for raw in text.splitlines():
        line = escape(raw)
        if line:
            out[-1].append(line)
        elif out[-1]:
            out.append([])
    return [p for p in out if p]


def _join(lines: list[str]) -> str:
    # A backslash at the end of a line is CommonMark's hard line break: the model's line breaks stay.
    return "\\\n".join(lines)


def _italic(text: str) -> str:
    return "\n\n".join(_join([f"*{line}*" for line in para]) for para in paragraphs(text))


def _direction(block: Direction) -> str:
    """A direction by its shape. Markdown aligns nothing (and the export writes no HTML), so each shape
    has a look of its own: action in italics, a centred line in bold, a transition as written in plain
    capitals, a lyric in italics behind a note sign."""
    if block.shape == "centered":
        return "\n\n".join(_join([f"**{line}**" for line in para]) for para in paragraphs(block.text))
    if block.shape == "transition":
        return "\n\n".join(_join([line.upper() for line in para]) for para in paragraphs(block.text))
    if block.shape == "lyric":
        return "\n\n".join(_join([f"*♪ {line}*" for line in para]) for para in paragraphs(block.text))
    return _italic(block.text)


def _speech(block: Speech, partner: str | None = None) -> str:
    """A speech: the cue with its extension, then (in italics) the dual marker and the parenthetical."""
    before = [f"*({escape(dual_mark(partner))})*"] if block.dual and partner else []
    if block.parenthetical:
        before.append(f"*({escape(block.parenthetical.strip('()'))})*")
    return " ".join([f"**{escape(cue(block.character, block.extension, upper=False))}:**", *before,
                     _spoken(block.parts)])


def _spoken(parts: tuple[tuple[str, str], ...]) -> str:
    """Speech parts as Markdown: business as an italic parenthetical, lines as paragraphs."""
    pieces: list[str] = []
    for kind, text in parts:
        if kind == "business":
            pieces.append(f"*({escape(' '.join(text.split()))})*")
        else:
            pieces.append("\n\n".join(_join(p) for p in paragraphs(text)))
    return " ".join(pieces) if pieces else "*(silence)*"


def _note_place(note: Backstage, script: Script) -> str:
    where = f"Scene {note.scene}, turn {note.turn}" if note.turn else f"Scene {note.scene}"
    if note.shaped is None:
        return where
    return f"{where}, before {script.protagonist}'s line"


def render_markdown(script: Script) -> str:
    out: list[str] = [f"# {heading(script.title)}"]
    if script.credit:
        out.append(f"*{escape(script.credit)}*")
    if script.premise:
        out.extend(_join(p) for p in paragraphs(script.premise))
    out.append(escape(script.source) + f" · {escape(script.draft_date)}")
    if script.contact_lines:
        out.append(_join(["Contact:", *(escape(line) for line in script.contact_lines)]))
    out.append("## Cast")
    cast_lines = []
    for entry in script.on_stage_cast:
        described = f" — {escape(' '.join(entry.description.split()))}" if entry.description else ""
        cast_lines.append(f"- **{escape(entry.name)}**{described}")
    out.append("\n".join(cast_lines))
    if script.backstage and script.superego:
        out.append(f"Backstage: **{escape(script.superego)}**, {escape(script.protagonist)}'s inner voice.")

    notes: list[Backstage] = []
    for block in script.blocks:
        if isinstance(block, Heading):
            out.append(f"## {heading(block.title.title())}")
            if block.brief:
                out.append(f"> {escape(block.brief)}")
        elif isinstance(block, Direction):
            out.append(_direction(block))
        elif isinstance(block, Speech):
            partner = script.spoken_with(block)
            out.append(_speech(block, partner.character if partner else None))
        elif isinstance(block, Backstage):
            notes.append(block)
        elif isinstance(block, Epilogue):
            out.append("## Epilogue")
            out.append(f"*{escape(block.character)}'s autobiographical notes*")
            if block.text.strip():
                out.append(_spoken(block.parts))
    if not script.finished:
        out.append("*(The run is unfinished.)*")
    if script.backstage:
        out.append("## Appendix: the backstage")
        if not notes:
            out.append("*Nothing happened backstage in this take.*")
        for note in notes:
            out.append(f"**{escape(_note_place(note, script))}.** {escape(note.label)}:")
            out.append("\n\n".join("> " + _join(p).replace("\n", "\n> ") for p in paragraphs(note.text)))
    return "\n\n".join(part for part in out if part) + "\n"
