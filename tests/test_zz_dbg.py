from test_tui import idle, opened, steady, step, studio, screen_text, wait_for  # noqa
async def test_dbg(studio):
    app = studio(roles={"ego": "human"})
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.query_one("#human").display, "the input box")
        await pilot.pause()
        print("\n".join(screen_text(app).splitlines()[-4:]))
        assert 0
