"""Both PDF layouts print a line in each of thirty-odd writing systems (tests/world.py) and give it back as
typed to two independent readers of the text layer, pdftotext and pypdf: in order, no private-use
character, right-to-left lines with their digits, commas and hyphens where they were typed. Pages are
rendered to check what a reader of the paper sees: a letter and its combining marks drawn as one, an
unspaced Thai line broken between syllables."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest
from pypdf import PdfReader

from studio.export import export_run, typeset
from studio.export.pdf import DIALOGUE
from studio.export.typeset import letters
from test_export_scripts_pdf import both_layouts, squeeze
from world import DIRECTIONS, THAI_LONG, WORLD, world_run

needs_poppler = pytest.mark.skipif(not shutil.which("pdftotext") or not shutil.which("pdftoppm"),
                                   reason="poppler-utils is not installed (.ci/run installs it)")
needs_noto_core = pytest.mark.skipif(not os.path.isdir(typeset.NOTO_CORE),
                                     reason="Debian's fonts-noto-core is not installed (.ci/run installs it)")
# pypdf knows no right-to-left script beyond U+08FF and puts the words of a right-to-left line in the
# order they stand on the page (docs/exports.md): for these it is held to each word's letters.
RIGHT_TO_LEFT = ("Hebrew", "Arabic", "Arabic digits", "Syriac", "Thaana", "N'Ko", "Adlam")
PYPDF_WORDS = ("Hebrew", "Arabic", "Arabic digits", "Syriac", "Thaana")


def private_use(text: str) -> list[str]:
    return [f"U+{ord(c):04X}" for c in text if unicodedata.category(c) == "Co"]


def poppler(path: Path, *args: str) -> str:
    done = subprocess.run(["pdftotext", "-enc", "UTF-8", *args, str(path), "-"], capture_output=True, text=True,
                          check=True)
    assert "Mismatched" not in done.stderr, done.stderr
    return done.stdout


@pytest.fixture(scope="module")
def world_pdfs(tmp_path_factory):
    _, paths, warnings = both_layouts(tmp_path_factory.mktemp("world"), world_run)
    return paths, warnings


def expected() -> list[tuple[str, str]]:
    """The lines in the order they print: each spoken, and the directions again after theirs."""
    out = []
    for name, text in WORLD.items():
        out.append((name, text))
        if name in DIRECTIONS:
            out.append((name, text))
    return out


@needs_noto_core
@needs_poppler
@pytest.mark.parametrize("fmt", ["pdf", "play-pdf"])
def test_pdftotext_reads_every_line_as_typed_in_order(world_pdfs, fmt):
    paths, warnings = world_pdfs
    assert warnings == []
    text = poppler(paths[fmt])
    assert private_use(text) == []
    read, position = squeeze(text), 0
    for name, line in expected():
        found = read.find(squeeze(line), position)
        assert found >= 0, f"{fmt}: the {name} line {line!r} does not read back as typed after the line before it"
        position = found + len(squeeze(line))


@needs_noto_core
@pytest.mark.parametrize("fmt", ["pdf", "play-pdf"])
def test_pypdf_reads_every_line_as_typed(world_pdfs, fmt):
    """pypdf opens every page (a cluster's text in the ToUnicode map stays short), finds no private-use
    character, and reads each left-to-right line as typed, in order; of a right-to-left line in a
    script it knows, each word as typed."""
    paths, _ = world_pdfs
    text = "".join(page.extract_text() for page in PdfReader(paths[fmt]).pages)
    assert private_use(text) == []
    read, position = squeeze(text), 0
    bare = "".join(c for c in read if unicodedata.category(c)[0] in "LMN")
    for name, line in expected():
        if name in RIGHT_TO_LEFT:
            if name in PYPDF_WORDS:
                # each run of letters and digits (a comma or a dash stands where it falls on the page)
                for word in "".join(c if unicodedata.category(c)[0] in "LMN" else " "
                                    for c in unicodedata.normalize("NFKC", line)).split():
                    # pypdf takes Arabic-Indic digits for right-to-left letters and reads them backwards (the docs say)
                    word = re.sub("[\u0660-\u0669]+", lambda m: m.group()[::-1], word)
                    assert word in bare, f"{fmt}: the {name} word {word!r} is not read as typed"
            continue
        found = read.find(squeeze(line), position)
        assert found >= 0, f"{fmt}: pypdf does not read the {name} line {line!r} as typed after the line before it"
        position = found + len(squeeze(line))


def test_a_cue_in_a_right_to_left_script_reads_as_typed(tmp_path):
    """A cue is marked with its text like a line of dialogue: N'Ko's, which poppler does not turn round,
    came back backwards."""
    from studio.store import Store

    store = Store(tmp_path / "studio.db")
    run_id = world_run(store)
    path = export_run(store, run_id, "pdf", out=tmp_path / "cues.pdf")
    store.close()
    if shutil.which("pdftotext"):
        lines = [squeeze(line) for line in poppler(path).splitlines()]
        for name in ("ߒߞߏ", "ܐܦܪܝܡ", "דוד", "سارة"):
            assert name in lines, name


def _ink_width(path: Path) -> int:
    """The width in pixels of what is drawn on the first page, rendered at 600 dpi."""
    from PIL import Image

    stem = path.with_suffix("")
    subprocess.run(["pdftoppm", "-png", "-gray", "-r", "600", "-f", "1", "-l", "1", "-singlefile", str(path),
                    str(stem)], check=True)
    image = Image.open(f"{stem}.png").point(lambda v: 255 if v < 128 else 0)
    box = image.getbbox()
    assert box, "nothing drawn"
    return box[2] - box[0]


def _one_line(path: Path, text: str) -> Path:
    f = typeset.fonts()
    typeset.Pages(str(path), 0, 99, title="t", author="a").build([f.para(text, DIALOGUE, "a test")])
    return path


@needs_poppler
@pytest.mark.parametrize("letter, bare", [("ọ̀", "ọ"), ("ẹ́", "ẹ"), ("ą̃", "ą"), ("į̃", "į"), ("x\u0302", "x")])
def test_a_letter_and_its_marks_are_drawn_as_one(tmp_path, letter, bare):
    """Rendered, a letter with marks no precomposed letter has (Yoruba, Lithuanian) is as wide as the
    letter: its marks sit on it, not beside it as a letter of their own."""
    marked = _ink_width(_one_line(tmp_path / "marked.pdf", letter))
    plain = _ink_width(_one_line(tmp_path / "plain.pdf", bare))
    assert marked <= plain * 1.35, (letter, marked, plain)
    text = poppler(tmp_path / "marked.pdf")
    assert squeeze(text) == squeeze(letter)
    assert squeeze("".join(p.extract_text() for p in PdfReader(tmp_path / "marked.pdf").pages)) == squeeze(letter)


def test_a_word_breaks_between_its_syllables_only():
    """An unspaced word is cut where a line may break: a Thai vowel stays with its consonant, a letter
    with its marks, a conjunct whole."""
    assert letters("คำพูด") == ["คำ", "พู", "ด"]
    assert letters("เขาทำ") == ["เขา", "ทำ"]
    assert letters("ọ̀rọ̀") == ["ọ̀", "r", "ọ̀"]
    assert letters("क्षमा") == ["क्ष", "मा"]


@needs_noto_core
@needs_poppler
def test_a_long_unspaced_thai_line_breaks_between_syllables(tmp_path):
    """Left to reportlab, a Thai line with no space was cut glyph by glyph: sara am (`คำ`) was torn in two
    and its halves printed on two lines. Each printed line now starts with a consonant or a vowel
    written before one, reads back whole in both readers, and the page is drawn."""
    path = _one_line(tmp_path / "thai.pdf", THAI_LONG)
    lines = [line for line in poppler(path).splitlines() if line.strip()]
    assert len(lines) >= 3
    for line in lines:
        first = line.strip()[0]
        assert unicodedata.category(first) == "Lo" and first not in "\u0e30\u0e32\u0e33\u0e45\u0e46", line
    assert squeeze("".join(lines)) == squeeze(THAI_LONG)
    assert squeeze("".join(p.extract_text() for p in PdfReader(path).pages)) == squeeze(THAI_LONG)
    assert _ink_width(path) > 1000
