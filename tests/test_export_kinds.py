"""Each element of a run is the same kind of element in every format, as the stage shows it: an edited
stage move stays a direction, an underlined line stays a line, the epilogue's business is business,
a scene's brief prints under its heading in Fountain too; and a run is finished when its form says so."""

from __future__ import annotations

import xml.etree.ElementTree as ET

import pytest
from pypdf import PdfReader

import fountain_readers
from conftest import make_cast
from test_cli import studio
from studio.engine.lines import is_direction
from studio.export import export_run, render
from studio.export.script import Direction, Epilogue, Speech, build_script
from studio.store import Store
from studio.store import events as ev

READERS = fountain_readers.available()


def fdx_paragraphs(text: str) -> list[tuple[str, str]]:
    root = ET.fromstring(text.split("\n", 1)[1])
    return [(p.get("Type"), "".join(t.text or "" for t in p.iter("Text"))) for p in root.find("Content")]


def every_reader(text: str) -> dict[str, list]:
    return {name: fountain_readers.normalised(read(text)) for name, read in READERS.items()}


async def test_an_edited_stage_move_stays_a_direction_in_every_format(engine_for, store, tmp_path):
    engine = engine_for("last_crossing.toml")
    await engine.play_to_end()
    move = next(e for e in engine.path if e.data.get("task") == "stage_move")
    edited = engine.override(move.id, "Tomas leaves, slowly.")
    assert edited.kind == ev.DIRECTION
    script = build_script(store, engine.run_id)
    assert any(isinstance(b, Direction) and b.text == "Tomas leaves, slowly." for b in script.blocks)
    assert not any(isinstance(b, Speech) and "Tomas leaves" in str(b.parts) for b in script.blocks)
    for name, lines in every_reader(render(script, "fountain")).items():
        assert ("action", None, "Tomas leaves, slowly.") in lines, name
    assert "*Tomas leaves, slowly.*" in render(script, "markdown")
    assert ("Action", "Tomas leaves, slowly.") in fdx_paragraphs(render(script, "fdx"))
    # no speaker cue "Someone" (the lines kept after the edit may speak of someone)
    assert not any(kind == "Character" and "SOMEONE" in said.upper() for kind, said in fdx_paragraphs(render(script, "fdx")))
    for fmt in ("pdf", "play-pdf"):
        text = "".join(p.extract_text() for p in PdfReader(export_run(store, engine.run_id, fmt, out=tmp_path / fmt)).pages)
        assert "Tomas leaves, slowly." in " ".join(text.split())
        assert not any(line.strip().upper().rstrip(".:") == "SOMEONE" for line in text.splitlines())


def test_a_line_kept_by_nobody_reads_as_a_direction(store):
    """Runs edited before stage moves stayed directions hold the edit as a line with no speaker."""
    cast = make_cast("interview.toml")
    run_id = store.create_run(cast.play.title, cast.play_path, cast.model_dump_json(), {})
    head = store.append(run_id, None, ev.SCENE, "Scene 1", scene=1, turn=1).id
    store.append(run_id, head, ev.STAGE, "Tomas leaves.", scene=1, turn=1, origin="override")
    blocks = build_script(store, run_id).blocks
    assert [type(b) for b in blocks[1:]] == [Direction] and blocks[1].text == "Tomas leaves."


async def test_underlined_speech_stays_a_line_in_every_format(engine_for, store):
    assert not is_direction("_underline only_") and is_direction("*leaves*")
    engine = engine_for("interview.toml", turns=1, superego=False)
    await engine.play_turn()
    line = next(e for e in engine.path if e.kind == ev.STAGE and e.role == "ego")
    edited = engine.override(line.id, "_underline only_")
    assert edited.kind == ev.STAGE and edited.text == "_underline only_"
    script = build_script(store, engine.run_id)
    name = engine.cast.ego.name.upper()
    for reader, lines in every_reader(render(script, "fountain")).items():
        # (screenplain prints the backslashes of `\_`, as docs/exports.md says: the kind is what counts here)
        assert any(k == "line" and who == name and "underline only" in t for k, who, t in lines), reader
        assert not any("underline only" in text for kind, _, text in lines if kind == "action"), reader
    assert ("Dialogue", "_underline only_") in fdx_paragraphs(render(script, "fdx"))
    assert f"**{engine.cast.ego.name}:** \\_underline only\\_" in render(script, "markdown")


