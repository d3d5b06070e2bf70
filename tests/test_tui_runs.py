"""Runs a playwright can clear away: no empty runs left behind, and whole runs deleted on request."""

from __future__ import annotations

from conftest import make_cast
from studio.store import Store
from test_tui import dialog, opened, screen_text, step, studio, wait_for  # noqa: F401


from studio.tui.screens.main import MainScreen  # noqa: E402

SIZE = (110, 32)


def _runs(tmp_path) -> list[tuple[int, int]]:
    """(run, events) of every run in the test's database, read as another process would."""
    store = Store(tmp_path / "studio.db")
    try:
        return [(r.id, r.events) for r in store.runs()]
    finally:
        store.close()


async def test_opening_a_play_and_quitting_leaves_no_run(studio, tmp_path):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+q")
    assert _runs(tmp_path) == []


async def test_a_run_with_a_line_is_kept_when_the_app_quits(studio, tmp_path):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        run = screen.engine.run_id
        await pilot.press("ctrl+q")
    assert [r for r, events in _runs(tmp_path) if events] == [run]


async def test_opening_a_saved_empty_run_never_removes_it(studio, tmp_path):
    store = Store(tmp_path / "studio.db")
    saved = store.create_run("The Interview", "plays/interview.toml", make_cast().model_dump_json(), {})
    store.close()
    app = studio(run_id=saved)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await dialog(pilot, "o", screen="PickerScreen")
        await pilot.pause()
        assert f"run {saved} " in screen_text(app)
    assert _runs(tmp_path) == [(saved, 0)]


async def test_a_new_run_and_the_picker_clear_away_the_empty_run_left_behind(studio, tmp_path):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        first = screen.engine.run_id
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen) and app.screen.engine is not None
                       and app.screen.engine.run_id != first, "the new run")
        second = app.screen.engine.run_id
        assert [r for r, _ in _runs(tmp_path)] == [second]
        await dialog(pilot, "o", screen="PickerScreen")
        await pilot.pause()
        text = screen_text(app)
        # nothing to go back to: the run that was open held no line and is gone
        assert f"run {second} " not in text and "Esc back" not in text and "no saved runs yet" in text
    assert _runs(tmp_path) == []


async def _stepped_runs(tmp_path, count: int) -> list[int]:
    from studio.engine import Engine

    store = Store(tmp_path / "studio.db")
    made = []
    for _ in range(count):
        engine = Engine.create(store, make_cast(), {})
        await engine.play_turn()
        made.append(engine.run_id)
    store.close()
    return made


async def _highlight(pilot, app, run: int) -> None:
    await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PickerScreen", "the picker")
    await pilot.pause()
    picker = app.screen.query_one("#picker-list")
    picker.highlighted = next(i for i in range(picker.option_count) if picker.get_option_at_index(i).id == f"run:{run}")


async def test_the_picker_deletes_a_run_only_after_a_yes_that_names_it(studio, tmp_path):
    doomed, kept = await _stepped_runs(tmp_path, 2)
    app = studio(None)
    async with app.run_test(size=SIZE) as pilot:
        await _highlight(pilot, app, doomed)
        await dialog(pilot, "d", screen="ConfirmScreen")
        question = screen_text(app)
        assert f"Delete run {doomed}?" in question and "“The Interview” (run 1, " in question and " lines " in question
        await pilot.press("escape")
        await _highlight(pilot, app, doomed)
        assert {r for r, _ in _runs(tmp_path)} == {doomed, kept}
        await dialog(pilot, "d", screen="ConfirmScreen")
        await pilot.press("n")
        await _highlight(pilot, app, doomed)
        assert {r for r, _ in _runs(tmp_path)} == {doomed, kept}
        await dialog(pilot, "d", screen="ConfirmScreen")
        await dialog(pilot, "y", screen="PickerScreen")
        await pilot.pause()
        assert f"run {doomed} " not in screen_text(app) and f"run {kept} " in screen_text(app)
    assert [r for r, _ in _runs(tmp_path)] == [kept]


async def test_a_lab_trials_run_is_refused_with_a_reason(tmp_path, capsys):
    from studio.cli import main
    from studio.lab.trials import Trials

    (trial,) = await _stepped_runs(tmp_path, 1)
    store = Store(tmp_path / "studio.db")
    Trials(store)  # the lab's table, as the lab makes it
    store.conn.execute("INSERT INTO lab_trials (experiment, key, status, result, updated) VALUES ('pd', 'k', 'done', ?, 1)",
                       (f'{{"run": {trial}}}',))
    store.close()
    assert main(["delete", str(trial), "--yes", "--db", str(tmp_path / "studio.db")]) == 2
    assert "lab trial" in capsys.readouterr().err
    assert [r for r, events in _runs(tmp_path) if events] == [trial]


