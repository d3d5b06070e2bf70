"""How the run screen shares its width: which panes are open, and how wide the side is."""

from __future__ import annotations

from studio.tui.controls import ALL
from studio.tui.screens.group import ControlGroup


class PaneRoom(ControlGroup):
    side_width = 40  # percent of the screen for the side panes (and the cast), `<` and `>` change it

    def action_toggle_pane(self, name: str) -> None:
        screen = self.screen
        screen.mount_later()  # a key quicker than the first frame
        widget = screen.query_one(f"#{name}-pane")
        if widget.display and sum(pane.display for pane in screen.query(".pane")) == 1:
            self.notify("One pane stays open.", severity="warning")
            return
        if widget.display:
            widget.display = False
            self.fit()
        else:
            self.show_pane(name)

    # Every pane the controls table can show or hide (`toggle_pane('NAME')`): a new pane's row there is
    # all this needs to keep it in a run's layout.
    PANES = tuple(c.action.removeprefix("toggle_pane('").removesuffix("')")
                  for c in ALL if c.action.startswith("toggle_pane('"))

    def layout(self) -> dict[str, object]:
        """Which panes are open and how wide the side is, for a new run of the same play to open alike."""
        self.screen.mount_later()
        shown = {name: bool(self.screen.query_one(f"#{name}-pane").display) for name in self.PANES}
        return {"shown": shown, "side_width": self.side_width}

    def restore(self, layout: dict[str, object]) -> None:
        shown = layout.get("shown")
        if isinstance(shown, dict):
            for name, display in shown.items():
                self.screen.query_one(f"#{name}-pane").display = bool(display)
        width = layout.get("side_width")
        if isinstance(width, int):
            self.side_width = width
        self.fit()

    def show_pane(self, name: str) -> None:
        """Shown, a pane draws itself if the run moved while it was hidden."""
        self.screen.mount_later()
        self.screen.query_one(f"#{name}-pane").display = True
        self.fit()

    def action_scroll_backstage(self, direction: int) -> None:
        """A few rows of the backstage at a time, for a long explanation beside a line the cursor keeps."""
        pane = self.screen.query_one("#backstage-pane")
        if not pane.display:
            self.show_pane("backstage")
        pane.scroll_relative(y=direction * 3, animate=False)

    def action_resize(self, delta: int) -> None:
        width = max(20, min(75, self.side_width + delta))
        if width != self.side_width:
            self.side_width = width
            self.fit()

    def fit(self) -> None:
        """Share the width: the stage keeps what the side panes leave, and never less than 45%. Before the
        first frame the cast pane may not be mounted yet (`mount_later`): then it is hidden, and shown
        through `show_pane`, which fits again."""
        screen = self.screen
        side = screen.query_one("#side")
        casts = list(screen.query("#cast-pane"))
        cast_shown = any(cast.display for cast in casts)
        side.display = any(pane.display for pane in side.children)
        stage_shown = screen.query_one("#stage-pane").display
        width = self.side_width
        if side.display and cast_shown:
            room = min(width + 15, 80)
            side.styles.width = f"{room * 55 // 100}%"
            cast_width = f"{room - room * 55 // 100}%"
        else:
            side.styles.width = f"{width}%"
            cast_width = f"{width}%"
        side.set_class(not stage_shown and not cast_shown, "-alone")
        if not stage_shown and side.display:
            side.styles.width = "1fr"  # the stage hidden: the side takes its room (a width set here outranks -alone)
        for cast in casts:
            cast.styles.width = "1fr" if not stage_shown and not side.display else cast_width
            cast.set_class(not stage_shown and not side.display, "-alone")
