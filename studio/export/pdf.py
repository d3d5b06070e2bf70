"""A script as a PDF in the standard screenplay layout, typeset with reportlab.

The layout is the one US screenplays use: Courier Prime 12 pt, six lines to the inch, a 1.5" binding
margin and 1" elsewhere; cues 3.7" from the page's left edge, dialogue from 2.5" to 6", parentheticals
in a narrow column from 3.1" to 5.1"; a speech that crosses a page ends with (MORE) and resumes
under its cue with (CONT'D). A title page (title, "Written by" or the play's credit, author centred;
source and contact lower left, the draft date lower right), page numbers from page two, the scene's
brief under its heading, the epilogue on a page of its own. What the playwright writes prints as a
screenplay sets it: an extension after the cue ("JENNY (V.O.)"), a parenthetical under it, dual
dialogue side by side, a centred line centred, a transition against the right margin, a lyric in
italics. Model text is set as text: every string is XML-escaped into reportlab's markup
(`studio.export.typeset`), and every script prints: characters Courier Prime lacks come from
fallback fonts, right-to-left lines are put in display order.

The backstage has no place in a screenplay's pages (Fountain notes never print), so with
`backstage` it follows the epilogue as an appendix, one entry per note, like the Markdown export.
"""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path

from reportlab.lib.enums import TA_CENTER, TA_RIGHT
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
    cue as cue_of,
    dual_mark,
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
RIGHT = _style("right", 0, 6, alignment=TA_RIGHT)
# A direction's shapes: a centred line, a transition set against the right margin (CUT TO:), a lyric.
CENTRED = _style("centred", 0, 6, alignment=TA_CENTER, spaceBefore=LINE)
TRANSITION = _style("transition", 0, 6, alignment=TA_RIGHT, spaceBefore=LINE, keepWithNext=1)
# Dual dialogue: two speeches side by side, each in half the page's measure, as Final Draft sets them.
DUAL_LEFT = (_style("dual-cue-l", 0.9, 2.1), _style("dual-paren-l", 0.5, 2.0), _style("dual-dialogue-l", 0, 2.8))
DUAL_RIGHT = (_style("dual-cue-r", 4.0, 2.0), _style("dual-paren-r", 3.6, 2.0), _style("dual-dialogue-r", 3.1, 2.9))


def speech_flowable(f: typeset.Fonts, name: str, parts, here: str, cue=CUE, paren=PAREN, dialogue=DIALOGUE,
                    space=LINE, paren_style: Callable[[str], str] = parenthesise, italic_paren=False,
                    extension: str = "", parenthetical: str = "", paren_on_cue: bool = False):
    """A speech as a typeset.Speech: cue (with its extension, "JENNY (V.O.)"), the parenthetical written
    before it, then parentheticals and dialogue, split across pages with (MORE)/(CONT'D). Shared by both
    layouts, which pass their own columns; `paren_on_cue` sets the parenthetical after the name on the
    cue's line (a stage play's way) instead of under it (a screenplay's)."""
    cue_text = cue_of(name, extension)
    cue_html = f.markup(cue_text, here)
    body = []
    if parenthetical and paren_on_cue:
        cue_html += " " + f.markup(paren_style(parenthetical), here, italic=italic_paren)
    elif parenthetical:
        p = f.para(paren_style(parenthetical), paren, here, italic=italic_paren)
        p._is_paren = True
        body.append(p)
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
        Paragraph(cue_html, cue),
        body,
        more=lambda: Paragraph("(MORE)", cue),
        contd=lambda: Paragraph(f.markup(f"{cue_text} (CONT'D)", here), cue),
        space_before=space,
    )


def title_page(f: typeset.Fonts, script: Script, title=TITLE, plain: str = "Written by", top: float = 2.5,
               upper: bool = False) -> list:
    """The title page both layouts print: the title, the credit and the author centred (neither when the
    play names no author), then at the foot the source and the contact on the left and the draft date
    on the right. `plain` is the credit before a plain author, "Written by" or a stage play's "by"."""
    here = where(None, script)
    credit, names = script.credit_lines(plain=plain)
    story: list = [Spacer(1, top * inch), Paragraph(f.markup(script.title.upper() if upper else script.title, here), title)]
    if names:
        story += [Spacer(1, LINE * 2), Paragraph(f.markup(credit, here), CENTRE), Spacer(1, LINE),
                  Paragraph(f.markup(names, here), CENTRE)]
    foot = [Paragraph(f.markup(script.source, here), LEFT)]
    foot += [Paragraph(f.markup(line, here), LEFT) for line in script.contact_lines]
    foot.append(Paragraph(f.markup(script.draft_date, here), RIGHT))
    story += [typeset.Foot(foot), PageBreak()]
    return story


def direction_flowable(f: typeset.Fonts, block: Direction, here: str) -> Paragraph | None:
    """A screenplay direction by its shape: action across the page, a centred line centred, a transition
    in capitals against the right margin, a lyric in italics."""
    lines = [line.strip() for line in block.text.splitlines() if line.strip()]
    if not lines:
        return None
    text = "\n".join(lines)
    if block.shape == "centered":
        return f.para(text, CENTRED, here)
    if block.shape == "transition":
        return f.para(text.upper(), TRANSITION, here)
    return f.para(text, ACTION, here, italic=block.shape == "lyric")


def _block_speech(f: typeset.Fonts, block: Speech, here: str, columns=None, mark: str = ""):
    """A screenplay speech from its block, in the full columns or one side of dual dialogue; `mark` is
    the dual marker put before the parenthetical where the speeches cannot stand side by side."""
    cue, paren, dialogue = columns or (CUE, PAREN, DIALOGUE)
    parenthetical = "; ".join(p for p in (mark, block.parenthetical.strip("()")) if p)
    return speech_flowable(f, block.character, block.parts, here, cue=cue, paren=paren, dialogue=dialogue,
                           extension=block.extension, parenthetical=parenthetical)


def dual_flowable(f: typeset.Fonts, first: Speech, second: Speech, script: Script):
    """Two speeches spoken at once, side by side; one after the other, the second marked, where the
    pair is taller than a page."""
    here1, here2 = where(first, script), where(second, script)
    return typeset.Dual(
        _block_speech(f, first, here1, DUAL_LEFT), _block_speech(f, second, here2, DUAL_RIGHT),
        lambda: [_block_speech(f, first, here1), _block_speech(f, second, here2, mark=dual_mark(first.character))],
        space_before=LINE,
    )


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
    last: Speech | None = None  # the speech the story ends with, which a dual one joins
    for block in script.blocks:
        here = where(block, script)
        if isinstance(block, Heading):
            story.append(Paragraph(f.markup(block.title, here), SLUG))
            if block.brief:
                story.append(f.para(block.brief, BRIEF, here, italic=True))
        elif isinstance(block, Direction):
            para = direction_flowable(f, block, here)
            if para is not None:
                story.append(para)
        elif isinstance(block, Speech):
            partner = script.spoken_with(block)
            if partner is not None and partner is last:
                story[-1] = dual_flowable(f, partner, block, script)
                last = None  # a third speech marked dual joins no pair: it is set on its own
                continue
            # a speech marked dual with no speech to stand beside (a third at once): set alone, marked
            story.append(_block_speech(f, block, here, mark=dual_mark(partner.character) if partner else ""))
            last = block
            continue
        elif isinstance(block, Epilogue):
            story += [PageBreak(), Paragraph("EPILOGUE", SLUG)]
            story.append(speech_flowable(f, block.character, block.parts, here))
        if not isinstance(block, Backstage):
            last = None
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
