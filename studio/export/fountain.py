"""A script as Fountain 1.1 (fountain.io/syntax), written with the characters the playwright typed.

Fountain gives meaning to plain characters: `*` and `_` are emphasis, a line starting with `.`, `@`,
`!`, `#`, `=`, `~` or `>` forces an element, an all-caps line after a blank one is a cue, `INT.`
starts a scene heading. The file keeps every character of the script as typed and uses only the
syntax's own means so that a reader prints it back:

* `*` and `_` are escaped with a backslash (`\\*`, `\\_`), the spec's way to print them as they are;
* a typed `*/` has an invisible word joiner (U+2060) between its two characters: one reader ends a
  boneyard at `*/` wherever it stands, escaped or not, and would print nothing after it;
* each element the studio writes is forced: headings with `.`, cues with `@`, each direction's
  first line with `!` (a line that starts with `!` gets a second one), so no line of the script has to
  look like anything in particular;
* a line inside a direction that a reader would read as markup where it stands (one opening with a
  forcing character, or like a scene heading or a transition) starts a forced paragraph of its own;
  a line holding ` TO:`, which one reader reads as a transition wherever it stands, is never forced
  (that reader would print the `!`): where it opens a direction it is a paragraph of its own;
* directions that follow each other are two blank lines apart: one reader joins forced paragraphs
  separated by a single blank line into one;
* blank lines inside a speech become a line of two spaces (the spec's way to keep a speech whole);
* a scene's brief is action under its heading, so it prints (a synopsis never does).

Nothing else is escaped. Where a reader prints some typed character wrongly whatever the file says,
docs/exports.md names the reader and the case; the text is not altered for it.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from studio.export.script import (Backstage, Direction, Epilogue, Heading, Note, Script, Speech, WrittenScript,
                                  split_cue)
from studio.export.script import cue as script_cue

# Characters that force an element when they open a line (spec: . @ ! # = ~ >).
_FORCING = frozenset(".@!#=~>")
# A scene heading by its prefix, case-insensitive, as the most eager reader finds one on any line.
_HEADING = re.compile(r"^(?:INT|EXT|EST|I\.?/E\.?|INT\.?/EXT)(?:\s*\.|\s)", re.IGNORECASE)
# Transitions some reader finds at the start of any line, whatever comes after.
_TRANSITION = re.compile(r"^(?:FADE (?:TO BLACK|OUT)|CUT TO BLACK)\.")
# A line one reader (afterwriting) takes for a transition wherever it stands: forcing it prints the `!`.
_ANY_TO = re.compile(r".+ TO:|^TO:$")


def _lines(text: str) -> list[str]:
    """Split on every line break Python knows (\\r, \\x85, \\u2028, ...), as any Fountain reader might."""
    return [line.strip() for line in text.splitlines()]


# An invisible character that joins the two it stands between (U+2060, WORD JOINER): written between
# a typed `*` and `/`, where one reader (afterwriting) would take `*/` for a boneyard's end and print
# nothing after it, escaped or not. Every reader prints the two characters, and the joiner draws nothing.
JOINER = "\u2060"


def inline(text: str) -> str:
    """One line of the script with its emphasis characters escaped, so every reader prints them, and
    a typed `*/` held apart by a joiner, so no reader ends an unopened boneyard there."""
    return text.replace("*", "\\*").replace("_", "\\_").replace("\\*/", "\\*" + JOINER + "/")


def _misread(line: str) -> bool:
    """Whether a reader would take `line` for something other than the action around it."""
    return bool(line) and (line[0] in _FORCING or bool(_HEADING.match(line)) or bool(_TRANSITION.match(line)))


def action_paragraphs(text: str) -> list[str]:
    """A direction as action paragraphs: each opens with a forced line (`!`: some readers take a line
    with no lower-case letter, in CJK, Arabic or `...`, for a cue), and a line that would be read as
    markup inside a paragraph opens a forced one of its own. A line holding ` TO:` that opens a
    paragraph stands alone, unforced: every reader prints it as a transition, as typed."""
    paragraphs: list[list[str]] = []
    takes_more = False  # whether the last paragraph goes on with the next line
    typed = [line for line in _lines(text) if line]
    # Each line as readers see it: a note (which may span lines) is not there.
    seen = _between("\n".join(typed), "[[", "]]", lambda inside: "\n" * inside.count("\n"))[0].split("\n")
    for raw, bare in zip(typed, (line.strip() for line in seen)):
        if takes_more and not _misread(bare):
            paragraphs[-1].append(inline(raw))
        elif not bare:
            paragraphs.append([inline(raw)])  # all note: it prints nothing, so nothing to force (one reader prints the `!`)
            takes_more = False
        elif not takes_more and _ANY_TO.search(bare) and not _misread(bare):
            paragraphs.append([inline(raw)])
        else:
            paragraphs.append(["!" + inline(raw)])
            takes_more = True
    return ["\n".join(p) for p in paragraphs]


def _held_together(text: str, render) -> list[str]:
    """Lines of one element: a blank line inside it becomes two spaces (runs of them one), so the
    element does not end there; `render(raw)` renders each non-blank line."""
    out: list[str] = []
    for raw in _lines(text):
        if not raw:
            if out and out[-1] != "  ":
                out.append("  ")
            continue
        out.append(render(raw))
    while out and out[-1] == "  ":
        out.pop()
    return out


def speech_lines(text: str) -> list[str]:
    """A stretch of speech as dialogue lines, as typed: inside a speech every reader but one prints a
    line as it stands. Blank lines become two spaces, runs of them one."""
    return _held_together(text, inline)


# Inside a backstage note: the studio's own brackets around model text. A `]]` in it would end the note
# and print the rest, and the note prints in no reader, so here alone a bracket is written as its
# fullwidth twin.
def _note_safe(text: str) -> str:
    text = text.replace("[[", "[\uff3b").replace("]]", "]\uff3d").replace("/*", "/\uff0a").replace("*/", "\uff0a/")
    return text


def note_text(text: str) -> str:
    """Text for inside [[ ]]: no way out of the note, into a boneyard, or past a blank line."""
    return "\n".join(_held_together(text, _note_safe))


def cue(name: str, extension: str = "") -> str:
    """A character cue in capitals with its extension, forced with @ (any name is a name, in any script)."""
    return "@" + inline(script_cue(name, extension))


def _title_value(text: str) -> str:
    """One title-page value: readers apply emphasis there as in the script."""
    return inline(" ".join(text.split()))


def title_page(script: Script) -> str:
    """The title page as the Fountain spec names its keys: Title, Credit (the words before the names:
    "Written by", or the play's own), Author (the names), Source, Draft date and Contact (indented lines
    under the key when it has several). A play with no author has neither a Credit nor an Author."""
    credit, names = script.credit_lines()
    keys = [f"Title: {_title_value(script.title)}"]
    if names:
        keys += [f"Credit: {_title_value(credit)}", f"Author: {_title_value(names)}"]
    keys += [f"Source: {_title_value(script.source)}", f"Draft date: {_title_value(script.draft_date)}"]
    contact = script.contact_lines
    if len(contact) == 1:
        keys.append(f"Contact: {_title_value(contact[0])}")
    elif contact:
        keys += ["Contact:", *(f"    {_title_value(line)}" for line in contact)]
    return "\n".join(keys)


def render_speech(name: str, parts: tuple[tuple[str, str], ...], parenthetical: str = "", extension: str = "",
                  dual: bool = False) -> list[str]:
    """A cue (with its extension, and `^` when spoken at once with the speech before it), the
    parenthetical written before the speech, then its lines and business in order."""
    lines = [cue(name, extension) + (" ^" if dual else "")]
    if parenthetical.strip():
        lines.append("(" + inline(" ".join(parenthetical.split())) + ")")
    for kind, text in parts:
        if kind == "business":
            lines.append("(" + inline(" ".join(text.split())) + ")")
        else:
            lines.extend(speech_lines(text))
    if len(lines) == 1:
        # A speech with nothing in it (a model that answered only with its name) is still a turn taken.
        lines.append("(silence)")
    return lines


def shaped(text: str, shape: str) -> str:
    """A direction that is not an action line, forced as the spec forces it: each line centred between
    `>` and `<`, a transition after `>` (one line, in capitals as typed), a lyric's lines after `~`."""
    lines = [inline(line) for line in _lines(text) if line]
    if shape == "centered":
        return "\n".join(f">{line}<" for line in lines)
    if shape == "transition":
        return ">" + " ".join(lines)
    return "\n".join("~" + line for line in lines)


