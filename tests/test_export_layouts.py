"""Final Draft, the stage-play PDF and every script in the PDFs, read back with independent tools.

FDX is parsed as XML; PDFs are read with pypdf (and pdftotext where poppler is installed). The
expectations come from the description of each layout in docs/exports.md, not from the renderers' code.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import unicodedata
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from pypdf import PdfReader

from conftest import make_cast
from studio.cli import main
from studio.export import export_run, render, typeset
from studio.export.script import build_script
from studio.store import Store
from studio.store import events as ev
from test_export_fountain import synthetic_run

ARTEFACTS = Path(__file__).parent / "artefacts"


def norm(text: str) -> str:
    """Text as compared: compatibility forms folded (Arabic presentation forms, full-width commas),
    bidi embedding marks (pdftotext adds them) dropped, runs of white space one space."""
    text = re.sub("[\u202a-\u202e\u2066-\u2069]", "", unicodedata.normalize("NFKC", text))
    return " ".join(text.split())


def pdf_pages(path: Path) -> list[str]:
    return [page.extract_text() for page in PdfReader(str(path)).pages]


def words_in_order(text: str, line: str, visual: bool = True) -> None:
    """Every word of `line` is in `text`, in order. A right-to-left line reads right to left on the
    page, so a reader that scans left to right (`visual`, pypdf) meets its words last first;
    pdftotext puts them back in reading order."""
    words = norm(line).split()
    if any(unicodedata.bidirectional(c) in ("R", "AL") for c in line) and visual:
        words = words[::-1]
    position = 0
    for word in words:
        found = text.find(word, position)
        assert found >= 0, f"{word!r} of {line!r} missing after position {position}"
        position = found + len(word)


def stage_run(store: Store, lines: list[str], epilogue: str = "It was a long time ago.", **play) -> int:
    cast = make_cast("interview.toml")
    cast.play = cast.play.model_copy(update={"layout": "stage", **play})
    run_id = store.create_run(cast.play.title, cast.play_path, cast.model_dump_json(), {})
    head = store.append(run_id, None, ev.SCENE, "Scene 1: A kitchen table, late afternoon.", scene=1, turn=1).id
    head = store.append(run_id, head, ev.DIRECTION, "Ben enters.", role="director", character="Ashley", scene=1, turn=1).id
    for i, line in enumerate(lines):
        who = ("other", "Sasha") if i % 2 == 0 else ("ego", "Jenny")
        head = store.append(run_id, head, ev.STAGE, line, role=who[0], character=who[1], scene=1, turn=i + 1).id
    head = store.append(run_id, head, ev.DIRECTION, "Ben exits.", role="director", character="Ashley", scene=1, turn=9).id
    if epilogue:
        store.append(run_id, head, ev.EPILOGUE, epilogue, role="ego", character="Jenny", scene=1, turn=9)
    return run_id


# -- Final Draft -------------------------------------------------------------------------------------


def fdx_paragraphs(text: str) -> tuple[list[tuple[str, str]], list[str], ET.Element]:
    root = ET.fromstring(text.encode("utf-8"))
    assert root.tag == "FinalDraft" and root.get("DocumentType") == "Script"
    body = [(p.get("Type"), "".join(t.text or "" for t in p.findall("Text"))) for p in root.find("Content")]
    title = ["".join(t.text or "" for t in p.findall("Text")) for p in root.find("TitlePage").find("Content")]
    while title and not title[0]:  # the blank lines that set the title a third of the way down
        title.pop(0)
    return body, title, root


def test_fdx_has_typed_paragraphs_and_a_title_page(store):
    line = 'Zoë said “not *that*” — <b>&amp; ]]> [[x]] \\ ok'
    run_id = synthetic_run(store, ["The room.", line, "", "", "", "*smirks* Fine. *(laughs)* Go on.", "", "Ωμέγα"])
    body, title, root = fdx_paragraphs(render(build_script(store, run_id), "fdx"))
    assert body[:5] == [
        ("Scene Heading", "SCENE 1"),
        ("Action", "The room."),
        ("Character", "SASHA"),
        ("Dialogue", line),
        ("Character", "JENNY"),
    ]
    # Business is a parenthetical, bracketed once even when the model wrote the brackets itself.
    assert body[5:9] == [("Parenthetical", "(smirks)"), ("Dialogue", "Fine."), ("Parenthetical", "(laughs)"),
                         ("Dialogue", "Go on.")]
    scene2 = root.find("Content")[9]
    assert scene2.get("Type") == "Scene Heading" and scene2.find("SceneProperties").get("Title") == "Ωμέγα"
    # Final Draft prints no scene property: the brief is also the action under the heading, so it prints.
    assert body[10] == ("Action", "Ωμέγα")
    epilogue = body.index(("Scene Heading", "EPILOGUE"))
    assert body[epilogue + 1 :] == [("Character", "JENNY"), ("Dialogue", line), *body[5:9]]  # its business too
    assert title[0] == "The Interview" and "after" in title and "Written by" not in title
    assert any("Magee" in t for t in title) and any(re.search(r"\d{4}-\d\d-\d\d", t) for t in title)


async def test_fdx_of_a_played_run_has_every_line(engine_for, store, tmp_path):
    engine = engine_for("detective.toml", turns=2)
    await engine.play_to_end()
    path = export_run(store, engine.run_id, "fdx", out=tmp_path)
    assert path.suffix == ".fdx"
    body, _, _ = fdx_paragraphs(path.read_text(encoding="utf-8"))
    cues = [t for kind, t in body if kind == "Character"]
    stage = [e for e in engine.path if e.kind == ev.STAGE]
    assert cues == [e.character.upper() for e in stage] + [engine.cast.ego.name.upper()]
    said = " ".join(t for kind, t in body if kind == "Dialogue")
    for event in stage:
        words_in_order(said, event.text.replace("*", ""))


# -- the stage play -----------------------------------------------------------------------------------


def test_stage_play_layout(store, tmp_path):
    lines = ["Tell me about the house.", "*looks away* It had a red door.", "And then?", "*(quietly)* Then we left."]
    run_id = stage_run(store, lines, setting="A kitchen in a city flat. The present.")
    # The play says layout = "stage": that is what `studio export` writes unless told otherwise.
    path = export_run(store, run_id, None, out=tmp_path)
    assert path.name.endswith("-stage.pdf")
    reader = PdfReader(str(path))
    assert reader.metadata.author == "after Magee, Arora, Gollings and Lam-Saw, The Drama Machine (2024)"
    assert reader.metadata.title == "The Interview"
    pages = [p.extract_text() for p in reader.pages]
    title, cast, play = norm(pages[0]), norm(pages[1]), norm(" ".join(pages[2:]))
    assert title.startswith("THE INTERVIEW after Magee")
    assert "CHARACTERS JENNY: Jenny, fifty" in cast and "SASHA: Sasha, a patient interviewer" in cast
    assert "CLEO" not in cast  # the inner voice is not on stage
    assert "SETTING A kitchen in a city flat. The present." in cast
    assert pages[2].lstrip().startswith("1.")  # the play's own pages are numbered from 1
    expected = (
        "SCENE 1 A kitchen table, late afternoon. Ben enters. SASHA Tell me about the house. "
        "JENNY (looks away) It had a red door. SASHA And then? JENNY (quietly) Then we left. Ben exits."
    )
    assert expected in play
    epilogue = next(i for i, p in enumerate(pages) if "EPILOGUE" in p)
    assert epilogue > 2 and "Ben exits." not in pages[epilogue]
    assert norm(pages[-1]).endswith("EPILOGUE JENNY It was a long time ago. END OF PLAY")


def test_stage_play_directions_are_indented_italics(store, tmp_path):
    run_id = stage_run(store, ["Hello.", "*nods* Hi."])
    path = export_run(store, run_id, "play-pdf", out=tmp_path / "p.pdf")
    placed: dict[str, tuple[float, str]] = {}

    def visit(text, cm, tm, font, size):
        if text.strip() and text.strip() not in placed:
            placed[text.strip()] = (tm[4] * cm[0] + cm[4], (font or {}).get("/BaseFont", ""))

    PdfReader(str(path)).pages[2].extract_text(visitor_text=visit)
    x_name, x_line = placed["SASHA"][0], placed["Hello."][0]
    x_direction, font = placed["Ben enters."]
    assert x_line == pytest.approx(108, abs=1)  # dialogue at the 1.5" margin
    assert x_direction >= x_line + 2 * 72 - 1 and "Italic" in font
    assert x_name > x_line + 72  # the name is centred over the speech
    assert "Italic" in placed["(nods)"][1]


def test_unfinished_stage_play_says_so(store, tmp_path):
    run_id = stage_run(store, ["Hello."], epilogue="")
    text = norm(" ".join(pdf_pages(export_run(store, run_id, "play-pdf", out=tmp_path / "u.pdf"))))
    assert "END OF PLAY" not in text and text.endswith("unfinished.)")


# -- every script, both layouts ----------------------------------------------------------------------

WORLD = [
    "你好，世界。我们今天从头开始吧。",
    "مرحبا بكم في بيتنا",
    "שלום עולם ברוכים הבאים",
    "Café naïve e\u0301 Ωμέγα Привет 😀",
    "こんにちは、元気ですか。",
]


@pytest.mark.parametrize("fmt", ["pdf", "play-pdf"])
def test_every_script_prints(store, tmp_path, fmt):
    run_id = stage_run(store, WORLD, epilogue="*sighs* " + WORLD[0])
    warnings: list[str] = []
    path = export_run(store, run_id, fmt, out=tmp_path / f"w-{fmt}.pdf", warn=warnings.append)
    if typeset.fonts().face("你") is None:
        # No CJK font on this machine (.ci/run installs one): the lines are named, not dropped.
        assert warnings and all("no font has" in w for w in warnings)
        pytest.skip("no CJK font installed: fonts-droid-fallback (.ci/run installs it)")
    assert warnings == []
    texts = {"pypdf": norm(" ".join(pdf_pages(path)))}
    if shutil.which("pdftotext"):
        texts["pdftotext"] = norm(subprocess.run(["pdftotext", str(path), "-"], capture_output=True, text=True).stdout)
    for reader, text in texts.items():
        for line in WORLD:
            # Each line is one font run per script, so pypdf, like pdftotext, reads it in reading order.
            words_in_order(text, line, visual=False)
        assert "(sighs)" in text and "*sighs*" not in text, reader  # the epilogue's business is converted


def test_a_glyph_no_font_has_is_reported_by_the_command(store, tmp_path, capsys):
    run_id = stage_run(store, ["The sign read \u0378 and nothing else.", "Fine."])
    event = store.take(run_id)[2]
    assert main(["export", str(run_id), "--format", "pdf", "--out", str(tmp_path), "--db", str(store.path)]) == 0
    err = capsys.readouterr().err
    assert f"warning: Sasha's line (event {event.id}): no font has U+0378" in err and "prints as a box" in err


# -- the screenplay's own rules -----------------------------------------------------------------------


def test_a_long_speech_continues_across_pages(store, tmp_path):
    long = "\n".join(f"Line {n} of the longest speech in the play, and it keeps going." for n in range(1, 121))
    run_id = stage_run(store, ["Go on.", long, "Is that all?"])
    pages = pdf_pages(export_run(store, run_id, "pdf", out=tmp_path / "long.pdf"))
    spanned = [i for i, p in enumerate(pages) if "(MORE)" in p]
    assert len(spanned) >= 2
    for i in spanned:
        assert norm(pages[i]).endswith("(MORE)") or "(MORE)" in pages[i].strip().splitlines()[-1]
        assert norm(re.sub(r"^\s*\d+\.", "", pages[i + 1])).startswith("JENNY (CONT'D) ")
    words_in_order(norm(" ".join(pages)).replace("(MORE)", "").replace("JENNY (CONT'D)", ""), long)


def test_screenplay_parentheticals_are_narrow_and_the_brief_is_printed(store, tmp_path):
    business = "leans back in the chair and looks out of the window for a long, long while"
    run_id = stage_run(store, ["Well?", f"*{business}* Maybe."])
    pages = pdf_pages(export_run(store, run_id, "pdf", out=tmp_path / "n.pdf"))
    body = pages[1]
    assert norm(body).startswith("SCENE 1 A kitchen table, late afternoon.")
    paren = body[body.index("(leans") : body.index("while)") + len("while)")].splitlines()
    assert len(paren) >= 3 and all(len(line.strip()) <= 21 for line in paren)  # a 2" column: 20 characters
    assert norm(" ".join(paren)) == f"({business})"


def test_export_command_writes_the_new_formats(store, tmp_path, capsys):
    run_id = stage_run(store, ["Hello.", "Hi."])
    for fmt, name in (("fdx", ".fdx"), ("play-pdf", "-stage.pdf"), ("pdf", ".pdf")):
        assert main(["export", str(run_id), "--format", fmt, "--out", str(tmp_path), "--db", str(store.path)]) == 0
        assert capsys.readouterr().out.strip() == str(tmp_path / f"the-interview-run{run_id}{name}")
    # No --format: the play's layout decides (this play says "stage").
    assert main(["export", str(run_id), "--out", f"{tmp_path}/d/", "--db", str(store.path)]) == 0
    assert capsys.readouterr().out.strip().endswith("-stage.pdf")


# -- pages a reviewer can look at ---------------------------------------------------------------------


@pytest.mark.skipif(not shutil.which("pdftoppm"), reason="pdftoppm (poppler-utils) is not installed")
@pytest.mark.parametrize("fmt, page", [("play-pdf", 3), ("pdf", 2)])
def test_snapshot_pages(store, tmp_path, fmt, page):
    """Renders a page of each layout to tests/artefacts/ for a reviewer; checks it is not blank and
    that the text block sits inside the margins."""
    from PIL import Image

    lines = ["Tell me about the house.", "*looks away* It had a red door. We painted it every spring.",
             "And then?", "*(quietly)* Then we left. " + WORLD[1], WORLD[0], "Ωμέγα — the last letter."]
    run_id = stage_run(store, lines, setting="A kitchen in a city flat. The present.")
    path = export_run(store, run_id, fmt, out=tmp_path / "s.pdf")
    ARTEFACTS.mkdir(exist_ok=True)
    stem = ARTEFACTS / ("stage-play-page" if fmt == "play-pdf" else "screenplay-page")
    subprocess.run(["pdftoppm", "-png", "-r", "60", "-f", str(page), "-l", str(page), "-singlefile", str(path), str(stem)],
                   check=True)
    image = Image.open(f"{stem}.png").convert("L")
    width, height = image.size
    dark = [(x, y) for y in range(height) for x in range(width) if image.getpixel((x, y)) < 128]
    assert len(dark) > 500
    assert min(x for x, _ in dark) >= 1.4 * 60 and max(x for x, _ in dark) <= 7.6 * 60


def test_marks_without_glyphs_are_not_reported_as_missing(store, tmp_path):
    """A variation selector or a zero-width space has nothing to print: no warning, no code."""
    run_id = stage_run(store, ["I \u2764\ufe0f it\u200b.", "Fine."])
    warnings: list[str] = []
    text = norm(" ".join(pdf_pages(export_run(store, run_id, "pdf", out=tmp_path / "m.pdf", warn=warnings.append))))
    assert warnings == [] and "SASHA I \u2764\ufe0f it." in text and "[U+" not in text


def test_a_finished_play_without_an_epilogue_exports_as_finished(store):
    """A game (or any play with epilogue = false) ends without an epilogue: it is finished all the same,
    and a game cut off part-way still says it is not."""
    import asyncio

    from conftest import PLAYS, RecordingGateway
    from studio.engine import Engine
    from studio.engine.forms import load_play, resolve_cast

    cast = resolve_cast(load_play(PLAYS / "island.toml"), PLAYS / "island.toml", model="scripted")
    engine = Engine.create(store, cast, {}, gateway=RecordingGateway())
    asyncio.run(engine.play_turn())
    assert not build_script(store, engine.run_id).finished
    asyncio.run(engine.play_to_end())
    assert engine.finished and build_script(store, engine.run_id).finished


def test_runs_lists_a_game_by_its_own_state(store):
    """`studio runs` and the picker replayed every run as a Drama Machine play: a finished game showed
    as paused at a scene."""
    import asyncio

    from conftest import PLAYS, RecordingGateway
    from studio.present.runs import summaries
    from studio.engine import Engine
    from studio.engine.forms import load_play, resolve_cast

    cast = resolve_cast(load_play(PLAYS / "island.toml"), PLAYS / "island.toml", model="scripted")
    engine = Engine.create(store, cast, {}, gateway=RecordingGateway())
    asyncio.run(engine.play_turn())
    assert summaries(store)[0].status == "paused in round 1"
    asyncio.run(engine.play_to_end())
    assert summaries(store)[0].status == "finished"
