"""A writers' room on one run: two windows of the app (two browser tabs of `studio serve`, or a tab and a
terminal) on one store. A role taken in one window is held by that window: the other shows who holds it,
never asks its own playwright for that role's line, shows the line when it lands, and sees the role go
back to its model when the holding window quits or its lease runs out."""

from __future__ import annotations

import sqlite3

from test_tui import dialog, idle, notifications, opened, screen_text, step, studio, wait_for  # noqa: F401


from textual.widgets import OptionList  # noqa: E402

from studio.store.leases import window_name  # noqa: E402

SIZE = (110, 30)


async def take(pilot, key: str) -> None:
    """t, then Enter on one role of the roles dialog: how a playwright takes a role (or hands it back)."""
    await pilot.press("t")
    if any(ask.display for ask in pilot.app.screen.query("#ask")):  # another window is on the run: t asks
        await pilot.press("enter")
    await wait_for(pilot, lambda: pilot.app.screen.__class__.__name__ == "RolesScreen", "the roles")
    roles = pilot.app.screen.query_one("#roles-list", OptionList)
    roles.highlighted = roles.get_option_index(key)
    await pilot.press("enter")
    await pilot.pause()


async def test_a_role_taken_in_one_window_is_written_there_and_only_shown_in_the_other(studio):
    first = studio()
    async with first.run_test(size=SIZE) as one:
        mine = await opened(one)
        await step(one)
        run = mine.engine.run_id
        second = studio(run_id=run)
        async with second.run_test(size=SIZE) as two:
            theirs = await opened(two)
            await take(one, "ego")
            holder = window_name(mine.engine.holder)
            assert "you play Jenny" in screen_text(first)
            await wait_for(two, lambda: f"{holder} plays Jenny" in screen_text(second), "who holds Jenny, shown")
            # a toast is posted as a message, so it lands a moment after the change it reports
            await wait_for(two, lambda: f"Jenny (ego) is played by {holder} now." in notifications(second),
                           "the take-over, told")

            # the second window may not take the role too: it is told who holds it
            await take(two, "ego")
            assert f"Jenny (ego) is played by {holder}: only that window hands it back" in notifications(second)
            assert theirs.engine.holders() == {"ego": mine.engine.holder}

            # a step in the second window writes the models' lines, then asks no one there for Jenny's:
            # it waits, and the window holding Jenny asks its playwright by itself
            await two.press("s", "enter")  # a step in a run another window plays asks first
            await wait_for(two, lambda: f"Jenny's line is {holder}'s to write" in screen_text(second),
                           "the second window waiting")
            assert not theirs.query_one("#human").display, "the second window asked its playwright for Jenny"
            await wait_for(one, lambda: "JENNY (ego) · speaks · your line" in screen_text(first),
                           "the first window asking for Jenny")
            await one.press(*"I grew up by the docks.")
            await one.press("enter")
            await idle(one)
            await wait_for(two, lambda: "I grew up by the docks." in screen_text(second), "the line in the other")
            await idle(two)  # the wait is over once the line is in
            landed = [e for e in theirs.engine.stage() if e.role == "ego"][-1]
            assert (landed.text, landed.origin) == ("I grew up by the docks.", "human")
            assert not theirs.query_one("#human").display
        # the second window quits first: it held nothing, so nothing changes for the first
        assert mine.engine.holders() == {"ego": mine.engine.holder}


async def test_a_window_that_quits_hands_its_roles_back_and_the_others_see_it(studio, tmp_path):
    from conftest import make_cast
    from studio.engine import Engine
    from studio.store import Store

    store = Store(tmp_path / "studio.db")
    run = Engine.create(store, make_cast()).run_id
    await Engine(store, run).play_turn()
    store.close()
    staying = studio(run_id=run)
    async with staying.run_test(size=SIZE) as two:
        theirs = await opened(two)
        leaving = studio(run_id=run)
        async with leaving.run_test(size=SIZE) as one:
            mine = await opened(one)
            await take(one, "other")
            holder = window_name(mine.engine.holder)
            await wait_for(two, lambda: "other" in theirs.engine.holders(), "the role taken in the other window")
        # the window that held Sasha has quit
        await wait_for(two, lambda: "other" not in theirs.engine.humans(), "the role handed back")
        await wait_for(two, lambda: f"Sasha (other) goes back to the model: {holder} left." in notifications(staying),
                       "the hand-back, told")
        assert "plays Sasha" not in screen_text(staying)
        # the model writes Sasha's line now, and this window may take the role itself
        await step(two)
        assert [e for e in theirs.engine.stage() if e.role == "other"][-1].origin == "model"
        await take(two, "other")
        assert theirs.engine.holders() == {"other": theirs.engine.holder}
        assert "you play Sasha" in screen_text(staying)


async def test_a_role_whose_window_stopped_beating_goes_back_to_its_model(studio, tmp_path):
    """A window that died (or slept past its lease) cannot hand its roles back: the next window to look
    does, in the log, so no window waits on a line that will never come."""
    from studio.engine import Engine
    from studio.store import Store

    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        run = screen.engine.run_id
        store = Store(tmp_path / "studio.db")  # the other window's own connection
        try:
            other = Engine(store, run)
            other.holder = "elsewhere:1:0dead000"
            store.hold(run, other.holder)
            other.take_over("other")
            await wait_for(pilot, lambda: "window 0dea plays Sasha" in screen_text(app), "the other's hold")
            assert "Next: Sasha (window 0dea) speaks: their line comes from there" in screen_text(app)
            conn = sqlite3.connect(tmp_path / "studio.db")
            with conn:
                conn.execute("UPDATE run_players SET lease = 0 WHERE holder = ?", (other.holder,))
            conn.close()
            await wait_for(pilot, lambda: "other" not in screen.engine.humans(), "the role handed back")
            await wait_for(pilot, lambda: "Sasha (other) goes back to the model: window 0dea has gone."
                           in notifications(app), "the hand-back, told")
            said = [e for e in store.controls(run) if e.origin == "human"][-1]
            assert said.data["human"] == {"other": False}  # an event: rewinds, takes and resumes replay it
        finally:
            store.close()
