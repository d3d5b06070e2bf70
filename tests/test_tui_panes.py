"""A pane keeps itself current: the screen tells every pane what the engine committed, and each pane
decides what to redraw. A new pane is its own class, a line where it is composed, and a test; the screen's
code that runs the engine does not change. This pane is mounted by the test itself, after the run opened."""

from __future__ import annotations



from textual.widgets import Static  # noqa: E402

from studio.store import events as ev  # noqa: E402
from studio.tui.messages import EventCommitted  # noqa: E402
from studio.tui.widgets.panes import RunPane  # noqa: E402
from test_tui import SIZE, opened, step, studio  # noqa: E402,F401  (studio is a fixture)


class LineCount(RunPane, Static):
    """Counts the stage lines of the take, and the commits it was told about."""

    BORDER_TITLE = "Lines"

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.heard: list[str] = []

    def on_event_committed(self, message: EventCommitted) -> None:
        self.heard.append(message.event.kind)
        super().on_event_committed(message)

    def concerns(self, event) -> bool:
        return event.on_stage

    def redraw(self, latest: bool = True) -> None:
        self.update(f"{len(self.engine.stage())} lines on stage")


async def test_a_new_pane_hears_every_commit_and_every_redraw(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        pane = LineCount(id="lines-pane", classes="pane")
        await screen.query_one("#side").mount(pane)
        await step(pilot)
        await pilot.pause()
        assert pane.heard[:2] == [ev.SCENE, ev.STAGE] and ev.DRAFT in pane.heard
        assert pane.border_title == "Lines"
        assert str(pane.content) == f"{len(screen.engine.stage())} lines on stage"
        await pilot.press("r")  # a rewind is no commit: the pane hears the redraw
        await pilot.pause(0.2)
        assert str(pane.content) == f"{len(screen.engine.stage())} lines on stage"
        assert len(screen.engine.stage()) < len(pane.heard)


async def test_a_hidden_lazy_pane_draws_once_it_is_shown(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        backstage = screen.query_one("#backstage-pane")
        await pilot.press("2")  # hide the backstage
        await pilot.pause()
        assert not backstage.display
        await step(pilot)
        assert backstage._stale
        await pilot.press("2")
        await pilot.pause(0.3)
        assert backstage.display and not backstage._stale


async def test_hiding_the_stage_gives_its_width_to_the_panes_left(studio):
    from test_tui import opened, step

    app = studio()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        await pilot.press("1")
        await pilot.pause(0.2)
        assert not screen.query_one("#stage-pane").display
        assert screen.query_one("#side").size.width >= 118  # not 40% with the rest of the screen empty
        await pilot.press("1")
        await pilot.pause(0.2)
        assert screen.query_one("#stage-pane").display and screen.query_one("#side").size.width < 60
