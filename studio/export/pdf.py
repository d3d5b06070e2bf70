"""A script as a PDF in the standard screenplay layout, typeset by screenplain.

screenplain (MIT, reportlab underneath) owns the layout: Courier Prime 12 pt, 1.5" left margin,
cue, parenthetical and dialogue indents, a title page after the Fountain spec's recommendation
(title, credit and author centred; draft date lower left), page numbers from page two, and
keep-with-next for cues and headings. We hand it the script as its own element objects rather
than as Fountain text to re-parse, so model text needs no escaping at all here: every string is
a plain segment, and screenplain escapes it for reportlab itself.

The backstage has no place in a screenplay's pages (Fountain notes never print), so with
`backstage` it follows the epilogue as an appendix, one entry per note, like the Markdown export.
"""

from __future__ import annotations

import os
import textwrap
from pathlib import Path

from studio.export.script import Backstage, Direction, Epilogue, Heading, Script, Speech

# Courier sets 10 characters to the inch at 12 pt: the title frame is 5.5" wide, the title 24 pt.
LINE_CHARS = 50
TITLE_CHARS = 25


def _wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(" ".join(text.split()), width, break_long_words=True) or [""]


def _screenplay(script: Script):
    from screenplain.richstring import plain
    from screenplain.types import Action, Dialog, PageBreak, Screenplay, Slug

    class _Plain(Screenplay):
        """Title-page values are the play's own words: never read as emphasis markup."""

        def get_rich_attribute(self, name, default=[]):  # noqa: B006 - screenplain's signature
            values = self.title_page.get(name)
            return [plain(v) for v in values] if values else default

    def dialog(name: str, blocks: list[tuple[bool, str]]) -> Dialog:
        d = Dialog(plain(" ".join(name.split()).upper()))
        d.blocks = [(paren, plain(text)) for paren, text in blocks] or [(True, plain("(silence)"))]
        return d

    def spoken(text: str) -> list[tuple[bool, str]]:
        out: list[tuple[bool, str]] = []
        for line in (raw.strip() for raw in text.splitlines()):
            if line or (out and out[-1][1]):
                out.append((False, line))
        while out and not out[-1][1]:
            out.pop()
        return out

    # screenplain measures title-page lines at the body's width but sets them in the narrower title
    # frame, so a line that wraps there pushes the draft date onto a page of its own. Lines broken
    # here, short of either width, never wrap.
    title_page = {
        "Title": _wrap(script.title, TITLE_CHARS),
        "Credit": ["Written by"],
        "Author": _wrap(script.author, LINE_CHARS),
        "Source": _wrap(script.source, LINE_CHARS),
        "Draft date": [script.draft_date],
    }
    paragraphs: list = []
    notes: list[Backstage] = []
    for block in script.blocks:
        if isinstance(block, Heading):
            paragraphs.append(Slug(plain(block.title)))
        elif isinstance(block, Direction):
            lines = [line.strip() for line in block.text.splitlines() if line.strip()]
            if lines:
                paragraphs.append(Action([plain(line) for line in lines]))
        elif isinstance(block, Speech):
            blocks: list[tuple[bool, str]] = []
            for kind, text in block.parts:
                if kind == "business":
                    blocks.append((True, "(" + " ".join(text.split()) + ")"))
                else:
                    blocks.extend(spoken(text))
            paragraphs.append(dialog(block.character, blocks))
        elif isinstance(block, Backstage):
            notes.append(block)
        elif isinstance(block, Epilogue):
            paragraphs.append(PageBreak())
            paragraphs.append(Slug(plain("EPILOGUE")))
            paragraphs.append(dialog(block.character, spoken(block.text)))
    if script.backstage:
        paragraphs.append(PageBreak())
        paragraphs.append(Slug(plain("BACKSTAGE")))
        if not notes:
            paragraphs.append(Action([plain("Nothing happened backstage in this take.")]))
        for note in notes:
            where = f"scene {note.scene}, turn {note.turn}" if note.turn else f"scene {note.scene}"
            paragraphs.append(dialog(note.character, [(True, f"({note.label}, {where})"), *spoken(note.text)]))
    return _Plain(title_page, paragraphs)


def render_pdf(script: Script, path: Path) -> None:
    """Typeset `script` into `path` (written whole or not at all)."""
    from screenplain.export.pdf import create_default_settings, to_pdf

    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        to_pdf(_screenplay(script), str(tmp), settings=create_default_settings())
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()
