"""The one place text from outside the studio is cleaned for the terminal and the store: a model's reply,
a line typed for a human seat, a field of a file, a provider's error body.

Text is stored clean (the gateway cleans a reply on the way in, the engine every line it commits) rather
than cleaned per view: every view (run, show, export, the app, JSON piped to another tool) then shows the
same safe text, and no new view can forget the step. Ordinary text, tabs and line breaks are kept.
`LINE_CONTROLS` is what one line of text (a name, a title, a fact's name) may never hold, for the checks
that refuse such a value rather than clean it; `one_line` is the cleaner for a value shown on one line.
Addresses and error messages lose their secrets here too (`redact_secrets`), in one place.

It sits below every other part because more than the gateway needs it: a play's loader echoes a rejected
value through `shown_value`, and a router's endpoints are shown with their credentials taken out.
"""

from __future__ import annotations

import re

_SEQUENCES = re.compile(
    r"\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"  # OSC: window titles, OSC 8 links
    r"|\x1b[P^_X][^\x1b]*(?:\x1b\\)?"  # DCS, PM, APC, SOS strings
    r"|\x1b\[[0-?]*[ -/]*[@-~]"  # CSI: colours, clear screen, alternate screen
    r"|\x1b[ -/]*[0-~]"  # two-byte escapes
    r"|\x9b[0-?]*[ -/]*[@-~]"  # 8-bit CSI
)
# C0/C1 controls (tabs and line breaks kept) and the explicit bidirectional overrides and isolates, which
# can make a terminal show text in an order other than the one stored ("Trojan Source").
_CONTROLS = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
_SURROGATE = re.compile("[\ud800-\udfff]")  # what bytes that were not UTF-8 become
# What one line of text may never hold: every C0/C1 control (line breaks and tabs included), the line and
# paragraph separators, and the direction overrides and isolates.
LINE_CONTROLS = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")


# UTF-8 read once as Latin-1, as much of the web text a small model learnt from was: "don’t" written as
# "donâ\x80\x99t", a lead character and its continuation characters. Only a run holding a C1 control is read
# again, as no text means one ("Ã©" may be meant, and stays); what it reads as is cleaned like the rest.
_MISREAD = re.compile(r"[\u00c2-\u00df][\u0080-\u00bf]|[\u00e0-\u00ef][\u0080-\u00bf]{2}|[\u00f0-\u00f4][\u0080-\u00bf]{3}")
_OPEN_MISREAD = re.compile(r"[\u00c2-\u00f4][\u0080-\u00bf]{0,2}\Z")  # such a run a piece boundary may have cut
_C1 = re.compile(r"[\x80-\x9f]")


def _read_again(match: re.Match[str]) -> str:
    run = match.group()
    if not _C1.search(run):
        return run
    try:
        return run.encode("latin-1").decode("utf-8")
    except UnicodeDecodeError:
        return run


def clean_text(text: str) -> str:
    """Text without escape sequences or control characters (a lone ESC split off is dropped too), and
    without the lone surrogates that bytes which were not UTF-8 become when read from a terminal, which
    no store or terminal can write: each becomes U+FFFD. A character written as UTF-8 misread as Latin-1
    (its continuation bytes C1 controls) is read again as the character it was. A next-line character
    (U+0085) becomes a newline."""
    if not text.isascii():  # read at C speed: every committed line passes here
        if _SURROGATE.search(text):
            text = text.encode("utf-8", "surrogateescape" if _escaped(text) else "surrogatepass").decode("utf-8", "replace")
        if _C1.search(text):
            text = _MISREAD.sub(_read_again, text)
    # NEL (U+0085) is a line break (Unicode, and old mainframe text), not a control to drop: the line goes on
    # the next line, as every format prints it.
    text = text.replace("\r\n", "\n").replace("\x85", "\n")
    return _CONTROLS.sub("", _SEQUENCES.sub("", text))


def _escaped(text: str) -> bool:
    """Whether every lone surrogate in `text` stands for a byte (Python's surrogateescape)."""
    return all(not ("\ud800" <= c <= "\udfff") or "\udc80" <= c <= "\udcff" for c in text)


clean_model_text = clean_text  # a model's reply is outside text like any other


def one_line(value: object) -> str:
    """Outside text shown on one line (a name, a title, a model, a place): clean, with any line break or
    other control a space."""
    return LINE_CONTROLS.sub(" ", clean_text(str(value))).strip()


class StreamCleaner:
    """Cleans a stream piece by piece, holding back an escape sequence a piece boundary cut in two, so
    what is shown live matches what is stored (a held tail is short: at most HOLD characters)."""

    HOLD = 256

    def __init__(self) -> None:
        self._carry = ""

    def feed(self, piece: str) -> str:
        text = self._carry + piece
        self._carry = ""
        cut = max(text.rfind("\x1b"), text.rfind("\x9b"))
        if cut >= 0 and len(text) - cut <= self.HOLD and _unfinished(text[cut:]):
            text, self._carry = text[:cut], text[cut:]
        misread = _OPEN_MISREAD.search(text)
        if misread and len(misread.group()) - 1 < _continuations(misread.group()[0]):
            text, self._carry = text[: misread.start()], text[misread.start():] + self._carry
        return clean_model_text(text)

    def flush(self) -> str:
        text, self._carry = self._carry, ""
        return clean_model_text(text)


