"""A portrait card for a character without an image: their initials large, their name below.

A PNG card needs an image, and a sheet written in the studio has none; a plain card with the
initials lets an app's character list tell them apart. The colour comes from the name, so the same
character always gets the same card. Faces are the ones the PDF export uses (DejaVu from matplotlib,
then system fonts such as Droid Sans Fallback for CJK), the first that has every letter drawn.
"""

from __future__ import annotations

import colorsys
import glob
import hashlib
import io
import os
import unicodedata
from functools import lru_cache

WIDTH, HEIGHT = 400, 600
_SYSTEM_FONTS = ("/usr/share/fonts/**/DroidSansFallback*.ttf", "/usr/share/fonts/**/Noto*.ttf")


def initials(name: str) -> str:
    """Up to two initials: the first letter of the first and last words ("Captain Ilse" -> "CI"); a name
    in a script without spaces between words gives its first character ("修女与女忍" -> "修")."""
    words = [w for w in name.split() if any(ch.isalnum() for ch in w)]
    if not words:
        return "?"
    letters = [next(ch for ch in w if ch.isalnum()) for w in (words[0], words[-1])][: 1 if len(words) == 1 else 2]
    return "".join(letters).upper()


@lru_cache(maxsize=1)
def _font_files() -> tuple[tuple[str, frozenset[int]], ...]:
    import matplotlib
    from fontTools.ttLib import TTFont

    mpl = os.path.join(matplotlib.get_data_path(), "fonts", "ttf")
    files = [os.path.join(mpl, "DejaVuSans-Bold.ttf"), os.path.join(mpl, "DejaVuSans.ttf")]
    for pattern in _SYSTEM_FONTS:
        files += sorted(glob.glob(pattern, recursive=True))
    found = []
    for file in files:
        try:
            cmap = TTFont(file, lazy=True, fontNumber=0)["cmap"].getBestCmap() or {}
        except Exception:  # noqa: BLE001 - a font that cannot be read is skipped
            continue
        found.append((file, frozenset(cmap)))
    return tuple(found)


def _font_for(text: str) -> str | None:
    wanted = {ord(ch) for ch in text if not ch.isspace() and unicodedata.category(ch)[0] != "C"}
    files = _font_files()
    for file, chars in files:
        if wanted <= chars:
            return file
    return max(files, key=lambda f: len(wanted & f[1]))[0] if files else None


def _colour(name: str) -> tuple[tuple[int, int, int], tuple[int, int, int]]:
    hue = int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:2], "big") / 65535
    return _rgb(hue, 0.28, 0.45), _rgb(hue, 0.88, 0.5)


def _rgb(hue: float, lightness: float, saturation: float) -> tuple[int, int, int]:
    red, green, blue = colorsys.hls_to_rgb(hue, lightness, saturation)
    return round(red * 255), round(green * 255), round(blue * 255)


def portrait_png(name: str) -> bytes:
    """A 400 x 600 PNG: the initials on a colour drawn from the name, the name beneath."""
    from PIL import Image, ImageDraw, ImageFont

    dark, light = _colour(name)
    image = Image.new("RGB", (WIDTH, HEIGHT), dark)
    draw = ImageDraw.Draw(image)
    draw.rounded_rectangle((24, 24, WIDTH - 24, HEIGHT - 24), radius=28, outline=light, width=4)

    def face(text: str, size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
        file = _font_for(text)
        return ImageFont.truetype(file, size) if file else ImageFont.load_default(size)

    mark = initials(name)
    draw.text((WIDTH / 2, HEIGHT * 0.42), mark, font=face(mark, 180 if len(mark) == 1 else 150), fill=light, anchor="mm")
    label = name if len(name) <= 40 else name[:39] + "…"
    size = 40
    font = face(label, size)
    while size > 14 and draw.textlength(label, font=font) > WIDTH - 80:
        size -= 2
        font = face(label, size)
    draw.text((WIDTH / 2, HEIGHT * 0.8), label, font=font, fill=light, anchor="mm")
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()