def render_note(note: Backstage) -> str:
    where = f"scene {note.scene}, turn {note.turn}" if note.turn else f"scene {note.scene}"
    body = note_text(note.text)
    if body.endswith(("]", "/")):
        # Or its last bracket and ours read as the note's end one bracket early; or, for a reader
        # that turns notes into boneyards (`]]` into `*/`), its slash and our brackets open one.
        body = body[:-1] + chr(ord(body[-1]) + 0xFEE0)
    return f"[[BACKSTAGE, {where}. {note_text(note.label)}: {body}]]"


def render_fountain(script: Script) -> str:
    paragraphs: list[str] = [title_page(script)]
    # (text, whether it is action): a direction right after action is two blank lines after it, or one
    # reader joins the two into one paragraph.
    elements: list[tuple[str, bool]] = []

    def action(text: str) -> None:
        if text.strip():
            elements.append(("\n\n".join(action_paragraphs(text)), True))

    for block in script.blocks:
        if isinstance(block, Heading):
            # The play's own heading with no brief counts as action for the spacing: a direction after it
            # stands two blank lines below, so a reader does not take it for the brief (see `read`).
            elements.append(("." + inline(block.title), block.number is not None and not block.brief.strip()))
            action(block.brief)
        elif isinstance(block, Direction) and block.shape != "action" and block.text.strip():
            elements.append((shaped(block.text, block.shape), False))
        elif isinstance(block, Direction):
            action(block.text)
        elif isinstance(block, Speech):
            elements.append(("\n".join(render_speech(block.character, block.parts, block.parenthetical,
                                                      block.extension, block.dual)), False))
        elif isinstance(block, Backstage):
            elements.append((render_note(block), False))
        elif isinstance(block, Epilogue):
            elements += [("===", False), (".EPILOGUE", False)]
            elements.append(("\n".join(render_speech(block.character, block.parts)), False))
    out = paragraphs[0]
    after_action = False
    for text, is_action in elements:
        out += ("\n\n\n" if is_action and after_action else "\n\n") + text
        after_action = is_action
    return out + "\n"


