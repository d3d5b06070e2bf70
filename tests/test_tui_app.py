"""The app defects a try-out found, each pinned by what the playwright sees."""

from __future__ import annotations

import pytest

from conftest import make_cast
from studio.store import Store
from test_tui import _plain, dialog, idle, notifications, opened, screen_text, stage, step, studio, wait_for, workshop  # noqa: F401


from studio.tui.screens.main import MainScreen  # noqa: E402

SIZE = (100, 30)


async def test_a_sheet_with_an_unknown_model_is_not_saved_and_the_file_is_named(studio, workshop):
    sheet_path = workshop / "characters" / "jenny.toml"
    original = sheet_path.read_text()
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await dialog(pilot, "c", "enter", screen="CharacterScreen")
        editor = app.screen
        editor.query_one("#field-model").value = "5"
        await wait_for(pilot, lambda: "unknown model '5'" in screen_text(app), "the model check")
        assert "jenny.toml: model: unknown model '5'" in screen_text(app)
        assert editor.query_one("#character-save").disabled
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert sheet_path.read_text() == original
        assert "jenny.toml" in notifications(app)
        editor.query_one("#field-model").value = "scripted"
        await wait_for(pilot, lambda: "Valid." in screen_text(app), "the model check")
        assert not editor.query_one("#character-save").disabled


async def test_the_input_box_leaves_the_line_being_answered_in_sight(studio):
    app = studio()
    async with app.run_test(size=(90, 24)) as pilot:
        screen = await opened(pilot)
        await step(pilot, 4)
        screen.engine.take_over("ego")
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.query_one("#human").display, "the input box")
        await pilot.pause(0.2)
        question = screen.engine.stage()[-1]
        assert question.role == "other"
        # the question's last words are on screen, above the box
        tail = question.text.split()[-2]
        text = screen_text(app)
        assert tail in text, text
        assert text.index(tail) < text.index("JENNY (ego) · speaks · your line")
        assert "Your turn as Jenny" in screen.query_one("#activity").render().plain


async def test_the_status_line_lists_only_strategies_that_are_on(studio):
    app = studio()
    async with app.run_test(size=(140, 30)) as pilot:
        screen = await opened(pilot)
        assert "superego: prompt speech critique" in screen_text(app)
        screen.cast_controls.switch_strategy("critique", False)
        screen.cast_controls.switch_strategy("rewrite_prompt", False)
        await pilot.pause()
        text = screen_text(app)
        assert "superego: speech ·" in text or "superego: speech " in text
        assert "critique ·" not in text.splitlines()[0] and "prompt" not in text.splitlines()[0].split("superego:")[1]
        screen.cast_controls.switch_strategy("rewrite_speech", False)
        await pilot.pause()
        assert "superego: all off" in screen_text(app)


async def test_status_and_backstage_agree_on_which_turn_it_is(studio):
    app = studio("detective.toml")
    async with app.run_test(size=(160, 40)) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        while engine.state.scene < 2 or engine.state.turn_in_scene < 1:
            await step(pilot)
        await pilot.pause()
        line = engine.stage()[-1]
        first = screen_text(app).splitlines()[0]
        assert f"turn {engine.state.turn_in_scene}/{engine.cast.play.turns}" in first
        assert f"run turn {line.turn}" in first
        assert f"run turn {line.turn}" in _plain(screen.query_one("#backstage").content)


async def test_after_a_take_switch_the_activity_line_says_that_takes_next_step(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot, 2)
        await pilot.press("r")
        await pilot.pause()
        await step(pilot)
        # now the last line has two takes: the new one and the old one (which went on to another turn)
        before = screen.query_one("#activity").render().plain
        await pilot.press("left_square_bracket")
        await pilot.pause()
        from studio.tui.views import next_step

        after = screen.query_one("#activity").render().plain
        assert after.startswith(next_step(screen.engine)), (before, after)


