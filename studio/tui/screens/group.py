"""A group of the run screen's controls, kept out of the screen's own file.

The bindings stay in the one table of controls (`studio.tui.controls`) and on the screen, where the
footer, the help and the palette read them; each action lives on the group that owns it, which the
screen finds by name. A group reaches the run through the screen it serves.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Protocol, TypeVar, overload

from studio.store import events as ev

if TYPE_CHECKING:
    from textual.app import App
    from textual.notifications import SeverityLevel
    from textual.widget import Widget
    from textual.worker import Worker

    from studio.tui.engine_view import EngineView
    from studio.tui.studio_view import StudioView


Found = TypeVar("Found", bound="Widget")

FOLLOW_EVERY = 0.4
"""Seconds between asks whether another window wrote to the run: what it wrote shows within a second."""


class RunScreen(Protocol):
    """What a group of controls may ask of the run screen it serves (the screen's module imports the
    groups, so they name it by what it offers rather than import it)."""

    engine: EngineView | None
    job: Worker[Any] | None
    marks: dict[int, Any]
    hidden: set[int]  # the events of hidden takes
    # the other groups and the human's box, for the few controls that hand over to them
    ensemble: Any
    turns: Any
    lines: Any
    room: Any
    shared: Any
    desk: Any

    @property
    def human(self) -> Any: ...
    @property
    def app(self) -> App[Any]: ...
    @property
    def studio(self) -> StudioView: ...
    @property
    def focused(self) -> Widget | None: ...
    @property
    def busy(self) -> bool: ...

    @overload
    def query_one(self, selector: str) -> Widget: ...
    @overload
    def query_one(self, selector: type[Found]) -> Found: ...
    @overload
    def query_one(self, selector: str, expect_type: type[Found]) -> Found: ...
    def query(self, selector: Any = None) -> Any: ...
    def run_worker(self, work: Any, *args: Any, **kwargs: Any) -> Worker[Any]: ...
    def call_later(self, callback: Any, *args: Any, **kwargs: Any) -> bool: ...
    def notify(self, message: str, *, title: str = "", severity: SeverityLevel = "information",
               timeout: float | None = None, markup: bool = True) -> None: ...
    def _ready(self) -> bool: ...
    async def pause(self) -> bool: ...
    def report(self, error: BaseException | None, where: str = "") -> None: ...
    def resync(self, select: int | None = None) -> None: ...
    def catch_up(self) -> bool: ...
    def ask_if_mine(self) -> None: ...
    def refresh_panes(self, select: int | None = None, latest: bool = True) -> None: ...
    def note_take(self, event: Any) -> None: ...
    def recount_takes(self) -> None: ...
    def set_activity(self, text: str | None, reset: bool = False) -> None: ...
    def idle_hint(self) -> str: ...
    def selected_event(self) -> Any: ...
    def mount_later(self) -> None: ...


class ControlGroup:
    def __init__(self, screen: RunScreen) -> None:
        self.screen = screen

    @property
    def engine(self) -> EngineView:
        engine = self.screen.engine
        assert engine is not None  # every action asks `_ready()` first
        return engine

    @property
    def app(self) -> App[Any]:
        return self.screen.app

    @property
    def studio(self) -> StudioView:
        return self.screen.studio

    @property
    def busy(self) -> bool:
        return self.screen.busy

    def notify(self, message: str, **kwargs: Any) -> None:
        self.screen.notify(message, **kwargs)

    def _ready(self) -> bool:
        return self.screen._ready()

    async def pause(self) -> bool:
        return await self.screen.pause()

    def report(self, error: BaseException | None, where: str = "") -> None:
        self.screen.report(error, where)

    def resync(self, select: int | None = None) -> None:
        self.screen.resync(select)

    def refresh_panes(self) -> None:
        self.screen.refresh_panes()

    def _start(self, worker: Worker[Any]) -> None:
        self.screen.job = worker

    def _set_activity(self, text: str) -> None:
        self.screen.set_activity(text)

    def _idle_hint(self) -> str:
        return self.screen.idle_hint()

    def _selected_event(self) -> Any:
        return self.screen.selected_event()

    def _selected_take(self) -> Any:
        """The selected line, if it is one that takes can be written of; a scene heading is said no to."""
        event = self._selected_event()
        if event is not None and event.kind == ev.SCENE:
            self.notify("A scene heading has only one take; select a line.", severity="warning")
            return None
        return event