# -- reading: Fountain 1.1 as the spec reads it ---------------------------------------------------------

_TITLE_KEY = re.compile(r"^([A-Za-z][A-Za-z ]{0,40}):(.*)$")
_SCENE_NUMBER = re.compile(r"\s*#[\w.\-]+#\s*$")
_PLAYS_OWN = re.compile(r"^SCENE (\d+)$", re.IGNORECASE)
_ESCAPED = re.compile(r"\\([*_\\])")


def _unescape(text: str) -> str:
    """Emphasis is left as typed; only the spec's escapes (`\\*`, `\\_`) become the characters they print."""
    return _ESCAPED.sub(r"\1", text) if "\\" in text else text


def _is_cue(line: str) -> bool:
    """An all-capital name with a letter in it, as the spec finds a character: its extensions may be typed
    in lower case, as the spec allows (`MOM (cont'd)`, `MOM (o.s.)`), and `^` may follow."""
    name = line.rstrip().removesuffix("^").rstrip()
    bare = split_cue(name)[0] if name.endswith(")") else name
    return any(c.isalpha() for c in bare) and bare == bare.upper() and not name.startswith(("!", "~", "[[", "("))


def _cue(line: str) -> tuple[str, str, bool]:
    """A cue's name, its extensions (V.O., O.S., CONT'D) and whether it is dual dialogue (`^`)."""
    line = line.strip()
    dual = line.endswith("^")
    name, extension = split_cue(line.removesuffix("^"))
    return _unescape(name), extension, dual


def _blank(line: str) -> bool:
    return not line.strip() and line != "  "


