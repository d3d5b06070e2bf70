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

from studio.export.script import Backstage, Direction, Epilogue, Heading, Script, Speech

# Characters that force an element when they open a line (spec: . @ ! # = ~ >).
_FORCING = frozenset(".@!#=~>")
# A scene heading by its prefix, case-insensitive, as the most eager reader finds one on any line.
_HEADING = re.compile(r"^(?:INT|EXT|EST|I\.?/E\.?|INT\.?/EXT)(?:\s*\.|\s)", re.IGNORECASE)
# Transitions some reader finds at the start of any line, whatever comes after.
_TRANSITION = re.compile(r"^(?:FADE (?:TO BLACK|OUT)|CUT TO BLACK)\.")
# A line one reader (afterwriting) takes for a transition wherever it stands: forcing it prints the `!`.
_ANY_TO = re.compile(r".+ TO:|^TO:$")
_NOTES = re.compile(r"\[\[.*?\]\]", re.S)


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
    seen = _NOTES.sub(lambda m: "\n" * m.group().count("\n"), "\n".join(typed)).split("\n")
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


def cue(name: str) -> str:
    """A character cue in capitals, forced with @ (any name is a name, in any script)."""
    return "@" + inline(" ".join(name.split()).upper())


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


def render_speech(name: str, parts: tuple[tuple[str, str], ...]) -> list[str]:
    lines = [cue(name)]
    for kind, text in parts:
        if kind == "business":
            lines.append("(" + inline(" ".join(text.split())) + ")")
        else:
            lines.extend(speech_lines(text))
    if len(lines) == 1:
        # A speech with nothing in it (a model that answered only with its name) is still a turn taken.
        lines.append("(silence)")
    return lines


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
            elements.append(("." + inline(block.title), False))
            action(block.brief)
        elif isinstance(block, Direction):
            action(block.text)
        elif isinstance(block, Speech):
            elements.append(("\n".join(render_speech(block.character, block.parts)), False))
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
