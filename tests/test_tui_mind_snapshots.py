"""The Mind dialog (m) as an SVG snapshot: Mara after her first line, on the shipped keepers_log play.

`pytest --snapshot-update tests/test_tui_mind_snapshots.py` re-records it after a deliberate change.
"""

from __future__ import annotations

from conftest import PLAYS
from test_tui import dialog, opened, steady, step, studio, wait_for  # noqa: F401  (studio is a fixture)


def test_the_mind_dialog_on_mara(snap_compare, studio):
    """One turn in: her drawn mood marked (now), her two locked items, her goals, the play's storm = true."""

    async def run_before(pilot):
        await opened(pilot)
        await step(pilot)
        await dialog(pilot, "m", screen="MindScreen")
        await pilot.pause()
        steady(pilot.app)

    assert snap_compare(studio(play_path=PLAYS / "keepers_log.toml"), terminal_size=(100, 34), run_before=run_before)