def _title_page(lines: list[str]) -> tuple[dict[str, str], int]:
    """The title page's keys (lower case) and values, and the index of the first line after it."""
    if not lines or not _TITLE_KEY.match(lines[0]) or _HEADING.match(lines[0]):
        return {}, 0
    page: dict[str, list[str]] = {}
    key = None
    i = 0
    while i < len(lines) and not _blank(lines[i]):
        found = _TITLE_KEY.match(lines[i])
        if found and not lines[i][:1].isspace():
            key = found.group(1).strip().lower()
            page[key] = [found.group(2).strip()] if found.group(2).strip() else []
        elif key is not None:
            page[key].append(lines[i].strip())
        else:
            return {}, 0
        i += 1
    # A contact is a block (an address, a telephone): its lines stay lines; any other value is one line.
    return {k: _unescape(("\n" if k == "contact" else " ").join(v for v in values if v))
            for k, values in page.items()}, i


def _between(text: str, opening: str, closing: str,
             stand_in: Callable[[str], str] = lambda inside: "") -> tuple[str, list[str]]:
    """Text without each stretch from `opening` to the next `closing` (or with `stand_in(inside)` in its
    place), and those stretches' insides, in order; an opening never closed stays as typed. One pass with `find` (a lazy pattern such as
    a note's would rescan the rest of the text from every opening that is never closed)."""
    if opening not in text:
        return text, []
    kept: list[str] = []
    found: list[str] = []
    pos = 0
    while (start := text.find(opening, pos)) >= 0 and (end := text.find(closing, start + len(opening))) >= 0:
        kept.append(text[pos:start])
        found.append(text[start + len(opening):end])
        kept.append(stand_in(found[-1]))
        pos = end + len(closing)
    kept.append(text[pos:])
    return "".join(kept), found


def _notes(text: str) -> tuple[str, list[str]]:
    """Text without its `[[notes]]`, and the notes, in order."""
    bare, found = _between(text, "[[", "]]")
    return bare, [n for n in (" ".join(f.split()) for f in found) if n]


def _paragraphs(lines: list[str]) -> list[tuple[int, list[str]]]:
    """Runs of lines between blank lines, each with how many blank lines stand before it."""
    out: list[tuple[int, list[str]]] = []
    current: list[str] = []
    blanks = 0
    for line in lines:
        if not _blank(line):
            current.append(line)
            continue
        if current:
            out.append((blanks, current))
            current, blanks = [], 0
        blanks += 1
    if current:
        out.append((blanks, current))
    return out


