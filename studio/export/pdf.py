"""A script as a PDF in the standard screenplay layout, typeset with reportlab.

The layout is the one US screenplays use: Courier Prime 12 pt, six lines to the inch, a 1.5" binding
margin and 1" elsewhere; cues 3.7" from the page's left edge, dialogue from 2.5" to 6", parentheticals
in a narrow column from 3.1" to 5.1"; a speech that crosses a page ends with (MORE) and resumes
under its cue with (CONT'D). A title page (title, "Written by", author centred; source and draft
date lower left), page numbers from page two, the scene's brief under its heading, the epilogue on
a page of its own. Model text is set as text: every string is XML-escaped into reportlab's markup
(`studio.export.typeset`), and every script prints: characters Courier Prime lacks come from
fallback fonts, right-to-left lines are put in display order.

The backstage has no place in a screenplay's pages (Fountain notes never print), so with
`backstage` it follows the epilogue as an appendix, one entry per note, like the Markdown export.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from reportlab.lib.enums import TA_CENTER
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import PageBreak, Paragraph, Spacer

import studio.export.typeset as typeset
from studio.export.script import (
    Backstage,
    Direction,
    Epilogue,
    Heading,
    Script,
    Speech,
    parenthesise,
)

LINE = 12  # points: 12 pt Courier set solid, six lines to the inch


def where(block, script: Script) -> str:
    """How a warning names a line: the scene, who says it, and the event, which `studio show` lists."""
    if isinstance(block, Speech):
        return f"{block.character}'s line (event {block.event_id})"
    if isinstance(block, Epilogue):
        return f"the epilogue (event {block.event_id})"
    if isinstance(block, Direction):
        return f"a direction (event {block.event_id})"
    if isinstance(block, Backstage):
        return f"a backstage note (event {block.event_id})"
    if isinstance(block, Heading):
        return f"the heading of {block.title.lower()}"
    return f"the title page of run {script.run_id}"


def spoken_lines(text: str) -> list[str]:
    """A stretch of speech as lines; blank lines inside it kept (one), none at either end."""
    out: list[str] = []
    for line in (raw.strip() for raw in text.splitlines()):
        if line or (out and out[-1]):
            out.append(line)
    while out and not out[-1]:
        out.pop()
    return out


def _style(name: str, left: float, width: float, **kw) -> ParagraphStyle:
    kw = {"fontName": typeset.BASE, "fontSize": 12, "leading": LINE, **kw}
    return ParagraphStyle(name, leftIndent=left * inch, rightIndent=(6 - left - width) * inch, **kw)


# Offsets from the 1.5" margin: the screenplay's columns.
ACTION = _style("action", 0, 6, spaceBefore=LINE)
BRIEF = _style("brief", 0, 6, spaceBefore=LINE)
SLUG = _style("slug", 0, 6, spaceBefore=2 * LINE, keepWithNext=1)
CUE = _style("cue", 2.2, 3.8)
PAREN = _style("paren", 1.6, 2.0, firstLineIndent=0)
DIALOGUE = _style("dialogue", 1.0, 3.5)
CENTRE = _style("centre", 0, 6, alignment=TA_CENTER)
TITLE = _style("title", 0, 6, alignment=TA_CENTER, fontSize=24, leading=36)
LEFT = _style("left", 0, 6)


def speech_flowable(f: typeset.Fonts, name: str, parts, here: str, cue=CUE, paren=PAREN, dialogue=DIALOGUE,
                    space=LINE, paren_style: Callable[[str], str] = parenthesise, italic_paren=False):
    """A speech as a typeset.Speech: cue, parentheticals and dialogue, split across pages with
    (MORE)/(CONT'D). Shared by both layouts, which pass their own columns."""
    cue_text = " ".join(name.split()).upper()
    body = []
    for kind, text in parts:
        if kind == "business":
            p = f.para(paren_style(text), paren, here, italic=italic_paren)
            p._is_paren = True
            body.append(p)
        else:
            lines = spoken_lines(text)
            if lines:
                body.append(f.para("\n".join(lines), dialogue, here))
    if not body:
        p = Paragraph(f.markup("(silence)", here, italic=italic_paren), paren)
        p._is_paren = True
        body.append(p)
    return typeset.Speech(
        Paragraph(f.markup(cue_text, here), cue),
        body,
        more=lambda: Paragraph("(MORE)", cue),
        contd=lambda: Paragraph(f.markup(f"{cue_text} (CONT'D)", here), cue),
        space_before=space,
    )


def title_page(f: typeset.Fonts, script: Script) -> list:
    here = where(None, script)
    credit, names = script.credit_lines()
    story = [Spacer(1, 2.5 * inch), Paragraph(f.markup(script.title, here), TITLE), Spacer(1, LINE * 2)]
    story += [Paragraph(f.markup(credit, here), CENTRE), Spacer(1, LINE)]
    story += [Paragraph(f.markup(names, here), CENTRE), Spacer(1, 3 * inch)]
    story += [Paragraph(f.markup(script.source, here), LEFT), Paragraph(f.markup(script.draft_date, here), LEFT)]
    story.append(PageBreak())
    return story


def backstage_appendix(f: typeset.Fonts, script: Script, heading, speech) -> list:
    """The inner voice's notes after the play: `heading(text)` and `speech(name, parts, where)` are
    the layout's own."""
    notes = [b for b in script.blocks if isinstance(b, Backstage)]
    story = [PageBreak(), heading("BACKSTAGE")]
    if not notes:
        story.append(Paragraph("Nothing happened backstage in this take.", ACTION))
    for note in notes:
        at = f"scene {note.scene}, turn {note.turn}" if note.turn else f"scene {note.scene}"
        story.append(speech(note.character, (("business", f"{note.label}, {at}"), ("line", note.text)), where(note, script)))
    return story


def _screenplay(script: Script, f: typeset.Fonts) -> list:
    story = title_page(f, script)
    for block in script.blocks:
        here = where(block, script)
        if isinstance(block, Heading):
            story.append(Paragraph(f.markup(block.title, here), SLUG))
            if block.brief:
                story.append(f.para(block.brief, BRIEF, here, italic=True))
        elif isinstance(block, Direction):
            lines = [line.strip() for line in block.text.splitlines() if line.strip()]
            if lines:
                story.append(f.para("\n".join(lines), ACTION, here))
        elif isinstance(block, Speech):
            story.append(speech_flowable(f, block.character, block.parts, here))
        elif isinstance(block, Epilogue):
            story += [PageBreak(), Paragraph("EPILOGUE", SLUG)]
            story.append(speech_flowable(f, block.character, block.parts, here))
    if script.backstage:
        story += backstage_appendix(
            f, script, lambda text: Paragraph(text, SLUG), lambda n, p, h: speech_flowable(f, n, p, h)
        )
    return story


def write_pdf(path: Path, story: list, script: Script, front: int, number_from: int) -> None:
    """Build into a temporary file beside `path` and move it in place: whole or not at all."""
    path = Path(path)
    tmp = path.with_name(f".{path.name}.tmp")
    try:
        doc = typeset.Pages(str(tmp), front, number_from, title=script.title, author=script.author)
        doc.build(story)
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def render_pdf(script: Script, path: Path, warn: Callable[[str], None] | None = None) -> list[str]:
    """Typeset `script` as a screenplay into `path`; returns (and passes to `warn`) each line with a
    character no font could print."""
    f = typeset.fonts(warn)
    write_pdf(path, _screenplay(script, f), script, front=1, number_from=2)
    return f.missing
