"""Both PDF layouts print the planted run in every writing system: pdftotext reads every line back in
order (after NFKC, which folds Arabic presentation forms and the like), no character is printed as a
code, every font is embedded, right-to-left paragraphs are right-aligned and read top to bottom, and
shaped scripts come back in logical order. Page images of each script go to docs/images/ for the manual."""

from __future__ import annotations

import re
import shutil
from collections import Counter
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


def pdftotext(path: Path, *pages: int) -> str:
    args = ["pdftotext", "-enc", "UTF-8"]
    if pages:
        args += ["-f", str(pages[0]), "-l", str(pages[-1])]
    return subprocess.run([*args, str(path), "-"], capture_output=True, text=True, check=True).stdout


def reading(text: str) -> str:
    """pdftotext's text squeezed, as typed: right-to-left lines come back in the order they are read
    (their text layer is spelt so that poppler's own reordering gives them back so). What a page adds
    where a paragraph crosses it (the page number, (MORE), the cue again with (CONT'D)) is left out, so
    the paragraph reads on."""
    text = re.sub(r"\f\s*\d+\.\n", "\f", text)
    lines = [line for line in text.split("\n") if line.strip() != "(MORE)" and not line.rstrip().endswith("(CONT'D)")]
    return "".join(squeeze(line) for line in lines)


@pytest.fixture(scope="module")
def planted_pdfs(tmp_path_factory):
    missing = fonts_present()
    if missing:
        pytest.skip(f"fonts missing for {', '.join(missing)} (scripts/setup and .ci/run install them)")
    return both_layouts(tmp_path_factory.mktemp("planted"), planted_run)


def both_layouts(folder: Path, make_run):
    """The run `make_run(store)` writes, exported in both PDF layouts into `folder`: (the script, the
    paths by format, the warnings the export gave)."""
    from studio.store import Store

    store = Store(folder / "studio.db")
    run_id = make_run(store)
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
    read = reading(text)
    position = 0
    for kind, _who, line in stage_lines(script):
        if kind == "page_break":
            continue
        want = squeeze(f"({line})" if kind == "business" else line)
        found = read.find(want, position)
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
    assert whole in reading(pdftotext(paths[fmt])), "the paragraph does not read top to bottom as typed"
    # The printed lines made only of the sample's letters: (top, right edge, letters), top to bottom. Each
    # line's text layer is spelt for poppler's reordering, so its letters are compared as a bag.
    letters = sorted(c for c in whole if c.isalpha())
    run: list[tuple[float, float, list[str]]] = []
    for top, right, body in re.findall(r'<line xMin="[\d.]+" yMin="([\d.]+)" xMax="([\d.]+)" yMax="[\d.]+">(.*?)</line>',
                                       layout, re.S):
        mine = [c for c in squeeze("".join(re.findall(r">([^<]*)</word>", body))) if c.isalpha()]
        held = Counter(c for line in run for c in line[2]) + Counter(mine)
        run = run + [(float(top), float(right), mine)] if mine and not held - Counter(letters) else []
        if sum(len(line[2]) for line in run) == len(letters):
            break
    assert sum(len(line[2]) for line in run) == len(letters), "no run of lines holds the paragraph's letters"
    assert len(run) >= 2, "the paragraph does not wrap"
    assert all(a[0] < b[0] for a, b in zip(run, run[1:])), "its lines are not one under the other"
    rights = [line[1] for line in run]
    assert max(rights) - min(rights) < 3, f"its lines are not right-aligned: {rights}"


@needs_poppler
def test_shaped_scripts_and_emoji_come_back_as_written(planted_pdfs):
    _, paths, _ = planted_pdfs
    text = reading(pdftotext(paths["pdf"]))
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
