"""The one place a failure on the run screen becomes words: what happened, and what to do next."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from studio.tui.screens.group import RunScreen


def report(screen: RunScreen, error: BaseException | None, where: str = "") -> None:
    from studio.engine import EngineError, HeldElsewhere, RunFinished
    from studio.model import InputError
    from studio.store import HeadMoved, RunGone, StoreError

    engine = screen.engine
    if isinstance(error, RunGone):
        # Deleted elsewhere after its lease ran out (a window that slept past it): nothing can be played or
        # saved here any more, so the window goes back to the picker and says why, once (a step that failed
        # and the idle window's own look may both find out).
        if screen.studio.engine is None:
            return
        screen.notify(f"{error}. Pick another run, or start one.", title="Run deleted", severity="error",
                      timeout=12)
        screen.studio.engine = None
        screen.engine = None  # nothing more is asked of it, by a key or by the next look for others' lines
        screen.studio.show_picker()
    elif isinstance(error, EngineError):
        screen.set_activity("Model error: the run is kept where it was.")
        run = engine.run_id if engine is not None else "RUN"
        screen.notify(
            f"{error}\nThe run is kept where it was: s tries again, t takes the role over, q quits and "
            f"'studio open {run}' resumes later.",
            title="Model error",
            severity="error",
            timeout=12,
        )
    elif isinstance(error, HeldElsewhere):
        screen.notify(f"{error}; this window shows it when it lands.", title="Played elsewhere",
                      severity="warning", markup=False)
    elif isinstance(error, RunFinished):
        screen.notify("The play is finished: r rewinds, e edits a line, g writes a new take.", title="Finished")
    elif isinstance(error, HeadMoved):
        if engine is not None:
            engine.reload()
        screen.resync()
        kept = screen.shared.keep_unsent()
        said = " Your line is kept: it is in your box when your turn comes again." if kept else ""
        screen.notify(f"{error}. Reloaded the run as it is now.{said}", title="The run moved on",
                      severity="warning", markup=False)
        if kept:
            screen.ask_if_mine()  # the role's line may be next again: its box opens with the text in it
    elif isinstance(error, InputError):
        screen.notify(error.message, title="Cannot do that", severity="error", timeout=10)
    elif isinstance(error, StoreError):
        screen.notify(str(error), title="Run store", severity="error", timeout=10)
    elif isinstance(error, ValueError):  # what the playwright asked for cannot be done as asked: said plainly
        screen.notify(str(error), title=f"Could not {where or 'do that'}", severity="warning", timeout=10,
                      markup=False)
    elif isinstance(error, ImportError) and where == "export":
        screen.notify("Export is not available yet.", title="Export", severity="warning")
    elif error is not None:
        screen.notify(f"{type(error).__name__}: {error}", title=f"Could not {where or 'do that'}", severity="error",
                      timeout=12)


def finished() -> Exception:
    from studio.engine import RunFinished

    return RunFinished("finished")
