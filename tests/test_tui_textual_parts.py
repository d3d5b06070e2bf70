"""Textual's private parts the app reaches for: checked at start, named in the log and left to Textual's own
behaviour when missing; the app works either way."""

from __future__ import annotations

import pytest
from textual.app import App
from textual.screen import Screen
from textual.widget import Widget

from studio.llm import scripted
from studio.tui import textual_parts
from studio.tui.app import StudioApp
from test_tui import SIZE, dialog, notifications, opened, stage, studio, wait_for  # noqa: F401


@pytest.fixture
def fresh_check():
    check = textual_parts.missing
    check.cache_clear()
    yield
    check.cache_clear()


@pytest.fixture
def said(monkeypatch):
    """What the app writes to its log, kept."""
    lines: list[str] = []

    class Log:
        def __getattr__(self, name):
            return lambda *words, **_: lines.append(" ".join(map(str, words)))

        def __call__(self, *words, **_):
            lines.append(" ".join(map(str, words)))

    monkeypatch.setattr(StudioApp, "log", property(lambda self: Log()))
    return lines


async def _note_then_dialog(app, pilot) -> str:
    """A passing notification, then a dialog: what the notifications say once the dialog is open."""
    await pilot.press("n", *"slower", "enter")
    await wait_for(pilot, lambda: "Noted" in notifications(app), "the note's notification")
    await dialog(pilot, "t", screen="RolesScreen")
    await pilot.pause(0.1)
    return notifications(app)


async def _first_words(app, pilot, monkeypatch) -> None:
    monkeypatch.setenv("STUDIO_SCRIPTED_DELAY", "0.02")
    scripted.queue(" ".join(f"word{i}" for i in range(30)), task="speak", role="other")
    await pilot.press("s")
    await wait_for(
        pilot, lambda: stage(app).live is not None and "word2 " in stage(app).live.text, "the first words on stage"
    )
    await pilot.press("p")


async def test_the_installed_textual_has_every_part_and_a_dialog_clears_the_passing_notes(
    studio, said, fresh_check, monkeypatch
):
    assert textual_parts.missing() == {}
    app = studio()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await opened(pilot)
        await _first_words(app, pilot, monkeypatch)
        assert "Noted" not in await _note_then_dialog(app, pilot)
    assert not [line for line in said if "Textual's own behaviour" in line]


def test_each_part_is_checked_for_its_shape():
    class OtherApp(App):
        def _unnotify(self, notification):  # a parameter gone
            pass

    class OtherScreen(Screen):
        _update_timer = None  # no longer a property

    assert textual_parts.check(App, Screen, Widget) == {}
    assert set(textual_parts.check(OtherApp, Screen, Widget)) == {textual_parts.NOTES}
    assert set(textual_parts.check(App, OtherScreen, Widget)) == {textual_parts.FRAME}


async def test_a_textual_without_them_is_named_in_the_log_and_the_app_works_its_way(
    studio, said, fresh_check, monkeypatch
):
    changed = textual_parts.check(type("A", (), {}), type("S", (), {}), type("W", (), {}))
    assert set(changed) == {textual_parts.NOTES, textual_parts.FRAME}
    monkeypatch.setattr(textual_parts, "missing", lambda: changed)
    app = studio()
    async with app.run_test(size=SIZE, notifications=True) as pilot:
        await opened(pilot)
        await _first_words(app, pilot, monkeypatch)  # drawn when the screen's queue falls idle
        assert "Noted" in await _note_then_dialog(app, pilot)  # left to leave after its timeout
    named = [line for line in said if "Textual's own behaviour" in line]
    assert len(named) == 2 and any("_unnotify" in line for line in named), said
