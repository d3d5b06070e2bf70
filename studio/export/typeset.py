"""What both PDF layouts share: fonts for every script, shaping, right-to-left lines, pages, split speeches.

Courier Prime (bundled with screenplay tools, the face theatres and studios expect) has Latin
only. Every other character is set in the first font that has it, all of them embedded: Noto Sans for
the scripts Latin faces lack (Arabic, Hebrew, Devanagari, Thai and the other Indic and South-East
Asian scripts), DejaVu Sans Mono and DejaVu Sans (matplotlib ships both: Greek, Cyrillic, symbols),
Noto Sans and Noto Sans Symbols, Noto Emoji (monochrome outlines: a PDF cannot embed colour emoji
portably), then TrueType fonts found on the system: Droid Sans Fallback for Chinese and Japanese and
Nanum Gothic for Korean (Noto's CJK fonts have CFF outlines, which reportlab cannot embed). The Noto
fonts come from PyPI (manimgx-fonts, Noto unmodified); `.ci/run` installs the Debian ones. A mark,
a joiner or a variation selector stays in the font of the character it belongs to, so emoji
sequences and vowel signs are set together; a character in an emoji range prefers Noto Emoji.

Devanagari, Thai and emoji sequences are shaped by HarfBuzz (uharfbuzz, through reportlab's shaping
support), one font run at a time; each shaped cluster carries its own text in the font's ToUnicode
map, so copying or extracting the text gives the characters in logical order, not the glyphs' order.
A paragraph holding right-to-left text is broken into lines in logical order, Arabic letters joined
(arabic-reshaper), and each line then put in display order (python-bidi); a paragraph whose first
strong character is right-to-left is right-aligned. A character no font has prints as a box (the
.notdef glyph, still carrying the character in the text layer) and is reported with its line.
"""

from __future__ import annotations

import glob
import math
import os
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any
from xml.sax.saxutils import escape

from reportlab.lib.enums import TA_LEFT, TA_RIGHT
from reportlab.lib.styles import ParagraphStyle
from reportlab.lib.units import inch
from reportlab.platypus import BaseDocTemplate, Flowable, Frame, PageTemplate, Paragraph

from studio.export.rtl import LRM, RLM, base_rtl, for_poppler, is_rtl, poppler_count, visual, visual_lines

BASE = "Courier Prime"
BOX = "studio-NotoSans"  # whose .notdef glyph, a box, stands for a character no font has
FRAME_WIDTH = 6 * inch
# Noto's script faces (PyPI: manimgx-fonts) come first for their scripts; these are tried after DejaVu.
_NOTO_LATER = ("NotoSans[wght].ttf", "NotoSansSymbols[wght].ttf", "NotoEmoji[wght].ttf")
_NOTO_SKIP = ("NotoSans-Italic[wght].ttf",)
_SYSTEM_FONTS = ("/usr/share/fonts/**/DroidSansFallback*.ttf", "/usr/share/fonts/**/NanumGothic.ttf")
# Debian's fonts-noto-core (TrueType outlines, which reportlab embeds): a face for every script Noto covers,
# Tibetan, Mongolian, Syriac, Thaana, N'Ko, Ol Chiki, Tifinagh, Cherokee, Canadian Syllabics, Yi and the
# rest. Where the folder is missing those scripts print as boxes, and the warning names the package.
NOTO_CORE = "/usr/share/fonts/truetype/noto"
_NOTO_GENERAL = ("NotoSans-", "NotoSansSymbols", "NotoSansMath", "NotoSansMono")  # faces of no one script


def _shared(code: int) -> bool:
    """Characters many scripts use: Latin and its punctuation, general punctuation and symbols, CJK
    punctuation and kana, variation selectors, halfwidth and fullwidth forms, the private use area."""
    return (code < 0x0370 or 0x2000 <= code <= 0x2BFF or 0x3000 <= code <= 0x30FF or 0xE000 <= code <= 0xF8FF
            or 0xFE00 <= code <= 0xFFFF)
# Faces HarfBuzz shapes: scripts that cannot be set glyph by glyph, and emoji sequences. Arabic and Hebrew
# are not among them: they are joined and reordered before reportlab sees them (see `visual_lines`).
# Right-to-left scripts HarfBuzz shapes (letters that join, which arabic-reshaper does not know, or marks
# to place): their runs reach the shaper in display order and are turned back to the order they are read.
_RTL_JOINING = ("Syriac", "NKo", "Adlam", "Mandaic", "HanifiRohingya", "Thaana")
_SHAPED = ("Devanagari", "Bengali", "Gujarati", "Gurmukhi", "Kannada", "Khmer", "Lao", "Malayalam", "Myanmar",
           "Oriya", "Sinhala", "Tamil", "Telugu", "Thai", "Emoji", "Tibetan", "Mongolian", "Thaana", "Javanese",
           "Balinese", "Sundanese", "Buginese", "Batak", "Chakma", "Cham", "Lepcha", "Limbu", "TaiTham", "TaiViet",
           "MeeteiMayek", "Saurashtra", "Sharada", "Siddham", "Tirhuta", "Takri", "Khojki", "Khudawadi", "Modi",
           "Mahajani", "Grantha", "Newa", "Brahmi", "Kaithi", "KayahLi", "NewTaiLue", "Ahom", "Dogra", "Bhaiksuki",
           "Marchen", "Soyombo", "ZanabazarSquare", "Masaram", "Gunjala", "Rejang", "Kharoshthi") + _RTL_JOINING