def _continuations(lead: str) -> int:
    """How many continuation bytes follow `lead`'s byte in UTF-8."""
    return 1 if lead <= "\u00df" else 2 if lead <= "\u00ef" else 3


def _unfinished(tail: str) -> bool:
    """Whether `tail` (starting at an escape) may still be completed by what comes next."""
    if len(tail) == 1:
        return True
    if tail.startswith(("\x1b]", "\x1bP", "\x1b^", "\x1b_", "\x1bX")):
        return not (tail.endswith("\x07") or "\x1b\\" in tail[1:])
    return _OPEN_CSI.fullmatch(tail) is not None


_OPEN_CSI = re.compile(r"(?:\x1b\[|\x9b)[0-?]*[ -/]*|\x1b[ -/]*")


_URL_CREDENTIALS = re.compile(r"(?i)\b([a-z][a-z0-9+.-]*://)[^/@\s]+@")
# One field of an address's query (`?key=...`, `&api_key=...`, Azure Functions' `?code=...`), its name
# perhaps percent-encoded (`?ke%79=...`), and an address's fragment (`#access_token=...`).
_QUERY_FIELD = re.compile(r"([?&;])([^=&#;?\s\"'<>]+)=([^&#;\s\"'<>]*)")
_SECRET_FIELD = re.compile(r"key|token|secret|password|passwd|pwd|sig|auth|credential|code", re.I)
_FRAGMENT = re.compile(r"(?i)(\b[a-z][a-z0-9+.-]*://[^\s#\"'<>]*#)[^\s\"'<>]+")


def _masked_field(match: re.Match[str]) -> str:
    from urllib.parse import unquote

    mark, name, value = match.groups()
    if value and _SECRET_FIELD.search(unquote(name)):
        return f"{mark}{name}=***"
    return match.group(0)


def redact_url_credentials(text: str) -> str:
    """`http://user:KEY@host/v1` becomes `http://***@host/v1`, `...?key=KEY` (or `code`, `token`, `sig`...,
    its name spelled plainly or percent-encoded) becomes `...?key=***`, and a fragment `#...` becomes `#***`:
    the one masker of addresses, used wherever one is shown, stored or logged, so a key in an address is
    never seen again."""
    text = _URL_CREDENTIALS.sub(r"\1***@", text)
    text = _FRAGMENT.sub(r"\1***", text)
    return _QUERY_FIELD.sub(_masked_field, text)


def url_credentials(address: str) -> tuple[str, str | None]:
    """An address without its `user:password@` part, and that part (None without one), so a caller can
    send it as an Authorization header instead of inside the address."""
    from urllib.parse import unquote, urlsplit, urlunsplit

    parts = urlsplit(address)
    if "@" not in parts.netloc:
        return address, None
    userinfo, host = parts.netloc.rsplit("@", 1)
    return urlunsplit(parts._replace(netloc=host)), unquote(userinfo)


def joined_address(base: str, path: str) -> str:
    """`path` put after the path of `base`, its query and fragment kept after it where they belong:
    `http://host/v1?key=K` and `/models` make `http://host/v1/models?key=K`, never `...?key=K/models`."""
    from urllib.parse import urlsplit, urlunsplit

    parts = urlsplit(base)
    return urlunsplit(parts._replace(path=parts.path.rstrip("/") + "/" + path.lstrip("/")))


def address_problem(address: str) -> str | None:
    """What is wrong with a server's address (None when nothing is): it must be one line of http:// or
    https:// with a host and a sound port, so a typing slip is refused at once, with its field, rather
    than called, failed and retried as if the server were down. Its problem never quotes a key."""
    from urllib.parse import urlsplit

    shown = one_line(redact_url_credentials(address))[:80] or "(empty)"
    if LINE_CONTROLS.search(address) or _SEQUENCES.search(address) or any(c.isspace() for c in address):
        return f"'{shown}' holds spaces, line breaks or control characters"
    parts = urlsplit(address)
    try:
        port = parts.port
    except ValueError:
        port = -1
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname or port == -1:
        return f"'{shown}' is not an http:// or https:// address with a host"
    return None


# Shapes of provider keys (OpenAI, Anthropic, Groq, xAI, Hugging Face...): never echoed, never stored.
SECRET_SHAPE = re.compile(r"\b(sk|pk|rk|gsk|xai|hf)[-_][A-Za-z0-9_\-]{8,}")


# A key a provider echoes masked but for its ends ("Incorrect API key provided: sk-proj-****wxyz", "sk-...wxyz"):
# the visible ends are part of the key, so the whole word goes.
# Anchored at a word's start, so a long word is read once, not once from each of its letters.
MASKED_KEY = re.compile(r"(?<![\w\-*])[\w\-]*(?:\*{3,}|(?<=[-_])(?:\.{3}|…))[\w\-*.…]*[\w\-*]")


def redact_secrets(text: str) -> str:
    """Text with credentials in addresses, key-shaped words and the shown ends of masked keys replaced by ***."""
    return MASKED_KEY.sub("***", SECRET_SHAPE.sub("***", redact_url_credentials(text)))


def shown_value(value: object, limit: int = 60) -> str:
    """A rejected value as an error message may echo it: short, and never a key."""
    text = repr(value)
    if SECRET_SHAPE.search(text) or redact_url_credentials(text) != text:
        return "(a value that looks like a secret; not shown)"
    return text if len(text) <= limit else text[: limit - 1] + "…"
