"""What a playwright met driving the app in a real terminal at 80x24 to 200x50, each reproduced in Pilot:
keys typed in one breath, boxes whose help line or label a notification or the screen's edge hid, and keys
offered that do nothing."""

from __future__ import annotations

from textual import events

from test_tui import idle, notifications, opened, screen_text, stage, step, studio, wait_for  # noqa: F401


def burst(app, keys: str) -> None:
    """Keys as a quick typist sends them: all queued before the app has handled the first."""
    names = {"/": "slash", ":": "colon", " ": "space"}
    for char in keys:
        app.post_message(events.Key(names.get(char, char), char))


async def test_the_picker_filter_takes_every_key_typed_in_one_breath(studio):
    app = studio(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen.query("#picker-list"), "the picker")
        await pilot.pause()
        burst(app, "/island")
        await pilot.pause(0.5)
        await pilot.pause()
        box = app.screen.query_one("#picker-filter")
        assert box.value == "island", box.value
        assert app.screen.focused is box
        text = screen_text(app)
        assert "Eight on an Island" in text and "The Interview" not in text
