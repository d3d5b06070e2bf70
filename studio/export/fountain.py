"""A script as Fountain 1.1 (fountain.io/syntax), written so that no model text can change its structure.

Fountain gives meaning to plain characters: `*` and `_` are emphasis, `[[` opens a note, `/*` a
boneyard, a line starting with `.`, `@`, `!`, `#`, `=`, `~` or `>` forces an element, `===` breaks
the page, an all-caps line after a blank one is a cue, `INT.` starts a scene heading, and a blank
line ends a speech. Model text may contain any of it. So every line a model wrote is escaped:

* `*` and `_` get Fountain's backslash escape (`\\*`, `\\_`); a `\\` before them is kept apart by a
  zero-width space, since readers disagree on `\\\\`;
* `[[`, `]]`, `/*` and `*/` are split by an invisible zero-width space (U+200B), since Fountain has
  no escape for them (afterwriting reads `/*` and `*/` as a boneyard's ends even when escaped);
  so is ` TO:` (one reader takes any line holding it as a transition) and a cue's closing `^`
  (dual dialogue);
* a line that starts with a forcing character (or `(` inside a speech), or that could pass for a
  scene heading or a transition wherever it falls, starts with a zero-width space instead, so it
  is read as text; an action paragraph whose first line has no lower-case letter (so a reader
  could take it for a cue: `...`, CJK, capitals) is forced with `!`; the first line of a speech
  that could pass for a cue is prefixed with a zero-width space;
* blank lines inside a speech become a line of two spaces (the spec's way to keep a speech whole);
  inside a direction they are folded, so one direction stays one paragraph;
* title-page values get the same inline escaping, since readers apply emphasis there too.

The structure itself (headings, cues, parentheticals, notes) is written only by this module.
"""

from __future__ import annotations

import re

from studio.export.script import Backstage, Direction, Epilogue, Heading, Script, Speech

ZWSP = "\u200b"

# Characters that force an element when they open a line (spec: . @ ! # = ~ > and [[ / ===).
_FORCING = frozenset(".@!#=~>")
# A scene heading by its prefix, case-insensitive, as the spec reads one.
_HEADING = re.compile(r"^(?:INT|EXT|EST|I/E|INT\.?/EXT)(?:\s*\.|\s)", re.IGNORECASE)
# Transitions as the most eager reader (afterwriting) finds them at the start of any line.
_TRANSITION_START = re.compile(r"^(?:FADE (?:TO BLACK|OUT)|CUT TO BLACK)\.|^TO:$")
# A cue Fountain would recognise unforced: upper-case ASCII letters, digits and a little punctuation.
_PLAIN_CUE = re.compile(r"^(?=[A-Z0-9 .'-]*[A-Z])[A-Z0-9][A-Z0-9 .'-]*$")


def _lines(text: str) -> list[str]:
    """Split on every line break Python knows (\\r, \\u2028, ...), as any Fountain reader might."""
    return [line.strip() for line in text.splitlines()]


def escape_inline(text: str) -> str:
    """Escape one line of model text for use inside a Fountain element (not a note)."""
    out: list[str] = []
    for i, ch in enumerate(text):
        if ch == "\\":
            # A backslash a reader could take as an escape is kept apart from what follows: readers
            # disagree on `\\\\` (afterwriting prints both), but none joins across a zero-width space.
            out.append("\\" + ZWSP if text[i + 1 : i + 2] in ("\\", "*", "_") else "\\")
        elif ch == "*":
            # `\*/` and `/\*` still open or close a boneyard for afterwriting: keep the slash apart.
            before = ZWSP if text[i - 1 : i] == "/" else ""
            after = ZWSP if text[i + 1 : i + 2] == "/" else ""
            out.append(before + "\\*" + after)
        elif ch == "_":
            out.append("\\_")
        else:
            out.append(ch)
    return _split_brackets("".join(out)).replace(" TO:", " TO" + ZWSP + ":")


def _split_brackets(text: str) -> str:
    return re.sub(r"\[(?=\[)", "[" + ZWSP, re.sub(r"\](?=\])", "]" + ZWSP, text))


def _risky(line: str) -> bool:
    """Could this line, opening a paragraph or a speech, be read as a cue, heading or transition?"""
    if not line:
        return False
    # A cue may carry an extension in any case, "JOHN (on the radio)": judge the name before it.
    name = line.split("(", 1)[0]
    has_lower = any(c.islower() for c in name)
    has_upper = any(c.isupper() for c in name)
    return bool(_HEADING.match(line)) or (has_upper and not has_lower) or line.rstrip().endswith("TO:")


