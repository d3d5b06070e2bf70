"""The playwright's pen: lines written, cut and moved in a run's take, the lines after them kept as
written, the cast grown by a newcomer, and undo and redo over the playwright's own actions."""

from __future__ import annotations

import json

import pytest

from studio.engine import Engine
from studio.store import StoreError
from studio.store import events as ev
from test_cli import studio


def lines(engine):
    return [e for e in engine.path if e.kind in (ev.STAGE, ev.DIRECTION, ev.SCENE)]


def said(engine):
    return [e.text for e in lines(engine)]


async def two_turns(engine_for, play="interview.toml", **kwargs):
    engine = engine_for(play, turns=3, epilogue=False, superego=False, **kwargs)
    await engine.play_turn()
    await engine.play_turn()
    return engine


async def test_an_inserted_speech_goes_in_and_what_followed_is_kept_as_written(engine_for, store, gateway):
    engine = await two_turns(engine_for)
    old_head, before = engine.head, said(engine)
    first = next(e for e in engine.path if e.kind == ev.STAGE and e.role == "other")
    calls = len(gateway.calls)
    line = engine.insert(first.id, "Before we start: is the recorder on?", character="Jenny", parenthetical="(warily)")
    assert len(gateway.calls) == calls  # nothing was asked of a model
    assert line.origin == "human" and line.role == "ego" and line.character == "Jenny"
    assert line.data["parenthetical"] == "warily" and line.data["inserted"] is True
    after = said(engine)
    at = after.index("Before we start: is the recorder on?")
    assert after[:at] == before[: at] and after[at + 1:] == before[at:]
    # the copies name the lines they copy, and the old take is still there to choose
    old = store.take(engine.run_id, old_head)
    copies = engine.path[engine.path.index(line) + 1:]
    assert [c.data["kept"] for c in copies] == [e.id for e in old[old.index(first) + 1:]]
    assert all(c.id not in {e.id for e in old} for c in copies)
    engine.choose_take(old_head)
    assert said(engine) == before


async def test_a_direction_and_a_heading_take_their_shape(engine_for):
    engine = await two_turns(engine_for)
    anchor = lines(engine)[-1]
    shown = engine.insert(anchor.id, "FADE OUT.", direction=True, shape="transition")
    assert shown.kind == ev.DIRECTION and shown.data["shape"] == "transition"
    heading = engine.insert(lines(engine)[1].id, "INT. KITCHEN - NIGHT", heading=True, before=True)
    assert heading.kind == ev.SCENE and lines(engine)[1].text == "INT. KITCHEN - NIGHT"
    scene = engine.state.scene
    assert scene == 1  # a written heading is no new scene of the play
    with pytest.raises(ValueError, match="shape"):
        engine.insert(anchor.id, "x", direction=True, shape="sideways")


async def test_a_written_line_is_no_step_of_the_play(engine_for):
    engine = await two_turns(engine_for)
    turn, step = engine.state.turn, engine.pending().step
    engine.insert(engine.stage()[-1].id, "Sasha, off the record:", character="Sasha")
    assert engine.state.turn == turn and engine.pending().step == step


async def test_a_newcomer_joins_the_cast_and_an_undo_takes_them_out(engine_for, store):
    engine = await two_turns(engine_for)
    anchor = engine.stage()[-1]
    line = engine.insert(anchor.id, "Sorry I'm late. Did I miss the part about the garage?", character="Marguerite")
    assert line.character == "Marguerite" and engine.cast.has(line.role)
    newcomer = engine.cast.role(line.role)
    assert newcomer.is_character and newcomer.sheet.prompt == "You are Marguerite."
    assert "Marguerite" in [r.name for r in Engine(store, engine.run_id, gateway=object()).cast.characters]
    # the event that brought her in sits on the take, so leaving the take leaves her out
    joined = engine.path[engine.path.index(line) - 1]
    assert joined.kind == ev.CONTROL and joined.data["cast"]["name"] == "Marguerite"
    assert "Undid insert" in engine.undo()
    assert not engine.cast.has(line.role)
    assert not Engine(store, engine.run_id, gateway=object()).cast.has(line.role)
    assert engine.redo().startswith("Redid insert")
    assert engine.cast.has(line.role)
    engine.rewind_to(anchor.id)
    assert not engine.cast.has(line.role)


