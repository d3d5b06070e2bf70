"""Esc as a playwright means it: a lone ESC is the Escape key once a short wait is over, whatever key
comes after it. Textual has no public way to say so; docs/app.md says what it would need."""

from __future__ import annotations

import os
from typing import Any

ESCAPE_DELAY = 0.03
"""Seconds a lone ESC waits for the rest of an escape sequence. Textual waits 100 ms, so Esc and then `:`
typed within that time read as alt+: (and `:` `s9` Esc `:` `foo` left `s9:foo` in the jump box); a terminal's
sequences arrive in one write, well inside 30 ms. `ESCDELAY` in the environment (milliseconds, as for
curses) still decides."""


def settle_escapes() -> str | None:
    """Make a lone ESC the Escape key once its wait is over, whatever key comes next; None when done, else
    why not (Textual then reads keys its own way, and the app says so in its log).

    Textual has no public setting for this. Its input parser checks an ESC's wait only when its reading
    loop wakes, every 100 ms or on the next input, so the next key, arriving first, was read as the rest of
    an escape sequence however long after the ESC it came. The parser's `feed` is wrapped to settle the
    wait (its `tick`) before reading what follows: private to Textual, so its shape is checked first and a
    Textual that changed it is left alone. What Textual would need instead is in docs/app.md."""
    import inspect

    import textual.constants

    try:
        from textual._xterm_parser import XTermParser
    except ImportError:
        return "Textual's input parser has moved"
    if not isinstance(getattr(textual.constants, "ESCAPE_DELAY", None), float):
        return "Textual no longer has ESCAPE_DELAY"
    if "ESCDELAY" not in os.environ:
        textual.constants.ESCAPE_DELAY = ESCAPE_DELAY  # type: ignore[misc]  # Final to Textual, yet read at each ESC
    feed, tick = getattr(XTermParser, "feed", None), getattr(XTermParser, "tick", None)
    if feed is not None and feed.__qualname__.startswith(f"{settle_escapes.__qualname__}."):
        return None  # wrapped already, once per process
    shapes = {name: list(inspect.signature(method).parameters) if inspect.isfunction(method) else None
              for name, method in (("feed", feed), ("tick", tick))}
    if shapes != {"feed": ["self", "data"], "tick": ["self"]}:
        return f"Textual's input parser is not the shape the studio knows ({shapes})"
    original = XTermParser.feed

    def _settled_feed(self: Any, data: str) -> Any:
        yield from self.tick()  # an ESC whose wait ran out is the Escape key, whatever comes next
        yield from original(self, data)

    XTermParser.feed = _settled_feed  # type: ignore[method-assign]
    return _keep_escape_before_punctuation(XTermParser)


def _keep_escape_before_punctuation(parser: Any) -> str | None:
    """Esc and then a punctuation key in one burst (`:` after Esc, typed in one breath) reach the app as
    Escape and the key. Textual reads ESC and the next character as alt+character, and where that character
    is named by a word (`colon`, `slash`) it drops the alt and with it the Escape: the jump box stayed open
    and took `:foo` after what was in it. A letter keeps Textual's reading (alt+f, or a terminal's word
    motion). Private to Textual, like the wait above, so its shape is checked first."""
    import inspect

    from textual import events

    original = getattr(parser, "_sequence_to_key_events", None)
    if original is None or not inspect.isfunction(original):
        return "Textual's key reader has moved"
    if original.__qualname__.startswith(f"{_keep_escape_before_punctuation.__qualname__}."):
        return None
    if list(inspect.signature(original).parameters) != ["self", "sequence", "alt"]:
        return "Textual's key reader is not the shape the studio knows"

    def _escape_kept(self: Any, sequence: str, alt: bool = False) -> Any:
        keys = list(original(self, sequence, alt))
        if alt and keys and not any(key.key.startswith(("alt+", "shift+")) for key in keys):
            yield events.Key("escape", "\x1b")
        yield from keys

    parser._sequence_to_key_events = _escape_kept
    return None
