"""The playwright's desk, driven through Pilot: a new play from nothing, $EDITOR, search and jump in a
long run, the take tree, directed and swiped takes, the play editor."""

from __future__ import annotations

import re

import shutil
import stat
import tomllib
from pathlib import Path


from conftest import PLAYS, ROOT, make_cast
from long_runs import build_branched_run
from studio.store import Store, events as ev
from test_tui import idle, new_take, opened, screen_text, stage, step, studio, wait_for  # noqa: F401  (studio: a fixture)

SIZE = (100, 30)


def stub_editor(tmp_path: Path, body: str) -> str:
    script = tmp_path / "editor.sh"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def long_run(tmp_path: Path, turns: int = 1000, branches: int = 50) -> tuple[int, list[int]]:
    store = Store(tmp_path / "studio.db")
    try:
        cast = make_cast(turns=turns, epilogue=False, strategies=["rewrite_speech", "critique"])
        return build_branched_run(store, cast, turns, branches)
    finally:
        store.close()


def selected(app):
    view = stage(app)
    return app.screen.engine.by_id.get(view.selected_id)


# -- writing -----------------------------------------------------------------------------------


async def test_a_new_play_from_nothing_to_a_first_stepped_turn(studio, tmp_path):
    plays = tmp_path / "plays"
    plays.mkdir()
    app = studio(None, plays_dir=plays)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.pause()
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen.query("#new-title"), "the new play form")
        # validated as you type: no title, no play
        assert app.screen.query_one("#new-create").disabled
        await pilot.press(*"The Visit")
        await pilot.pause()
        assert not app.screen.query_one("#new-create").disabled
        others = app.screen.query_one("#new-others")
        others.value = "Old Friend"
        await pilot.pause()
        await pilot.press("enter")
        screen = await opened(pilot)
        play_path = plays / "the_visit.toml"
        assert play_path.exists() and (tmp_path / "characters" / "old_friend.toml").exists()
        assert "# Turns per scene" in play_path.read_text()
        assert "The Visit · run 1" in screen_text(app)
        await step(pilot)
        assert [e.character for e in screen.engine.stage() if e.kind == ev.STAGE] == ["Old Friend", "protagonist"]
        assert "OLD FRIEND" in screen_text(app)
        # the same title again is refused before anything is written
        await pilot.press("o")
        await pilot.pause()
        await pilot.press("n")
        await wait_for(pilot, lambda: app.screen.query("#new-title"), "the new play form")
        await pilot.press(*"The Visit")
        await pilot.pause()
        assert "already exists" in screen_text(app)
        assert app.screen.query_one("#new-create").disabled


async def test_a_line_goes_out_to_the_editor_and_comes_back(studio, tmp_path, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", stub_editor(tmp_path, 'printf "I never\\nsaid that.\\n" > "$1"'))
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        line = screen.engine.stage()[-1]
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: app.screen.query_one("#edit-line-input").text == "I never\nsaid that.",
                       "the edited text back in the box")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.engine.stage()[-1].id != line.id, "the edit to land")
        new = screen.engine.stage()[-1]
        assert new.text == "I never\nsaid that." and new.origin == "override"


