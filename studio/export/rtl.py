"""Right-to-left text on a page: which lines read right to left, letters joined and runs put in the order
they are drawn, and the order a PDF reader gives them back in, so the text layer can be told what was typed."""

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


def as_pdftotext_reads(text: str, rtl: bool) -> str:
    """A line's text for its ActualText. poppler (pdftotext, and the viewers built on it) puts the
    letters of the right-to-left scripts it knows (Hebrew, Arabic, Syriac, Thaana) back in reading
    order itself, as if they were drawn: those lines are given in display order, any other (N'Ko,
    Adlam) in the order it is read."""
    known = all(not is_rtl(c) or "\u0590" <= c <= "\u07bf" or "\ufb1d" <= c <= "\ufeff" for c in text)
    if not known:
        return text
    if not any(unicodedata.bidirectional(c) in ("L", "EN", "AN") for c in text):
        return text[::-1]  # character by character, marks too, as poppler turns it back
    return display(text, rtl)


def display(text: str, rtl: bool) -> str:
    from bidi.algorithm import get_display

    try:
        return get_display(text, base_dir="R" if rtl else "L")
    except Exception:  # noqa: BLE001 - as in `visual`
        return text
