"""The app in a browser tab (`studio serve`), as its screens see it through Pilot: an export comes as a
download and never asks for a path on the serving machine; ctrl+e opens the studio's own editor, never
$EDITOR on the server. The real browser is tests/test_serve_browser.py."""

from __future__ import annotations

from pathlib import Path

import pytest

from test_tui import notifications, opened, step, studio, wait_for  # noqa: F401


from studio.tui.app import StudioApp  # noqa: E402

SIZE = (100, 30)


@pytest.fixture
def served(monkeypatch, tmp_path):
    """The app as it runs in a tab: Textual's web driver says so through `is_web`; what it would send to
    the browser is kept here. An $EDITOR that would leave a mark if it ever ran on the server."""
    monkeypatch.setattr(StudioApp, "is_web", property(lambda app: True))
    sent: list[tuple[str, bytes]] = []

    def deliver_binary(self, handle, *, save_filename=None, **kwargs):
        with handle:
            sent.append((save_filename, handle.read()))
        return "key"

    monkeypatch.setattr(StudioApp, "deliver_binary", deliver_binary)
    mark = tmp_path / "editor-ran"
    script = tmp_path / "editor.sh"
    script.write_text(f'#!/bin/sh\ntouch "{mark}"\n')
    script.chmod(0o755)
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", str(script))
    return sent, mark


async def test_an_export_in_a_tab_is_a_download_and_names_no_path(studio, served, tmp_path, monkeypatch):
    sent, _ = served
    monkeypatch.chdir(tmp_path)
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await step(pilot)
        await pilot.press("x")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "ExportScreen", "the export dialog")
        assert not app.screen.query("#export-path"), "a tab must not name a path on the server"
        await pilot.click("#format-markdown")
        await pilot.click("#export-go")
        await wait_for(pilot, lambda: sent, "the download")
        await wait_for(pilot, lambda: "your browser downloads it" in notifications(app), "the download, told")
        folder = Path(app.export_folder() or "")
    [(name, body)] = sent
    assert name.endswith(".md") and b"JENNY" in body.upper()
    assert not (tmp_path / "exports").exists()
    assert not folder.exists(), "the tab's export folder is gone with the tab"


async def test_ctrl_e_in_a_tab_opens_the_studios_editor_not_editor_on_the_server(studio, served):
    _, mark = served
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        line = screen.engine.stage()[-1]
        await pilot.press("e")
        await pilot.pause()
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "EditorScreen", "the studio's editor")
        area = app.screen.query_one("#editor-text")
        area.load_text("Not a word of it.")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: app.screen.query("#edit-line-input")
                       and app.screen.query_one("#edit-line-input").text == "Not a word of it.", "the text back")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: screen.engine.stage()[-1].id != line.id, "the edit to land")
        assert screen.engine.stage()[-1].text == "Not a word of it."
        # Esc leaves the text as it was
        await pilot.press("n")
        await pilot.pause()
        await pilot.press("ctrl+e")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "EditorScreen", "the studio's editor")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is screen, "back on the run")
    assert not mark.exists(), "$EDITOR ran on the serving machine"


async def test_a_line_and_a_role_taken_in_another_window_show_within_a_second(studio, tmp_path):
    """Two playwrights on one run (two tabs, or a tab and a terminal): what one commits, the other shows."""
    import time

    from studio.engine import Engine
    from studio.store import Store
    from test_tui import stage

    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        other_store = Store(tmp_path / "studio.db")  # another process's connection to the same file
        try:
            other = Engine(other_store, screen.engine.run_id)
            await other.step()
            written = time.monotonic()
            await wait_for(pilot, lambda: screen.engine.head == other.head, "the other window's line")
            assert time.monotonic() - written < 1.5
            await wait_for(pilot, lambda: stage(app).selected_id == other.head, "the line on stage")
            other.take_over("ego")
            await wait_for(pilot, lambda: "ego" in screen.engine.humans(), "the role taken in the other window")
            await wait_for(pilot, lambda: "Jenny (ego) is played by a playwright now." in notifications(app),
                           "who plays the role, said in this window")
        finally:
            other_store.close()
