"""What the playwright writes with the pen prints on every page: a speech's parenthetical and extension,
dual dialogue, and a direction's shape (centred, transition, lyric), in Markdown and both PDF layouts.

The lines are committed through the engine's one door (`Engine._commit`, origin "human") as the pen
commits them, and read back: Markdown with a CommonMark parser, the PDFs with pypdf (where each piece of
text is drawn, in which font) and a page rendered to PNG (pdftoppm) for the two columns of dual dialogue."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest
from pypdf import PdfReader

from studio.export import render
from studio.export.pdf import render_pdf
from studio.export.script import Direction, Speech, build_script
from studio.export.stage import render_play_pdf
from studio.store import events as ev
from test_export_markdown_pdf import md_blocks
from test_export_layouts import norm
from test_export_title_page import drawn, find

DPI = 72  # a point a pixel
IMAGES = Path(__file__).parents[1] / "docs" / "images"
ASKED = "Where were you on the night the lamp went out, and who was with you?"
ANSWERED = "At the harbour, alone, watching the boats come in one after another until dawn."


@pytest.fixture
def pen_run(store, gateway):
    """A run written by hand: a heading, a voice over with a parenthetical, two speeches at once, and a
    direction of every shape."""
    from conftest import make_cast
    from studio.engine import Engine

    engine = Engine.create(store, make_cast(turns=1, epilogue=False), {}, gateway=gateway)

    def say(kind, text, **fields):
        return engine._commit(kind, text, origin="human", scene=1, turn=1, **fields)

    say(ev.SCENE, "INT. HARBOUR OFFICE - NIGHT")
    say(ev.DIRECTION, "Rain on the window.")
    say(ev.STAGE, "Tell me.", role="other", character="Sasha", data={"parenthetical": "quietly", "extension": "V.O."})
    say(ev.STAGE, ASKED, role="other", character="Sasha")
    say(ev.STAGE, ANSWERED, role="ego", character="Jenny", data={"dual": True, "parenthetical": "at once"})
    say(ev.DIRECTION, "Row, row, row your boat", data={"shape": "lyric"})
    say(ev.DIRECTION, "THE END OF THE NIGHT", data={"shape": "centered"})
    say(ev.DIRECTION, "Cut to:", data={"shape": "transition"})
    return build_script(store, engine.run_id)


def test_the_script_carries_what_the_pen_wrote(pen_run):
    speeches = [b for b in pen_run.blocks if isinstance(b, Speech)]
    assert (speeches[0].extension, speeches[0].parenthetical) == ("V.O.", "quietly")
    assert speeches[2].dual and pen_run.spoken_with(speeches[2]) is speeches[1]
    assert pen_run.spoken_with(speeches[1]) is None
    assert [b.shape for b in pen_run.blocks if isinstance(b, Direction)] == ["action", "lyric", "centered", "transition"]


def test_markdown_prints_cues_parentheticals_dual_and_shapes(pen_run):
    text = render(pen_run, "markdown")
    blocks = md_blocks(text)  # and nothing a model's text must never make: no HTML, code or links
    plain = [b[1] for b in blocks]
    assert "Sasha (V.O.): (quietly) Tell me." in plain
    assert f"Jenny: (at the same time as Sasha) (at once) {ANSWERED}" in plain
    assert "**THE END OF THE NIGHT**" in text and ("p", "THE END OF THE NIGHT", False) in blocks
    assert ("p", "CUT TO:", False) in blocks  # a transition in capitals, upright
    assert ("p", "♪ Row, row, row your boat", True) in blocks  # a lyric in italics
    assert ("p", "Rain on the window.", True) in blocks


def test_screenplay_pdf_sets_cue_extension_parenthetical_and_shapes(pen_run, tmp_path):
    path = tmp_path / "screen.pdf"
    render_pdf(pen_run, path)
    pieces = drawn(path, 1)
    inch = 72
    cue = find(pieces, "SASHA (V.O.)")
    paren = find(pieces, "(quietly)")
    assert abs(cue[1] - (1.5 + 2.2) * inch) < 2  # the cue where cues stand, its extension beside it
    assert paren[2] < cue[2] and abs(paren[1] - (1.5 + 1.6) * inch) < 2  # under the cue, in its column
    transition = find(pieces, "CUT TO:")
    width = len("CUT TO:") * 7.2  # Courier: 0.6 em a character at 12 pt
    assert abs(transition[1] + width - 7.5 * inch) < 2  # against the right margin
    centred = find(pieces, "THE END OF THE NIGHT")
    middle = centred[1] + len(centred[0]) * 7.2 / 2
    assert abs(middle - 4.5 * inch) < 4  # centred on the measure
    assert "Italic" in find(pieces, "Row, row")[3] and "Italic" not in find(pieces, "Rain on")[3]


@pytest.mark.skipif(not shutil.which("pdftoppm"), reason="pdftoppm (poppler-utils) is not installed")
def test_dual_dialogue_sits_in_two_columns_on_the_page(pen_run, tmp_path):
    from PIL import Image

    path = tmp_path / "screen.pdf"
    render_pdf(pen_run, path)
    pieces = drawn(path, 1)
    left, right = [p for p in pieces if p[0] == "SASHA"][0], [p for p in pieces if p[0] == "JENNY"][0]
    assert abs(left[2] - right[2]) < 1 and right[1] > left[1] + 2 * 72  # both cues on one line, apart
    subprocess.run(["pdftoppm", "-png", "-r", str(DPI), "-f", "2", "-l", "2", "-singlefile", str(path),
                    str(tmp_path / "page")], check=True)
    image = Image.open(tmp_path / "page.png").convert("L")
    height = image.size[1]
    # the rows of the pair: from its cues down to the last line of the longer speech
    top = round(height - left[2]) - 10
    bottom = top + 5 * 12  # each speech is a cue and three or four lines in its half of the page
    ink = lambda x0, x1: [y for y in range(top, bottom) for x in range(x0, x1) if image.getpixel((x, y)) < 128]  # noqa: E731
    inch = DPI
    gutter = ink(round(4.32 * inch), round(4.58 * inch))
    left_ink, right_ink = ink(round(1.5 * inch), round(4.3 * inch)), ink(round(4.6 * inch), round(7.5 * inch))
    assert not gutter, "a line crosses between the two columns"
    assert left_ink and right_ink
    # the two speeches run down the page side by side, over the same rows
    assert len(set(left_ink) & set(right_ink)) >= 3 * 12
    # the page for the manual (docs/exports.md shows it)
    subprocess.run(["pdftoppm", "-png", "-gray", "-r", "50", "-f", "2", "-l", "2", "-singlefile", str(path),
                    str(IMAGES / "screenplay-pen")], check=True)


def test_dual_dialogue_too_tall_for_a_page_is_set_one_after_the_other(store, gateway, tmp_path):
    from conftest import make_cast
    from studio.engine import Engine

    engine = Engine.create(store, make_cast(turns=1, epilogue=False), {}, gateway=gateway)
    long = " ".join(["We waited for the boats."] * 160)
    engine._commit(ev.STAGE, long, origin="human", role="other", character="Sasha", scene=1, turn=1)
    engine._commit(ev.STAGE, long, origin="human", role="ego", character="Jenny", scene=1, turn=1, data={"dual": True})
    path = tmp_path / "long.pdf"
    render_pdf(build_script(store, engine.run_id), path)
    text = norm(" ".join(page.extract_text() for page in PdfReader(str(path)).pages))
    assert "(at the same time as Sasha)" in text and text.count("boats") == 320


def test_stage_play_sets_the_parenthetical_after_the_name_and_marks_dual(pen_run, tmp_path):
    path = tmp_path / "stage.pdf"
    render_play_pdf(pen_run, path)
    pieces = [p for page in range(2, len(PdfReader(str(path)).pages)) for p in drawn(path, page)]
    cue = find(pieces, "SASHA (V.O.)")
    paren = find(pieces, "(quietly)")
    assert abs(paren[2] - cue[2]) < 1  # on the name's line, after it
    text = norm(" ".join(page.extract_text() for page in PdfReader(str(path)).pages))
    assert "SASHA (V.O.) (quietly) Tell me." in text
    assert "Italic" in paren[3]
    jenny = [p for p in pieces if p[0].startswith("JENNY")][0]
    marked = find(pieces, "(at the same time as Sasha; at once)")
    assert abs(marked[2] - jenny[2]) < 1  # a stage play's one column: after the other speech, marked
    lyric, centred = find(pieces, "Row, row"), find(pieces, "THE END OF THE NIGHT")
    assert "Italic" in lyric[3] and lyric[1] < 1.6 * 72  # sung across the dialogue's measure
    assert abs(centred[1] + len(centred[0]) * 7.2 / 2 - 4.5 * 72) < 4
    assert find(pieces, "CUT TO:")
