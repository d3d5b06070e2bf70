"""The PDF prints every script Noto covers and gives back what was typed: a font for each script (not a
box), emoji sequences drawn as one, shaped text copied and searched in the order it is read (pdftotext
and pypdf), marks above the letters clear the line above, and a NEL breaks the line in every format."""

from __future__ import annotations

import os
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from pypdf import PdfReader

from studio.export import export_run, render, typeset
from studio.export.pdf import DIALOGUE
from studio.export.script import build_script
from test_export_fountain import synthetic_run

needs_poppler = pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils is not installed (.ci/run installs it)")
needs_noto_core = pytest.mark.skipif(not os.path.isdir(typeset.NOTO_CORE),
                                     reason="Debian's fonts-noto-core is not installed (.ci/run installs it)")

# A word in each script the PyPI fonts lack, which printed as boxes without Debian's Noto faces.
SCRIPTS = {
    "Tibetan": "བོད་ཡིག", "Mongolian": "ᠮᠣᠩᠭᠣᠯ", "Syriac": "ܠܫܢܐ", "Thaana": "ދިވެހި", "N'Ko": "ߒߞߏ",
    "Ol Chiki": "ᱥᱟᱱᱛᱟᱲᱤ", "Tifinagh": "ⵜⴰⵎⴰⵣⵉⵖⵜ", "Cherokee": "ᏣᎳᎩ", "Canadian Syllabics": "ᓀᐦᐃᔭᐍᐏᐣ",
    "Yi": "ꆈꌠꁱꂷ", "Javanese": "ꦧꦱꦗꦮ", "Adlam": "𞤀𞤣𞤤𞤢𞤥", "Vai": "ꕙꔤ", "Runic": "ᚠᚢᚦ",
}
# Text whose glyphs do not spell it: two-part vowels drawn on both sides of the consonant, a keycap.
SHAPED = ["கொடு", "কোথায়", "1\ufe0f\u20e3", "नमस्ते"]


def _pdf(path: Path, lines: list[str], style=DIALOGUE, paragraphs: bool = False) -> Path:
    """The lines as one paragraph, or (`paragraphs`) each its own, as a playwright's lines would be."""
    f = typeset.fonts()
    texts = lines if paragraphs else ["\n".join(lines)]
    typeset.Pages(str(path), 0, 99, title="t", author="a").build([f.para(t, style, "a test") for t in texts])
    return path


def pdftotext(path: Path, *args: str) -> str:
    return subprocess.run(["pdftotext", "-enc", "UTF-8", *args, str(path), "-"], capture_output=True, text=True,
                          check=True).stdout


@needs_noto_core
def test_every_script_noto_covers_has_a_font():
    f = typeset.fonts()
    for name, word in SCRIPTS.items():
        letters = [c for c in word if unicodedata.category(c).startswith("L")]
        assert all(f.face(c) is not None for c in letters), name
    missing: list[str] = []
    typeset.fonts(missing.append).runs(" ".join(SCRIPTS.values()), "the test line")
    assert missing == []


@needs_noto_core
@needs_poppler
def test_the_scripts_print_and_read_back(tmp_path):
    text = pdftotext(_pdf(tmp_path / "scripts.pdf", list(SCRIPTS.values()), paragraphs=True))
    for name, word in SCRIPTS.items():
        if name == "Thaana":  # pdftotext sets a line's closing vowel mark apart (docs/exports.md)
            word, text = ("".join(c for c in t if unicodedata.category(c) != "Mn") for t in (word, text))
        assert word in text, name  # right-to-left ones too: each line is marked with its text


@needs_poppler
def test_shaped_text_reads_back_as_typed(tmp_path):
    """pdftotext reads the ActualText each shaped piece carries, pypdf the ToUnicode map: both give the
    characters typed, in order, with nothing between a consonant and its vowel."""
    path = _pdf(tmp_path / "shaped.pdf", [" ".join(SHAPED), "Tamil கொடு and Bengali কোথায় in a sentence."])
    poppler = " ".join(pdftotext(path).split())
    pypdf = " ".join("".join(page.extract_text() for page in PdfReader(path).pages).split())
    for word in SHAPED + ["Tamil கொடு and Bengali কোথায় in a sentence."]:
        assert word in poppler, (word, poppler)
        assert word.replace("\ufe0f", "") in pypdf.replace("\ufe0f", ""), (word, pypdf)


