"""A script as Final Draft XML (.fdx), the file a screenwriter's collaborators open.

Written with the standard library's ElementTree, so every string is XML-escaped by the writer and
no model text can become markup. Each paragraph is typed the way Final Draft types its own: Scene
Heading, Action, Character, Parenthetical, Dialogue; the playwright's brief is the scene's title
(Final Draft's SceneProperties) and, since Final Draft prints no scene property, the action under
the heading; the title page is Final Draft's TitlePage, and the epilogue (and,
with `backstage`, the appendix of the inner voice's notes) starts a new page.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

from studio.export.script import Backstage, Direction, Epilogue, Heading, Script, Speech, parenthesise

# XML 1.0 cannot carry these at all, escaped or not: they become U+FFFD, never vanish.
_NOT_XML = re.compile("[\ufffe\uffff\ud800-\udfff]")


def _text(value: str) -> str:
    return _NOT_XML.sub("\ufffd", value)


def _paragraph(parent: ET.Element, kind: str, text: str, **attrs: str) -> ET.Element:
    para = ET.SubElement(parent, "Paragraph", {"Type": kind, **attrs})
    ET.SubElement(para, "Text").text = _text(text)
    return para


def _speech(content: ET.Element, name: str, parts: list[tuple[str, str]]) -> None:
    """A cue, then each parenthetical and each line of dialogue as its own paragraph."""
    _paragraph(content, "Character", " ".join(name.split()).upper())
    wrote = False
    for kind, text in parts:
        if kind == "business":
            _paragraph(content, "Parenthetical", parenthesise(text))
            wrote = True
            continue
        for line in (raw.strip() for raw in text.splitlines()):
            if line:
                _paragraph(content, "Dialogue", line)
                wrote = True
    if not wrote:
        _paragraph(content, "Parenthetical", "(silence)")


# Blank lines between the title page's middle and its foot: Final Draft sets the title a third of the way
# down and the contact at the foot of a 55-line page.
_TITLE_TOP, _TITLE_FOOT = 16, 22


def _title_page(content: ET.Element, script: Script) -> None:
    """The title page as Final Draft lays one out: the title, the credit and the author centred a third
    of the way down, the source under them; the contact at the foot on the left and the draft date on the
    right. A play with no author has no credit either."""
    def line(text: str, alignment: str = "Center") -> None:
        _paragraph(content, "Action", " ".join(text.split()), Alignment=alignment)

    for _ in range(_TITLE_TOP):
        line("")
    credit, names = script.credit_lines()
    for text in (script.title, "", credit, names, "", script.source):
        line(text)
    contact = script.contact_lines
    for _ in range(_TITLE_FOOT - max(len(contact), 1)):
        line("")
    for text in contact:
        line(text, "Left")
    line(f"Draft date: {script.draft_date}", "Right")


def render_fdx(script: Script) -> str:
    root = ET.Element("FinalDraft", {"DocumentType": "Script", "Template": "No", "Version": "5"})
    content = ET.SubElement(root, "Content")
    notes: list[Backstage] = []
    for block in script.blocks:
        if isinstance(block, Heading):
            para = _paragraph(content, "Scene Heading", block.title)
            if block.brief:
                ET.SubElement(para, "SceneProperties", {"Title": _text(block.brief)})
                # Final Draft prints no scene property: the brief prints as the action under the heading.
                brief = [line.strip() for line in block.brief.splitlines() if line.strip()]
                _paragraph(content, "Action", " ".join(brief))
        elif isinstance(block, Direction):
            lines = [line.strip() for line in block.text.splitlines() if line.strip()]
            if lines:
                _paragraph(content, "Action", " ".join(lines))
        elif isinstance(block, Speech):
            _speech(content, block.character, list(block.parts))
        elif isinstance(block, Backstage):
            notes.append(block)
        elif isinstance(block, Epilogue):
            _paragraph(content, "Scene Heading", "EPILOGUE", StartsNewPage="Yes")
            _speech(content, block.character, list(block.parts))
    if script.backstage:
        _paragraph(content, "Scene Heading", "BACKSTAGE", StartsNewPage="Yes")
        if not notes:
            _paragraph(content, "Action", "Nothing happened backstage in this take.")
        for note in notes:
            where = f"scene {note.scene}, turn {note.turn}" if note.turn else f"scene {note.scene}"
            _speech(content, note.character, [("business", f"{note.label}, {where}"), ("line", note.text)])

    _title_page(ET.SubElement(ET.SubElement(root, "TitlePage"), "Content"), script)
    ET.indent(root, space="  ")
    return '<?xml version="1.0" encoding="UTF-8" standalone="no" ?>\n' + ET.tostring(root, encoding="unicode") + "\n"
