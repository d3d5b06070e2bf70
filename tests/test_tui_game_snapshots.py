"""The game view (key 5) as an SVG snapshot: the island after a few steps of a scripted game."""

from __future__ import annotations

from test_tui import idle, opened, steady, step, studio  # noqa: F401  (studio is a fixture)


def test_the_game_view_mid_round(snap_compare, studio):
    """Island on the scripted model, six steps in, the game pane open beside the stage."""

    async def run_before(pilot):
        await opened(pilot)
        await step(pilot, 6)
        await pilot.press("2")  # the backstage off: the game view gets the side
        await pilot.press("3")  # the game view is open from the start
        await idle(pilot)
        steady(pilot.app)

    assert snap_compare(studio("island.toml"), terminal_size=(120, 40), run_before=run_before)