def test_emoji_sequences_are_one_glyph_each():
    """A keycap, a skin tone and a flag are shaped into the one glyph the emoji face has for each."""
    from reportlab.pdfbase import pdfmetrics

    f = typeset.fonts()
    for sequence in ("1\ufe0f\u20e3", "👍🏽", "🇫🇷", "👩\u200d👩\u200d👧\u200d👦"):
        runs = f.runs(sequence, "")
        assert [face for face, _ in runs] == [typeset.EMOJI_FACE], sequence
        p = f.para(sequence, DIALOGUE, "")
        p.wrap(400, 100)
        drawn = [str(t) for frag in p.blPara.lines[0].words for t in [getattr(frag, "text", "")] if t]
        glyphs = [c for c in "".join(drawn) if unicodedata.category(c) != "Mn"]
        face = pdfmetrics.getFont(typeset.EMOJI_FACE).face
        assert len([c for c in glyphs if ord(c) >= 0xF0000 or ord(c) in face.charToGlyph]) <= 2, (sequence, drawn)


@needs_poppler
def test_marks_above_the_letters_clear_the_line_above(tmp_path):
    """Two lines of Devanagari set in a 12-point dialogue column: the second line's tallest mark stays
    below the first line's lowest descender (pdftotext -bbox gives each word's box from its font)."""
    import re

    path = _pdf(tmp_path / "hindi.pdf", ["कमरा बहुत शांत था, और बारिश", "धीरे-धीरे खिड़कियों पर दस्तक"])
    layout = pdftotext(path, "-bbox-layout")
    lines = [(float(a), float(b)) for a, b in re.findall(r'<line xMin="[\d.]+" yMin="([\d.]+)" xMax="[\d.]+" yMax="([\d.]+)"', layout)]
    assert len(lines) == 2, layout
    (_, first_bottom), (second_top, _) = sorted(lines)
    assert second_top >= first_bottom - 0.5


@needs_poppler
def test_a_next_line_character_breaks_the_line_in_every_format(store, tmp_path):
    run_id = synthetic_run(store, ["One\x85Two", "Three\x85Four"])
    script = build_script(store, run_id)
    fountain = render(script, "fountain")
    assert "One\nTwo" in fountain and "Three\nFour" in fountain
    assert "Three\\\nFour" in render(script, "markdown")
    text = pdftotext(export_run(store, run_id, "pdf", out=tmp_path / "nel.pdf"))
    assert "One\nTwo" in text and "Three\nFour" in text


@needs_poppler
def test_a_right_to_left_line_copies_as_it_is_read(tmp_path):
    """Each right-to-left line is marked with its text in reading order: pdftotext gives the letters
    typed (not the joined forms drawn), line by line, top to bottom; pypdf the same words after NFKC."""
    from planted import ARABIC, HEBREW

    path = _pdf(tmp_path / "rtl.pdf", [ARABIC, HEBREW])
    # pdftotext marks the runs it turned round (RLE ... PDF), and the text layer closes a run with an
    # invisible mark (RLM, LRM): format characters, which no one typed; the rest is the typed text, in order.
    poppler = "".join(c for c in pdftotext(path) if unicodedata.category(c) != "Cf")
    typed_words = ARABIC.split() + HEBREW.split()
    assert poppler.split() == typed_words
    pypdf = unicodedata.normalize("NFKC", "".join(page.extract_text() for page in PdfReader(path).pages))
    # (pypdf sets a line's neutral characters, a comma, where they fall on the page: words are compared bare)
    assert all(word.strip(",.،") in pypdf for word in typed_words)


@needs_noto_core
def test_a_script_face_keeps_to_its_script():
    """Japanese punctuation and Latin stay with the faces of the text around them: Mongolian's face also
    has the CJK full stop, and set in it a Japanese sentence would take Mongolian's line spacing."""
    f = typeset.fonts()
    core = {os.path.splitext(os.path.basename(p))[0].replace("-Regular", "") for p in typeset.noto_core_files()}
    for ch in "、。「」a,.!":
        face = f.face(ch)
        assert face is None or face.removeprefix("studio-") not in core - {"NotoSans"}, (ch, face)