async def test_a_failing_editor_leaves_the_text(studio, tmp_path, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", stub_editor(tmp_path, "exit 1"))
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await step(pilot)
        await pilot.press("e")
        await pilot.pause()
        before = app.screen.query_one("#edit-line-input").text
        await pilot.press("ctrl+e")
        await pilot.pause()
        assert app.screen.query_one("#edit-line-input").text == before
        assert "exited with status 1" in "\n".join(n.message for n in app._notifications)


async def test_the_play_editor_saves_in_place(studio, tmp_path):
    plays = tmp_path / "plays"
    plays.mkdir()
    shutil.copytree(ROOT / "characters", tmp_path / "characters")
    play_path = plays / "detective.toml"
    shutil.copy(PLAYS / "detective.toml", play_path)
    original = play_path.read_text()
    app = studio(play_path=play_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await opened(pilot)
        await pilot.press("P")
        await wait_for(pilot, lambda: app.screen.query("#play-turns"), "the play editor")
        app.screen.query_one("#play-turns").value = "x"
        await pilot.pause()
        assert app.screen.query_one("#play-save").disabled and "turns" in screen_text(app)
        app.screen.query_one("#play-turns").value = "5"
        app.screen.query_one("#play-director").value = "nobody_here"
        await pilot.pause()
        assert "no character 'nobody_here'" in screen_text(app)
        app.screen.query_one("#play-director").value = "ashley"
        app.screen.query_one("#play-critique").value = "p0.5"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.screen.query("#play-turns"), "the editor to close")
    text = play_path.read_text()
    assert text == original.replace("turns = 4", "turns = 5").replace(
        "[cast.superego.critique]\nevery = 1", "[cast.superego.critique]\nprobability = 0.5")
    assert tomllib.loads(text)["cast"]["superego"]["critique"] == {"probability": 0.5}


async def test_the_play_editor_sets_the_title_page_and_keeps_a_contact_of_several_lines(studio, tmp_path):
    plays = tmp_path / "plays"
    plays.mkdir()
    shutil.copytree(ROOT / "characters", tmp_path / "characters")
    play_path = plays / "detective.toml"
    contact = "Ana Kay\n12 Quay Street, Cork"
    play_path.write_text((PLAYS / "detective.toml").read_text().replace(
        "\nauthor = ", '\ncontact = "Ana Kay\\n12 Quay Street, Cork"\nauthor = ', 1))
    assert tomllib.loads(play_path.read_text())["contact"] == contact
    app = studio(play_path=play_path)
    async with app.run_test(size=(120, 50)) as pilot:
        await opened(pilot)
        await pilot.press("P")
        await wait_for(pilot, lambda: app.screen.query("#play-author"), "the play editor")
        assert app.screen.query_one("#play-contact").value == "Ana Kay / 12 Quay Street, Cork"
        app.screen.query_one("#play-author").value = "Ida\x1b[31m Lake"
        await pilot.pause()
        assert app.screen.query_one("#play-save").disabled and "author" in screen_text(app)
        app.screen.query_one("#play-author").value = "Ida Lake"
        app.screen.query_one("#play-credit").value = "Story by"
        app.screen.query_one("#play-draft_date").value = "Second draft"
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: not app.screen.query("#play-author"), "the editor to close")
    saved = tomllib.loads(play_path.read_text())
    assert (saved["author"], saved["credit"], saved["draft_date"]) == ("Ida Lake", "Story by", "Second draft")
    assert saved["contact"] == contact  # untouched, its lines kept


# -- finding -----------------------------------------------------------------------------------