@pytest.mark.parametrize("play", ["interview.toml", "last_crossing.toml"])
async def test_a_cut_line_leaves_every_prompt_and_a_written_one_enters_them(engine_for, gateway, play):
    """Every character's memory, knowledge and inner voice read the take on stage: no copy of the script."""
    engine = await two_turns(engine_for, play=play)
    other = next(e for e in engine.stage() if e.kind == ev.STAGE and e.role and e.turn == 2)
    marked = engine.override(other.id, "Tell me about the lighthouse keeper's ledger.")
    assert [e.text for e in engine.stage()].count("Tell me about the lighthouse keeper's ledger.") == 1
    first = engine.cut(marked.id)
    assert first is None or first.data["kept"] != marked.id
    assert "lighthouse keeper's ledger" not in " ".join(said(engine))
    calls = len(gateway.calls)
    await engine.play_turn()
    asked = [m for _, messages in gateway.calls[calls:] for m in messages]
    assert asked and not any("lighthouse keeper's ledger" in m["content"] for m in asked)
    engine.insert(engine.stage()[-1].id, "And the orange umbrella by the door?", character=engine.cast.characters[0].name)
    calls = len(gateway.calls)
    await engine.play_turn()
    asked = "\n".join(m["content"] for _, messages in gateway.calls[calls:] for m in messages)
    assert "And the orange umbrella by the door?" in asked


async def test_an_edit_keeps_the_lines_after_it_and_a_rewind_into_it_plays_on(engine_for, store):
    engine = await two_turns(engine_for)
    first_ego = next(e for e in engine.stage() if e.role == "ego")
    before = said(engine)
    edited = engine.override(first_ego.id, "I have never told anyone this.")
    assert engine.head != edited.id and said(engine)[before.index(first_ego.text) + 1:] == \
        before[before.index(first_ego.text) + 1:]
    kept = engine.path[engine.path.index(edited) + 1]
    assert kept.data["kept"] and kept.origin == "model"
    # the playwright rewinds into the edited take and replays from a line
    engine.rewind_to(edited.id)
    await engine.play_turn()
    assert engine.path[engine.path.index(edited) + 1].data.get("kept") is None
    assert store.event(first_ego.id).text == first_ego.text


async def test_a_moved_line_changes_places_and_the_rest_is_kept(engine_for):
    engine = await two_turns(engine_for)
    stage = [e for e in engine.path if e.kind == ev.STAGE]
    first, last = stage[0], stage[-1]
    moved = engine.move(last.id, first.id, before=True)
    assert moved.data["kept"] == last.id and moved.text == last.text
    now = [e for e in engine.path if e.kind == ev.STAGE]
    assert [e.text for e in now] == [last.text] + [e.text for e in stage[:-1]]
    with pytest.raises(ValueError, match="beside itself"):
        engine.move(moved.id, moved.id)
    with pytest.raises(ValueError, match="already stands"):
        engine.move(moved.id, now[1].id, before=True)


async def test_lines_off_the_take_or_of_another_run_are_refused(engine_for):
    engine = await two_turns(engine_for)
    other = engine_for(turns=1)
    await other.play_turn()
    with pytest.raises(StoreError, match="belongs to run"):
        engine.cut(other.stage()[-1].id)
    with pytest.raises(StoreError, match="no event"):
        engine.insert(999_999, "x", direction=True)
    old = engine.stage()[-1]
    engine.cut(old.id)
    with pytest.raises(StoreError, match="not on the take on stage"):
        engine.cut(old.id)
    with pytest.raises(ValueError, match="empty"):
        engine.insert(engine.head_line_id(), "   ", direction=True)
    with pytest.raises(ValueError, match="at most"):
        engine.insert(engine.head_line_id(), "x" * 100_000, direction=True)


async def test_undo_and_redo_walk_back_and_forth_through_every_kind_of_action(engine_for, store):
    engine = await two_turns(engine_for)
    heads = [engine.head]
    line = engine.stage()[-1]
    engine.insert(line.id, "A beat.", direction=True)
    heads.append(engine.head)
    engine.cut(next(e for e in engine.stage() if e.role == "other").id)
    heads.append(engine.head)
    engine.rewind(1)
    heads.append(engine.head)
    await engine.regenerate(engine.stage()[-1].id)
    heads.append(engine.head)
    engine.choose_take(heads[0])
    heads.append(engine.head)
    assert all(a != b for a, b in zip(heads, heads[1:]))
    undone = []
    while engine.can_undo():
        undone.append(engine.undo())
        assert engine.head == heads[-1 - len(undone)]
    assert [u.split()[1] for u in undone] == ["switch", "new", "rewind", "cut", "insert"]
    assert engine.undo() is None
    for expected in heads[1:3]:
        assert engine.redo().startswith("Redid")
        assert engine.head == expected
    # a new action drops what was left to redo; its takes stay in the store
    engine.insert(engine.stage()[0].id, "Lights up.", direction=True, before=True)
    assert not engine.can_redo() and engine.redo() is None
    everything = {e.id for e in store.events(engine.run_id)}
    assert set(h for h in heads if h) <= everything


