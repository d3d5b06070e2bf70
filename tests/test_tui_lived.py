"""What stood in a playwright's way when living in the app: focus, keys, layout and the game view.

Each test drives the app as a person would (keys, clicks, a resized terminal) and checks what they see.
"""

from __future__ import annotations

import os
import stat

import pytest

from test_tui import _plain, idle, notifications, opened, screen_text, stage, step, studio, wait_for, workshop  # noqa: F401

pytest.importorskip("textual")

from studio.tui.screens.main import MainScreen  # noqa: E402


async def _open_dialog(pilot, key: str, name: str):
    await pilot.press(key)
    await wait_for(pilot, lambda: pilot.app.screen.__class__.__name__ == name, name)
    return pilot.app.screen


async def test_the_sheet_editor_takes_keys_typed_at_once_and_tab_moves_on(studio, workshop):
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        editor = await _open_dialog(pilot, "c", "CharacterScreen")
        before = editor.query_one("#field-name").value
        await pilot.press("x", "tab", "y")
        assert editor.query_one("#field-name").value == before + "x"
        assert editor.query_one("#field-description").value.endswith("y")


async def test_the_play_editor_takes_keys_typed_at_once_and_tab_moves_on(studio, workshop):
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        editor = await _open_dialog(pilot, "P", "PlayScreen")
        before = editor.query_one("#play-title").value
        await pilot.press("x", "tab", "y")
        assert editor.query_one("#play-title").value == before + "x"
        assert editor.query_one("#play-premise").text.startswith("y")