def epilogue_run(store: Store) -> int:
    cast = make_cast("interview.toml")
    run_id = store.create_run(cast.play.title, cast.play_path, cast.model_dump_json(), {})
    head = store.append(run_id, None, ev.SCENE, "Scene 1: The room, at night", scene=1, turn=1).id
    head = store.append(run_id, head, ev.STAGE, "Hello.", role="other", character="Sasha", scene=1, turn=1).id
    store.append(run_id, head, ev.EPILOGUE, "*sighs* It ended there. *smiles*", role="ego", character="Jenny",
                 scene=1, turn=2)
    return run_id


def test_the_epilogues_business_is_business_in_every_format(store, tmp_path):
    run_id = epilogue_run(store)
    script = build_script(store, run_id)
    epilogue = next(b for b in script.blocks if isinstance(b, Epilogue))
    assert epilogue.parts == (("business", "sighs"), ("line", "It ended there."), ("business", "smiles"))
    for reader, lines in every_reader(render(script, "fountain")).items():
        assert lines[-3:] == [("business", "JENNY", "sighs"), ("line", "JENNY", "It ended there."),
                              ("business", "JENNY", "smiles")], reader
    markdown = render(script, "markdown")
    assert "*(sighs)* It ended there. *(smiles)*" in markdown and "\\*sighs\\*" not in markdown
    assert fdx_paragraphs(render(script, "fdx"))[-3:] == [
        ("Parenthetical", "(sighs)"), ("Dialogue", "It ended there."), ("Parenthetical", "(smiles)")]
    for fmt in ("pdf", "play-pdf"):
        text = "".join(p.extract_text() for p in PdfReader(export_run(store, run_id, fmt, out=tmp_path / fmt)).pages)
        assert "sighs" in text and "*sighs*" not in text


def test_a_scenes_brief_prints_as_action_under_its_heading_in_fountain(store):
    text = render(build_script(store, epilogue_run(store)), "fountain")
    for reader, lines in every_reader(text).items():
        assert lines[:2] == [("heading", None, "SCENE 1"), ("action", None, "The room, at night")], reader


@pytest.mark.parametrize("play, kwargs", [("the_audit.toml", {}), ("island.toml", {}),
                                          ("interview.toml", {"turns": 1, "epilogue": False})])
async def test_export_asks_the_runs_form_whether_it_is_finished(store, gateway, tmp_path, play, kwargs):
    from studio.engine import Engine

    engine = Engine.create(store, make_cast(play, **kwargs), {}, gateway=gateway)
    await engine.play_to_end()
    assert engine.finished and not any(e.kind == ev.EPILOGUE for e in engine.path)
    db = store.path
    store.close()
    done = studio("export", engine.run_id, "--out", tmp_path / "x.fountain", db=db)
    assert done.returncode == 0, done.stderr
    assert "unfinished" not in done.stderr
    assert "unfinished" not in (tmp_path / "x.fountain").read_text()


async def test_export_still_says_when_a_run_is_unfinished(store, gateway, tmp_path):
    from studio.engine import Engine

    engine = Engine.create(store, make_cast("interview.toml", turns=3), {}, gateway=gateway)
    await engine.play_turn()
    db = store.path
    store.close()
    done = studio("export", engine.run_id, "--out", tmp_path / "x.fountain", db=db)
    assert done.returncode == 0 and "is unfinished" in done.stderr