_JOINERS = frozenset("\u200c\u200d\ufe0e\ufe0f\u20e3")
# Faces that place combining marks on Latin, Greek and Cyrillic letters (HarfBuzz reads where from their
# tables), tried first for a letter whose marks Courier Prime lacks: Noto Sans Mono (Debian's
# fonts-noto-core; Courier's width), then Noto Sans. DejaVu has the marks but sets some beside the letter.
MARK_FACES = ("studio-NotoSans",)
EMOJI_FACE = "studio-NotoEmoji"


def _attaches(ch: str) -> bool:
    """A character that belongs to the one before it: a mark, a joiner, a variation selector, a skin
    tone, an emoji tag."""
    code = ord(ch)
    return (ch in _JOINERS or unicodedata.category(ch) in ("Mn", "Mc", "Me") or 0x1F3FB <= code <= 0x1F3FF
            or 0xE0020 <= code <= 0xE007F)


def _stacks(ch: str) -> bool:
    """A combining mark drawn on its letter (an accent, a dot below), not a joiner or a variation selector."""
    return unicodedata.category(ch) in ("Mn", "Me") and ch not in _JOINERS and not "\ufe00" <= ch <= "\ufe0f"


def stacked(text: str) -> bool:
    """Whether `text` holds a combining mark: a letter and its marks are shaped, so the marks sit on it."""
    return not text.isascii() and any(_stacks(c) for c in text)


# Where no line may break inside an unspaced word: before a Thai or Lao vowel written after its
# consonant, sara am and the repetition mark; after a vowel written before its consonant.
_HOLDS_TO_BEFORE = frozenset("\u0e30\u0e32\u0e33\u0e45\u0e46\u0e2f\u0eb0\u0eb2\u0eb3\u0ec6")
_HOLDS_TO_AFTER = frozenset("\u0e40\u0e41\u0e42\u0e43\u0e44\u0ec0\u0ec1\u0ec2\u0ec3\u0ec4\u200d")


def letters(word: str) -> list[str]:
    """A word as the pieces a line may break between: a letter with its marks and joiners, a Thai or
    Lao syllable's vowels with their consonant, a consonant after a virama (a conjunct, a Khmer or
    Myanmar stack) with the one before it."""
    out: list[str] = []
    for ch in word:
        if out and (_attaches(ch) or ch in _HOLDS_TO_BEFORE or out[-1][-1] in _HOLDS_TO_AFTER
                    or unicodedata.combining(out[-1][-1]) == 9):
            out[-1] += ch
        else:
            out.append(ch)
    return out


def _emoji_like(ch: str, after: str) -> bool:
    code = ord(ch)
    return code >= 0x1F000 or (0x2600 <= code <= 0x27BF) or after in ("\ufe0f", "\u200d", "\u20e3")


