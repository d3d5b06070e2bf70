"""`studio import SCRIPT`: a Fountain or Final Draft script becomes a play, its cast and a run that holds the
script as written, which the models then go on with; and every run the studio makes survives being
exported and imported again, in both formats."""

from __future__ import annotations

import tempfile
import time
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

import fountain_readers
from conftest import ROOT
from test_cli import studio
from test_robust_property import nasty
from test_robust_property_surfaces import _ok
from studio.engine import Engine
from studio.engine.forms import load_play, resolve_cast
from studio.export import render
from studio.export.fdx import read as read_fdx
from studio.export.fountain import read as read_fountain
from studio.export.script import Direction, Epilogue, Heading, Note, Speech, build_script
from studio.store import Store
from studio.store import events as ev

DATA = Path(__file__).parent / "data" / "scripts"


def script_of(store: Store, run_id: int) -> list[tuple]:
    """A run's script as a reader compares two: who says what, the business around it, the directions
    (their shape too) and the scene headings; the wording of whitespace and the split of one direction
    into paragraphs aside."""
    out: list[tuple] = []
    for block in build_script(store, run_id).blocks:
        if isinstance(block, Heading):
            out.append(("heading", block.title.upper(), " ".join(block.brief.split())))
        elif isinstance(block, (Speech, Epilogue)):
            parts = [("business", block.parenthetical)] if getattr(block, "parenthetical", "") else []
            parts += [(kind, " ".join(text.split())) for kind, text in block.parts]
            extras = (block.extension, block.dual) if isinstance(block, Speech) else ("epilogue", False)
            out.append(("speech", " ".join(block.character.split()).upper(), tuple(parts), *extras))
        elif isinstance(block, Direction):
            text = " ".join(block.text.split())
            if out and out[-1][0] == "direction" and out[-1][2] == block.shape == "action":
                out[-1] = ("direction", out[-1][1] + " " + text, "action")
            else:
                out.append(("direction", text, block.shape))
    return out


def imported(tmp_path: Path, script: Path, *args: str) -> tuple[int, Store]:
    db = tmp_path / "studio.db"
    result = studio("import", script, "--dir", tmp_path, "--db", db, *args)
    assert result.returncode == 0, result.stderr
    run_id = int(result.stdout.split("Run ", 1)[1].split(":", 1)[0])
    return run_id, Store(db)


# -- reading -------------------------------------------------------------------------------------------------


def test_fountain_reads_every_element_a_playwright_types():
    script = read_fountain((DATA / "hamlet.fountain").read_text(encoding="utf-8"))
    assert script.title_page["title"] == "The Tragedy of Hamlet, Prince of Denmark"
    assert script.title_page["author"] == "William Shakespeare" and script.title_page["draft date"] == "1603"
    blocks = script.blocks
    assert blocks[0] == Direction("ACT I", None, None, 0, shape="centered")
    assert Heading(None, "EXT. ELSINORE - A PLATFORM BEFORE THE CASTLE - NIGHT", "") in blocks
    assert Heading(None, "INT. ELSINORE - A ROOM IN THE CASTLE", "") in blocks  # forced with `.`
    speeches = [b for b in blocks if isinstance(b, Speech)]
    relieved = next(s for s in speeches if s.parenthetical)
    assert (relieved.character, relieved.parenthetical) == ("FRANCISCO", "relieved")
    assert relieved.parts == (("line", "For this relief much thanks: 'tis bitter cold,\nAnd I am sick at heart."),)
    horatio, marcellus = (s for s in speeches if s.extension == "O.S.")
    assert (horatio.dual, marcellus.dual, marcellus.character) == (False, True, "MARCELLUS")
    assert [s.extension for s in speeches if s.extension.startswith("V.O.")] == ["V.O.", "V.O. CONT'D"]
    assert Direction("CUT TO:", None, None, 0, shape="transition") in blocks
    assert Direction("THE END", None, None, 0, shape="centered") == blocks[-1]
    lyric = next(b for b in blocks if isinstance(b, Direction) and b.shape == "lyric")
    assert lyric.text.splitlines() == ["How should I your true love know", "From another one?",
                                       "By his cockle hat and staff,", "And his sandal shoon."]
    assert [b.text for b in blocks if isinstance(b, Note)] == [
        "The guard is the first note of the play: it is kept as a note, never spoken."]
    assert not any("boneyard" in str(b) for b in blocks)


