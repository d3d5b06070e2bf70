"""The app's game view (key 5): the island as the run stands, following steps and rewinds."""

from __future__ import annotations

import pytest

from test_tui import opened, step, studio  # noqa: F401

pytest.importorskip("textual")


def game_view(screen) -> str:
    return str(screen.query_one("#game").content)


async def test_the_game_view_shows_positions_the_tally_and_follows_a_rewind(studio):
    app = studio("island.toml")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await opened(pilot)
        assert not screen.query_one("#game-pane").display
        await pilot.press("5")
        await pilot.pause()
        assert screen.query_one("#game-pane").display
        engine = screen.engine
        game = engine.state.game
        text = game_view(screen)
        assert "Round 1" in text
        for place in engine.state.rules.places:
            assert place.name in text
        # who is where: each player is listed under their place (the line after the place's name)
        lines = text.splitlines()
        for player, place in game.where.items():
            at = next(i for i, line in enumerate(lines) if line.startswith(place))
            assert player in lines[at + 1], (player, place, text)
        # step until the first vote is tallied
        guard = 0
        while not engine.state.tallies:
            await step(pilot)
            guard += 1
            assert guard < 200, "no vote came"
        await pilot.pause()
        text = game_view(screen)
        out = engine.state.tallies[-1]["eliminated"]
        assert "Vote, round 1" in text and f"→ out: {out}" in text
        assert out in text.split("Jury")[-1]
        # a rewind takes the view back to before the tally
        await pilot.press("r")
        await pilot.pause()
        while screen.busy:
            await pilot.pause(0.05)
        await pilot.pause()
        text = game_view(screen)
        assert not screen.engine.state.tallies
        assert "Vote, round 1" not in text and "Round 1" in text