class _Reader:
    """One pass over a Fountain document's paragraphs, building the blocks in order."""

    def __init__(self) -> None:
        self.blocks: list[Heading | Direction | Speech | Epilogue | Note] = []
        self.scene = 0
        self.broke = False  # a page break `===` came just before: an EPILOGUE heading after it is the epilogue
        self.epilogue = False
        self.blanks = 0  # blank lines before the paragraph being read

    def heading(self, text: str) -> None:
        text = _unescape(" ".join(_SCENE_NUMBER.sub("", text).split()))
        if text.upper() == "EPILOGUE" and self.broke:
            self.epilogue = True
            return
        self.scene += 1
        own = _PLAYS_OWN.match(text)
        self.blocks.append(Heading(int(own.group(1)) if own else None, text.upper() if own else text, ""))

    def direction(self, text: str, shape: str = "action") -> None:
        text, notes = _notes(text)
        text = "\n".join(line for line in (_unescape(raw.strip()) for raw in text.split("\n")) if line)
        last = self.blocks[-1] if self.blocks else None
        if text and shape == "action" and isinstance(last, Heading) and last.number is not None and not last.brief \
                and self.blanks <= 1:
            # The play's own scene heading carries its brief as the action just under it (a direction
            # stands two blank lines below a heading without one).
            self.blocks[-1] = Heading(last.number, last.title, " ".join(text.split()))
        elif text:
            self.blocks.append(Direction(text, None, None, 0, shape=shape))
        self.blocks.extend(Note(n) for n in notes)

    def speech(self, lines: list[str]) -> None:
        name, extension, dual = _cue(lines[0])
        parts: list[tuple[str, str]] = []
        parenthetical = ""
        spoken: list[str] = []

        def said() -> None:
            if spoken:
                parts.append(("line", "\n".join(spoken).strip("\n")))
                spoken.clear()

        # a note may span lines of the speech: the notes come out of the speech whole, then it is read by line
        body, notes = _notes("\n".join(lines[1:]))
        for raw in body.split("\n"):
            line = raw.strip()
            if not line:
                if raw == "  " and spoken:
                    spoken.append("")
                continue
            if line.startswith("(") and line.endswith(")"):
                said()
                business = _unescape(" ".join(line[1:-1].split()))
                if not parts and not parenthetical:
                    parenthetical = business
                else:
                    parts.append(("business", business))
                continue
            spoken.append(_unescape(line.removeprefix("~").strip() if line.startswith("~") else line))
        said()
        if parts == [("business", "silence")] or (not parts and parenthetical == "silence"):
            parts, parenthetical = [], ""  # the writer's mark for a turn taken in silence
        if self.epilogue:
            text = "\n".join(t if k == "line" else f"*{t}*" for k, t in parts)
            self.blocks.append(Epilogue(name, text, 0))
            self.epilogue = False
        else:
            self.blocks.append(Speech(name, None, tuple(parts), 0, parenthetical=parenthetical,
                                      extension=extension, dual=dual))
        self.blocks.extend(Note(n) for n in notes)

    def paragraph(self, lines: list[str]) -> None:
        first = lines[0].strip()
        broke, self.broke = self.broke, False
        if re.fullmatch(r"={3,}", first):
            self.broke = True
            return
        if first.startswith("#") or (first.startswith("=") and not first.startswith("==")):
            return  # sections and synopses organise the writing; they never print
        bare, notes = _notes("\n".join(lines))
        if not bare.strip():
            self.blocks.extend(Note(n) for n in notes)
            return
        if first.startswith(".") and not first.startswith(".."):
            self.broke = broke
            self.heading(first[1:])
            if lines[1:]:
                self.direction("\n".join(lines[1:]))
            return
        if first.startswith("!"):
            self.direction("\n".join([first[1:], *lines[1:]]))
            return
        if first.startswith("@") or (len(lines) > 1 and _is_cue(first) and not _HEADING.match(first)
                                     and not first.startswith((">", "~", "."))):
            self.speech([first.removeprefix("@"), *lines[1:]])
            return
        if _HEADING.match(first):
            self.broke = broke
            self.heading(first)
            if lines[1:]:
                self.direction("\n".join(lines[1:]))
            return
        self.rest(lines)

    def rest(self, lines: list[str]) -> None:
        """Centred lines, transitions, lyrics and action, line by line (a paragraph may mix them)."""
        action: list[str] = []

        def flush() -> None:
            if action:
                self.direction("\n".join(action))
                action.clear()

        lyric: list[str] = []
        for raw in lines:
            line = raw.strip()
            if not line.startswith("~") and lyric:
                self.direction("\n".join(lyric), "lyric")
                lyric.clear()
            if line.startswith(">") and line.endswith("<") and len(line) > 1:
                flush()
                self.direction(line[1:-1].strip(), "centered")
            elif line.startswith(">"):
                flush()
                self.direction(line[1:].strip(), "transition")
            elif line.startswith("~"):
                flush()
                lyric.append(line[1:].strip())
            elif len(lines) == 1 and line.isupper() and line.endswith("TO:"):
                self.direction(line, "transition")
            else:
                action.append(raw)
        if lyric:
            self.direction("\n".join(lyric), "lyric")
        flush()


def read(text: str) -> WrittenScript:
    """A Fountain document as the studio reads a script: its title page and its blocks in order. Boneyard
    (`/* */`) is dropped, sections and synopses too; notes (`[[ ]]`) are kept as notes, never lines; a
    heading after a page break reading EPILOGUE, then a speech, is the epilogue."""
    text, _ = _between(text.replace("\r\n", "\n").replace("\r", "\n").lstrip("\ufeff"), "/*", "*/")
    lines = [line.rstrip() if line != "  " else line for line in text.split("\n")]
    while lines and _blank(lines[0]):
        lines.pop(0)
    page, start = _title_page(lines)
    reader = _Reader()
    for blanks, paragraph in _paragraphs(lines[start:]):
        reader.blanks = blanks
        reader.paragraph(paragraph)
    return WrittenScript(page, reader.blocks)