@dataclass
class Fonts:
    """Registered faces in the order they are tried; `missing` collects what none could print."""

    fallbacks: list[tuple[str, frozenset[int]]]
    base_chars: frozenset[int]
    missing: list[str] = field(default_factory=list)
    warn: Callable[[str], None] | None = None
    _chars: dict[str, frozenset[int]] = field(default_factory=dict, repr=False)

    _faces: dict[tuple[str, bool], str | None] = field(default_factory=dict, repr=False)
    _widths: dict[tuple[str, float], float] = field(default_factory=dict, repr=False)
    _runs: dict[str, list[tuple[str, str]]] = field(default_factory=dict, repr=False)

    def __post_init__(self) -> None:
        self._chars = {BASE: self.base_chars, **dict(self.fallbacks)}

    def face(self, ch: str, after: str = "") -> str | None:
        """The first face that has `ch` (`after` is the character after it: a variation selector or a
        keycap makes it an emoji); remembered, as every paragraph asks again for the same letters."""
        key = (ch, after in ("\ufe0f", "\u200d", "\u20e3"))
        if key not in self._faces:
            self._faces[key] = self._face(ch, after)
        return self._faces[key]

    def _face(self, ch: str, after: str) -> str | None:
        code = ord(ch)
        if (code in self.base_chars and after not in ("\ufe0f", "\u20e3")) or ch in "\n\t ":
            return BASE  # but a keycap's digit (`1` U+FE0F U+20E3) is the emoji's
        if _emoji_like(ch, after):
            for name, chars in self.fallbacks:
                if name == EMOJI_FACE and code in chars:
                    return name
        for name, chars in self.fallbacks:
            if code in chars:
                return name
        return None

    def _has(self, face: str, ch: str) -> bool:
        return ord(ch) in self._chars.get(face, ())

    def _with_marks(self, text: str) -> dict[int, str]:
        """Faces for the letters that carry combining marks outside a script's own shaped face (Yoruba `ọ̀`,
        Lithuanian `ą̃`: no precomposed letter, and Courier Prime has none of the marks): the first face
        that has the letter and all its marks, Courier Prime, then the faces that place marks well
        (MARK_FACES), by index of the letter, so a letter and its marks are set, shaped, together."""
        chosen: dict[int, str] = {}
        if not stacked(text):
            return chosen
        i, n = 0, len(text)
        while i < n:
            j = i + 1
            while j < n and _stacks(text[j]):
                j += 1
            if j > i + 1 and not _attaches(text[i]):
                cluster = text[i:j]
                own = self.face(text[i], text[i + 1])
                if own not in SHAPED_FACES or not all(self._has(own, c) for c in cluster[1:]):
                    order = [BASE, *MARK_FACES, *([own] if own else []), *self._chars]
                    found = next((name for name in order if all(self._has(name, c) for c in cluster)), None)
                    if found:
                        chosen[i] = found
            i = j
        return chosen

    def runs(self, text: str, where: str, report: bool = True) -> list[tuple[str, str]]:
        """`text` as (face, chunk) runs, each chunk set in a font that has it; a character that
        belongs to the one before it stays in its run where that font has it (or has no glyph of its own).
        Remembered by text (a paragraph's text is asked for its faces, its width and its markup), but
        for text with a box in it, whose warning names the line it is in."""
        found = self._runs.get(text)
        if found is not None and not (report and any(face == BOX for face, _ in found)):
            return found
        runs: list[tuple[str, str]] = []
        marked = self._with_marks(text)
        for i, ch in enumerate(text):
            face: str | None
            if runs and _attaches(ch) and (self._has(runs[-1][0], ch) or unicodedata.category(ch) == "Cf"
                                           or "\ufe00" <= ch <= "\ufe0f"):
                face = runs[-1][0]
            elif unicodedata.category(ch) == "Cf" or "\ufe00" <= ch <= "\ufe0f":
                continue  # a joiner with nothing to join: no glyph, nothing to print
            elif ch == " " and runs and runs[-1][0] not in (BASE, EMOJI_FACE) and self._has(runs[-1][0], ch) and \
                    self.face(text[i + 1 : i + 2] or " ") == runs[-1][0]:
                face = runs[-1][0]  # a space between words of one script is that script's space
            else:
                face = marked.get(i) or self.face(ch, text[i + 1 : i + 2])
            if face is None:
                face = BOX
                _box(ch)
                message = f"{where}: no font has U+{ord(ch):04X} ({unicodedata.name(ch, 'unnamed')}); it prints as a box"
                if not os.path.isdir(NOTO_CORE):
                    message += " (Debian's fonts-noto-core has faces for most scripts)"
                if report and message not in self.missing:
                    self.missing.append(message)
                    if self.warn:
                        self.warn(message)
            if runs and runs[-1][0] == face:
                runs[-1] = (face, runs[-1][1] + ch)
            else:
                runs.append((face, ch))
        if len(self._runs) < 4096:
            self._runs[text] = runs
        return runs

    def markup(self, text: str, where: str, italic: bool = False, bold: bool = False, ordered: bool = False) -> str:
        """`text` as reportlab paragraph markup: in display order (unless `ordered`: it already is), each
        run in a font that has it, and, where it holds right-to-left letters, marked with its text as
        typed for the text layer (a cue, a heading). For one line; `para` breaks paragraphs with
        right-to-left text and marks each line itself."""
        text = unicodedata.normalize("NFC", text)
        typed = text
        if not ordered:
            text = visual(text)
        out = []
        for face, chunk in self.runs(text, where):
            chunk = escape(chunk)
            if face != BASE:
                chunk = f'<font name="{face}">{chunk}</font>'
            out.append(chunk)
        html = "".join(out)
        if not ordered and text != typed:
            html = _marked(typed, html)
        if italic:
            html = f"<i>{html}</i>"
        if bold:
            html = f"<b>{html}</b>"
        return html

    def width(self, text: str, size: float) -> float:
        from reportlab.pdfbase.pdfmetrics import stringWidth

        if len(text) <= 4:  # a letter, as `fit` asks for each: remembered
            key = (text, size)
            if key not in self._widths:
                self._widths[key] = sum(stringWidth(chunk, face, size) for face, chunk in self.runs(text, "", report=False))
            return self._widths[key]
        return sum(stringWidth(chunk, face, size) for face, chunk in self.runs(text, "", report=False))

    def fit(self, line: str, measure: float, size: float) -> list[str]:
        """One line as the lines it fills at `measure` points, where it holds a word wider than the
        measure (Thai, Lao, Khmer and Chinese are written without spaces): words go whole onto a line
        where they fit, and a word that fits on none is broken between its letters, never inside one
        (a letter with its marks, a Thai vowel with its consonant, a conjunct). Left to reportlab, such
        a word was cut glyph by glyph, a shaped vowel (`คำ`) torn from its consonant. Other lines are
        reportlab's to break, at their spaces."""
        words = line.split(" ")
        if max(len(w) for w in words) * size * 1.3 <= measure:
            return [line]  # no word can be wider than the measure: none of this is needed
        measure *= 0.96  # the shaped width may exceed the sum of the glyphs' own by a kerning pair or two
        if all(self.width(w, size) <= measure for w in words):
            return [line]
        space = self.width(" ", size)
        pieces: list[str] = []
        current, used = "", 0.0
        for word in words:
            wide = self.width(word, size)
            if current and used + space + wide <= measure:
                current, used = f"{current} {word}", used + space + wide
                continue
            if current:
                pieces.append(current)
                current, used = "", 0.0
            if wide <= measure:
                current, used = word, wide
                continue
            for letter in letters(word):
                wide = self.width(letter, size)
                if current and used + wide > measure:
                    pieces.append(current)
                    current, used = "", 0.0
                current, used = current + letter, used + wide
        pieces.append(current)
        return pieces

    def para(self, text: str, style: ParagraphStyle, where: str, italic: bool = False) -> Paragraph:
        """A paragraph of text (lines split at newlines) in `style`. Text with right-to-left letters is
        broken into lines here, in logical order, then each line is put in display order, and a paragraph
        whose first strong character is right-to-left is right-aligned."""
        lines = [line for line in unicodedata.normalize("NFC", text).split("\n")]
        faces = {face for face, _ in self.runs(text, where, report=False)}
        if faces & SHAPED_FACES or stacked(text):
            style = _shaping(style)  # only then: shaping every paragraph doubles a Latin script's time
            if faces & SHAPED_FACES:
                style = _room_above(style, faces & SHAPED_FACES)
        measure = FRAME_WIDTH - style.leftIndent - style.rightIndent
        if not any(is_rtl(line) for line in lines):
            lines = [piece for line in lines for piece in self.fit(line, measure, style.fontSize)]
            return Paragraph("<br/>".join(self.markup(line, where, italic=italic) for line in lines), style)
        rtl = base_rtl(text)
        out = []
        for line in lines:
            pieces = visual_lines(line, measure, lambda t: self.width(t, style.fontSize), rtl)
            for i, (visual_line, read) in enumerate(pieces):
                # The line as it is read, for the text layer: drawn in display order, it would copy backwards.
                # A line the paragraph goes on from keeps the space it broke at: poppler takes a line that
                # ends in a dash for a hyphenated word, and joins it to the next without the dash.
                read += " " if i < len(pieces) - 1 else ""
                out.append(_marked(read, self.markup(visual_line, where, italic=italic, ordered=True)))
        if rtl and style.alignment == TA_LEFT:
            style = ParagraphStyle(style.name + "-rtl", parent=style, alignment=TA_RIGHT)
        return Paragraph("<br/>".join(out), style)


