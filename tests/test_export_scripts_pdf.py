"""Both PDF layouts print the planted run in every writing system: pdftotext reads every line back in
order (after NFKC, which folds Arabic presentation forms and the like), no character is printed as a
code, every font is embedded, right-to-left paragraphs are right-aligned and read top to bottom, and
shaped scripts come back in logical order. Page images of each script go to docs/images/ for the manual."""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
from pathlib import Path

import pytest

from planted import ARABIC, EMOJI, HEBREW, HINDI, KOREAN, THAI, planted_run
from studio.export import export_run, typeset
from studio.export.script import build_script
from test_export_readers import stage_lines

IMAGES = Path(__file__).parent.parent / "docs" / "images"

needs_poppler = pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils is not installed (.ci/run installs it)")


def fonts_present() -> list[str]:
    """What the planted corpus needs that this machine lacks, by script."""
    f = typeset.fonts()
    wanted = {"Chinese (fonts-droid-fallback)": "静", "Korean (fonts-nanum)": "방", "Devanagari": "क",
              "Thai": "ห", "Arabic": "ع", "Hebrew": "ש", "emoji": "😀"}
    return [name for name, ch in wanted.items() if f.face(ch) is None]


def squeeze(text: str) -> str:
    """Text as compared: NFKC, format characters (bidi marks, joiners) and all white space dropped, so
    a line wrapped anywhere, in any script, still reads as itself."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(c for c in text if not c.isspace() and unicodedata.category(c) != "Cf")


_STRONG_R = "\u0590-\u08ff\ufb1d-\ufdff\ufe70-\ufeff"


def read_line(line: str, rtl: bool) -> str:
    """A line of pdftotext as a reader of a paragraph in that direction reads it. pdftotext writes a line
    in the direction most of its page reads: runs of the other direction between RLE (or LRE) and PDF
    marks, each in logical order, and the runs, words and neutral characters between them (a comma)
    in the order they stand on the page from that side. A line of a paragraph of the other direction is
    read from its own side: those pieces in reverse."""
    mark = "\u202b" if rtl else "\u202a"
    if mark not in line:
        return line
    # the page's own direction's words (with the spaces and digits between them) stay whole; else alone
    word = rf"[^\W_\u0660-\u0669{_STRONG_R}]" if rtl else rf"[{_STRONG_R}]"
    pieces: list[str] = []
    for i, chunk in enumerate(re.split(rf"{mark}(.*?)\u202c", line)):
        if i % 2:
            pieces.append(chunk)  # a run of the paragraph's direction, already in logical order
        else:
            pieces += re.findall(rf"{word}(?:[^\u0660-\u0669{mark}]*{word})?|[\u0660-\u0669]+|.", chunk)
    return "".join(reversed(pieces))


def pdftotext(path: Path, *pages: int) -> str:
    args = ["pdftotext", "-enc", "UTF-8"]
    if pages:
        args += ["-f", str(pages[0]), "-l", str(pages[-1])]
    return subprocess.run([*args, str(path), "-"], capture_output=True, text=True, check=True).stdout


def readings(text: str) -> tuple[str, str]:
    """The squeezed text read as left-to-right paragraphs and as right-to-left ones, line by line: each
    printed line keeps its length in both, so a position in one is the same place in the other. What a
    page adds where a paragraph crosses it (the page number, (MORE), the cue again with (CONT'D)) is
    left out, so the paragraph reads on."""
    text = re.sub(r"\f\s*\d+\.\n", "\f", text)
    lines = [line for line in text.split("\n") if line.strip() != "(MORE)" and not line.rstrip().endswith("(CONT'D)")]
    return ("".join(squeeze(read_line(line, False)) for line in lines),
            "".join(squeeze(read_line(line, True)) for line in lines))


def mixed(line: str) -> bool:
    kinds = {unicodedata.bidirectional(c) for c in line}
    return "L" in kinds and bool(kinds & {"R", "AL"})


def right_to_left(line: str) -> bool:
    """A paragraph reads right to left when its first strong character does."""
    for c in line:
        kind = unicodedata.bidirectional(c)
        if kind in ("R", "AL", "L"):
            return kind != "L"
    return False


@pytest.fixture(scope="module")
def planted_pdfs(tmp_path_factory):
    from studio.store import Store

    missing = fonts_present()
    if missing:
        pytest.skip(f"fonts missing for {', '.join(missing)} (scripts/setup and .ci/run install them)")
    folder = tmp_path_factory.mktemp("planted")
    store = Store(folder / "studio.db")
    run_id = planted_run(store)
    warnings: list[str] = []
    paths = {fmt: export_run(store, run_id, fmt, out=folder / f"{fmt}.pdf", warn=warnings.append)
             for fmt in ("pdf", "play-pdf")}
    script = build_script(store, run_id)
    store.close()
    return script, paths, warnings


@needs_poppler
@pytest.mark.parametrize("fmt", ["pdf", "play-pdf"])
def test_every_planted_line_reads_back_in_order(planted_pdfs, fmt):
    script, paths, warnings = planted_pdfs
    assert warnings == []
    text = pdftotext(paths[fmt])
    assert "[U+" not in text
    ltr, rtl = readings(text)
    position = 0
    for kind, _who, line in stage_lines(script):
        if kind == "page_break":
            continue
        want = squeeze(f"({line})" if kind == "business" else line)
        if mixed(line):
            # pdftotext rebuilds a line holding both directions by the direction most of its page reads,
            # nesting the runs of the other: such a line is held to its words, each printed as written.
            for word in line.split():
                assert squeeze(word) in ltr or squeeze(word) in rtl, f"{fmt}: {word!r} of {line!r} is not printed"
            continue
        found = (rtl if right_to_left(line) else ltr).find(want, position)
        assert found >= 0, f"{fmt}: {line!r} is not printed after what came before it"
        position = found + len(want)


@pytest.mark.skipif(not shutil.which("pdffonts"), reason="poppler-utils is not installed (.ci/run installs it)")
@pytest.mark.parametrize("fmt", ["pdf", "play-pdf"])
def test_every_font_is_embedded(planted_pdfs, fmt):
    _, paths, _ = planted_pdfs
    rows = subprocess.run(["pdffonts", str(paths[fmt])], capture_output=True, text=True, check=True).stdout.splitlines()[2:]
    assert rows, "no fonts listed"
    assert all(row.split()[-5] == "yes" for row in rows), "\n".join(rows)  # the `emb` column
    assert not any("Helvetica" in row for row in rows)


@needs_poppler
@pytest.mark.parametrize("fmt", ["pdf", "play-pdf"])
@pytest.mark.parametrize("sample", [ARABIC, HEBREW], ids=["arabic", "hebrew"])
def test_a_wrapped_right_to_left_paragraph_reads_top_to_bottom_and_is_right_aligned(planted_pdfs, fmt, sample):
    _, paths, _ = planted_pdfs
    layout = subprocess.run(["pdftotext", "-bbox-layout", str(paths[fmt]), "-"], capture_output=True, text=True,
                            check=True).stdout
    whole = squeeze(sample)
    first, last = squeeze(sample.split()[0]), squeeze(sample.split()[-1])
    # The printed lines made only of the sample's words: (top, right edge, words), top to bottom.
    lines = []
    for top, right, body in re.findall(r'<line xMin="[\d.]+" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">(.*?)</line>',
                                       layout, re.S):
        # A right-to-left word comes in drawing order: read it either way. A line marked with its text
        # (ActualText) comes as one word: its words are split at spaces.
        words = [w for found in re.findall(r">([^<]*)</word>", body) for w in found.split() if squeeze(w)]
        forms = [next((f for f in (squeeze(w), squeeze(w[::-1])) if f in whole), "") for w in words]
        if len(forms) > 1 and all(forms):
            lines.append((float(top), float(right), forms))
    starts = [i for i, line in enumerate(lines) if first in line[2]]
    assert starts, "the paragraph's first word is not on a line of its own words"
    run = [lines[starts[0]]]
    for line in lines[starts[0] + 1 :]:
        if last in run[-1][2] or line[0] - run[-1][0] > 20:
            break
        run.append(line)
    assert len(run) >= 2, "the paragraph does not wrap"
    assert all(a[0] < b[0] for a, b in zip(run, run[1:])), "its lines are not in reading order, top to bottom"
    assert last in run[-1][2], "its last word is not on its last line"
    rights = [line[1] for line in run]
    assert max(rights) - min(rights) < 3, f"its lines are not right-aligned: {rights}"


@needs_poppler
def test_shaped_scripts_and_emoji_come_back_as_written(planted_pdfs):
    _, paths, _ = planted_pdfs
    text = readings(pdftotext(paths["pdf"]))[0]
    for sample in (HINDI, THAI, KOREAN, EMOJI):
        assert squeeze(sample) in text, sample


def test_a_glyph_no_font_has_prints_as_a_box_and_is_reported(tmp_path):
    from studio.store import Store

    from test_export_layouts import stage_run

    store = Store(tmp_path / "studio.db")
    run_id = stage_run(store, ["The sign read \u0378 and nothing else.", "Fine."])
    event = store.take(run_id)[2]
    warnings: list[str] = []
    path = export_run(store, run_id, "pdf", out=tmp_path / "g.pdf", warn=warnings.append)
    store.close()
    assert warnings == [f"Sasha's line (event {event.id}): no font has U+0378 (unnamed); it prints as a box"]
    if shutil.which("pdftotext"):
        text = pdftotext(path)
        assert "[U+" not in text and "The sign read \u0378 and nothing else." in " ".join(text.split())


@pytest.mark.skipif(not shutil.which("pdftoppm"), reason="pdftoppm (poppler-utils) is not installed")
@pytest.mark.parametrize("fmt", ["pdf", "play-pdf"])
def test_page_images_of_every_script_for_the_manual(planted_pdfs, fmt):
    """Renders the pages holding Korean, Hindi, Thai, wrapped Arabic and Hebrew and emoji into
    docs/images/ (docs/exports.md shows them), and checks each is not blank."""
    from PIL import Image

    _, paths, _ = planted_pdfs
    path = paths[fmt]
    count = int(re.search(r"Pages:\s+(\d+)", subprocess.run(["pdfinfo", str(path)], capture_output=True,
                                                               text=True).stdout).group(1))
    wanted = {"korean": KOREAN, "hindi": HINDI, "thai": THAI, "arabic": ARABIC, "hebrew": HEBREW, "emoji": EMOJI}
    IMAGES.mkdir(parents=True, exist_ok=True)
    found = {}
    for page in range(2, count + 1):
        text = squeeze(pdftotext(path, page))
        for name, sample in wanted.items():
            if name not in found and squeeze(sample)[:12] in text:
                found[name] = page
    assert set(found) == set(wanted)
    layout = "stage-play" if fmt == "play-pdf" else "screenplay"
    for page in sorted(set(found.values())):
        names = [name for name in wanted if found[name] == page]
        stem = IMAGES / f"{layout}-{'-'.join(names)}"
        subprocess.run(["pdftoppm", "-png", "-gray", "-r", "50", "-f", str(page), "-l", str(page), "-singlefile",
                        str(path), str(stem)], check=True)
        image = Image.open(f"{stem}.png").convert("L")
        assert sum(1 for px in image.tobytes() if px < 128) > 500
