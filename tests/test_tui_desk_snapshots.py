"""The desk's new screens as SVG snapshots: the take tree, search, jump, a direction, the new-play form
and the play editor. Deterministic: scripted model, a fresh database, the tree's clock fixed."""

from __future__ import annotations

import shutil

import pytest

from conftest import PLAYS, ROOT
from test_tui import opened, steady, step, studio, wait_for  # noqa: F401  (studio is a fixture)
from test_tui_desk import long_run

SIZE = (100, 30)


@pytest.fixture(autouse=True)
def _fixed_clock(monkeypatch):
    monkeypatch.setattr("studio.tui.screens.takes.when_written", lambda created: "22 Nov 10:00")


def test_the_take_tree(snap_compare, studio, tmp_path):
    run_id, _ = long_run(tmp_path, turns=30, branches=3)

    async def run_before(pilot):
        await opened(pilot)
        await pilot.press("T")
        await wait_for(pilot, lambda: pilot.app.screen.query("#take-tree"), "the take tree")
        await pilot.pause()

    assert snap_compare(studio(run_id=run_id), terminal_size=SIZE, run_before=run_before)


def test_search_with_its_matches(snap_compare, studio, tmp_path):
    run_id, _ = long_run(tmp_path, turns=30, branches=3)

    async def run_before(pilot):
        await opened(pilot)
        await pilot.press("slash")
        await wait_for(pilot, lambda: pilot.app.screen.query("#search-input"), "the search box")
        await pilot.press(*"answers 2")
        await pilot.pause()
        steady(pilot.app)

    assert snap_compare(studio(run_id=run_id), terminal_size=SIZE, run_before=run_before)


def test_matches_highlighted_on_the_stage(snap_compare, studio, tmp_path):
    run_id, _ = long_run(tmp_path, turns=30, branches=3)

    async def run_before(pilot):
        await opened(pilot)
        await pilot.press("slash")
        await wait_for(pilot, lambda: pilot.app.screen.query("#search-input"), "the search box")
        await pilot.press(*"the rain", "enter")
        await pilot.pause()
        steady(pilot.app)

    assert snap_compare(studio(run_id=run_id), terminal_size=SIZE, run_before=run_before)


def test_a_direction_for_a_new_take(snap_compare, studio):
    async def run_before(pilot):
        await opened(pilot)
        await step(pilot)
        await pilot.press("G")
        await wait_for(pilot, lambda: pilot.app.screen.query("#direct-note"), "the direction dialog")
        await pilot.press(*"she lies here")
        await pilot.pause()
        steady(pilot.app)

    assert snap_compare(studio(), terminal_size=SIZE, run_before=run_before)


def test_the_new_play_form(snap_compare, studio, tmp_path, monkeypatch):
    plays = tmp_path / "plays"
    plays.mkdir()
    monkeypatch.chdir(tmp_path)  # the picker behind the form names the folder from here: "plays/"

    async def run_before(pilot):
        await pilot.pause()
        await pilot.press("n")
        await wait_for(pilot, lambda: pilot.app.screen.query("#new-title"), "the form")
        await pilot.press(*"The Visit")
        await pilot.pause()
        steady(pilot.app)

    assert snap_compare(studio(None, plays_dir=plays), terminal_size=SIZE, run_before=run_before)


def test_the_play_editor(snap_compare, studio, tmp_path):
    plays = tmp_path / "plays"
    plays.mkdir()
    shutil.copytree(ROOT / "characters", tmp_path / "characters")
    shutil.copy(PLAYS / "detective.toml", plays / "detective.toml")

    async def run_before(pilot):
        await opened(pilot)
        await pilot.press("P")
        await wait_for(pilot, lambda: pilot.app.screen.query("#play-turns"), "the play editor")
        await pilot.pause()
        steady(pilot.app)

    assert snap_compare(studio(play_path=plays / "detective.toml"), terminal_size=(100, 40), run_before=run_before)
