"""Card macros, resolved when a prompt is built, never when a card is imported.

Character Cards write `{{char}}` and `{{user}}` where a name belongs, and a few more macros for chance
and time. A sheet keeps them as written, so a card goes back out as it came in; the prompt a model is
sent names people plainly. Who `{{user}}` is depends on the scene (the character faced, or the human
playing them), so it can only be decided at prompt time.

Chance and time must replay: `{{pick}}` is seeded by the run and the place the macro stands, so every
prompt of a run makes the same pick; `{{random}}` and `{{roll}}` are seeded by the run, the moment and
the place; `{{time}}` and `{{date}}` read the recorded time of the newest event before the call, so a
rewind or a take is sent the very prompt it was sent the first time.

Template code written for other apps' extensions (EJS blocks, variables, scripts) is kept in the card
and on the sheet but never sent to a model: studio.model.lorebook.template_code names it, for `import`
to warn about, and `resolve` removes it, with the text inside EJS conditions that nothing here can decide
(`without_code` does the same for text taken from a card at import).

A card is someone else's text: a macro is filled from the inside out (`{{random::{{char}}::b}}` draws
between the name and "b"), dice are bounded, and no text makes `resolve` fail, since a failure here would
stop every run of that character. A macro this studio does not know is left as written, a roll that
names no dice is left out, and `import` lists both.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime

from studio.model.lorebook import spans, template_code, without_spans, without_template_code

# Macros this studio fills; any other `{{name...}}` is another app's, or a typo, and is left as written.
KNOWN = ("char", "user", "bot", "charname", "original", "random", "pick", "roll", "time", "date", "idle_duration",
         "newline", "trim", "noop", "//")
# Other apps' template code: variables and scripts an extension runs. Never sent, since nothing here runs it.
TEMPLATE_MACROS = ("setvar", "getvar", "addvar", "incvar", "decvar", "setglobalvar", "getglobalvar", "addglobalvar",
                   "incglobalvar", "decglobalvar", "format_message_variable", "format_global_variable",
                   "setchatvar", "getchatvar", "var", "if", "/if", "else", "each", "/each", "outlet", "banned",
                   "input", "lastmessage", "lastcharmessage", "lastusermessage", "lastmessageid", "message",
                   "reverse", "eval", "js", "javascript", "regex", "inject", "call")

# Openers; each piece ends at the first closer after it (lorebook.spans, one pass however many are unclosed).
_EJS = re.compile(r"<%")
_COMMENT = re.compile(r"\{\{//")
# A macro with no brace inside: its body is read stripped. Written without spaces on either side of the
# body, since `\s*([^{}]*?)\s*` tries every split of a run of spaces, for every end, once per opener.
_MACRO = re.compile(r"\{\{([^{}]*)\}\}")
_START = re.compile(r"^[ \t]*<START>[ \t]*$\n?", re.MULTILINE | re.IGNORECASE)
_OLD = {"<bot>": "{{char}}", "<user>": "{{user}}"}
_OLD_NAMES = re.compile(r"<BOT>|<USER>", re.IGNORECASE)
# Dice as `N`, `dS`, `NdS`, `NdS+B`; ASCII digits only (a superscript two is a digit to str.isdigit,
# not to int). Numbers past the bounds are brought within them, so a roll is always a number.
_HELD = re.compile(r"\x00(\d+)\x00")  # a macro held aside while the one around it is read
_DICE = re.compile(r"^\s*([0-9]*)\s*(?:d\s*([0-9]+))?\s*(?:([+-])\s*([0-9]+))?\s*$", re.IGNORECASE | re.ASCII)
MAX_DICE, MAX_SIDES, MAX_BONUS = 100, 1_000_000, 1_000_000
# How many macros deep a text is filled from the inside out; no card nests more.
MAX_NESTING = 8
# Characters of one text whose macros are filled; past them the text is left as written (no prompt is sent
# that much of one text: the context budget cuts it), so no text costs more than this to read.
MAX_MACRO_TEXT = 200_000
MAX_DICE_SPEC = 64  # characters of a `{{roll:...}}`: "2d6+3" is five


@dataclass(frozen=True)
class MacroContext:
    """What a macro can stand for in one prompt.

    `char`: the character the text belongs to (its nickname when the card gives one); `user`: whom they
    face in this scene; `seed`: the run's seed; `moment`: the step (scene, turn) for draws that change as
    the play goes on; `original`: the studio's own text for the slot this text fills; `when`: the recorded
    time of the newest event before the call (None: the epoch, so a prompt never reads the clock);
    `idle`: seconds since the line before that one, when there is one.
    """

    char: str
    user: str
    seed: int = 0
    moment: tuple[int, int] = (0, 0)
    original: str = ""
    when: float | None = None
    idle: float | None = None


def _head(body: str) -> str:
    name = re.split(r"[:\s]", body, maxsplit=1)[0].casefold()
    return "//" if body.startswith("//") else name


def _without_ejs(text: str) -> str:
    """`text` without EJS blocks, nor the text inside their conditions and loops (which nothing here can
    decide): what stands between `<% if (...) { %>` and its `<% } %>` goes with them."""
    out, depth, pos = [], 0, 0
    for start, end in spans(text, _EJS):
        if depth == 0:
            out.append(text[pos:start])
        code = text[start:end]
        depth = max(depth + code.count("{") - code.count("}"), 0)
        pos = end
    if depth == 0:
        out.append(text[pos:])
    return "".join(out)


def without_code(text: str) -> str:
    """`text` without other apps' template code, EJS conditions with the text inside them included: what
    a prompt may take from a card before its macros are filled."""
    return without_template_code(_without_ejs(text))


def unknown_macros(text: str) -> list[str]:
    """Macros this studio cannot fill, each once, outer ones included (with what they hold as written):
    ones it does not know and are not template code, and known ones it cannot read (`{{roll:x}}`).
    They are left in the text as written."""
    found: dict[str, None] = {}  # in order, each once, without a search of a list per macro

    def one(match: re.Match[str], held: list[str]) -> str:
        whole = _unheld(match.group(0), held)
        body = match.group(1).strip()
        head = _head(body)
        unread = head == "roll" and _dice(body) is None and "\x00" not in body
        if ((head not in KNOWN and head not in TEMPLATE_MACROS and not template_code(whole)) or unread) \
                and whole not in found:
            found[whole] = None
        return whole

    _inside_out(text[:MAX_MACRO_TEXT], one)
    return list(found)


def _inside_out(text: str, read: Callable[[re.Match[str], list[str]], str]) -> tuple[str, list[str]]:
    """`text` with each macro, innermost first, held aside under a mark, and what the marks hold: `read`
    says what a macro stands for (given what is held so far). Held aside, a result is plain text to the
    macro around it, so nothing a card wrote is read twice, and nesting stops at MAX_NESTING."""
    held: list[str] = []

    def one(match: re.Match[str]) -> str:
        held.append(read(match, held))
        return f"\x00{len(held) - 1}\x00"

    text = text.replace("\x00", "")
    for _ in range(MAX_NESTING):
        before = text
        text = _MACRO.sub(one, text)
        if text == before:
            break
    return text, held


def _unheld(text: str, held: list[str]) -> str:
    """`text` with each mark replaced by what it holds, one level deep."""
    return _HELD.sub(lambda m: held[int(m.group(1))] if int(m.group(1)) < len(held) else "", text)


def _draw(ctx: MacroContext, place: int, *, per_moment: bool) -> random.Random:
    key = f"{ctx.seed}:{place}:{ctx.moment if per_moment else ''}:{ctx.char}"
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def _choices(body: str) -> list[str]:
    rest = body.split(":", 1)[1] if ":" in body else ""
    if rest.startswith(":"):
        return rest[1:].split("::")
    return [c.strip() for c in rest.split(",")]


def _dice(body: str) -> tuple[int, int, int] | None:
    """(count, sides, bonus) of a `{{roll:...}}`, within the bounds; None when it names no dice."""
    spec = body.split(":", 1)[1] if ":" in body else ""
    dice = _DICE.match(spec) if len(spec) <= MAX_DICE_SPEC else None
    if not dice or not (dice.group(1) or dice.group(2)):
        return None
    if dice.group(2) is None:  # `{{roll:20}}` is one twenty-sided die
        count, sides = 1, int(dice.group(1)[:8])
    else:
        count, sides = int(dice.group(1)[:8] or 1), int(dice.group(2)[:8])
    bonus = min(int(dice.group(4)[:8]), MAX_BONUS) if dice.group(4) else 0
    return min(max(count, 1), MAX_DICE), min(max(sides, 1), MAX_SIDES), -bonus if dice.group(3) == "-" else bonus


def _roll(body: str, rng: random.Random) -> str:
    dice = _dice(body)
    if dice is None:  # as SillyTavern does; import lists it
        return ""
    count, sides, bonus = dice
    return str(sum(rng.randint(1, sides) for _ in range(count)) + bonus)


def _idle(seconds: float | None) -> str:
    if seconds is None:
        return "0 minutes"
    minutes = int(seconds // 60)
    if minutes < 60:
        return f"{minutes} minute{'s' if minutes != 1 else ''}"
    hours = minutes // 60
    if hours < 48:
        return f"{hours} hour{'s' if hours != 1 else ''}"
    return f"{hours // 24} days"


def resolve(text: str, ctx: MacroContext) -> str:
    """`text` with every macro this studio knows filled, comments and template code removed, and a
    `<START>` line (a card's example separator) turned into a blank line between examples. Unknown macros
    stay as written."""
    if "{{" not in text and "<" not in text:
        return text
    if len(text) > MAX_MACRO_TEXT:
        return resolve(text[:MAX_MACRO_TEXT], ctx) + text[MAX_MACRO_TEXT:]
    text = without_code(without_spans(text, spans(text, _COMMENT)))
    text = _OLD_NAMES.sub(lambda m: _OLD[m.group(0).casefold()], text)
    text = _START.sub("\n", text)
    try:
        when = datetime.fromtimestamp(ctx.when or 0.0, tz=UTC)
    except (OverflowError, OSError, ValueError):
        when = datetime.fromtimestamp(0.0, tz=UTC)
    place = 0

    def one(match: re.Match[str], held: list[str]) -> str:
        nonlocal place
        place += 1
        filled = _fill(match.group(1).strip(), ctx, place, when)
        return match.group(0) if filled is None else filled

    out, held = _inside_out(text, one)
    for _ in range(MAX_NESTING + 1):
        if "\x00" not in out:
            break
        out = _unheld(out, held)
    out = out.replace("\x00", "")
    return re.sub(r"\n{3,}", "\n\n", out).strip() if out != text else out


def _fill(body: str, ctx: MacroContext, place: int, when: datetime) -> str | None:
    """What one macro stands for, or None when it is not one this studio fills (it stays as written)."""
    head = _head(body)
    if head in ("char", "bot", "charname"):
        return ctx.char
    if head == "user":
        return ctx.user
    if head == "original":
        return ctx.original
    if head in ("random", "pick"):
        options = _choices(body)
        return _draw(ctx, place, per_moment=head == "random").choice(options) if options else ""
    if head == "roll":
        return _roll(body, _draw(ctx, place, per_moment=True))
    if head == "time":
        return when.strftime("%H:%M")
    if head == "date":
        return when.strftime("%Y-%m-%d")
    if head == "idle_duration":
        return _idle(ctx.idle)
    if head == "newline":
        return "\n"
    if head in ("trim", "noop") or head in TEMPLATE_MACROS:
        return ""
    return None


def macro_notes(data: object) -> list[str]:
    """What `import` says once about a card's macros this studio does not fill: they are left as written.
    (Other apps' template code is named by studio.model.card_import, with studio.model.lorebook.template_code.)"""
    texts: list[str] = []
    if isinstance(data, dict):  # what prompts read: the card's texts and its Character's Note, not other
        extensions = data.get("extensions")  # apps' settings, which no model is sent
        note = extensions.get("depth_prompt") if isinstance(extensions, dict) else None
        todo: list[object] = [v for k, v in data.items() if k != "extensions"] + [note]
        while todo and len(texts) < 10_000:
            value = todo.pop()
            if isinstance(value, str):
                texts.append(value)
            elif isinstance(value, dict):
                todo.extend(value.values())
            elif isinstance(value, list):
                todo.extend(value)
    unknown: dict[str, None] = {}
    for text in reversed(texts):
        unknown.update(dict.fromkeys(unknown_macros(text)))
    if not unknown:
        return []
    return ["macros this studio cannot fill, left as written: " + ", ".join(u[:40] for u in list(unknown)[:12])]
