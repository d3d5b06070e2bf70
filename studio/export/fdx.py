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

from studio.export.script import (Backstage, Direction, Epilogue, Heading, Note, Script, Speech, WrittenScript,
                                  cue, parenthesise, split_cue)

# XML 1.0 cannot carry these at all, escaped or not: they become U+FFFD, never vanish.
_NOT_XML = re.compile("[\ufffe\uffff\ud800-\udfff]")


def _text(value: str) -> str:
    return _NOT_XML.sub("\ufffd", value)


def _paragraph(parent: ET.Element, kind: str, text: str, **attrs: str) -> ET.Element:
    para = ET.SubElement(parent, "Paragraph", {"Type": kind, **attrs})
    ET.SubElement(para, "Text").text = _text(text)
    return para


def _speech(content: ET.Element, name: str, parts: list[tuple[str, str]], parenthetical: str = "",
            extension: str = "") -> None:
    """A cue (with its extension), then each parenthetical and each line of dialogue as its own paragraph."""
    _paragraph(content, "Character", cue(name, extension))
    wrote = False
    if parenthetical.strip():
        _paragraph(content, "Parenthetical", parenthesise(parenthetical))
        wrote = True
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


# How a direction's shape is typed: Final Draft's own Transition element, an action line centred.
_SHAPES = {"transition": ("Transition", {}), "centered": ("Action", {"Alignment": "Center"})}


def _dual(content: ET.Element, previous: tuple[int, int]) -> None:
    """The speech just written and the one before it, spoken at once: Final Draft holds both in one
    DualDialogue inside a paragraph of its own."""
    first, _ = previous
    moved = list(content)[first:]
    for para in moved:
        content.remove(para)
    holder = ET.SubElement(ET.SubElement(content, "Paragraph"), "DualDialogue")
    holder.extend(moved)


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
    previous: tuple[int, int] | None = None  # where the last block's paragraphs lie, when it was a speech
    for block in script.blocks:
        if not isinstance(block, Speech):
            previous = None
        if isinstance(block, Heading):
            para = _paragraph(content, "Scene Heading", block.title)
            if block.brief:
                ET.SubElement(para, "SceneProperties", {"Title": _text(block.brief)})
                # Final Draft prints no scene property: the brief prints as the action under the heading.
                brief = [line.strip() for line in block.brief.splitlines() if line.strip()]
                _paragraph(content, "Action", " ".join(brief))
        elif isinstance(block, Direction):
            lines = [line.strip() for line in block.text.splitlines() if line.strip()]
            if lines and block.shape == "lyric":
                for line in lines:
                    _paragraph(content, "Lyrics", line)
            elif lines:
                kind, attrs = _SHAPES.get(block.shape, ("Action", {}))
                _paragraph(content, kind, " ".join(lines), **attrs)
        elif isinstance(block, Speech):
            start = len(content)
            _speech(content, block.character, list(block.parts), block.parenthetical, block.extension)
            if block.dual and previous is not None:
                _dual(content, previous)
                previous = None
            else:
                previous = (start, len(content))
            continue
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


# -- reading ------------------------------------------------------------------------------------------

_PLAYS_OWN = re.compile(r"^SCENE (\d+)$", re.IGNORECASE)


class NotFinalDraft(ValueError):
    """The file is not a Final Draft script the studio can read; the message says why."""


def _texts(para: ET.Element) -> str:
    """A paragraph's text: Final Draft splits it into runs (<Text> elements) wherever the style changes."""
    return "".join("".join(t.itertext()) for t in para.findall("Text"))


def _paragraphs(content: ET.Element) -> list[tuple[ET.Element, bool]]:
    """Every paragraph in order, a DualDialogue's opened in place; True marks the second cue of a pair."""
    out: list[tuple[ET.Element, bool]] = []
    for para in content.findall("Paragraph"):
        dual = para.find("DualDialogue")
        if dual is None:
            out.append((para, False))
            continue
        cues = 0
        for inner in dual.findall("Paragraph"):
            if inner.get("Type") == "Character":
                cues += 1
            out.append((inner, cues == 2 and inner.get("Type") == "Character"))
    return out


def _read_title_page(root: ET.Element) -> dict[str, str]:
    """The title page as Fountain names it: its first centred line the title; a line that credits
    ("Written by") then the author; the lines set to the left at the foot the contact; "Draft date: ..."
    by its words (as `_title_page` lays them out, and Final Draft's own title pages do)."""
    from studio.engine.script import CREDIT_OPENERS

    paragraphs = [(" ".join(_texts(p).split()), p.get("Alignment")) for p in root.findall("./TitlePage/Content/Paragraph")]
    page: dict[str, str] = {}
    centred = [text for text, alignment in paragraphs if text and alignment not in ("Left", "Right")]
    contact = [text for text, alignment in paragraphs if text and alignment == "Left"]
    for text, _ in paragraphs:
        key, _, value = text.partition(":")
        if value.strip() and key.strip().lower() in ("draft date", "contact", "author", "credit", "source"):
            page.setdefault(key.strip().lower(), value.strip())
    if contact and "contact" not in page:
        page["contact"] = "\n".join(contact)
    if centred:
        page["title"] = centred[0]
    for i, text in enumerate(centred[1:-1], 1):
        if text.lower() in CREDIT_OPENERS and "author" not in page:
            page["credit"], page["author"] = text, centred[i + 1]
    return page


