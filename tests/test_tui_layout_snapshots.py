"""The stage, an ensemble and the game view at 80 and 200 columns, in a dark and a light theme, as SVG
snapshots: the narrowest terminal the app promises and a wide one, each in both kinds of theme.

Deterministic by construction: the scripted model and a fresh database per test. `pytest --snapshot-update`
on one of them re-records it after a deliberate change to the look.
"""

from __future__ import annotations

import pytest

from test_tui import opened, steady, step, studio  # noqa: F401  (studio is a fixture)

SIZES = {80: (80, 24), 200: (200, 50)}
THEMES = ("textual-dark", "textual-light")
VIEWS = {
    # what the playwright looks at: the interview two turns in, the Last Crossing two turns in, and the
    # island with its game view open a few steps into the first round
    "stage": ("interview.toml", 2, None),
    "ensemble": ("last_crossing.toml", 2, None),
    "game": ("island.toml", 3, None),  # its view open from the start
}


@pytest.mark.parametrize("theme", THEMES)
@pytest.mark.parametrize("width", SIZES)
@pytest.mark.parametrize("view", VIEWS)
def test_the_views_at_80_and_200_columns(snap_compare, studio, view, width, theme):
    play, steps, key = VIEWS[view]

    async def run_before(pilot):
        pilot.app.theme = theme
        await opened(pilot)
        if key:
            await pilot.press(key)
        await step(pilot, steps)
        steady(pilot.app)
        await pilot.pause(0.2)

    assert snap_compare(studio(play), terminal_size=SIZES[width], run_before=run_before)
