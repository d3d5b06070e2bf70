"""The Mind dialog (m): the playwright sets a mood, unlocks an item, rewrites goals or sets a fact from the app.

Driven through Textual's pilot on the scripted model, on the shipped keepers_log play (Mara has moods,
knowledge that unlocks and goals); every assertion is about the run store or what the cast pane shows.
"""

from __future__ import annotations

from conftest import PLAYS
from test_tui import _plain, dialog, idle, opened, screen_text, step, studio, wait_for  # noqa: F401  (studio is a fixture)


KEEPERS_LOG = PLAYS / "keepers_log.toml"
SIZE = (100, 34)


def _mara_card(app) -> str:
    pane = app.screen.query_one("#cast-pane")
    return _plain(pane.get_option("ego").prompt)


async def _open_mind(pilot):
    await dialog(pilot, "m", screen="MindScreen")
    await pilot.pause()
    return pilot.app.screen


async def _choose(pilot, dialog, option_id: str) -> None:
    choices = dialog.query_one("#mind-choices")
    choices.highlighted = choices.get_option_index(option_id)
    await pilot.press("enter")
    await wait_for(pilot, lambda: pilot.app.screen is not dialog, "the dialog to close")
    await pilot.pause()


async def test_mood_unlock_goals_and_a_fact_from_the_app_are_human_events_the_cast_pane_shows(studio):
    app = studio(play_path=KEEPERS_LOG)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        drawn = next(e for e in engine.path if e.kind == "mind.mood")
        other = next(m.name for m in engine.cast.role("ego").sheet.moods if m.name != drawn.data["mood"])

        dialog = await _open_mind(pilot)
        text = screen_text(app)
        assert "Mara's inner life, by hand" in text
        assert "unlock  2. She paid the harbour master" in text and "storm = true" in text
        names = [m.name for m in engine.cast.role("ego").sheet.moods]
        choices = dialog.query_one("#mind-choices")
        assert choices.get_option(f"mood:{names.index(drawn.data['mood'])}").prompt.plain.endswith("(now)")
        index = names.index(other)
        assert "(now)" not in choices.get_option(f"mood:{index}").prompt.plain
        await _choose(pilot, dialog, f"mood:{index}")
        mood = engine.path[-1]
        assert (mood.kind, mood.origin, mood.data["mood"]) == ("mind.mood", "human", other)
        assert f"mood: {other} (#{mood.id})" in _mara_card(app)

        dialog = await _open_mind(pilot)
        await _choose(pilot, dialog, "unlock:2")
        unlock = engine.path[-1]
        assert (unlock.kind, unlock.origin, unlock.data["item"]) == ("mind.unlock", "human", 1)
        assert f"+ She paid the harbour master to keep the failure out of the log. (#{unlock.id})" in _mara_card(app)
        dialog = await _open_mind(pilot)
        assert dialog.query_one("#mind-choices").get_option("unlock:3")  # item 2 is no longer offered
        assert "unlock  2." not in screen_text(app)

        goals = dialog.query_one("#mind-goals")
        goals.focus()
        goals.load_text("Get the detective off the island.\n\nBurn the log.")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen is not dialog, "the dialog to close")
        made = engine.path[-1]
        assert made.kind == "mind.goals" and made.data["goals"] == ["Get the detective off the island.", "Burn the log."]
        assert f"goals (#{made.id}): Get the detective off the island.; Burn the log." in _mara_card(app)

        dialog = await _open_mind(pilot)
        dialog.query_one("#mind-fact").focus()
        await pilot.press(*"on_stage=x", "enter")
        await pilot.pause()
        assert app.screen is dialog and "kept by the engine" in screen_text(app)  # refused, dialog stays
        assert engine.path[-1].id == made.id
        dialog.query_one("#mind-fact").value = ""
        await pilot.press(*"storm=false", "enter")
        await wait_for(pilot, lambda: app.screen is not dialog, "the dialog to close")
        fact = engine.path[-1]
        assert fact.kind == "mind.fact" and fact.data["facts"] == {"storm": False} and fact.origin == "human"
        assert f"facts: storm = false (#{fact.id})" in _mara_card(app)

        await pilot.press("escape")
        await pilot.press("r")  # a rewind drops the hand-made events with the rest of the turn
        await idle(pilot)
        await pilot.pause()
        card = _mara_card(app)
        assert f"(#{mood.id})" not in card and "storm = true" in card and "goals (from the sheet)" in card


async def test_m_on_a_cast_without_inner_lives_says_so(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("m")
        await pilot.pause()
        assert app.screen.__class__.__name__ == "MainScreen"
        assert "No character in this run has an inner life" in "\n".join(n.message for n in app._notifications)