def test_fountain_reads_the_epilogue_after_a_page_break_and_emphasis_as_typed():
    script = read_fountain("Title: T\n\nINT. ROOM\n\nANNA\nI *did* say \\*that\\*.\n\n===\n\n.EPILOGUE\n\n"
                           "ANNA\nIt ended.\n")
    speech = next(b for b in script.blocks if isinstance(b, Speech))
    assert speech.parts == (("line", "I *did* say *that*."),)
    assert script.blocks[-1] == Epilogue("ANNA", "It ended.", 0)


def test_final_draft_reads_dual_dialogue_extensions_business_and_the_title_page():
    script = read_fdx((DATA / "dolls_house.fdx").read_bytes())
    assert script.title_page == {"title": "A Doll's House", "credit": "by", "author": "Henrik Ibsen",
                                 "draft date": "1879"}
    speeches = [b for b in script.blocks if isinstance(b, Speech)]
    lark = next(s for s in speeches if "lark" in str(s.parts))
    assert (lark.character, lark.extension, lark.parenthetical) == ("HELMER", "O.S.", "calls out from his room")
    assert lark.parts == (("line", "Is that my little lark twittering out there?"),)  # the styled runs joined
    at = next(i for i, s in enumerate(speeches) if "squirrel bustling" in str(s.parts))
    squirrel, yes = speeches[at], speeches[at + 1]
    assert "squirrel" in str(squirrel.parts) and not squirrel.dual and yes.dual and yes.character == "NORA"
    just_now = next(s for s in speeches if "Just now." in str(s.parts))
    assert [k for k, _ in just_now.parts] == ["line", "business", "line"]
    assert Direction("DISSOLVE TO:", None, None, 0, shape="transition") in script.blocks
    assert Direction("The tree, dressed.", None, None, 0, shape="centered") in script.blocks


def test_the_fountain_readers_read_what_the_export_now_writes_around_a_line(tmp_path):
    """Parentheticals, extensions, dual dialogue, centred lines, transitions and lyrics, as the readers in
    use read the export: no reader takes a shaped direction for speech, or loses a line spoken in a voice
    over (how each prints `^` and `~` is docs/exports.md's to say)."""
    run_id, store = imported(tmp_path, DATA / "hamlet.fountain", "--model", "scripted")
    text = render(build_script(store, run_id), "fountain")
    for name, read in fountain_readers.available().items():
        lines = fountain_readers.normalised(read(text))
        assert ("business", "FRANCISCO", "relieved") in lines, name
        spoken = [t for kind, _, t in lines if kind == "line"]
        assert {"She is importunate, indeed distract.", "Her mood will needs be pitied."} <= set(spoken), name
        assert not any(word in t for t in spoken for word in ("CUT TO", "THE END", "cockle", "ACT I")), name


# -- the import ----------------------------------------------------------------------------------------------


def test_import_writes_the_play_its_new_sheets_and_a_run_the_models_go_on_from(tmp_path):
    run_id, store = imported(tmp_path, DATA / "hamlet.fountain", "--model", "scripted")
    play = load_play(tmp_path / "plays" / "the_tragedy_of_hamlet_prince_of_denmark.toml")
    assert (play.title, play.author, play.draft_date, play.contact) == (
        "The Tragedy of Hamlet, Prince of Denmark", "William Shakespeare", "1603", "Public domain")
    assert play.form == "ensemble" and play.scene_count == 2
    assert play.brief(1) == "EXT. ELSINORE - A PLATFORM BEFORE THE CASTLE - NIGHT. FRANCISCO at his post. Enter to him BERNARDO."
    sheets = sorted(p.stem for p in (tmp_path / "characters").glob("*.toml"))
    assert sheets == ["bernardo", "francisco", "horatio", "marcellus"]
    assert "Who's there?" in (tmp_path / "characters" / "bernardo.toml").read_text(encoding="utf-8")
    path = store.take(run_id)
    assert all(e.origin == "human" for e in path)
    assert [e.text for e in path if e.kind == ev.SCENE] == ["EXT. ELSINORE - A PLATFORM BEFORE THE CASTLE - NIGHT",
                                                          "INT. ELSINORE - A ROOM IN THE CASTLE"]
    notes = [e for e in path if e.kind == ev.NOTE]
    assert len(notes) == 1 and not notes[0].on_stage
    dual = next(e for e in path if e.data.get("dual"))
    assert (dual.character, dual.data["extension"], dual.text) == ("Marcellus", "O.S.", "And liegemen to the Dane.")
    assert {e.data.get("shape") for e in path if e.kind == ev.DIRECTION} == {"centered", "transition", "lyric", None}
    engine = Engine(store, run_id, gateway=object())
    pending = engine.pending()
    # Horatio spoke last, to Marcellus' cue: the ensemble gives the next line to someone else on stage.
    assert pending.step.kind in (ev.STAGE, ev.PICK) and pending.role is not None
    assert pending.role.name != "Horatio" and pending.step.scene == 2