async def test_each_window_undoes_only_its_own_actions(engine_for, store):
    first = await two_turns(engine_for)
    w1, w2 = first, Engine(store, first.run_id, gateway=object())
    w1.holder, w2.holder = "w1", "w2"
    start = w1.head
    w1.insert(w1.stage()[-1].id, "Lights fade.", direction=True)
    w2.reload()
    after_w1 = w2.head
    w2.cut(w2.stage()[0].id)
    assert w2.can_undo() and w1.can_undo()
    w1.reload()
    assert w1.undo().startswith("Undid insert")
    assert w1.head == start and not w1.can_undo()
    assert w2.undo().startswith("Undid cut") and w2.head == after_w1
    commandline = Engine(store, first.run_id, gateway=object())
    assert commandline.undo() is None


async def test_every_kept_line_of_an_edit_is_written_in_one_transaction(engine_for, store, monkeypatch):
    engine = engine_for(turns=12, epilogue=False, superego=False)
    for _ in range(12):
        await engine.play_turn()
    begun = []
    real = store.conn

    class Counting:
        def execute(self, sql, *args):
            if sql.startswith("BEGIN"):
                begun.append(sql)
            return real.execute(sql, *args)

        def __getattr__(self, name):
            return getattr(real, name)

    engine.can_undo()  # the history's table is made before counting
    monkeypatch.setattr(store, "conn", Counting())
    first = engine.cut(lines(engine)[1].id)
    assert len(engine.path) - engine.path.index(first) > 20
    assert len(begun) == 2  # the new take, and the history's note of the cut


# -- the command line --------------------------------------------------------------------------------------


def _events(db, run=1):
    return [json.loads(x) for x in studio("show", run, "--json", db=db).stdout.splitlines()]


def test_the_pen_at_the_command_line(tmp_path):
    db = tmp_path / "s.db"
    made = studio("run", "plays/interview.toml", "--model", "scripted", "--turns", "2", "--strategies", "none", db=db)
    assert made.returncode == 0, made.stderr
    assert studio("rewind", 1, db=db).returncode == 0  # the epilogue is still to come
    events = _events(db)
    other = next(e for e in events if e["role"] == "other")
    done = studio("insert", 1, other["id"], "--after", "--as", "Jenny", "--parenthetical", "quietly",
                  "Wait. Who sent you?", db=db)
    assert done.returncode == 0, done.stderr
    assert "Jenny's line written as event" in done.stdout and "kept as written" in done.stdout
    now = _events(db)
    written = next(e for e in now if e["text"] == "Wait. Who sent you?")
    assert written["origin"] == "human" and written["data"]["parenthetical"] == "quietly"
    assert studio("insert", 1, written["id"], "--before", "--direction", "--shape", "centered", "A long pause.",
                  db=db).returncode == 0
    assert studio("insert", 1, now[0]["id"], "--after", "--heading", "INT. STUDIO - DAY", db=db).returncode == 0
    written = next(e for e in _events(db) if e["text"] == "Wait. Who sent you?")  # a kept copy now
    assert written["data"]["kept"] and [e["text"] for e in _events(db)][1] == "INT. STUDIO - DAY"
    cut = studio("cut", 1, written["id"], db=db)
    assert cut.returncode == 0 and "cut" in cut.stdout
    assert "Wait. Who sent you?" not in [e["text"] for e in _events(db)]
    stage = [e for e in _events(db) if e["kind"] == "stage"]
    moved = studio("move", 1, stage[-1]["id"], "--before", stage[0]["id"], db=db)
    assert moved.returncode == 0, moved.stderr
    assert [e for e in _events(db) if e["kind"] == "stage"][0]["text"] == stage[-1]["text"]
    undone = studio("undo", 1, db=db)
    assert undone.returncode == 0 and undone.stdout.startswith("Run 1: Undid move of event")
    assert len(undone.stdout.strip().splitlines()) == 1
    assert [e for e in _events(db) if e["kind"] == "stage"][0]["text"] == stage[0]["text"]
    assert studio("redo", 1, db=db).stdout.startswith("Run 1: Redid move")
    assert "nothing to redo" in studio("redo", 1, db=db).stdout
    # the run plays on from the end of the new take
    head = _events(db)[-1]["id"]
    assert studio("step", 1, db=db).returncode == 0
    assert _events(db)[-1]["id"] > head


