"""`C` in the app: the model goes on from where the selected line stopped, as a new take of it."""

from __future__ import annotations

import pytest

from studio.store import events as ev
from test_tui import SIZE, idle, new_take, notifications, opened, screen_text, stage, step, studio, wait_for  # noqa: F401

pytestmark = pytest.mark.asyncio


async def test_c_continues_the_line_on_stage_as_a_second_take(studio):
    app = studio()
    async with app.run_test(size=(200, 40)) as pilot:  # wide enough that the line and its tag stay on one row
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        first = engine.stage()[-1]
        new = await new_take(pilot, "C", " And then I left it on the stairs.")
        assert new.text == first.text + " And then I left it on the stairs."
        text = screen_text(app)
        assert "And then I left it on the stairs." in text
        assert "take 2/2" in text
        assert "take 2 of 2" in text and "continued by scripted" in text  # the backstage says so too
        # the take tree shows both, the new one as a continuation
        await pilot.press("T")
        await wait_for(pilot, lambda: "scripted, continued" in screen_text(app), "the take tree")
        await pilot.press("escape")
        await pilot.pause()
        # the old line is the first take, one [ away
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert engine.stage()[-1].id == first.id
        assert "left it on the stairs" not in screen_text(app)


async def test_c_on_a_scene_heading_says_what_can_be_continued(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        heading = next(e for e in engine.stage() if e.kind == ev.SCENE)
        head = engine.head
        stage(app).select_event(heading.id)
        await pilot.pause()
        await pilot.press("C")
        await pilot.pause()
        assert "scene heading has only one take" in notifications(app)
        assert engine.head == head


async def test_c_is_in_the_help_and_the_palette(studio):
    app = studio()
    async with app.run_test(size=(120, 60)) as pilot:
        await opened(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        assert "Let the model go on from where the selected line stopped" in screen_text(app)
        await pilot.press("escape")
        await pilot.pause()
        await pilot.press("ctrl+p")
        await pilot.pause()
        await pilot.press(*"continue")
        await wait_for(pilot, lambda: "Continue (C)" in screen_text(app), "the palette to offer Continue")


async def test_c_on_a_line_you_play_says_to_edit_it_instead(studio):
    app = studio(roles={"ego": "human"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.human.waiting, "the input box")
        await pilot.press(*"I never kept it.")
        await pilot.press("enter")
        await wait_for(pilot, lambda: engine.stage()[-1].role == "ego", "your line")
        await idle(pilot)
        head = engine.head
        stage(app).select_event(engine.stage()[-1].id)
        await pilot.press("C")
        await pilot.pause()
        assert "e edits the line to make it longer" in notifications(app)
        assert engine.head == head


async def test_g_s_continue_box_goes_on_from_the_line_with_a_direction(studio):
    app = studio()
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        first = engine.stage()[-1]
        await pilot.press("G")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "DirectScreen", "the direction box")
        dialog = app.screen
        dialog.query_one("#direct-temperature").value = "1.5"
        dialog.query_one("#direct-continue").value = True
        await pilot.pause()
        assert "note alone" in screen_text(app) and dialog.query_one("#direct-go").disabled
        dialog.query_one("#direct-temperature").value = ""
        dialog.query_one("#direct-note").value = "softer now"
        await pilot.pause()
        from studio.llm import scripted

        scripted.queue(" And then I left it on the stairs.", task="revise", role="ego")
        await pilot.press("enter")
        await wait_for(pilot, lambda: engine.stage()[-1].id != first.id, "the continuation")
        await idle(pilot)
        new = engine.stage()[-1]
        assert new.text.startswith(first.text) and new.data.get("continues") == first.id
        assert new.data.get("direction", {}).get("note") == "softer now"