def test_studio_step_goes_on_from_the_end_of_the_script_with_the_speaker_it_named(tmp_path):
    run_id, store = imported(tmp_path, DATA / "hamlet.fountain", "--model", "scripted")
    named = Engine(store, run_id, gateway=object()).pending().role.name
    before = len(store.take(run_id))
    stepped = studio("step", str(run_id), "--db", tmp_path / "studio.db")
    assert stepped.returncode == 0, stepped.stderr
    after = Store(tmp_path / "studio.db").take(run_id)
    assert len(after) > before and after[-1].kind == ev.STAGE and after[-1].origin == "model"
    assert after[-1].character == named


async def test_the_models_go_on_from_the_end_of_an_imported_drama_with_the_inner_voice(tmp_path, gateway):
    run_id, store = imported(tmp_path, DATA / "cherry_orchard.fountain", "--ego", "Dunyasha", "--model", "scripted")
    play = load_play(tmp_path / "plays" / "the_cherry_orchard.toml")
    assert play.cast.ego.character == "dunyasha" and play.cast.superego.character == "dunyasha_s_inner_voice"
    assert [o.character for o in play.cast.others] == ["lopahin", "epihodov"]
    path = store.take(run_id)
    # Turns as the Drama Machine counts them: another's line, then the protagonist's answer, one turn.
    spoken = [(e.role, e.turn) for e in path if e.kind == ev.STAGE]
    assert spoken[:3] == [("other1", 2), ("ego", 2), ("other1", 3)]
    # The script ends with Lopahin's epilogue, so the run is finished as written.
    assert path[-1].kind == ev.EPILOGUE and path[-1].character == "Lopahin"
    store.set_head(run_id, next(e.id for e in reversed(path) if e.kind == ev.STAGE and e.character == "Dunyasha"))
    after_her = Engine(store, run_id, gateway=gateway).pending()
    # The protagonist spoke last: someone she talks to answers (her inner voice may rewrite who she is first).
    assert (after_her.step.kind, after_her.role.kind) in ((ev.STAGE, "other"), (ev.REWRITE_PROMPT, "superego"))
    store.set_head(run_id, next(e.id for e in reversed(path) if e.kind == ev.STAGE and e.character == "Lopahin"))
    engine = Engine(store, run_id, gateway=gateway)
    pending = engine.pending()
    # Lopahin spoke last: the protagonist answers, her inner voice first rewriting what she heard.
    assert pending.step.kind == ev.REWRITE_SPEECH and pending.role.name == "Dunyasha's inner voice"
    done = await engine.play_turn()
    assert done[-1].role == "ego" and done[-1].origin == "model"


def test_an_import_prints_what_it_wrote_and_names_who_speaks_next(tmp_path):
    result = studio("import", DATA / "dolls_house.fdx", "--dir", tmp_path, "--db", tmp_path / "s.db",
                    "--model", "scripted")
    assert result.returncode == 0, result.stderr
    assert "wrote" in result.stdout and "a_doll_s_house.toml" in result.stdout
    assert "speaks next" in result.stdout and "studio step" in result.stdout