@pytest.mark.parametrize("words, field, said", [
    (["insert", 1, 99999, "--after", "--direction", "x"], "EVENT", "no event 99999"),
    (["insert", 1, "ONE", "--after", "--direction", "x"], "EVENT", "not an event number"),
    (["insert", 1, "FIRST", "--before", "--after", "--direction", "x"], "command line", "not allowed with"),
    (["insert", 1, "FIRST", "--after", "--direction", "   "], "TEXT", "empty"),
    (["insert", 1, "FIRST", "--after", "--direction", "x" * 100_000], "TEXT", "at most 20,000"),
    (["insert", 1, "FIRST", "--after", "--direction"], "TEXT", "no new line was given"),
    (["insert", 1, "FIRST", "--after", "x"], "command line", "one of the arguments --as --direction --heading"),
    (["insert", 1, "OTHER", "--after", "--direction", "x"], "EVENT", "belongs to run 2"),
    (["insert", 1, "FIRST", "--after", "--direction", "--shape", "sideways", "x"], "--shape", "not a shape"),
    (["insert", 1, "FIRST", "--after", "--as", " ", "x"], "--as", "names nobody"),
    (["insert", 1, "FIRST", "--after", "--as", "Cleo", "x"], "--as", "does not speak on stage"),
    (["insert", 1, "FIRST", "--after", "--as", "Zed\x1b[31mRed", "x"], "--as", "one printable line"),
    (["insert", 1, "FIRST", "--after", "--as", "N" * 500, "x"], "--as", "one printable line"),
    (["override", 1, "FIRST", "x" * 100_000], "TEXT", "at most 20,000"),
    (["cut", 1, 99999], "EVENT", "no event 99999"),
    (["move", 1, "FIRST", "--before", "FIRST"], "EVENT", "beside itself"),
    (["move", 1, "FIRST", "--after", "OTHER"], "EVENT2", "belongs to run 2"),
    (["move", 1, "FIRST"], "command line", "one of the arguments --before --after"),
    (["undo", 9], "RUN", "no run 9"),
])
def test_bad_input_to_the_pen_is_one_message_and_exit_2(tmp_path, words, field, said):
    db = tmp_path / "s.db"
    for _ in range(2):
        studio("run", "plays/interview.toml", "--model", "scripted", "--turns", "1", db=db)
    first = _events(db)[1]["id"]
    other = _events(db, 2)[1]["id"]
    before = _events(db)
    words = [first if w == "FIRST" else other if w == "OTHER" else w for w in words]
    result = studio(*words, db=db)
    assert result.returncode == 2, result.stdout
    assert said in result.stderr and "Traceback" not in result.stderr
    assert f"'{field}'" in result.stderr or field == "command line"
    assert len(result.stderr.strip().splitlines()) <= 2
    assert _events(db) == before


async def test_a_take_over_after_the_edit_stays_in_force_and_is_not_copied(engine_for, store):
    engine = await two_turns(engine_for)
    engine.take_over("other")
    engine.release("other")
    engine.take_over("other")
    engine.override(next(e for e in engine.stage() if e.role == "other").id, "Who sent you?")
    assert "other" in engine.humans()
    assert not any(e.kind == ev.CONTROL for e in engine.path)  # the run's controls stay where they were made
    assert "other" in Engine(store, engine.run_id, gateway=object()).humans()


async def test_a_run_with_a_history_is_deleted_whole(engine_for, store):
    engine = await two_turns(engine_for)
    engine.cut(engine.stage()[-1].id)
    assert engine.can_undo()
    assert store.delete_run(engine.run_id) > 0
    assert store._all("SELECT COUNT(*) FROM pen_history WHERE run_id = ?", (engine.run_id,))[0][0] == 0