def _heading_like(line: str) -> bool:
    """Would some reader take this line for a scene heading or a transition wherever it stands?"""
    return bool(_HEADING.match(line) or _TRANSITION_START.match(line) or line.rstrip().endswith("TO:"))


def text_line(raw: str, *, in_speech: bool, opening: bool = False) -> str:
    """One escaped line. `opening`: the first line of a speech, read right after a cue or parenthetical."""
    line = escape_inline(raw)
    if not line:
        return line
    if line[0] in _FORCING or (in_speech and line[0] == "(") or line.startswith("===") or _heading_like(line):
        return ZWSP + line
    if in_speech and opening and _risky(line):
        return ZWSP + line
    return line


def _held_together(text: str, render) -> list[str]:
    """Lines of one element: a blank line inside it becomes two spaces (runs of them one), so the
    element does not end there; `render(raw, first)` renders each non-blank line."""
    out: list[str] = []
    for raw in _lines(text):
        if not raw:
            if out and out[-1] != "  ":
                out.append("  ")
            continue
        out.append(render(raw, not out))
    while out and out[-1] == "  ":
        out.pop()
    return out


def speech_lines(text: str, *, opening: bool) -> list[str]:
    """A stretch of speech as dialogue lines: blank lines become two spaces, runs of them one."""
    return _held_together(text, lambda raw, first: text_line(raw, in_speech=True, opening=opening and first))


def action_lines(text: str) -> list[str]:
    """A direction as one action paragraph, forced with `!` when its first line could be misread.

    A line without a lower-case letter opening a paragraph is a cue to afterwriting (`...`, CJK,
    digits), not only one in capitals, so any such first line is forced.
    """
    lines = [text_line(raw, in_speech=False) for raw in _lines(text) if raw]
    if lines and (_risky(lines[0]) or lines[0] == lines[0].upper()):
        lines[0] = "!" + lines[0]
    return lines


def note_text(text: str) -> str:
    """Text for inside [[ ]]: no way out of the note, into a boneyard, or past a blank line."""

    def render(raw: str, first: bool) -> str:
        line = _split_brackets(raw)
        line = line.replace("/*", "/" + ZWSP + "*").replace("*/", "*" + ZWSP + "/")
        # Readers resolve \* \_ \\ even in notes; keep a literal backslash literal.
        return re.sub(r"\\(?=[\\*_])", "\\\\" + ZWSP, line)

    return "\n".join(_held_together(text, render))


def cue(name: str) -> str:
    """A character cue in capitals, forced with @ when Fountain would not read it as one unaided."""
    upper = " ".join(name.split()).upper()
    if _PLAIN_CUE.match(upper) and not _HEADING.match(upper) and not upper.endswith("TO:"):
        return upper
    escaped = escape_inline(upper)
    if escaped.endswith("^"):
        escaped += ZWSP  # a closing caret asks for dual dialogue
    return "@" + escaped


def _title_value(text: str) -> str:
    """One title-page value, escaped: readers apply emphasis and notes there as in the script."""
    return escape_inline(" ".join(text.split()))


def render_speech(name: str, parts: tuple[tuple[str, str], ...]) -> list[str]:
    lines = [cue(name)]
    opening = True
    for kind, text in parts:
        if kind == "business":
            lines.append("(" + escape_inline(" ".join(text.split())) + ")")
            opening = True
        else:
            spoken = speech_lines(text, opening=opening)
            if spoken:
                lines.extend(spoken)
                opening = False
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
        body += ZWSP
    return f"[[BACKSTAGE, {where}. {note_text(note.label)}: {body}]]"


def render_fountain(script: Script) -> str:
    paragraphs: list[str] = [
        "\n".join(
            [
                f"Title: {_title_value(script.title)}",
                "Credit: Written by",
                f"Author: {_title_value(script.author)}",
                f"Source: {_title_value(script.source)}",
                f"Draft date: {script.draft_date}",
            ]
        )
    ]
    for block in script.blocks:
        if isinstance(block, Heading):
            # After the forcing mark a reader still sees the text's own first character (`~` makes lyrics).
            paragraphs.append("." + text_line(block.title, in_speech=False))
            if block.brief:
                paragraphs.append("= " + text_line(block.brief, in_speech=False))
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
            spoken = speech_lines(block.text, opening=True)
            paragraphs.append("\n".join([cue(block.character), *(spoken or ["(silence)"])]))
    return "\n\n".join(paragraphs) + "\n"