def test_undo_takes_the_whole_import_back_and_redo_brings_it_again(tmp_path):
    run_id, store = imported(tmp_path, DATA / "dolls_house.fdx", "--model", "scripted")
    head = store.head(run_id)
    db = tmp_path / "studio.db"
    undone = studio("undo", str(run_id), "--db", db)
    assert undone.returncode == 0 and "import of dolls_house.fdx" in undone.stdout
    assert Store(db).head(run_id) is None
    assert studio("redo", str(run_id), "--db", db).returncode == 0
    assert Store(db).head(run_id) == head


def test_two_cues_that_name_one_sheet_are_one_character(tmp_path):
    source = tmp_path / "twins.fountain"
    source.write_text("ANNA\nHello.\n\n@Anna\nAgain.\n\nBEN\nHi.\n", encoding="utf-8")
    run_id, store = imported(tmp_path, source, "--model", "scripted")
    assert sorted(p.stem for p in (tmp_path / "characters").glob("*.toml")) == ["anna", "ben"]
    assert [e.character for e in store.take(run_id) if e.kind == ev.STAGE] == ["Anna", "Anna", "Ben"]


def test_a_speaker_with_a_sheet_already_keeps_it(tmp_path):
    (tmp_path / "characters").mkdir()
    own = 'name = "Nora Helmer"\ndescription = "Mine."\nprompt = "You are Nora."\n'
    (tmp_path / "characters" / "nora.toml").write_text(own, encoding="utf-8")
    run_id, store = imported(tmp_path, DATA / "dolls_house.fdx", "--model", "scripted")
    assert (tmp_path / "characters" / "nora.toml").read_text(encoding="utf-8") == own
    assert {e.character for e in store.take(run_id) if e.kind == ev.STAGE} == {"Nora Helmer", "Porter", "Helmer"}


# -- round trips ---------------------------------------------------------------------------------------------


def _cast(kind: str):
    """A cast of each kind the studio plays: from a play file, or built by the lab as its trials are."""
    if kind == "interview":
        from studio.lab import interview as iv
        from studio.model import load_character

        return iv.interview_cast(load_character(ROOT / "characters" / "mara_lighthouse.toml"), "mini", model="scripted")
    if kind == "dilemma":
        from studio.lab.kinds import TrialSpec
        from studio.lab.pd_kind import trial_cast

        trial = TrialSpec("competitive/0/tit_for_tat_c/0", "competitive vs tit_for_tat_c", 0,
                          {"group": "competitive", "wording": 0, "partner": "tit_for_tat_c"})
        return trial_cast({"pd": {"temperature": 0.7, "max_tokens": 64}}, trial, "scripted")
    path = ROOT / {"drama": "plays/interview.toml", "ensemble": "plays/last_crossing.toml",
                   "game": "experiments/plays/island4.toml"}[kind]
    loaded = load_play(path)
    updates = {"turns": 3, "scenes": 2} if kind != "game" else {}
    return resolve_cast(loaded.model_copy(update=updates), path, model="scripted")


KINDS = ["drama", "ensemble", "interview", "dilemma", "game"]


@pytest.mark.parametrize("fmt", ["fountain", "fdx"])
@pytest.mark.parametrize("kind", KINDS)
async def test_every_kind_of_run_comes_back_from_its_script_as_it_was(kind, fmt, tmp_path, store, gateway):
    engine = Engine.create(store, _cast(kind), {}, gateway=gateway)
    for _ in range(60):
        if engine.finished or sum(1 for e in engine.path if e.kind == ev.STAGE) >= 8:
            break
        await engine.play_turn()
    original = script_of(store, engine.run_id)
    assert sum(1 for b in original if b[0] == "speech") >= 2
    source = tmp_path / f"run.{fmt}"
    source.write_text(render(build_script(store, engine.run_id), fmt), encoding="utf-8")
    run_id, again = imported(tmp_path, source, "--model", "scripted")
    assert script_of(again, run_id) == original


@pytest.mark.parametrize("fmt", ["fountain", "fdx"])
async def test_an_export_with_the_backstage_comes_back_with_the_backstage_as_notes(fmt, tmp_path, store, gateway):
    engine = Engine.create(store, _cast("drama"), {}, gateway=gateway)
    for _ in range(2):
        await engine.play_turn()
    source = tmp_path / f"run.{fmt}"
    source.write_text(render(build_script(store, engine.run_id, backstage=True), fmt), encoding="utf-8")
    run_id, again = imported(tmp_path, source, "--model", "scripted")
    assert script_of(again, run_id) == script_of(store, engine.run_id)
    notes = [e.text for e in again.take(run_id) if e.kind == ev.NOTE]
    assert len(notes) >= 2 and any("critiques" in n for n in notes)


