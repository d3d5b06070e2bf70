"""Right-to-left text on a page: which lines read right to left, letters joined and runs put in the order
they are drawn, and how poppler reads a line back, so the text layer can be told what was typed."""

from __future__ import annotations

import unicodedata
from collections.abc import Callable


def is_rtl(text: str) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in text)


def base_rtl(text: str) -> bool:
    """Whether a paragraph reads right to left: its first strong character does."""
    for c in text:
        kind = unicodedata.bidirectional(c)
        if kind in ("R", "AL"):
            return True
        if kind == "L":
            return False
    return False


def reshaped(text: str) -> str:
    import arabic_reshaper

    return arabic_reshaper.reshape(text) if any(unicodedata.bidirectional(c) == "AL" for c in text) else text


def visual(text: str) -> str:
    """One line with right-to-left runs joined and reordered for left-to-right drawing; other text untouched."""
    if not is_rtl(text):
        return text
    from bidi.algorithm import get_display

    try:
        return "\n".join(get_display(reshaped(line)) for line in text.split("\n"))
    except Exception:  # noqa: BLE001 - python-bidi rejects some rare scripts: print them in logical order
        return text


def visual_lines(text: str, measure: float, width: Callable[[str], float], rtl: bool) -> list[tuple[str, str]]:
    """One logical line broken at spaces to fit `measure` points, in logical order (the order it is read),
    then each piece put in display order: so a wrapped Arabic or Hebrew sentence reads top to bottom,
    and a mixed line breaks where its words fall, not where their mirror image would. Each piece comes
    with its text as typed (before letters are joined), in the order it is read."""
    from bidi.algorithm import get_display

    typed = text.split(" ")
    words = [reshaped(word) for word in typed]  # joining never crosses a space
    pieces: list[tuple[str, str]] = []
    current, first = "", 0
    for i, word in enumerate(words):
        trial = f"{current} {word}" if current else word
        if current and width(trial) > measure:
            pieces.append((current, " ".join(typed[first:i])))
            current, first = word, i
        else:
            current = trial
    pieces.append((current, " ".join(typed[first:])))
    out = []
    for piece, read in pieces:
        try:
            out.append((get_display(piece, base_dir="R" if rtl else "L"), read))
        except Exception:  # noqa: BLE001 - as in `visual`
            out.append((piece, read))
    return out


LRM, RLM = "\u200e", "\u200f"


def poppler_kind(c: str) -> str:
    """A character as poppler's text reader sorts it when it puts a line in order: "R" (a right-to-left
    letter of the scripts it knows: Hebrew, Arabic, Syriac, Thaana), "L" (a left-to-right one), "N" (a
    digit) or "" (anything else: spaces, punctuation, and the right-to-left scripts it does not know,
    N'Ko and Adlam, which it leaves where they stand)."""
    kind = unicodedata.bidirectional(c)
    if kind in ("R", "AL"):
        return "R" if "\u0590" <= c <= "\u07bf" or "\ufb1d" <= c <= "\ufeff" or c == RLM else ""
    if kind == "L":
        return "L"
    return "N" if kind in ("EN", "ES", "ET", "AN", "CS") else ""


def _segments(text: str) -> list[tuple[bool, str]]:
    """`text` cut as poppler cuts a line: runs that hold no right-to-left letter, and runs that start with
    one and hold no left-to-right letter and no digit. (is the run right-to-left, the run)."""
    out: list[tuple[bool, str]] = []
    i = 0
    while i < len(text):
        j = i
        if poppler_kind(text[i]) == "R":
            while j < len(text) and poppler_kind(text[j]) not in ("L", "N"):
                j += 1
            out.append((True, text[i:j]))
        else:
            while j < len(text) and poppler_kind(text[j]) != "R":
                j += 1
            out.append((False, text[i:j]))
        i = j
    return out


def for_poppler(text: str, page_lr: bool) -> str:
    """A line's text, as typed, spelt so that poppler (pdftotext and the viewers built on it) gives it back
    as typed. poppler puts every line of a page in order itself, taking what it reads for the order of
    the page: on a page that reads left to right it turns each run of right-to-left letters round (with
    the spaces and punctuation after it, up to a digit or a left-to-right letter); on one that reads right
    to left it reads the whole line from the right, keeping runs of left-to-right letters and digits
    as they stand. So each right-to-left run is given turned round here, and an invisible mark (RLM,
    LRM) closes each run where poppler would otherwise run on into the next: what it reads back is the
    typed text with those marks, which are not characters anyone typed and which every reader drops."""
    if text.isascii() or not any(poppler_kind(c) == "R" for c in text):  # most text: no run to turn round
        return text if page_lr or not text or poppler_kind(text[-1]) in ("L", "N") else text + LRM
    pieces = _segments(text)
    if page_lr:  # a mark only where the run ends in a character that would not stop poppler by itself
        return "".join((RLM if poppler_kind(run[-1]) != "R" else "") + run[::-1] if rtl else run for rtl, run in pieces)
    return "".join(run[::-1] if rtl else run + (LRM if poppler_kind(run[-1]) not in ("L", "N") else "")
                   for rtl, run in reversed(pieces))


def poppler_count(text: str) -> int:
    """What `text` adds to the tally poppler makes of a page to choose its order: each left-to-right
    letter one, each right-to-left one minus one."""
    kinds = [poppler_kind(c) for c in text]
    return kinds.count("L") - kinds.count("R")
