"""The game view (key 5): the island as the run stands now, for a run whose form is the social game.

Everything shown is read from the engine's own state and from `studio.game.report.build` (alliances are
the report's reading of the impressions, not a second one) and drawn by `studio.present.game`; the pane
redraws itself whenever the run moves while it is shown, so it follows stepping, rewinds and takes.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import VerticalScroll
from textual.widgets import Static

from studio.tui.widgets.panes import RunPane

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView


class GamePane(RunPane, VerticalScroll):
    """The game view as a side pane; hidden until `5`, and drawn only while shown."""

    BORDER_TITLE = "Game"
    lazy = True

    def compose(self) -> ComposeResult:
        yield Static(Text("No game yet.", style="dim"), id="game")

    def on_mount(self) -> None:
        self.display = False

    def redraw(self, latest: bool = True) -> None:
        if self.engine is not None:
            self.show(self.engine)

    def show(self, engine: EngineView) -> None:
        from studio.game import report
        from studio.present.game import game_text, is_game

        state = getattr(engine, "state", None)
        built = report.build(engine) if is_game(engine) else None
        self.query_one("#game", Static).update(game_text(state, built))