@pytest.mark.parametrize("fmt", ["fountain", "fdx"])
async def test_a_run_with_the_playwright_s_own_lines_comes_back_as_written(fmt, tmp_path, store, gateway):
    """What the pen writes into a run (a written heading, a parenthetical, shaped directions) is what an
    export prints and an import reads back."""
    engine = Engine.create(store, _cast("ensemble"), {}, gateway=gateway)
    for _ in range(3):
        await engine.play_turn()
    line = next(e for e in engine.path if e.kind == ev.STAGE)
    engine.insert(line.id, "INT. THE FOREDECK - NIGHT", before=True, heading=True)
    engine.insert(engine.head_line_id(), "Are you there?", character=line.character, parenthetical="whispering")
    engine.insert(engine.head_line_id(), "FADE OUT.", direction=True, shape="transition")
    engine.insert(engine.head_line_id(), "THE END", direction=True, shape="centered")
    original = script_of(store, engine.run_id)
    assert ("heading", "INT. THE FOREDECK - NIGHT", "") in original and ("direction", "THE END", "centered") in original
    source = tmp_path / f"run.{fmt}"
    source.write_text(render(build_script(store, engine.run_id), fmt), encoding="utf-8")
    run_id, again = imported(tmp_path, source, "--model", "scripted")
    assert script_of(again, run_id) == original


@pytest.mark.parametrize("name", ["hamlet.fountain", "cherry_orchard.fountain", "dolls_house.fdx"])
@pytest.mark.parametrize("fmt", ["fountain", "fdx"])
def test_a_real_script_survives_import_export_and_import_again(name, fmt, tmp_path):
    first, store = imported(tmp_path / "one", DATA / name, "--model", "scripted")
    once = script_of(store, first)
    exported = tmp_path / f"again.{fmt}"
    exported.write_text(render(build_script(store, first), fmt), encoding="utf-8")
    second, store2 = imported(tmp_path / "two", exported, "--model", "scripted")
    assert script_of(store2, second) == once
    assert sum(1 for b in once if b[0] == "speech") >= 10
    # and the title page: title, credit and author, draft date, contact
    pages = [[(p.title, p.credit, p.author, p.draft_date, p.contact) for p in map(load_play, (tmp_path / d / "plays").glob("*.toml"))]
             for d in ("one", "two")]
    assert pages[0] == pages[1]


# -- bad scripts: one message, exit 2, nothing written -------------------------------------------------------


def _refused(tmp_path: Path, name: str, content: bytes, *needles: str) -> str:
    source = tmp_path / "in" / name
    source.parent.mkdir(exist_ok=True)
    source.write_bytes(content)
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    start = time.monotonic()
    result = studio("import", source, "--dir", work, "--db", work / "studio.db", "--model", "scripted")
    assert time.monotonic() - start < 10
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert str(source) in result.stderr and "fix:" in result.stderr and "Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr
    assert not (work / "plays").exists() and not (work / "characters").exists() and not (work / "studio.db").exists()
    assert not list(work.glob(".studio-import-*"))
    return result.stderr


def test_a_binary_file_is_refused(tmp_path):
    _refused(tmp_path, "photo.fountain", b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + bytes(range(256)) * 40, "binary")


def test_utf16_without_its_mark_is_refused_with_the_way_to_save_it(tmp_path):
    _refused(tmp_path, "wide.fountain", "ANNA\nHello.\n\nBEN\nHi.\n".encode("utf-16-le"), "UTF-16", "UTF-8")


def test_prose_with_no_speech_is_refused(tmp_path):
    _refused(tmp_path, "letter.txt", b"Dear Anna,\n\nThe weather is fine here.\n\nYours, Ben\n", "no speech")


def test_a_script_of_one_speaker_is_refused(tmp_path):
    _refused(tmp_path, "mono.fountain", b"INT. ROOM\n\nANNA\nAlone again.\n", "one character")