async def test_after_a_note_focus_returns_to_the_stage_and_the_notes_follow(studio):
    app = studio()
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await opened(pilot)
        for n in range(6):
            await pilot.press("n")
            assert screen.focused is screen.query_one("#note-input")
            await pilot.press(*f"Note number {n} about the garden and the lease.")
            await pilot.press("enter")
            await pilot.pause()
            assert screen.focused is stage(app)
        await pilot.pause(0.2)
        scroll = screen.query_one("#notes-scroll")
        assert scroll.max_scroll_y > 0 and scroll.scroll_y == scroll.max_scroll_y
        assert "5 about the garden and the lease." in screen_text(app)
        # `s` now steps instead of typing into the note box
        await pilot.press("s")
        await idle(pilot)
        assert screen.engine.stage()


async def test_a_reopened_run_shows_its_newest_line(studio, tmp_path):
    from studio.engine import Engine

    store = Store(tmp_path / "studio.db")
    engine = Engine.create(store, make_cast(), {})
    for _ in range(8):
        await engine.play_turn()
    last = engine.stage()[-1]
    store.close()
    app = studio(run_id=1)
    async with app.run_test(size=(90, 24)) as pilot:
        await opened(pilot)
        await pilot.pause(0.2)
        view = stage(app)
        assert view.selected_id == last.id
        assert view.max_scroll_y > 0 and view.scroll_y == view.max_scroll_y
        assert last.text.split()[-1] in screen_text(app)


async def test_export_to_a_folder_that_does_not_exist_writes_into_it(studio, tmp_path):
    app = studio()
    folder = tmp_path / "drafts"
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await step(pilot)
        await dialog(pilot, "x", screen="ExportScreen")
        await pilot.click("#format-markdown")
        app.screen.query_one("#export-path").value = f"{folder}/"
        await pilot.click("#export-go")
        await wait_for(pilot, lambda: "Exported to" in notifications(app), "the export")
    assert folder.is_dir() and [p.suffix for p in folder.iterdir()] == [".md"]
    assert not (tmp_path / "drafts.md").exists()


async def test_the_picker_shows_status_models_and_dates_and_renames_and_archives(studio, tmp_path):
    from studio.engine import Engine

    store = Store(tmp_path / "studio.db")
    paused = Engine.create(store, make_cast(), {})
    for _ in range(3):
        await paused.play_turn()
    info_events = len(store.events(1))
    done = Engine.create(store, make_cast(turns=1), {})
    while not done.finished:
        await done.play_turn()
    store.close()
    app = studio(None)
    async with app.run_test(size=(120, 34)) as pilot:
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PickerScreen", "the picker")
        await pilot.pause()
        text = screen_text(app)
        assert "run 1  The Interview  · paused at scene 1 turn 3" in text
        assert "run 2  The Interview  · finished" in text
        assert "scripted" in text and "last line 20" in text
        picker = app.screen.query_one("#picker-list")
        picker.highlighted = next(i for i in range(picker.option_count) if picker.get_option_at_index(i).id == "run:1")
        await pilot.press("m")
        await pilot.press(*"Jenny lies")
        await pilot.press("enter")
        await pilot.pause()
        assert "run 1  Jenny lies  (The Interview)" in screen_text(app)
        await pilot.press("a")
        await pilot.pause()
        assert "run 1 " not in screen_text(app) and "archived" in notifications(app)
        await pilot.press("h")
        await pilot.pause()
        assert "run 1  Jenny lies" in screen_text(app) and "· archived" in screen_text(app)
    again = Store(tmp_path / "studio.db")  # the migration runs again on an up-to-date file: nothing changes
    info = again.run(1)
    assert (info.name, info.archived) == ("Jenny lies", True) and len(again.events(1)) == info_events
    again.close()


