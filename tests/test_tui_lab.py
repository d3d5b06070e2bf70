"""The app's lab screen: experiments in the store shown live, a trial's run opened from it."""

from __future__ import annotations

import asyncio

from test_tui import make_cast, screen_text, studio, wait_for  # noqa: F401


from studio.engine import Engine  # noqa: E402
from studio.lab.trials import Trials  # noqa: E402
from studio.store import Store  # noqa: E402
from studio.tui.screens.lab import LabScreen, read_experiments, summary  # noqa: E402
from studio.tui.screens.main import MainScreen  # noqa: E402


async def _seed(tmp_path) -> int:
    """An experiment half-way: two trials done (one with a run), one running, one failed."""
    store = Store(tmp_path / "studio.db")
    engine = Engine.create(store, make_cast("interview.toml", turns=1), {})
    await engine.play_to_end()
    trials = Trials(store)
    usage = {"prompt_tokens": 1000, "completion_tokens": 200}
    trials.record("compare_interview:scripted", "with/0", "done", {"run": engine.run_id, "usage": usage})
    trials.record("compare_interview:scripted", "without/0", "done", {"usage": usage})
    trials.record("compare_interview:scripted", "with/1", "running", {})
    trials.record("compare_interview:scripted", "without/1", "failed", error="the model said [bold]nothing[/bold] twice")
    store.close()
    return engine.run_id


def test_the_lab_reads_progress_from_the_trials_table(tmp_path):
    asyncio.run(_seed(tmp_path))
    store = Store(tmp_path / "studio.db")
    (experiment,) = read_experiments(store)
    text = summary(experiment).plain
    assert text.startswith("2 done · 1 running · 1 failed · 2,400 tokens")
    store.close()
    empty = Store(tmp_path / "other.db")  # a store the lab never touched: no table, no experiments
    assert read_experiments(empty) == []
    empty.close()


async def test_the_lab_screen_shows_experiments_live_and_opens_a_trials_run(studio, tmp_path):
    run_id = await _seed(tmp_path)
    app = studio(None)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.pause()
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(app.screen, LabScreen), "the lab screen")
        await pilot.pause()
        text = screen_text(app)
        assert "compare_interview:scripted" in text and "2 done · 1 running · 1 failed" in text
        assert "the model said [bold]nothing[/bold] twice" in text  # an error is text, not markup
        # another process finishes a trial: the screen follows within its refresh
        writer = Store(tmp_path / "studio.db")
        Trials(writer).record("compare_interview:scripted", "with/1", "done", {"usage": {"prompt_tokens": 5}})
        writer.close()
        await wait_for(pilot, lambda: "3 done · 0 running · 1 failed" in screen_text(app), "the refresh", timeout=10)
        # Tab to the trials; the one with a run opens it
        await pilot.press("tab")
        trials = app.screen.query_one("#lab-trials")
        index = next(i for i in range(trials.option_count) if trials.get_option_at_index(i).id == "trial:with/0")
        trials.highlighted = index
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen) and app.screen.engine is not None,
                       "the trial's run to open")
        assert app.screen.engine.run_id == run_id


def test_the_lab_screen(snap_compare, studio, tmp_path, monkeypatch):
    """Snapshot: one experiment part-way, its trials with a run, a failure and one running."""
    monkeypatch.setenv("STUDIO_TUI_NO_WARMUP", "1")
    asyncio.run(_seed(tmp_path))
    store = Store(tmp_path / "studio.db")
    with store.lock:  # fixed times, so the elapsed and the estimate are the same on every machine
        for i, key in enumerate(("with/0", "without/0", "without/1", "with/1")):
            store.conn.execute("UPDATE lab_trials SET updated = ? WHERE key = ?", (1_700_000_000 + 95 * i, key))
    store.close()

    async def run_before(pilot):
        await pilot.pause()
        await pilot.press("l")
        await wait_for(pilot, lambda: isinstance(pilot.app.screen, LabScreen), "the lab screen")
        await pilot.pause()

    assert snap_compare(studio(None), terminal_size=(120, 30), run_before=run_before)