def test_fifty_megabytes_is_refused_before_it_is_read(tmp_path):
    _refused(tmp_path, "huge.fountain", b"ANNA\nHello.\n\n" * (50 * 1024 * 1024 // 13), "MB")


def test_a_hundred_thousand_lines_is_refused_at_once(tmp_path):
    _refused(tmp_path, "long.fountain", b"ANNA\nHello.\n\nBEN\nHi.\n\n" * 17_000, "lines")


def test_openings_never_closed_are_read_in_one_pass(tmp_path):
    """A note or boneyard opened a hundred thousand times and never closed is text, read at once."""
    source = tmp_path / "open.fountain"
    source.write_text("ANNA\nHello [[ there /* friend.\n\nBEN\n" + "[[/* " * 100_000 + "\n", encoding="utf-8")
    start = time.monotonic()
    run_id, store = imported(tmp_path, source, "--model", "scripted")
    assert time.monotonic() - start < 10
    lines = [e.text for e in store.take(run_id) if e.kind == ev.STAGE]
    assert lines[0] == "Hello [[ there /* friend." and lines[1].startswith("[[/* [[/*")


@pytest.mark.parametrize("body", [
    # billion laughs: entities within entities
    '<?xml version="1.0"?>\n<!DOCTYPE lolz [<!ENTITY lol "lol"><!ENTITY lol2 "&lol;&lol;&lol;&lol;&lol;">]>\n'
    '<FinalDraft><Content><Paragraph Type="Action"><Text>&lol2;</Text></Paragraph></Content></FinalDraft>',
    # an external entity that would read a file
    '<?xml version="1.0"?>\n<!DOCTYPE x [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
    '<FinalDraft><Content><Paragraph Type="Action"><Text>&xxe;</Text></Paragraph></Content></FinalDraft>',
    # a DTD alone
    '<?xml version="1.0"?>\n<!DOCTYPE FinalDraft SYSTEM "http://127.0.0.1:9/fd.dtd">\n<FinalDraft><Content/></FinalDraft>',
])
def test_a_final_draft_file_with_a_dtd_or_entities_is_refused(tmp_path, body):
    err = _refused(tmp_path, "evil.fdx", body.encode(), "DTD")
    assert "root:" not in err


def test_xml_that_is_not_final_draft_is_refused(tmp_path):
    _refused(tmp_path, "svg.fdx", b'<svg xmlns="http://www.w3.org/2000/svg"></svg>', "not a Final Draft")
    _refused(tmp_path, "broken.fdx", b"<FinalDraft><Content>", "well-formed")


def test_utf16_with_its_mark_and_latin1_are_read(tmp_path):
    text = "Title: Café\nAuthors: Renée and Joël\n\nINT. CAFÉ\n\nRENÉE\nUn café, s'il vous plaît.\n\nJOËL\nVoilà.\n"
    for i, raw in enumerate([b"\xff\xfe" + text.encode("utf-16-le"), text.encode("latin-1")]):
        work = tmp_path / str(i)
        source = work / "cafe.fountain"
        work.mkdir()
        source.write_bytes(raw)
        run_id, store = imported(work, source, "--model", "scripted")
        lines = [(e.character, e.text) for e in store.take(run_id) if e.kind == ev.STAGE]
        assert lines == [("Renée", "Un café, s'il vous plaît."), ("Joël", "Voilà.")]
        assert load_play(work / "plays" / "cafe.toml").author == "Renée and Joël"  # `Authors`, the spec's other key


@pytest.mark.parametrize("fmt", ["fountain", "fdx"])
def test_the_title_page_comes_back_as_typed_through_export_and_import(fmt, tmp_path):
    """A contact block keeps its lines, and a title in capitals with emphasis is not recased."""
    source = tmp_path / "letters.fountain"
    source.write_text("Title: _**LETTERS & DAYS**_\nAuthor: Anna Kay\nContact:\n    12 Quay Street\n    Galway\n\n"
                      "ANNA\nWrite to me.\n\nBEN\nI will.\n", encoding="utf-8")
    first, store = imported(tmp_path / "one", source, "--model", "scripted")
    [play] = (tmp_path / "one" / "plays").glob("*.toml")
    assert (load_play(play).title, load_play(play).contact) == ("_**LETTERS & DAYS**_", "12 Quay Street\nGalway")
    exported = tmp_path / f"again.{fmt}"
    exported.write_text(render(build_script(store, first), fmt), encoding="utf-8")
    imported(tmp_path / "two", exported, "--model", "scripted")
    [again] = map(load_play, (tmp_path / "two" / "plays").glob("*.toml"))
    assert (again.title, again.author, again.contact) == ("_**LETTERS & DAYS**_", "Anna Kay", "12 Quay Street\nGalway")


def test_terminal_controls_in_a_final_draft_file_never_reach_the_run_or_the_files(tmp_path):
    body = ('<?xml version="1.0"?>\n<FinalDraft><Content>'
            '<Paragraph Type="Character"><Text>ANNA\u202e</Text></Paragraph>'
            '<Paragraph Type="Dialogue"><Text>Hello \u009b31m there.</Text></Paragraph>'
            '<Paragraph Type="Character"><Text>BEN</Text></Paragraph>'
            '<Paragraph Type="Dialogue"><Text>Hi.</Text></Paragraph>'
            '</Content><TitlePage><Content><Paragraph><Text>Red\u202e Title</Text></Paragraph></Content></TitlePage>'
            '</FinalDraft>')
    source = tmp_path / "controls.fdx"
    source.write_text(body, encoding="utf-8")
    run_id, store = imported(tmp_path, source, "--model", "scripted")
    lines = [(e.character, e.text) for e in store.take(run_id) if e.kind == ev.STAGE]
    assert lines == [("Anna", "Hello  there."), ("Ben", "Hi.")]  # the whole 8-bit CSI sequence is gone
    assert load_play(tmp_path / "plays" / "red_title.toml").title == "Red Title"


def test_an_import_that_fails_half_way_leaves_no_files_and_no_run(tmp_path, monkeypatch):
    from studio.export import importing

    real = importing.commit_script

    def breaks(engine, plan, by=None):
        real(engine, plan, by)
        raise OSError("disk full")

    monkeypatch.setattr(importing, "commit_script", breaks)
    store = Store(tmp_path / "s.db")
    with pytest.raises(OSError):
        importing.import_script(DATA / "hamlet.fountain", tmp_path, store, model="scripted")
    assert not list((tmp_path / "plays").glob("*")) and not list((tmp_path / "characters").glob("*"))
    assert store.runs() == []


def test_an_existing_play_of_that_title_is_never_overwritten(tmp_path):
    (tmp_path / "plays").mkdir()
    mine = tmp_path / "plays" / "a_doll_s_house.toml"
    mine.write_text("# mine\n", encoding="utf-8")
    result = studio("import", DATA / "dolls_house.fdx", "--dir", tmp_path, "--db", tmp_path / "s.db")
    assert result.returncode == 2 and "already exists" in result.stderr
    assert mine.read_text(encoding="utf-8") == "# mine\n" and not (tmp_path / "characters").exists()


def test_an_unknown_ego_or_model_names_the_fix_and_writes_nothing(tmp_path):
    result = studio("import", DATA / "dolls_house.fdx", "--dir", tmp_path, "--db", tmp_path / "s.db", "--ego", "Hamlet")
    assert result.returncode == 2 and "--ego" in result.stderr and "Nora" in result.stderr
    result = studio("import", DATA / "dolls_house.fdx", "--dir", tmp_path, "--db", tmp_path / "s.db",
                    "--model", "nosuchprovider/none")
    assert result.returncode == 2, result.stderr
    assert not (tmp_path / "plays").exists() and not (tmp_path / "characters").exists()


# -- whatever a script file holds: a run and exit 0, or one message and exit 2 --------------------------------

_PIECES = st.one_of(
    nasty,
    st.sampled_from(["ANNA", "@ben", "BEN (V.O.)", "CARL ^", "(quietly)", ".INT. ROOM", "EXT. YARD - DAY", ">CUT TO:",
                     ">THE END<", "~la la", "[[a note", "]]", "/*", "*/", "===", "# Act", "= synopsis", "!forced",
                     "Title: X", "Author:", "  ", "", "\t", "*bold* _under_ \\*", "INT/EXT. CAR", "A\u202eB"]),
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow])
@given(lines=st.lists(_PIECES, min_size=1, max_size=30), suffix=st.sampled_from([".fountain", ".spmd", ".txt"]))
def test_any_fountain_file_makes_a_run_or_one_message(lines, suffix):
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / f"script{suffix}"
        source.write_text("\n".join(lines), encoding="utf-8", errors="surrogatepass")
        result = studio("import", source, "--dir", work, "--db", work / "s.db", "--model", "scripted")
        _ok(result)
        if result.returncode == 2:
            assert not (work / "plays").exists() and not (work / "characters").exists()
            assert not (work / "s.db").exists()
        else:
            assert list((work / "plays").glob("*.toml")) and "Run 1" in result.stdout


_PARAGRAPHS = st.sampled_from(["Scene Heading", "Action", "Character", "Parenthetical", "Dialogue", "Transition",
                               "Lyrics", "General", "Shot", None])


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                HealthCheck.too_slow])
@given(paragraphs=st.lists(st.tuples(_PARAGRAPHS, nasty), min_size=1, max_size=20), dual=st.booleans())
def test_any_final_draft_file_makes_a_run_or_one_message(paragraphs, dual):
    import xml.etree.ElementTree as ET

    root = ET.Element("FinalDraft")
    content = ET.SubElement(root, "Content")
    holder = ET.SubElement(ET.SubElement(content, "Paragraph"), "DualDialogue") if dual else content
    for kind, text in paragraphs:
        para = ET.SubElement(holder, "Paragraph", {"Type": kind} if kind else {})
        ET.SubElement(para, "Text").text = "".join(c for c in text if c.isprintable() or c in "\n\t")
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        source = work / "script.fdx"
        source.write_bytes(ET.tostring(root, encoding="utf-8"))
        result = studio("import", source, "--dir", work, "--db", work / "s.db", "--model", "scripted")
        _ok(result)
        if result.returncode == 2:
            assert not (work / "plays").exists() and not (work / "characters").exists()
            assert not (work / "s.db").exists()