@pytest.mark.parametrize("typed,says", [("Jenny\x1b[2Jlies", "one line"), ("   ", "only spaces")])
async def test_the_picker_refuses_a_name_with_control_or_only_spaces_and_keeps_the_old_one(studio, tmp_path,
                                                                                           typed, says):
    store = Store(tmp_path / "studio.db")
    store.create_run("The Interview", "plays/interview.toml", make_cast().model_dump_json(), {})
    store.rename_run(1, "First try")
    store.close()
    app = studio(None)
    async with app.run_test(size=(120, 34)) as pilot:
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PickerScreen", "the picker")
        await pilot.pause()
        picker = app.screen.query_one("#picker-list")
        picker.highlighted = next(i for i in range(picker.option_count) if picker.get_option_at_index(i).id == "run:1")
        await pilot.press("m")
        box = app.screen.query_one("#run-name")
        box.value = typed  # as a paste would bring it
        await pilot.press("enter")
        await pilot.pause()
        assert "Not renamed" in notifications(app) and says in notifications(app)
        assert box.has_class("-open") and box.value == typed
        assert app.store.run(1).name == "First try"


def test_runs_rename_and_archive_on_the_command_line(tmp_path, capsys, monkeypatch):
    import sqlite3

    monkeypatch.setenv("COLUMNS", "200")

    from studio.cli import main

    db = tmp_path / "old.db"
    # a database from before names and archives: the store adds the columns in place, once
    store = Store(db)
    store.create_run("The Interview", "plays/interview.toml", make_cast().model_dump_json(), {})
    store.close()
    conn = sqlite3.connect(db)
    conn.execute("CREATE TABLE runs2 AS SELECT id, created, title, play_path, cast_json, options, head FROM runs")
    conn.execute("PRAGMA foreign_keys=OFF")
    conn.execute("DROP TRIGGER events_are_kept")  # the guard of those days follows below
    conn.execute("DROP TABLE runs")
    conn.execute("ALTER TABLE runs2 RENAME TO runs")
    conn.execute("CREATE TRIGGER events_are_kept BEFORE DELETE ON events "
                 "BEGIN SELECT RAISE(ABORT, 'events are never deleted'); END")
    conn.commit()
    conn.close()
    assert main(["runs", "--db", str(db)]) == 0
    assert "not started" in capsys.readouterr().out
    assert main(["rename", "1", "First try", "--db", str(db)]) == 0
    assert "First try" in capsys.readouterr().out
    assert main(["archive", "1", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["runs", "--db", str(db)]) == 0
    out = capsys.readouterr().out
    assert "First try" not in out and "archived" in out
    assert main(["runs", "--all", "--db", str(db)]) == 0
    assert "First try (archived)" in capsys.readouterr().out
    assert main(["archive", "1", "--undo", "--db", str(db)]) == 0
    capsys.readouterr()
    assert main(["runs", "--db", str(db)]) == 0
    assert "First try" in capsys.readouterr().out
    assert main(["rename", "7", "x", "--db", str(db)]) == 2
    assert "no run 7" in capsys.readouterr().err


async def test_character_colours_follow_a_light_theme_and_the_theme_is_remembered(studio, tmp_path):
    from studio import settings
    from studio.tui.widgets.stage import LIGHT_PALETTE, PALETTE

    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await step(pilot)
        view = stage(app)
        assert view.colours["Jenny"] in PALETTE
        app.theme = "textual-light"
        await pilot.pause()
        assert view.colours["Jenny"] in LIGHT_PALETTE
        # the name on screen is drawn in the dark colour now
        styles = [seg.style for seg in view.render_line(1)._segments if seg.text.strip() == "SASHA"]
        assert styles and styles[0].color.name.lower() == view.colours["Sasha"]
    assert settings.load()["theme"] == "textual-light"
    again = studio()
    async with again.run_test(size=SIZE) as pilot:
        await opened(pilot)
        assert again.theme == "textual-light"
        assert stage(again).colours["Jenny"] in LIGHT_PALETTE


async def test_at_120_columns_the_footer_and_the_critique_table_are_whole(studio):
    app = studio()
    async with app.run_test(size=(120, 30)) as pilot:
        await opened(pilot)
        footer = screen_text(app).splitlines()[-1]
        assert footer.rstrip().endswith("^p palette") and "? Help" in footer, footer
        await dialog(pilot, "K", screen="CritiqueScreen")
        await pilot.pause()
        text = screen_text(app)
        for word in ("Successful", "Adaptation", "Behavioural", "Introspection", "take"):
            assert word in text, word


def test_a_word_diff_marks_only_the_words_that_changed():
    from studio.tui.screens.diff import GONE, NEW, word_diff

    left, right, merged = word_diff("Where were you that night?", "Where were you on Tuesday night?")
    assert left.plain == "Where were you that night?" and right.plain == "Where were you on Tuesday night?"
    cut = [left.plain[s.start:s.end] for s in left.spans if s.style == GONE]
    added = [right.plain[s.start:s.end] for s in right.spans if s.style == NEW]
    assert cut == ["that"] and added == ["on", "Tuesday"]
    assert merged.plain == "Where were you that on Tuesday night?"


async def test_g_with_the_scripted_voice_writes_a_new_take_that_reads_differently(studio):
    app = studio()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        line = screen.engine.stage()[-1]
        stage(app).select_event(line.id)
        await pilot.press("g")
        await wait_for(pilot, lambda: len(screen.engine.takes(line.id)) == 2, "the new take")
        await idle(pilot)
        new = screen.engine.stage()[-1]
        assert new.id != line.id and new.text != line.text, (line.text, new.text)
        box = stage(app).region
        rows = screen_text(app).splitlines()[box.y:box.bottom]
        shown = " ".join(" ".join(row[box.x + 1:box.right - 1].strip("▌ ") for row in rows).split())
        assert "take 2:" in shown, shown  # the new take says which it is, on the stage itself
        stage(app).select_event(new.id)
        await dialog(pilot, "d", screen="DiffScreen")
        await pilot.pause()
        assert "take 1 of 2" in screen_text(app) and "take 2 of 2" in screen_text(app)


async def test_two_takes_of_a_line_are_compared_from_the_stage_and_the_take_tree(studio):
    from studio.llm import scripted

    app = studio()
    async with app.run_test(size=(120, 36)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        view = stage(app)
        line = screen.engine.stage()[-1]
        await pilot.press("d")
        await pilot.pause()
        assert "only one take" in notifications(app)
        view.select_event(line.id)
        scripted.queue("A wholly different answer about the lease.", role="ego", task="revise")
        scripted.queue("A wholly different answer about the lease.", role="ego", task="speak")
        await pilot.press("g")
        await idle(pilot)
        new = screen.engine.stage()[-1]
        assert new.id != line.id and new.text != line.text
        view.select_event(new.id)
        await dialog(pilot, "d", screen="DiffScreen")
        await pilot.pause()
        text = screen_text(app)
        assert "take 1 of 2" in text and "take 2 of 2" in text and "words in common" in text
        assert "lease." in text
        await pilot.press("w")
        await pilot.pause()
        assert "take 1 of 2 · scripted → take 2 of 2 · scripted" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        assert isinstance(app.screen, MainScreen)
        await dialog(pilot, "T", screen="TakeTreeScreen")
        await pilot.pause()
        tree = app.screen.query_one("#take-tree")
        nodes, todo = [], [tree.root]
        while todo:
            node = todo.pop()
            nodes.append(node)
            todo.extend(node.children)
        fork = next(n for n in nodes if n.data is not None and (n.data.first_line or n.data.start).id == line.id)
        tree.move_cursor(fork)
        await pilot.pause()
        await dialog(pilot, "d", screen="DiffScreen")
        await pilot.pause()
        text = screen_text(app)
        assert "take 1 of 2" in text and "take 2 of 2" in text


def test_a_run_whose_sheet_names_an_unknown_model_blames_the_sheet(workshop, capsys, monkeypatch):
    from studio.cli import main

    sheet = workshop / "characters" / "jenny.toml"
    sheet.write_text('model = "5"\n' + "\n".join(
        line for line in sheet.read_text().splitlines() if not line.startswith("model")) + "\n")
    monkeypatch.chdir(workshop)
    code = main(["run", "plays/interview.toml", "--turns", "1", "--db", str(workshop / "s.db")])
    err = capsys.readouterr().err
    assert code == 2
    assert "jenny.toml: field 'model': unknown model '5'" in err and "interview.toml" not in err