async def test_a_continued_line_and_an_edit_off_the_take_are_undone_too(engine_for):
    engine = await two_turns(engine_for)
    start = engine.head
    line = engine.stage()[-1]
    longer = await engine.continue_line(line.id)
    assert engine.head == longer.id
    assert engine.undo().startswith("Undid continuation of event") and engine.head == start
    edited = engine.override(longer.id, "Not this take, the other one.")  # a line of another take: it branches there
    assert engine.head == edited.id
    assert engine.undo().startswith("Undid edit of event") and engine.head == start


async def test_a_memory_keeps_its_scores_of_kept_lines_and_forgets_a_cut_one(tmp_path, store, gateway):
    from studio.engine.forms import load_play, resolve_cast
    from studio.engine.minds import minds
    from test_mind_engine import _mara_play

    path = _mara_play(tmp_path)
    engine = Engine.create(store, resolve_cast(load_play(path), path, model="scripted"), {}, gateway=gateway)
    for _ in range(3):
        await engine.play_turn()
    first = next(e for e in engine.path if e.kind == ev.STAGE and e.character == "Sasha")
    engine.cut(first.id)
    # each kept line's score points at its copy: nothing is asked of a model again
    assert minds(engine).pending_scores(engine.path, None) == []
    scored = {e.data["line"] for e in engine.path if e.kind == "mind.importance"}
    sasha = {e.id for e in engine.path if e.kind == ev.STAGE and e.character == "Sasha"}
    assert scored == sasha and first.id not in scored


async def test_an_inner_voices_rewrite_of_a_cut_or_edited_line_goes_with_it(engine_for):
    engine = engine_for(turns=3, epilogue=False, strategies=["rewrite_speech"])
    await engine.play_turn()
    await engine.play_turn()
    rewrites = [e for e in engine.path if e.kind == ev.REWRITE_SPEECH]
    assert rewrites, "the inner voice rewrote what the protagonist heard"
    heard = engine.by_id[rewrites[-1].data["source"]]
    edited = engine.override(heard.id, "Tell me about the orange umbrella.")
    assert not any(e.kind == ev.REWRITE_SPEECH and e.data.get("kept") == rewrites[-1].id for e in engine.path)
    assert engine.lens().as_heard("ego", edited) == "Tell me about the orange umbrella."
    assert engine.stage()[-1].data.get("kept")  # the protagonist's answer itself is kept as written


def test_a_bad_move_points_to_the_move_help_and_undoing_an_import_says_where_the_head_is(tmp_path):
    db = tmp_path / "s.db"
    studio("run", "plays/interview.toml", "--model", "scripted", "--turns", "1", db=db)
    first = _events(db)[1]["id"]
    moved = studio("move", 1, first, "--before", first, db=db)
    assert moved.returncode == 2 and "studio move --help" in moved.stderr
    script = tmp_path / "two.fountain"
    script.write_text("INT. ROOM\n\nANNA\nHello.\n\nBEN\nHi.\n", encoding="utf-8")
    made = studio("import", script, "--dir", tmp_path, "--model", "scripted", db=db)
    assert made.returncode == 0, made.stderr
    undone = studio("undo", 2, db=db)
    assert undone.returncode == 0 and "None" not in undone.stdout
    assert "before the first line" in undone.stdout


def test_show_ids_gives_the_numbers_the_pen_takes_and_prints_how_a_line_is_said(tmp_path):
    """A playwright finds a line's event id on the page they read, not in JSON, and the parenthetical and
    extension they wrote stand on that page."""
    db = tmp_path / "s.db"
    assert studio("run", "plays/interview.toml", "--model", "scripted", "--turns", "1", "--strategies", "none",
                  db=db).returncode == 0
    shown = studio("show", 1, "--ids", db=db).stdout
    other = next(e for e in _events(db) if e["role"] == "other")
    assert f"#{other['id']} SASHA" in shown
    assert "#" not in studio("show", 1, db=db).stdout.split("\n", 1)[1]  # without --ids the page has no numbers
    assert studio("insert", 1, other["id"], "--after", "--as", "Jenny", "--parenthetical", "quietly",
                  "Not now.", db=db).returncode == 0
    written = next(e for e in _events(db) if e["text"] == "Not now.")
    shown = studio("show", 1, "--ids", db=db).stdout
    assert f"#{written['id']} JENNY  (quietly) Not now." in shown
    refused = studio("cut", 1, 99999, db=db)
    assert refused.returncode == 2 and "studio show RUN --ids" in refused.stderr
