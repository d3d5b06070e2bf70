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
to warn about, and `resolve` removes it, with the text inside EJS conditions that nothing here can decide.
"""

from __future__ import annotations

import hashlib
import random
import re
from dataclasses import dataclass
from datetime import UTC, datetime

from studio.model.lorebook import template_code, without_template_code

# Macros this studio fills; any other `{{name...}}` is another app's, or a typo, and is left as written.
KNOWN = ("char", "user", "bot", "charname", "original", "random", "pick", "roll", "time", "date", "idle_duration",
         "newline", "trim", "noop", "//")
# Other apps' template code: variables and scripts an extension runs. Never sent, since nothing here runs it.
TEMPLATE_MACROS = ("setvar", "getvar", "addvar", "incvar", "decvar", "setglobalvar", "getglobalvar", "addglobalvar",
                   "incglobalvar", "decglobalvar", "format_message_variable", "format_global_variable",
                   "setchatvar", "getchatvar", "var", "if", "/if", "else", "each", "/each", "outlet", "banned",
                   "input", "lastmessage", "lastcharmessage", "lastusermessage", "lastmessageid", "message",
                   "reverse", "eval", "js", "javascript", "regex", "inject", "call")

_EJS = re.compile(r"<%[\s\S]*?%>")
_COMMENT = re.compile(r"\{\{//[\s\S]*?\}\}")
_MACRO = re.compile(r"\{\{\s*([^{}]*?)\s*\}\}")
_START = re.compile(r"^[ \t]*<START>[ \t]*$\n?", re.MULTILINE | re.IGNORECASE)
_OLD = {"<bot>": "{{char}}", "<user>": "{{user}}"}
_OLD_NAMES = re.compile(r"<BOT>|<USER>", re.IGNORECASE)
_DICE = re.compile(r"^\s*(\d{0,3})\s*d\s*(\d{1,6})\s*([+-]\s*\d{1,6})?\s*$", re.IGNORECASE)


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
    for match in _EJS.finditer(text):
        if depth == 0:
            out.append(text[pos : match.start()])
        code = match.group(0)
        depth = max(depth + code.count("{") - code.count("}"), 0)
        pos = match.end()
    if depth == 0:
        out.append(text[pos:])
    return "".join(out)


def unknown_macros(text: str) -> list[str]:
    """Macros neither filled here nor known as template code, each once: left in the text as written."""
    found: list[str] = []
    for match in _MACRO.finditer(text):
        head = _head(match.group(1))
        if (head not in KNOWN and head not in TEMPLATE_MACROS and not template_code(match.group(0))
                and match.group(0) not in found):
            found.append(match.group(0))
    return found


def _draw(ctx: MacroContext, place: int, *, per_moment: bool) -> random.Random:
    key = f"{ctx.seed}:{place}:{ctx.moment if per_moment else ''}:{ctx.char}"
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big"))


def _choices(body: str) -> list[str]:
    rest = body.split(":", 1)[1] if ":" in body else ""
    if rest.startswith(":"):
        return rest[1:].split("::")
    return [c.strip() for c in rest.split(",")]


def _roll(body: str, rng: random.Random) -> str:
    spec = body.split(":", 1)[1] if ":" in body else ""
    dice = _DICE.match(spec)
    if spec.strip().isdigit():
        return str(rng.randint(1, max(int(spec), 1)))
    if not dice:
        return ""
    count, sides = int(dice.group(1) or 1), max(int(dice.group(2)), 1)
    bonus = int(dice.group(3).replace(" ", "")) if dice.group(3) else 0
    return str(sum(rng.randint(1, sides) for _ in range(max(count, 1))) + bonus)


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
    text = without_template_code(_without_ejs(_COMMENT.sub("", text)))
    text = _OLD_NAMES.sub(lambda m: _OLD[m.group(0).casefold()], text)
    text = _START.sub("\n", text)
    when = datetime.fromtimestamp(ctx.when or 0.0, tz=UTC)
    place = 0

    def one(match: re.Match[str]) -> str:
        nonlocal place
        place += 1
        body = match.group(1)
        head = _head(body)
        if head in ("char", "bot", "charname"):
            return ctx.char
        if head == "user":
            return ctx.user
        if head == "original":
            return ctx.original
        if head == "random":
            options = _choices(body)
            return _draw(ctx, place, per_moment=True).choice(options) if options else ""
        if head == "pick":
            options = _choices(body)
            return _draw(ctx, place, per_moment=False).choice(options) if options else ""
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
        return match.group(0)

    out = _MACRO.sub(one, text)
    return re.sub(r"\n{3,}", "\n\n", out).strip() if out != text else out


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
    unknown: list[str] = []
    for text in reversed(texts):
        unknown += [u for u in unknown_macros(text) if u not in unknown]
    if not unknown:
        return []
    return ["macros this studio does not fill, left as written: " + ", ".join(u[:40] for u in unknown[:12])]