_SHAPING: dict[str, ParagraphStyle] = {}


def _shaping(style: ParagraphStyle) -> ParagraphStyle:
    """The same style with HarfBuzz shaping on, for paragraphs holding a face that needs it."""
    if style.name not in _SHAPING:
        _SHAPING[style.name] = ParagraphStyle(style.name + "-shaped", parent=style, shaping=1)
    return _SHAPING[style.name]


def _room_above(style: ParagraphStyle, faces: set[str]) -> ParagraphStyle:
    """The style with lines far enough apart that a script whose marks stand above the letters (a
    Devanagari vowel sign, a Tibetan stack) clears the descenders of the line above: set solid, at
    Courier's 12 on 12, they touch."""
    from reportlab.pdfbase import pdfmetrics

    base = pdfmetrics.getFont(BASE).face
    tallest = max(pdfmetrics.getFont(face).face.ascent for face in faces)
    deepest = min([base.descent] + [pdfmetrics.getFont(face).face.descent for face in faces])
    if tallest <= base.ascent:
        return style
    leading = math.ceil(style.fontSize * (tallest - deepest) / 1000)
    if leading <= style.leading:
        return style
    key = f"{style.name}-{leading}"
    if key not in _SHAPING:
        _SHAPING[key] = ParagraphStyle(key, parent=style, leading=leading)
    return _SHAPING[key]


ACTUAL_CB = "studio-actual"


def _marked(typed: str, html: str) -> str:
    """A line's markup marked with its text as typed (`_mark_actual`): drawn in display order, it would
    copy backwards."""
    label = typed.encode("utf-16-be").hex().upper()
    return f'<onDraw name="{ACTUAL_CB}" label="{label}"/>{html}<onDraw name="{ACTUAL_CB}" label=""/>'


def _mark_actual(canvas: Any, kind: str, label: str | None) -> None:
    """Opens (a label: the line's text as typed, UTF-16 in hex) or closes (no label) a span of the text
    layer that a PDF reader takes as that text: a right-to-left line drawn in display order copies as
    read. The text is spelt for the order the whole page reads in (`for_poppler`), known only when the
    page is done: until then the span holds a placeholder (`_settle_lines`)."""
    tx = canvas._curr_tx_info["tx"]
    if label:
        tx._code.append(_placeholder(canvas, bytes.fromhex(label).decode("utf-16-be"), plain=False))
    elif getattr(tx, "_in_marked_line", False):  # a line's end is drawn once for each piece it was split into
        tx._code.append("EMC")
    tx._in_marked_line = bool(label)


def _placeholder(canvas: Any, text: str, plain: bool) -> str:
    """The opening of a span whose ActualText is `text`, spelt when the page is done (`_settle_lines`). A
    plain piece (text drawn as typed, not shaped) loses its span where the page reads left to right."""
    lines = canvas.__dict__.setdefault("_studio_lines", [])
    lines.append((text, plain))
    _count_direction(canvas, text)
    return f"/Span <</ActualText <studio-{len(lines) - 1}>>> BDC"


_SPANS = re.compile(r"/Span <</ActualText <studio-(\d+)>>> BDC |EMC %studio-end-(\d+)\n")


def _count_direction(canvas: Any, text: str) -> None:
    """Tally the page's letters as poppler does to choose the order it reads the page in: left-to-right
    ones for, right-to-left ones against."""
    added = sum(c.isalpha() for c in text) if text.isascii() else poppler_count(text)
    canvas._studio_lr = getattr(canvas, "_studio_lr", 0) + added