async def test_search_and_jump_in_a_thousand_turn_run(studio, tmp_path):
    run_id, starts = long_run(tmp_path)
    app = studio(run_id=run_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        head = screen.engine.head
        await pilot.press("slash")
        await wait_for(pilot, lambda: app.screen.query("#search-input"), "the search box")
        await pilot.press(*"answers 50")
        await pilot.pause()
        # answers 50, 500-509: eleven lines of this take
        assert "11 lines in this take" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert selected(app).text.startswith("Jenny answers 50:")
        assert "Match 1 of 11" in screen_text(app)
        rows = screen_text(app)
        assert "answers 50" in rows
        assert stage(app).highlight is not None
        await pilot.press("n")
        await pilot.pause()
        assert selected(app).text.startswith("Jenny answers 500:")
        await pilot.press("N", "N")
        await pilot.pause()
        assert selected(app).text.startswith("Jenny answers 509:")  # it wraps round
        await pilot.press("escape")
        await pilot.pause()
        assert stage(app).highlight is None
        await pilot.press("n")  # n is a note again
        await pilot.pause()
        assert screen.focused is screen.query_one("#note-input")
        screen.query_one("#stage").focus()
        # jump to a turn and to a scene
        await pilot.press("colon")
        await wait_for(pilot, lambda: app.screen.query("#jump-input"), "the jump box")
        await pilot.press(*"750")
        await pilot.pause()
        assert "scene 1, turn 750" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        assert selected(app).turn == 750 and selected(app).role == "other"
        await pilot.press("colon")
        await wait_for(pilot, lambda: app.screen.query("#jump-input"), "the jump box")
        await pilot.press(*"s9")
        await pilot.pause()
        assert "no scene 9" in screen_text(app)
        await pilot.press("enter")
        await pilot.pause()
        app.screen.query_one("#jump-input").value = "s1"
        await pilot.press("enter")
        await pilot.pause()
        assert selected(app).kind == ev.SCENE
        assert screen.engine.head == head  # looking never moves the run
        # every take: a line only another take has, and going there follows that take
        await pilot.press("slash")
        await wait_for(pilot, lambda: app.screen.query("#search-input"), "the search box")
        app.screen.query_one("#search-input").value = "different night"
        await pilot.pause()
        assert "No line in this take" in screen_text(app)
        await pilot.press("ctrl+t")
        await pilot.pause()
        assert "50 lines in every take" in screen_text(app)
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: screen.engine.head != head, "the other take")
        await pilot.pause()
        assert starts[1] in screen.engine.by_id
        assert selected(app).id == starts[1]


async def test_the_take_tree_follows_names_and_stars_takes(studio, tmp_path):
    from studio.store.takes import marks

    run_id, starts = long_run(tmp_path, turns=30, branches=3)
    app = studio(run_id=run_id)
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(pilot)
        await pilot.press("T")
        await wait_for(pilot, lambda: app.screen.query("#take-tree"), "the take tree")
        tree = app.screen.query_one("#take-tree")
        text = screen_text(app)
        assert "scene 1 turn 21 · Jenny: Jenny answers 21: the garden" in text and "take 2: a different night" in text and "scripted" in text
        assert re.search(r"▶ \d+ lines · scripted · .* · scene 1 turn 21 · Jenny: Jenny answers 21: the garden", text)
        # the branch that starts at the second alternative take
        node = next(n for n in tree._tree_nodes.values() if n.data is not None and n.data.start.id == starts[1])
        tree.move_cursor(node)
        await pilot.press("asterisk")
        await pilot.press("m")
        await pilot.pause()
        await pilot.press(*"the quiet one", "enter")
        await pilot.pause()
        assert "★ “the quiet one”" in screen_text(app)
        mark = marks(screen.engine.store, run_id)[starts[1]]
        assert mark.starred and mark.name == "the quiet one"
        await pilot.press("enter")
        await wait_for(pilot, lambda: starts[1] in screen.engine.by_id, "the chosen take")
        await pilot.pause()
        assert selected(app).id == starts[1]
        assert "take 3" in screen_text(app)
        # the stage shows the take's marks beside its line
        assert stage(app).selected.tag == "★ · “the quiet one” · take 2/2"
        assert "a different night.  ★ · “the" in screen_text(app)


# -- steering ----------------------------------------------------------------------------------


async def test_a_directed_regenerate_writes_a_steered_take(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot, 2)
        engine = screen.engine
        line = engine.stage()[-1]
        await pilot.press("G")
        await wait_for(pilot, lambda: app.screen.query("#direct-note"), "the direction dialog")
        await pilot.press(*"angrier")
        app.screen.query_one("#direct-temperature").value = "5"
        await pilot.pause()
        assert app.screen.query_one("#direct-go").disabled and "out of range" in screen_text(app)
        app.screen.query_one("#direct-temperature").value = "1.6"
        await pilot.pause()
        await pilot.press("enter")
        await wait_for(pilot, lambda: engine.stage()[-1].id != line.id, "the directed take")
        await idle(pilot)
        new = engine.stage()[-1]
        assert new.data["direction"] == {"note": "angrier", "temperature": 1.6}
        assert new.settings["temperature"] == 1.6
        assert [t.id for t in engine.takes(line.id)] == [line.id, new.id]
        assert "Your direction for this take" in screen_text(app) and "angrier" in screen_text(app)


