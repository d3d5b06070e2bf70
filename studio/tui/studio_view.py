"""What the screens may ask of the studio app, as one typed interface.

Textual types a screen's `app` as its base `App`, which knows nothing of the store or of opening runs.
The app's module imports the screens (when it shows them), so the screens name the app by what it
offers rather than import it, as they name the engine by `EngineView`; `StudioApp` is checked against
this interface where it is defined.

The app runs in a terminal or in a browser tab (`studio serve`). What differs between the two is asked of
the app, never decided by a screen: where an export goes (`delivers_files`, `deliver`) and which editor
ctrl+e opens (`edit_text`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Protocol, TypeVar, cast

from textual import events
from textual.screen import Screen

if TYPE_CHECKING:
    from studio.store import Store
    from studio.tui.engine_view import EngineView

Result = TypeVar("Result")


class StudioView(Protocol):
    """The studio app as its screens see it: the run store, the run on screen, and the ways to open one."""

    store: Store
    plays_dir: Path
    pane_layout: dict[str, object] | None  # the panes `R` leaves open, for the new run's screen to open with

    @property
    def engine(self) -> EngineView | None: ...
    @engine.setter
    def engine(self, engine: EngineView | None) -> None: ...

    def first_frame(self) -> bool: ...
    def seat(self, engine: EngineView) -> None: ...
    def warm_up(self) -> None: ...
    def show_picker(self, first: bool = False) -> None: ...
    def back_to_run(self) -> None: ...
    def open_play(self, path: Path, title: str | None = None) -> None: ...
    def open_run(self, run_id: int, roles: dict[str, str] | None = None) -> None: ...
    def open_failed(self, error: BaseException) -> None: ...
    def show_critiques(self, engine: EngineView) -> None: ...
    def clear_passing_notes(self) -> None: ...
    @property
    def delivers_files(self) -> bool:
        """True where a file made for the playwright goes to them as a download (a browser tab), so no path
        on the serving machine is theirs to name; False where it stays where it was written."""
    def export_folder(self) -> str | None: ...
    def deliver(self, path: Path) -> None: ...
    def edit_text(self, text: str, done: Callable[[str], None], suffix: str = ".txt") -> None: ...


class StudioScreen(Screen[Result]):
    """A screen of the studio's own; `studio` is the app it runs in, with what the studio adds to Textual's."""

    _shown_before = False

    @property
    def studio(self) -> StudioView:
        return cast("StudioView", self.app)

    def _on_screen_resume(self, event: events.ScreenResume) -> None:
        """Shown for the first time, the screen was styled a moment ago, widget by widget as each was
        mounted, under the stylesheet it is shown with: Textual would style every widget and each of its
        parts again before the first frame. Shown again later it is restyled as Textual does, since the
        theme may have changed while another screen was on top. (Runs before Textual's own handler.)"""
        if not self._shown_before:
            self._shown_before = True
            event.refresh_styles = False