def _settle_lines(canvas: Any) -> None:
    """At the end of a page, each span's text spelt for the order the page reads in: poppler reads a
    page whose right-to-left letters outnumber its left-to-right ones from the right, every line of
    it, and would set a left-to-right line's closing bracket or full stop at its start (`)(sighs`)."""
    lines = canvas.__dict__.pop("_studio_lines", None)
    count = canvas.__dict__.pop("_studio_lr", 0)
    if not lines:
        return
    # The marks the spelling adds are letters to poppler too: the page's order is the one whose spelling
    # leaves the tally on its own side (left to right where neither does, as poppler leans).
    def tally(lr: bool) -> int:
        """The page's count once its lines are spelt for `lr`: each mark added (LRM one, RLM minus one)."""
        added = 0
        for text, plain in lines:
            if not (plain and lr):
                spelt = for_poppler(text, lr)
                added += spelt.count(LRM) - text.count(LRM) - spelt.count(RLM) + text.count(RLM)
        return count + added

    lr_holds, rl_holds = tally(True) >= 0, tally(False) < 0
    page_lr = count >= 0 if lr_holds == rl_holds else lr_holds

    def spelt(match: re.Match[str]) -> str:
        opening = match.group(1) is not None
        text, plain = lines[int(match.group(1) if opening else match.group(2))]
        if plain and page_lr:
            return ""
        if not opening:
            return "EMC "
        return f"/Span <</ActualText <FEFF{for_poppler(text, page_lr).encode('utf-16-be').hex().upper()}>>> BDC "

    canvas._code[:] = [_SPANS.sub(spelt, code) if "studio-" in code else code for code in canvas._code]


# Text each shaped glyph stands for, by font and private code: a ligature (an emoji sequence, a conjunct)
# or a reordered cluster (a vowel sign drawn before its consonant) is one code carrying the whole
# cluster's text, the rest of its glyphs carry none, so a reader of the PDF's text gets it in logical order.
_ACTUAL: dict[int, str] = {}
_PRIVATE: dict[tuple[str, int, str, int], int] = {}
_NEXT_PRIVATE = [0xF0000]


def _private(font: Any, gid: int, text: str, index: int, width: float) -> str:
    key = (font.fontName, gid, text, index)
    code = _PRIVATE.get(key)
    if code is None:
        code = _PRIVATE[key] = _NEXT_PRIVATE[0]
        _NEXT_PRIVATE[0] += 1
        face = font.face
        face.charToGlyph[code] = gid
        face.glyphToChar.setdefault(gid, []).append(code)
        face.charWidths[code] = width
        _ACTUAL[code] = text if index == 0 else ""
    return chr(code)


def _box(ch: str) -> None:
    """Let the box font print `ch` as its .notdef glyph, with `ch` itself in the text layer."""
    from reportlab.pdfbase import pdfmetrics

    face = pdfmetrics.getFont(BOX).face
    if ord(ch) not in face.charToGlyph:
        face.charToGlyph[ord(ch)] = 0
        face.charWidths[ord(ch)] = face.charWidths.get(ord("M"), 600)