async def test_swiping_past_the_newest_lines_last_take_writes_a_new_one(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        line = engine.stage()[-1]
        assert (await new_take(pilot, "right_square_bracket", "A swiped take.")).text == "A swiped take."
        assert "take 2/2" in screen_text(app)
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert engine.stage()[-1].id == line.id
        # not on the newest line: ] only moves between the takes there are
        first_line = engine.stage()[1]
        stage(app).select_event(first_line.id)
        await pilot.pause()
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert len(engine.takes(first_line.id)) == 1


async def test_a_note_written_in_the_editor_is_sent(studio, tmp_path, monkeypatch):
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", stub_editor(tmp_path, 'printf "Slow down.\\nLet the silence work.\\n" > "$1"'))
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: any(e.kind == ev.NOTE for e in screen.engine.path), "the note")
        note = next(e for e in screen.engine.path if e.kind == ev.NOTE)
        assert note.text == "Slow down.\nLet the silence work." and note.origin == "human"


async def test_a_search_over_every_take_names_the_take_of_each_match(studio, tmp_path):
    from studio.store.takes import name_take

    run_id, starts = long_run(tmp_path, turns=30, branches=3)
    store = Store(tmp_path / "studio.db")
    name_take(store, starts[1], "the quiet one")
    store.close()
    app = studio(run_id=run_id)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await pilot.press("slash")
        await wait_for(pilot, lambda: app.screen.query("#search-input"), "the search box")
        app.screen.query_one("#search-input").value = "different night"
        await pilot.press("ctrl+t")
        await pilot.pause()
        rows = [str(o.prompt) for o in app.screen.query_one("#search-results").options]
        assert rows and all("this take" not in row for row in rows), rows
        assert any("“the quiet one”" in row for row in rows), rows
        assert any(" from s1 t" in row and "take " in row for row in rows), rows
        app.screen.query_one("#search-input").value = "a"
        await pilot.pause()
        rows = [str(o.prompt) for o in app.screen.query_one("#search-results").options]
        assert any("this take" in row for row in rows), rows


async def test_take_tree_rows_too_long_for_80_columns_end_in_an_ellipsis(studio, tmp_path):
    run_id, _ = long_run(tmp_path, turns=30, branches=3)
    app = studio(run_id=run_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.press("T")
        await wait_for(pilot, lambda: app.screen.query("#take-tree"), "the take tree")
        await pilot.pause(0.2)
        tree = app.screen.query_one("#take-tree")
        rows = [tree.render_line(y).text.rstrip() for y in range(tree.size.height)]
        rows = [r for r in rows if " line" in r]
        assert rows and any(r.endswith("…") for r in rows), rows
        assert all(r.endswith("…") or len(r) < tree.size.width for r in rows), rows


async def test_ctrl_e_right_after_typing_takes_every_letter_typed(studio, tmp_path, monkeypatch):
    """Letters and ctrl+e arriving in one burst (a fast typist, a paste): the editor gets the whole line, and
    the line saved from it is whole."""
    from textual import events

    monkeypatch.delenv("VISUAL", raising=False)
    seen = tmp_path / "seen.txt"
    monkeypatch.setenv("EDITOR", stub_editor(tmp_path, f'cp "$1" "{seen}"'))
    app = studio(roles={"ego": "human"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.query_one("#human").display, "the input box")
        await pilot.pause()
        for char in "I kept the letters":
            app.post_message(events.Key(char if char != " " else "space", char))
        app.post_message(events.Key("ctrl+e", None))
        await wait_for(pilot, lambda: any(e.origin == "human" for e in screen.engine.stage()), "the line")
        assert seen.read_text().strip() == "I kept the letters"
        assert [e.text for e in screen.engine.stage() if e.origin == "human"] == ["I kept the letters"]