async def test_studio_delete_asks_names_the_run_and_needs_yes_without_a_terminal(tmp_path, capsys, monkeypatch):
    from studio.cli import main

    doomed, kept = await _stepped_runs(tmp_path, 2)
    db = str(tmp_path / "studio.db")
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    assert main(["delete", str(doomed), "--db", db]) == 2
    err = capsys.readouterr().err
    assert "--yes" in err and "Traceback" not in err
    assert len(_runs(tmp_path)) == 2
    monkeypatch.setattr("sys.stdin.isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "n")
    assert main(["delete", str(doomed), "--db", db]) == 0
    assert "kept" in capsys.readouterr().out and len(_runs(tmp_path)) == 2
    asked = []
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or "y")
    assert main(["delete", str(doomed), "--db", db]) == 0
    assert f"run {doomed}," in asked[0] and "Deleted" in capsys.readouterr().out
    assert [r for r, _ in _runs(tmp_path)] == [kept]
    assert main(["delete", str(doomed), "--yes", "--db", db]) == 2
    assert f"no run {doomed}" in capsys.readouterr().err


# -- hidden takes -----------------------------------------------------------------------------------


def _branched(tmp_path) -> tuple[int, list[int]]:
    from long_runs import build_branched_run

    store = Store(tmp_path / "studio.db")
    try:
        return build_branched_run(store, make_cast(turns=6, epilogue=False), 6, 2)
    finally:
        store.close()


def _tree_starts(app) -> set[int]:
    tree = app.screen.query_one("#take-tree")
    return {n.data.start.id for n in tree._tree_nodes.values() if n.data is not None}


async def _open_tree(pilot, app) -> None:
    await dialog(pilot, "T", screen="TakeTreeScreen")
    await pilot.pause()


def _tag_of_first_answer(screen) -> str:
    from test_tui import stage

    line = next(e for e in screen.engine.stage() if e.role == "ego")
    return next(entry.tag for entry in stage(screen.app).entries if entry.event_id == line.id)


async def test_a_hidden_take_leaves_the_tree_and_the_counts_and_stays_hidden_after_reopening(studio, tmp_path):
    run_id, starts = _branched(tmp_path)
    events_before = len(Store(tmp_path / "studio.db").events(run_id))
    app = studio(run_id=run_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert "take 1/2" in _tag_of_first_answer(screen)
        await _open_tree(pilot, app)
        assert starts[0] in _tree_starts(app)
        tree = app.screen.query_one("#take-tree")
        # the take on stage is not hidden
        current = next(n for n in tree._tree_nodes.values() if n.data is not None and n.data.current)
        tree.move_cursor(current)
        await pilot.press("h")
        await pilot.pause()
        assert "on stage" in "\n".join(n.message for n in app._notifications)
        tree.move_cursor(next(n for n in tree._tree_nodes.values() if n.data is not None and n.data.start.id == starts[0]))
        await pilot.press("h")
        await pilot.pause()
        assert starts[0] not in _tree_starts(app) and starts[1] in _tree_starts(app)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the stage")
        await pilot.pause()
        assert "take" not in _tag_of_first_answer(screen)
    assert len(Store(tmp_path / "studio.db").events(run_id)) == events_before  # every line kept
    again = studio(run_id=run_id)
    async with again.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert "take" not in _tag_of_first_answer(screen)
        await _open_tree(pilot, again)
        assert starts[0] not in _tree_starts(again)
        await pilot.press("H")
        await pilot.pause()
        assert starts[0] in _tree_starts(again) and "hidden" in screen_text(again)
        tree = again.screen.query_one("#take-tree")
        tree.move_cursor(next(n for n in tree._tree_nodes.values() if n.data is not None and n.data.start.id == starts[0]))
        await pilot.press("h")  # shown again
        await pilot.press("H")
        await pilot.pause()
        assert starts[0] in _tree_starts(again)
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(again.screen, MainScreen), "the stage")
        await pilot.pause()
        assert "take 1/2" in _tag_of_first_answer(screen)


async def test_a_hidden_take_is_not_offered_for_comparison(studio, tmp_path):
    from studio.store.takes import hide_take
    from studio.tui.screens.diff import DiffScreen, open_diff

    run_id, starts = _branched(tmp_path)
    store = Store(tmp_path / "studio.db")
    hide_take(store, starts[0])
    store.close()
    app = studio(run_id=run_id)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        line = next(e for e in screen.engine.stage() if e.role == "ego")
        open_diff(screen, screen.engine, line.id)
        await pilot.pause()
        assert not isinstance(app.screen, DiffScreen)
        assert "only one take" in "\n".join(n.message for n in app._notifications)


# -- the take tree's rows ---------------------------------------------------------------------------


async def test_the_take_tree_says_1_line_gives_every_take_a_guide_and_keeps_a_long_names_count(studio, tmp_path):
    from long_runs import build_branched_run

    from studio.store.takes import name_take

    store = Store(tmp_path / "studio.db")
    run_id, starts = build_branched_run(store, make_cast(turns=3, epilogue=False), 3, 1, branch_turns=0)
    long_name = "the version where she finally admits what happened in the garden"[:60]
    name_take(store, starts[0], long_name)
    store.close()
    app = studio(run_id=run_id)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await _open_tree(pilot, app)
        rows = screen_text(app).splitlines()
        named = next(row for row in rows if "“the version" in row)
        assert "…”" in named and "1 line ·" in named  # the name shortened, the count kept
        assert not any("1 lines" in row for row in rows)
        # the take on stage has a guide, and the other take of that moment hangs under it
        on_stage = next(row for row in rows if "▶" in row and "turn 1" in row)
        assert "├" in on_stage or "└" in on_stage
        assert rows.index(named) == rows.index(on_stage) + 1
        assert named.index("“") > on_stage.index("▶")
