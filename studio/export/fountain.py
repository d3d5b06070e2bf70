"""A script as Fountain 1.1 (fountain.io/syntax) that every Fountain reader reads the same.

Fountain gives meaning to plain characters: `*` and `_` are emphasis, `[[` opens a note, `/*` a
boneyard, a line starting with `.`, `@`, `!`, `#`, `=`, `~`, `>` or `(` forces an element, `===`
breaks the page, a line holding ` TO:` is a transition, an all-caps line after a blank one is a cue,
`INT.` starts a scene heading. Model text may contain any of it, and the readers in use disagree on
the spec's backslash escape (some print the backslash) and show zero-width characters as gaps. So
the structure is written only in forms every reader agrees on, and model text never needs an escape:

* every element this module writes is forced: headings with `.`, cues with `@`, action with `!`,
  so no line of model text has to look like anything in particular;
* where model text holds a character that some reader would take as markup and Fountain has no
  form that all of them print literally, that character is written as its fullwidth twin, which
  Unicode's compatibility normalisation (NFKC) maps back to it: `*` and `_` anywhere (emphasis in
  some readers, dropped by others), the second bracket of `[[` and `]]` (a note), the colon of
  `TO:` (a transition), a backslash before another (an escape to some), a cue's closing `^` (dual
  dialogue), and the first character of a line that
  opens with a forcing character or could pass for a scene heading or a transition (`ＩNT. HOUSE`,
  `（aside)`, `ＦADE OUT.`);
* blank lines inside a speech become a line of two spaces (the spec's way to keep a speech whole);
  inside a direction they are folded, so one direction stays one paragraph;
* a scene's brief is action under its heading, so it prints (a synopsis never does).

The docs (docs/exports.md) list these rewordings; nothing else of the text changes.
"""

from __future__ import annotations

import re

from studio.export.script import Backstage, Direction, Epilogue, Heading, Script, Speech

# Characters that force an element when they open a line (spec: . @ ! # = ~ > and, in a speech, `(`).
_FORCING = frozenset(".@!#=~>(")
# A scene heading by its prefix, case-insensitive, as the most eager reader finds one on any line.
_HEADING = re.compile(r"^(?:INT|EXT|EST|I\.?/E\.?|INT\.?/EXT)(?:\s*\.|\s)", re.IGNORECASE)
# Transitions that one reader finds at the start of any line, whatever comes after.
_TRANSITION = re.compile(r"^(?:FADE (?:TO BLACK|OUT)|CUT TO BLACK)\.")
# Each character some reader takes as markup wherever it stands, and the twin written instead.
_TWINS = {"*": "\uff0a", "_": "\uff3f"}


def fullwidth(ch: str) -> str:
    """The fullwidth twin of a printable ASCII character (NFKC maps it back)."""
    return chr(ord(ch) + 0xFEE0) if "!" <= ch <= "~" else ch


def _lines(text: str) -> list[str]:
    """Split on every line break Python knows (\\r, \\u2028, ...), as any Fountain reader might."""
    return [line.strip() for line in text.splitlines()]


def plain(text: str) -> str:
    """One line of model text with nothing in it that any reader would read as markup inside a line."""
    text = "".join(_TWINS.get(ch, ch) for ch in text)
    text = text.replace("[[", "[\uff3b").replace("]]", "]\uff3d").replace("TO:", "TO\uff1a")
    # `\\` is an escaped backslash to some readers and two backslashes to others.
    return re.sub(r"\\(?=\\)", "\uff3c", text)


def text_line(raw: str) -> str:
    """One line of model text as it may stand at the start of a line anywhere in the script."""
    line = plain(raw)
    if line and (line[0] in _FORCING or _HEADING.match(line) or _TRANSITION.match(line)):
        line = fullwidth(line[0]) + line[1:]
    return line


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
    """A stretch of speech as dialogue lines: blank lines become two spaces, runs of them one."""
    return _held_together(text, text_line)


def action_lines(text: str) -> list[str]:
    """A direction as one action paragraph, forced with `!`: some readers take a first line with no
    lower-case letter (CJK, Arabic, `...`) for a cue."""
    lines = [text_line(raw) for raw in _lines(text) if raw]
    if lines:
        lines[0] = "!" + lines[0]
    return lines


def note_text(text: str) -> str:
    """Text for inside [[ ]]: no way out of the note, into a boneyard, or past a blank line."""
    return "\n".join(_held_together(text, plain))


def cue(name: str) -> str:
    """A character cue in capitals, forced with @ (any name is a name, in any script)."""
    upper = plain(" ".join(name.split()).upper())
    if upper.endswith("^"):
        upper = upper[:-1] + fullwidth("^")  # a closing caret asks for dual dialogue
    return "@" + upper


def _title_value(text: str) -> str:
    """One title-page value: readers apply emphasis and notes there as in the script."""
    return plain(" ".join(text.split()))


def render_speech(name: str, parts: tuple[tuple[str, str], ...]) -> list[str]:
    lines = [cue(name)]
    for kind, text in parts:
        if kind == "business":
            lines.append("(" + plain(" ".join(text.split())) + ")")
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
        body = body[:-1] + fullwidth(body[-1])
    return f"[[BACKSTAGE, {where}. {note_text(note.label)}: {body}]]"


def render_fountain(script: Script) -> str:
    credit, names = script.credit_lines()
    paragraphs: list[str] = [
        "\n".join(
            [
                f"Title: {_title_value(script.title)}",
                # As the Fountain title page means them: Credit the words before the names
                # ("Written by", or the play's own "after"), Author the names themselves.
                f"Credit: {_title_value(credit)}",
                *([f"Author: {_title_value(names)}"] if names else []),
                f"Source: {_title_value(script.source)}",
                f"Draft date: {script.draft_date}",
            ]
        )
    ]
    for block in script.blocks:
        if isinstance(block, Heading):
            paragraphs.append("." + text_line(block.title))
            if block.brief:
                paragraphs.append("\n".join(action_lines(block.brief)))
        elif isinstance(block, Direction):
            lines = action_lines(block.text)
            if lines:
                paragraphs.append("\n".join(lines))
        elif isinstance(block, Speech):
            paragraphs.append("\n".join(render_speech(block.character, block.parts)))
        elif isinstance(block, Backstage):
            paragraphs.append(render_note(block))
        elif isinstance(block, Epilogue):
            paragraphs.append("===")
            paragraphs.append(".EPILOGUE")
            paragraphs.append("\n".join(render_speech(block.character, block.parts)))
    return "\n\n".join(paragraphs) + "\n"
