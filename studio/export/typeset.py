"""What both PDF layouts share: fonts for every script, right-to-left lines, pages, split speeches.

Courier Prime (bundled with screenplay tools, the face theatres and studios expect) has Latin
only. Every other character is set in the first font that has it: DejaVu Sans Mono, then DejaVu
Sans (both ship with matplotlib: Greek, Cyrillic, Hebrew, Arabic, many symbols and emoji), then
TrueType fonts found on the system (Droid Sans Fallback, Noto: CJK). A character no font has is
printed as its code point, `[U+1F9FF]`, and reported with the line it is in: never a blank.

A line with right-to-left text is shaped (arabic-reshaper joins Arabic letters) and put in
display order (python-bidi) before it is set, since reportlab draws glyphs left to right.
"""

from __future__ import annotations

import glob
import os
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import lru_cache
from xml.sax.saxutils import escape

from reportlab.lib.units import inch
from reportlab.platypus import BaseDocTemplate, Flowable, Frame, PageTemplate, Paragraph

BASE = "Courier Prime"
_SYSTEM_FONTS = ("/usr/share/fonts/**/DroidSansFallback*.ttf", "/usr/share/fonts/**/Noto*.ttf")


@dataclass
class Fonts:
    """Registered faces in the order they are tried; `missing` collects what none could print."""

    fallbacks: list[tuple[str, frozenset[int]]]
    base_chars: frozenset[int]
    missing: list[str] = field(default_factory=list)
    warn: Callable[[str], None] | None = None

    def face(self, ch: str) -> str | None:
        code = ord(ch)
        if code in self.base_chars or ch in "\n\t ":
            return BASE
        for name, chars in self.fallbacks:
            if code in chars:
                return name
        return None

    def markup(self, text: str, where: str, italic: bool = False, bold: bool = False) -> str:
        """`text` as reportlab paragraph markup: shaped, in display order, each run in a font that has it."""
        text = visual(unicodedata.normalize("NFC", text))
        runs: list[tuple[str | None, str]] = []
        for ch in text:
            if unicodedata.category(ch) == "Cf" or "\ufe00" <= ch <= "\ufe0f":
                # Zero-width marks, joiners and variation selectors have no glyph of their own and
                # reportlab composes no sequences: on paper they would only show up as codes.
                continue
            face = self.face(ch)
            if face is None:
                ch = f"[U+{ord(ch):04X}]"
                message = f"{where}: no font has {ch}; it is printed as its code"
                if message not in self.missing:
                    self.missing.append(message)
                    if self.warn:
                        self.warn(message)
                face = BASE
            if runs and runs[-1][0] == face:
                runs[-1] = (face, runs[-1][1] + ch)
            else:
                runs.append((face, ch))
        out = []
        for face, chunk in runs:
            chunk = escape(chunk)
            if face != BASE:
                chunk = f'<font name="{face}">{chunk}</font>'
            out.append(chunk)
        html = "".join(out)
        if italic:
            html = f"<i>{html}</i>"
        if bold:
            html = f"<b>{html}</b>"
        return html


def _is_rtl(text: str) -> bool:
    return any(unicodedata.bidirectional(c) in ("R", "AL") for c in text)


def visual(text: str) -> str:
    """Right-to-left runs shaped and reordered for left-to-right drawing; other text untouched."""
    if not _is_rtl(text):
        return text
    import arabic_reshaper
    from bidi.algorithm import get_display

    try:
        return "\n".join(get_display(arabic_reshaper.reshape(line)) for line in text.split("\n"))
    except Exception:  # noqa: BLE001 - python-bidi rejects some rare scripts: print them in logical order
        return text


def _to_unicode_cmap(fontname: str, subset) -> str:
    """reportlab's ToUnicode map with characters beyond U+FFFF written as UTF-16 pairs, as the PDF
    reference asks: reportlab writes them as five hex digits, so an emoji prints but any reader
    copying the text gets the wrong character."""
    pairs = ["<%02X> <%s>" % (i, chr(v).encode("utf-16-be").hex().upper()) for i, v in enumerate(subset)]
    return "\n".join(
        ["/CIDInit /ProcSet findresource begin", "12 dict begin", "begincmap", "/CIDSystemInfo",
         f"<< /Registry ({fontname})", f"/Ordering ({fontname})", "/Supplement 0", ">> def",
         f"/CMapName /{fontname} def", "/CMapType 2 def", "1 begincodespacerange",
         "<00> <%02X>" % (len(subset) - 1), "endcodespacerange", "%d beginbfchar" % len(subset), *pairs,
         "endbfchar", "endcmap", "CMapName currentdict /CMap defineresource pop", "end", "end"]
    )


@lru_cache(maxsize=1)
def _registered() -> tuple[tuple[tuple[str, frozenset[int]], ...], frozenset[int]]:
    import matplotlib
    import screenplain.export.pdf as screenplain_pdf
    from reportlab.pdfbase import pdfmetrics, ttfonts
    from reportlab.pdfbase.ttfonts import TTFont

    ttfonts.makeToUnicodeCMap = _to_unicode_cmap

    prime = os.path.join(os.path.dirname(screenplain_pdf.__file__), "courier_prime")
    faces = {"": "Courier Prime", " Bold": "Courier Prime Bold", " Italic": "Courier Prime Italic",
             " Bold Italic": "Courier Prime Bold Italic"}
    for suffix, file in faces.items():
        pdfmetrics.registerFont(TTFont(BASE + suffix, os.path.join(prime, file + ".ttf")))
    pdfmetrics.registerFontFamily(BASE, normal=BASE, bold=BASE + " Bold", italic=BASE + " Italic",
                                  boldItalic=BASE + " Bold Italic")
    base_chars = frozenset(pdfmetrics.getFont(BASE).face.charToGlyph)
    mpl = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
    files = [os.path.join(mpl, "DejaVuSansMono.ttf"), os.path.join(mpl, "DejaVuSans.ttf")]
    for pattern in _SYSTEM_FONTS:
        files += sorted(glob.glob(pattern, recursive=True))
    fallbacks = []
    for file in files:
        name = "studio-" + os.path.splitext(os.path.basename(file))[0]
        try:
            font = TTFont(name, file)
        except Exception:  # noqa: BLE001 - a font reportlab cannot read (CFF outlines, say) is skipped
            continue
        pdfmetrics.registerFont(font)
        pdfmetrics.registerFontFamily(name, normal=name, bold=name, italic=name, boldItalic=name)
        fallbacks.append((name, frozenset(font.face.charToGlyph)))
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


class Pages(BaseDocTemplate):
    """Letter pages with a 1.5" binding margin; page numbers top right from the first page after
    the front matter (title page, and the cast page of a stage play)."""

    def __init__(self, path: str, front: int, number_from: int, title: str, author: str):
        super().__init__(path, pagesize=(8.5 * inch, 11 * inch), title=title, author=author, creator="studio")
        self.front, self.number_from = front, number_from
        frame = Frame(1.5 * inch, 1 * inch, 6 * inch, 9 * inch, id="body",
                      leftPadding=0, rightPadding=0, topPadding=0, bottomPadding=0)
        self.addPageTemplates([PageTemplate(id="page", frames=[frame], onPage=self._number)])

    def _number(self, canvas, doc):
        number = doc.page - self.front
        if number >= self.number_from:
            canvas.setFont(BASE, 12)
            canvas.drawRightString(7.5 * inch, 10.5 * inch, f"{number}.")
