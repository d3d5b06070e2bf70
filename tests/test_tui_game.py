"""The app's game view (key 5): the island as the run stands, following steps and rewinds."""

from __future__ import annotations

from test_tui import opened, step, studio  # noqa: F401



def game_view(screen) -> str:
    return str(screen.query_one("#game").content)


async def test_the_game_view_shows_positions_the_tally_and_follows_a_rewind(studio):
    app = studio("island.toml")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await opened(pilot)
        await pilot.pause()
        assert screen.query_one("#game-pane").display  # a game shows its view from the start
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


async def test_a_human_seat_chooses_actions_and_votes_in_the_app(studio):
    from test_tui import wait_for

    app = studio("island.toml", roles={"Amara Osei": "human"})
    answers = {"act": "wait", "talk": "Stay close tonight.", "summary": "We talked.", "vote": "Hiro Tanaka",
               "reflect": "A quiet round.", "jury": "Bruno Keller",
               "impressions": '{"Bruno Keller": {"trust": 1, "liking": 1, "wants": "an ally"}}',
               "goals": '{"goals": ["Win Bruno over"]}'}
    asked = []
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        human = screen.query_one("#human")
        for _ in range(2000):
            if engine.state.tallies:
                break
            if human.display:
                task = engine.state.queue[0][0]
                asked.append(task)
                hint = screen.query_one("#human").asked
                if task == "act":  # the box says what the rules allow now, as the rules word it
                    assert "one of: " in hint and "catch fish" in hint and "search" in hint, hint
                if task == "vote":
                    assert "Hiro Tanaka" in hint and "Amara Osei" not in hint, hint
                screen.query_one("#human-line").value = answers.get(task, "wait")
                await pilot.press("enter")
                await wait_for(pilot, lambda task=task: not human.display or engine.state.queue[0][0] != task
                               or len(asked) > 500, "the answer to be taken")
            elif not screen.busy:
                await pilot.press("s")
            await pilot.pause(0.02)
        assert "act" in asked and "vote" in asked, asked
        amara = [e for e in engine.path if e.origin == "human" and e.character == "Amara Osei"]
        assert any(e.data.get("task") == "act" for e in amara)
        assert any(e.data.get("vote") == "Hiro Tanaka" for e in amara), [(e.kind, e.data) for e in amara]
