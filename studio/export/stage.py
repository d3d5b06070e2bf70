"""A script as a stage play, in the standard US stage-play format, typeset with reportlab.

The convention is the one US publishers' guides (Samuel French, now Concord Theatricals) and most
US playwriting competitions ask for: 12 pt Courier, a 1.5" binding margin and 1" elsewhere; a
title page (title in capitals, "by", the author; source and contact lower left, the draft date lower
right); a cast page listing
each character in capitals with a short description, then the setting; each scene under a
centred heading with the setting paragraph (here the playwright's brief) below it; character
names centred in capitals above their lines; dialogue across the full measure; stage directions
indented well in from the left and set in italics, and in parentheses on their own line where
they fall inside a speech; entrances and exits are directions like any other; "END OF PLAY"
centred after the last line; page numbers from the first page of the play.

A parenthetical the playwright wrote before a speech follows the name on its line, in italics; an
extension follows the name ("JENNY (V.O.)"); two speeches spoken at once follow each other, the second
marked "(at the same time as ...)", since the page has one column.

The protagonist's epilogue is its own section after the play, on its own page; the backstage,
when asked for, is an appendix after that, as in the screenplay.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from reportlab.lib.enums import TA_CENTER
from reportlab.lib.units import inch
from reportlab.platypus import CondPageBreak, PageBreak, Paragraph, Spacer

import studio.export.typeset as typeset
from studio.export.pdf import (
    LINE,
    _style,
    backstage_appendix,
    speech_flowable,
    title_page,
    where,
    write_pdf,
)
from studio.export.script import Direction, Epilogue, Heading, Script, Speech, dual_mark, parenthesise

NAME = _style("stage-name", 0, 6, alignment=TA_CENTER)
LINES = _style("stage-lines", 0, 6)
INNER = _style("stage-inner", 1.0, 4.0)  # a direction inside a speech: its own line, parenthesised
DIRECTION = _style("stage-direction", 2.0, 4.0, spaceBefore=LINE)  # the 3.5" stage-direction column
HEADING = _style("stage-heading", 0, 6, alignment=TA_CENTER, spaceBefore=2 * LINE, spaceAfter=0, keepWithNext=1)
TITLE = _style("stage-title", 0, 6, alignment=TA_CENTER, fontSize=18, leading=24)
CENTRE = _style("stage-centre", 0, 6, alignment=TA_CENTER)
LEFT = _style("stage-left", 0, 6)
CAST = _style("stage-cast", 0.5, 5.5, spaceBefore=LINE, firstLineIndent=-0.5 * inch)
CENTRED = _style("stage-centred", 0, 6, alignment=TA_CENTER, spaceBefore=LINE)
LYRIC = _style("stage-lyric", 0, 6, spaceBefore=LINE)


def _speech(f: typeset.Fonts, name: str, parts, here: str, extension: str = "", parenthetical: str = ""):
    return speech_flowable(f, name, parts, here, cue=NAME, paren=INNER, dialogue=LINES, paren_style=parenthesise,
                           italic_paren=True, extension=extension, parenthetical=parenthetical, paren_on_cue=True)


def _block_speech(f: typeset.Fonts, block: Speech, script: Script, here: str):
    """A speech from its block: the parenthetical after the name, on its line; a dual speech follows the
    one it is spoken with, marked (a stage play's page has one column)."""
    partner = script.spoken_with(block)
    mark = dual_mark(partner.character) if partner else ""
    parenthetical = "; ".join(p for p in (mark, block.parenthetical.strip("()")) if p)
    return _speech(f, block.character, block.parts, here, block.extension, parenthetical)


def _direction(f: typeset.Fonts, block: Direction, here: str):
    """A stage direction by its shape: in italics in the direction column; a centred line centred; a
    transition in capitals, upright, in the column (a stage play cuts with the lights, not the camera);
    a lyric sung across the dialogue's measure, in italics."""
    lines = [line.strip() for line in block.text.splitlines() if line.strip()]
    if not lines:
        return None
    text = "\n".join(lines)
    if block.shape == "centered":
        return f.para(text, CENTRED, here, italic=True)
    if block.shape == "transition":
        return f.para(text.upper(), DIRECTION, here)
    if block.shape == "lyric":
        return f.para(text, LYRIC, here, italic=True)
    return f.para(text, DIRECTION, here, italic=True)


def _heading(text: str, f: typeset.Fonts | None = None, here: str = "") -> Paragraph:
    html = f.markup(text, here) if f else text
    return Paragraph(f"<u>{html}</u>", HEADING)


def _front_matter(f: typeset.Fonts, script: Script) -> list:
    # a stage play's title page: the title in capitals, and "by", not "Written by"
    story = title_page(f, script, title=TITLE, plain="by", top=3, upper=True)
    story += [Paragraph("<u>CHARACTERS</u>", CENTRE), Spacer(1, LINE)]
    for entry in script.on_stage_cast:
        where_cast = f"the cast page ({entry.name})"
        text = f.markup(entry.name.upper(), where_cast)
        if entry.description.strip():
            text += ": " + f.markup(" ".join(entry.description.split()), where_cast)
        story.append(Paragraph(text, CAST))
    setting = script.setting or " ".join(script.premise.split())
    if setting:
        story += [Spacer(1, 2 * LINE), Paragraph("<u>SETTING</u>", CENTRE), Spacer(1, LINE)]
        story.append(f.para(setting, LEFT, "the cast page (setting)"))
    story.append(PageBreak())
    return story


def _play(script: Script, f: typeset.Fonts) -> list:
    story = _front_matter(f, script)
    for block in script.blocks:
        here = where(block, script)
        if isinstance(block, Heading):
            story += [CondPageBreak(6 * LINE), _heading(block.title, f, here)]
            if block.brief:
                story.append(f.para(block.brief, DIRECTION, here, italic=True))
        elif isinstance(block, Direction):
            para = _direction(f, block, here)
            if para is not None:
                story.append(para)
        elif isinstance(block, Speech):
            story.append(_block_speech(f, block, script, here))
        elif isinstance(block, Epilogue):
            story += [PageBreak(), _heading("EPILOGUE")]
            story.append(_speech(f, block.character, block.parts, here))
    ending = "END OF PLAY" if script.finished else "(The run stopped here: the play is unfinished.)"
    story += [Spacer(1, 2 * LINE), Paragraph(ending, CENTRE)]
    if script.backstage:
        story += backstage_appendix(f, script, _heading, lambda n, p, h: _speech(f, n, p, h))
    return story


def render_play_pdf(script: Script, path: Path, warn: Callable[[str], None] | None = None) -> list[str]:
    """Typeset `script` as a stage play into `path`; returns (and passes to `warn`) each line with a
    character no font could print."""
    f = typeset.fonts(warn)
    write_pdf(path, _play(script, f), script, front=2, number_from=1)
    return f.missing