def test_final_draft_keeps_the_spaces_typed_inside_a_line_and_joins_runs_split_mid_word():
    script = read_fdx('<?xml version="1.0" encoding="UTF-8"?><FinalDraft DocumentType="Script" Version="5"><Content>'
                      '<Paragraph Type="Action"><Text>The kettle screams.  Nobody </Text><Text Style="Italic">mo'
                      '</Text><Text Style="Bold+Italic">ves</Text><Text>.</Text></Paragraph>'
                      '<Paragraph Type="Character"><Text>ANNA</Text></Paragraph>'
                      '<Paragraph Type="Dialogue"><Text>It\'s bo</Text><Text Style="Bold">iling</Text>'
                      '<Text>.  Again.</Text></Paragraph></Content></FinalDraft>')
    direction, speech = script.blocks
    assert direction.text == "The kettle screams.  Nobody moves."
    assert speech.parts == (("line", "It's boiling.  Again."),)


def test_a_cue_whose_extension_is_typed_in_lower_case_is_a_cue():
    script = read_fountain("INT. HALL - DAY\n\nBRICK (cont'd)\nINT. is what she said.\n\nMOM (o.s.) ^\nDinner!\n\n"
                           "Bob (V.O.)\nis action, the name not in capitals.\n")
    first, second, action = script.blocks[1:]
    assert (first.character, first.extension, first.parts) == ("BRICK", "cont'd", (("line", "INT. is what she said."),))
    assert (second.character, second.extension, second.dual) == ("MOM", "o.s.", True)
    assert isinstance(action, Direction) and action.text.startswith("Bob (V.O.)")


def test_a_note_spanning_lines_of_a_speech_is_a_note_and_not_spoken():
    script = read_fountain("INT. HALL - DAY\n\nANNA\nI came [[a note\nacross lines]] to say\n[[one more]]\ngoodbye.\n\n"
                           "BEN\nBye.\n")
    speech, *notes = script.blocks[1:3] + script.blocks[3:]
    assert speech.parts == (("line", "I came  to say\ngoodbye."),)
    assert [n.text for n in notes if isinstance(n, Note)] == ["a note across lines", "one more"]