def read(text: str | bytes) -> WrittenScript:
    """A Final Draft file (its bytes, whose XML declaration names their encoding, or its text) as the
    studio reads a script. Parsed by defusedxml with every DTD, entity and
    external reference refused, so no file can expand to gigabytes or read another file. Raises
    NotFinalDraft for XML that is not a Final Draft script."""
    from defusedxml import DefusedXmlException
    from defusedxml.ElementTree import ParseError, fromstring

    try:
        raw = text.encode("utf-8") if isinstance(text, str) else text
        root = fromstring(raw, forbid_dtd=True, forbid_entities=True, forbid_external=True)
    except DefusedXmlException as exc:
        raise NotFinalDraft(f"declares a DTD or entities ({type(exc).__name__}), which a Final Draft file never "
                            "needs and the studio never reads") from None
    except ParseError as exc:
        raise NotFinalDraft(f"is not well-formed XML ({exc})") from None
    content = root.find("Content")
    if root.tag != "FinalDraft" or content is None:
        raise NotFinalDraft(f"is XML but not a Final Draft script (its root is <{root.tag}>, with no <Content>)")
    blocks: list[Heading | Direction | Speech | Epilogue | Note] = []
    speech: dict | None = None
    epilogue = backstage = False

    def said() -> None:
        nonlocal speech, epilogue
        if speech is None:
            return
        parts = tuple(speech["parts"])
        if parts == (("business", "silence"),) or (not parts and speech["parenthetical"] == "silence"):
            parts, speech["parenthetical"] = (), ""
        if backstage:  # the appendix: who, what they did and where (the parenthetical), then what they wrote
            label = f" ({speech['parenthetical']})" if speech["parenthetical"] else ""
            blocks.append(Note(" ".join([f"{speech['name']}{label}:", *(t for _, t in parts)])))
        elif epilogue:
            blocks.append(Epilogue(speech["name"], "\n".join(t if k == "line" else f"*{t}*" for k, t in parts), 0))
            epilogue = False
        else:
            blocks.append(Speech(speech["name"], None, parts, 0, parenthetical=speech["parenthetical"],
                                 extension=speech["extension"], dual=speech["dual"]))
        speech = None

    for para, second in _paragraphs(content):
        kind = para.get("Type") or "General"
        # a line's words keep the spaces typed between them (two after a full stop), as the Fountain reader
        # keeps them; only a break inside the paragraph is a space, and the ends are trimmed
        value = " ".join(line.strip() for line in _texts(para).splitlines() if line.strip())
        if kind in ("Character", "Scene Heading", "Parenthetical"):
            value = " ".join(value.split())
        if kind == "Character":
            said()
            name, extension = split_cue(value)
            speech = {"name": name, "extension": extension, "dual": second, "parts": [],
                      "parenthetical": ""}
            continue
        if kind in ("Parenthetical", "Dialogue") and speech is not None:
            if kind == "Parenthetical":
                business = value[1:-1].strip() if value.startswith("(") and value.endswith(")") else value
                if not speech["parts"] and not speech["parenthetical"]:
                    speech["parenthetical"] = business
                else:
                    speech["parts"].append(("business", business))
            elif value:
                parts = speech["parts"]
                if parts and parts[-1][0] == "line":
                    parts[-1] = ("line", parts[-1][1] + "\n" + value)
                else:
                    parts.append(("line", value))
            continue
        said()
        if kind == "Scene Heading":
            upper = value.upper()
            if para.get("StartsNewPage") == "Yes" and upper in ("EPILOGUE", "BACKSTAGE"):
                epilogue, backstage = upper == "EPILOGUE", upper == "BACKSTAGE"
                continue
            own = _PLAYS_OWN.match(value)
            props = para.find("SceneProperties")
            brief = " ".join((props.get("Title") or "").split()) if props is not None and own else ""
            blocks.append(Heading(int(own.group(1)) if own else None, upper if own else value, brief))
        elif not value:
            continue
        elif backstage:
            blocks.append(Note(value))
        elif kind == "Transition":
            blocks.append(Direction(value, None, None, 0, shape="transition"))
        elif kind in ("Lyrics", "Lyric"):
            last = blocks[-1] if blocks else None
            if isinstance(last, Direction) and last.shape == "lyric":
                blocks[-1] = Direction(last.text + "\n" + value, None, None, 0, shape="lyric")
            else:
                blocks.append(Direction(value, None, None, 0, shape="lyric"))
        else:
            shape = "centered" if para.get("Alignment") == "Center" else "action"
            blocks.append(Direction(value, None, None, 0, shape=shape))
    said()
    return WrittenScript(_read_title_page(root), blocks)