def _shape_by_font(original: Callable[..., Any]) -> Callable[..., Any]:
    """reportlab shapes a word with the first font of the word; a word mixing fonts (`(नमस्ते)`) is
    shaped here one font run at a time, only in the faces that need it, and each cluster whose glyphs
    do not spell its text is given codes that do (`_private`)."""
    from reportlab.pdfbase import pdfmetrics
    from reportlab.pdfbase.ttfonts import ShapedFragWord, ShapedStr, makeShapedFragWord

    def shape(w: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(w, ShapedFragWord) or any(isinstance(item[1], ShapedStr) for item in w[1:]):
            return w  # shaped already (a word split across lines comes back in pieces)
        groups: list[list[Any]] = []
        for item in w[1:]:
            frag = item[0]
            name = getattr(frag, "fontName", None)
            if hasattr(frag, "cbDefn") or (groups and hasattr(groups[-1][0][0], "cbDefn")):
                groups.append([item])  # a marker (the text layer's, `_mark_actual`) is drawn as it is, in place
            elif groups and getattr(groups[-1][0][0], "fontName", None) == name:
                groups[-1].append(item)
            else:
                groups.append([item])
        if not any(_needs_shaping(g) for g in groups):
            return w
        new = makeShapedFragWord(w)([])
        total = 0.0
        for group in groups:
            frag = group[0][0]
            face: str = getattr(frag, "fontName", None) or ""
            size = getattr(frag, "fontSize", 12)
            text = "".join(t for f, t in group if not hasattr(f, "cbDefn"))
            if not _needs_shaping(group):
                new.extend(tuple(item) for item in group)
                total += pdfmetrics.stringWidth(text, face, size) if face else 0
                continue
            if any(script in face for script in _RTL_JOINING):
                group = [(f, t[::-1]) for f, t in reversed(group)]
                text = text[::-1]
            # forced: a sequence a face draws as one glyph it already has (a skin tone on a monochrome emoji)
            # is shaped too, not left as two glyphs
            shaped = original([pdfmetrics.stringWidth(text, face, size), *group], *args, **{**kwargs, "force": True})
            total += shaped[0]
            font = pdfmetrics.getFont(face)
            for f, s in shaped[1:]:
                data = getattr(s, "__shapeData__", None)
                if data is None:
                    new.append((f, s))
                    continue
                clusters = sorted({d.cluster for d in data if d.cluster >= 0})
                ends = {c: (clusters[i + 1] if i + 1 < len(clusters) else len(text)) for i, c in enumerate(clusters)}
                chars = list(s)
                i = 0
                while i < len(data):
                    j = i
                    while j < len(data) and data[j].cluster == data[i].cluster:
                        j += 1
                    source = text[data[i].cluster : ends.get(data[i].cluster, len(text))]
                    if "".join(chars[i:j]) != source:
                        for k in range(i, j):
                            gid = font.face.charToGlyph.get(ord(chars[k]), 0)
                            chars[k] = _private(font, gid, source, k - i, font.face.charWidths.get(ord(chars[k]), 0))
                    i = j
                shaped_str = ShapedStr("".join(chars), shapeData=data)
                # The piece's own text, in the order it is read: the text layer's ActualText (`_with_actual`).
                shaped_str._actual = "".join(text[c : ends.get(c, len(text))] for c in clusters)
                new.append((f, shaped_str))
        new.insert(0, total)
        return new

    return shape


SHAPED_FACES: set[str] = set()


def _needs_shaping(group: list[Any]) -> bool:
    """Whether a run of one face is shaped: the faces of scripts that need it, and any run with a
    combining mark, which HarfBuzz places on its letter (drawn glyph by glyph it stands beside it)."""
    frag = group[0][0]
    if hasattr(frag, "cbDefn"):
        return False
    return getattr(frag, "fontName", "") in SHAPED_FACES or any(stacked(t) for _, t in group)


def _keep_actual_when_joined(cls: Any) -> None:
    """A line joins its words of one face (`word + " " + word`): the joined piece keeps their text."""
    if getattr(cls, "_joins_actual", False):
        return
    add, radd = cls.__add__, cls.__radd__

    def actual(s: Any) -> str:
        return getattr(s, "_actual", None) or str(s)

    def joined(result: Any, *parts: Any) -> Any:
        if any(getattr(p, "_actual", None) for p in parts):
            result._actual = "".join(actual(p) for p in parts)
        return result

    cls.__add__ = lambda self, other: joined(add(self, other), self, other)
    cls.__radd__ = lambda self, other: joined(radd(self, other), other, self)
    cls._joins_actual = True


_TJ_ARRAY = re.compile(r"\[((?:\((?:\\.|[^\\)])*\)|[^\]\(])*)\] TJ")
_TJ_PART = re.compile(r"\((?:\\.|[^\\)])*\)|(-\d+(?:\.\d+)?)")
_STEP = 50  # thousandths of an em: a fifth of a narrow space


def _in_small_steps(array: re.Match[str]) -> str:
    """A TJ array with each move to the right (a mark placed after its letter's advance, a Lithuanian
    tilde on `į`) split into steps under a word space: a reader of the PDF's text (pypdf) takes any
    one move to the right wider than half a space for a space between words. The glyphs land where
    they did."""
    def split(part: re.Match[str]) -> str:
        if part.group(1) is None or float(part.group(1)) > -_STEP:
            return part.group()
        rest, steps = -float(part.group(1)), []
        while rest > 0:
            steps.append(min(rest, _STEP))
            rest -= _STEP
        return " ".join(f"-{step:g}" for step in steps)

    return "[" + _TJ_PART.sub(split, array.group(1)) + "] TJ"


def _with_actual(original: Callable[..., str]) -> Callable[..., str]:
    """reportlab's text operators for a piece of text, marked with the text it stands for where shaping
    drew it from glyphs that do not spell it (a Tamil two-part vowel drawn on both sides of its consonant,
    a keycap): a reader of the PDF (copy, search, pdftotext) gets the characters typed, in order."""
    def format_text(self: Any, text: str) -> str:
        out = original(self, text)
        if "TJ" in out:
            out = _TJ_ARRAY.sub(_in_small_steps, out)
        if getattr(self, "_in_marked_line", False) or not text:  # a marked line's text covers its pieces
            return out
        if not getattr(self._canvas, "_studio_pages", False):
            return out  # another program's PDF in this process (a Fountain reader's): nothing settles its pages
        actual = getattr(text, "_actual", None)
        opening = _placeholder(self._canvas, actual or str(text), plain=not actual)
        return f"{opening} {out} EMC %studio-end-{len(self._canvas._studio_lines) - 1}\n"

    return format_text


def _to_unicode_cmap(fontname: str, subset) -> str:
    """reportlab's ToUnicode map, with characters beyond U+FFFF written as UTF-16 pairs, as the PDF
    reference asks (reportlab writes them as five hex digits, so an emoji prints but any reader copying
    the text gets the wrong character), and each shaped cluster's code mapped to its own text."""
    def target(v: int) -> str:
        text = _ACTUAL.get(v, chr(v))
        return text.encode("utf-16-be").hex().upper()

    # A glyph that carries no text of its own (the second half of a cluster) maps to nothing, not to its code.
    pairs = ["<%02X> <%s>" % (i, target(v)) for i, v in enumerate(subset)]
    return "\n".join(
        ["/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap", "/CIDSystemInfo",
         f"<< /Registry ({fontname})", f"/Ordering ({fontname})", "/Supplement 0", ">> def",
         f"/CMapName /{fontname} def", "/CMapType 2 def", "1 begincodespacerange",
         "<00> <%02X>" % (len(subset) - 1), "endcodespacerange", "%d beginbfchar" % len(pairs), *pairs,
         "endbfchar", "endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"]
    )


def font_files() -> list[str]:
    """Every fallback face's file, in the order they are tried."""
    import manimgx_fonts
    import matplotlib

    noto = os.path.dirname(manimgx_fonts.__file__)
    first = [f for f in sorted(glob.glob(os.path.join(noto, "NotoSans*.ttf")))
             if os.path.basename(f) not in _NOTO_LATER + _NOTO_SKIP]
    # Debian's script faces before DejaVu, which has some of those scripts without their joining forms;
    # its Latin, symbol and maths faces after, where the PyPI ones stand.
    core = noto_core_files()
    general = [f for f in core if os.path.basename(f).startswith(_NOTO_GENERAL)]
    mpl = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
    files = first + [f for f in core if f not in general]
    files += [os.path.join(mpl, "DejaVuSansMono.ttf"), os.path.join(mpl, "DejaVuSans.ttf")]
    files += [os.path.join(noto, name) for name in _NOTO_LATER]
    for pattern in _SYSTEM_FONTS:
        files += sorted(glob.glob(pattern, recursive=True))
    mono = os.path.join(NOTO_CORE, "NotoSansMono-Regular.ttf")  # last: it sets letters with marks (MARK_FACES)
    return files + general + ([mono] if os.path.exists(mono) else [])


def noto_core_files(folder: str = NOTO_CORE) -> list[str]:
    """Debian's Noto faces, one a script: the regular Sans face, or the Serif one where a script has no
    Sans (Tibetan); interface, display and monospaced variants add no script."""
    regular = [os.path.basename(f) for f in glob.glob(os.path.join(folder, "Noto*-Regular.ttf"))]
    regular = [f for f in regular if not any(v in f for v in ("UI-", "Display", "Mono"))]
    sans = {f[len("NotoSans"):] for f in regular if f.startswith("NotoSans")}
    keep = [f for f in regular if f.startswith("NotoSans") or (f.startswith("NotoSerif") and f[len("NotoSerif"):] not in sans)]
    return [os.path.join(folder, f) for f in sorted(keep)]


@lru_cache(maxsize=1)
def _registered() -> tuple[tuple[tuple[str, frozenset[int]], ...], frozenset[int]]:
    import reportlab.platypus.paragraph as paragraph
    import screenplain.export.pdf as screenplain_pdf
    from reportlab.pdfbase import pdfmetrics, ttfonts
    from reportlab.pdfgen import textobject
    from reportlab.pdfbase.ttfonts import TTFont

    ttfonts.makeToUnicodeCMap = _to_unicode_cmap
    textobject.PDFTextObject._formatText = _with_actual(textobject.PDFTextObject._formatText)
    _keep_actual_when_joined(ttfonts.ShapedStr)
    paragraph.shapeFragWord = _shape_by_font(ttfonts.shapeFragWord)

    prime = os.path.join(os.path.dirname(screenplain_pdf.__file__), "courier_prime")
    faces = {"": "Courier Prime", " Bold": "Courier Prime Bold", " Italic": "Courier Prime Italic",
             " Bold Italic": "Courier Prime Bold Italic"}
    for suffix, file in faces.items():
        # Shapable, so that a paragraph set in it shapes the runs of the faces that need it.
        pdfmetrics.registerFont(TTFont(BASE + suffix, os.path.join(prime, file + ".ttf"), shapable=True))
    pdfmetrics.registerFontFamily(BASE, normal=BASE, bold=BASE + " Bold", italic=BASE + " Italic",
                                  boldItalic=BASE + " Bold Italic")
    base_chars = frozenset(pdfmetrics.getFont(BASE).face.charToGlyph)
    fallbacks = []
    seen = set()
    for file in font_files():
        name = "studio-" + os.path.splitext(os.path.basename(file))[0].replace("[wght]", "").replace("-Regular", "")
        if name in seen:
            continue
        try:
            # Every face can be shaped (a letter with a combining mark is, in any face); a script's face is
            # shaped always.
            font = TTFont(name, file, shapable=True)
        except Exception:  # noqa: BLE001 - a font reportlab cannot read (CFF outlines, say) is skipped
            continue
        seen.add(name)
        if any(s in name for s in _SHAPED):
            SHAPED_FACES.add(name)
        pdfmetrics.registerFont(font)
        pdfmetrics.registerFontFamily(name, normal=name, bold=name, italic=name, boldItalic=name)
        chars = frozenset(font.face.charToGlyph)
        if name in MARK_FACES:
            # A monospaced face gives its combining marks a letter's width, which shaping takes back; as
            # the PDF's widths they would tell a reader of its text there is a gap after each mark.
            for code in chars:
                if _stacks(chr(code)):
                    font.face.charWidths[code] = 0
        if file.startswith(NOTO_CORE) and not os.path.basename(file).startswith(_NOTO_GENERAL):
            # A script's face sets its own script: the punctuation, symbols and Latin it also carries
            # (Mongolian has the CJK full stop) stay with the faces of the text around them.
            chars = frozenset(c for c in chars if not _shared(c))
        fallbacks.append((name, chars))
    return tuple(fallbacks), base_chars


def fonts(warn: Callable[[str], None] | None = None) -> Fonts:
    fallbacks, base_chars = _registered()
    return Fonts(list(fallbacks), base_chars, warn=warn)


class Speech(Flowable):
    """A cue and its lines that may break across pages the way scripts do: the part left behind
    ends with (MORE) and the next page starts again with the cue and (CONT'D)."""

    def __init__(self, cue: Paragraph, body: list[Flowable], more: Callable[[], Flowable],
                 contd: Callable[[], Flowable], space_before: float = 0):
        super().__init__()
        self.cue, self.body, self.more, self.contd = cue, body, more, contd
        self.spaceBefore = space_before

    def _parts(self) -> list[Flowable]:
        return [self.cue, *self.body]

    def wrap(self, avail_width, avail_height):
        self.width = avail_width
        self.height = sum(f.wrap(avail_width, avail_height)[1] for f in self._parts())
        return self.width, self.height

    def draw(self):
        y = self.height
        for f in self._parts():
            _, h = f.wrap(self.width, self.height)
            y -= h
            f.drawOn(self.canv, 0, y)

    def split(self, avail_width, avail_height):
        more = self.more()
        room = avail_height - more.wrap(avail_width, avail_height)[1]
        used = self.cue.wrap(avail_width, avail_height)[1]
        first: list[Flowable] = []
        for i, f in enumerate(self.body):
            h = f.wrap(avail_width, avail_height)[1]
            if used + h <= room:
                first.append(f)
                used += h
                continue
            pieces = f.split(avail_width, room - used) if isinstance(f, Paragraph) else []
            if len(pieces) == 2:
                first.append(pieces[0])
                rest = [pieces[1], *self.body[i + 1 :]]
            else:
                rest = self.body[i:]
            if not any(isinstance(p, Paragraph) and not getattr(p, "_is_paren", False) for p in first):
                return []  # a cue alone at a page's foot: the whole speech moves on
            head = Speech(self.cue, first + [more], self.more, self.contd, self.spaceBefore)
            tail = Speech(self.contd(), rest, self.more, self.contd)
            return [head, tail]
        return [self]


FRAME_HEIGHT = 9 * inch


class Foot(Flowable):
    """Lines set at the foot of the page, whatever stands above them: a title page's source, contact
    and draft date. It takes the rest of the page; where there is not room for its lines, the next."""

    def __init__(self, lines: list[Flowable]):
        super().__init__()
        self.lines = lines

    def wrap(self, avail_width, avail_height):
        self.width = avail_width
        need = sum(f.wrap(avail_width, avail_height)[1] for f in self.lines)
        self.height = max(need, avail_height)
        return self.width, self.height

    def split(self, avail_width, avail_height):
        return []

    def draw(self):
        y = sum(f.wrap(self.width, self.height)[1] for f in self.lines)
        for f in self.lines:
            _, h = f.wrap(self.width, self.height)
            y -= h
            f.drawOn(self.canv, 0, y)


class Dual(Flowable):
    """Two speeches spoken at once, side by side (each built in its own half of the page's columns) and
    kept together: where the pair does not fit, it moves to the next page; where it is taller than a
    whole page, `fallback()` sets them one after the other."""

    def __init__(self, left: Flowable, right: Flowable, fallback: Callable[[], list[Flowable]],
                 space_before: float = 0):
        super().__init__()
        self.left, self.right, self.fallback = left, right, fallback
        self.spaceBefore = space_before

    def wrap(self, avail_width, avail_height):
        self.width = avail_width
        self.heights = (self.left.wrap(avail_width, avail_height)[1], self.right.wrap(avail_width, avail_height)[1])
        self.height = max(self.heights)
        return self.width, self.height

    def split(self, avail_width, avail_height):
        if avail_height < FRAME_HEIGHT - 1:
            return []  # the next page has room for the pair
        flows = self.fallback()
        if flows[0].wrap(avail_width, avail_height)[1] <= avail_height:
            return flows
        return [*flows[0].split(avail_width, avail_height), *flows[1:]]

    def draw(self):
        for f, h in zip((self.left, self.right), self.heights):
            f.drawOn(self.canv, 0, self.height - h)


class Pages(BaseDocTemplate):
    """Letter pages with a 1.5" binding margin; page numbers top right from the first page after
    the front matter (title page, and the cast page of a stage play)."""

    def __init__(self, path: str, front: int, number_from: int, title: str, author: str):
        # Every font is embedded: the canvas starts in Courier Prime, not reportlab's unembedded Helvetica.
        super().__init__(path, pagesize=(8.5 * inch, 11 * inch), title=title, author=author, creator="studio",
                         initialFontName=BASE)
        self.front, self.number_from = front, number_from
        frame = Frame(1.5 * inch, 1 * inch, 6 * inch, FRAME_HEIGHT, id="body",
                      leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
        self.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=self._number,
                                            onPageEnd=lambda canvas, doc: _settle_lines(canvas))])

    def _number(self, canvas, doc):
        canvas.setNamedCB(ACTUAL_CB, _mark_actual)
        canvas._studio_pages = True  # its pages' text is spelt when each is done (`_settle_lines`)
        number = doc.page - self.front
        if number >= self.number_from:
            canvas.setFont(BASE, 12)
            canvas.drawRightString(7.5 * inch, 10.5 * inch, f"{number}.")
