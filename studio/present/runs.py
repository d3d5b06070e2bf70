"""The saved runs as a playwright looks for them: a name, how far each got, who played it, when.

Shared by `studio runs`, `studio rename`, `studio archive` and the app's picker, so the two lists
always agree on what a run is called and where it stands, and both say the same when one is renamed
or archived.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any


@dataclass(frozen=True)
class RunSummary:
    id: int
    title: str  # the playwright's name for the run if given, else the play's title
    play: str
    status: str  # "finished", "paused at scene 2 turn 3", "not started"
    models: list[str]
    started: float
    updated: float
    events: int
    archived: bool

    @property
    def when(self) -> str:
        return day_and_time(self.updated)


def day_and_time(stamp: float) -> str:
    return datetime.fromtimestamp(stamp).strftime("%Y-%m-%d %H:%M")


def summarize(store: Any, info: Any) -> RunSummary:
    """Replays the current take (no model is asked) so the status is the engine's own, not a guess."""
    from studio.engine.forms import form_for
    from studio.model import ResolvedCast

    models: list[str] = []
    status = "unreadable"
    updated = info.created
    try:
        cast = ResolvedCast.model_validate_json(info.cast_json or store.run(info.id).cast_json)
        path = store.take(info.id)
        form = form_for(cast)
        state = form.replay(cast, path)  # each form's own state: a game ends without an epilogue
        for role in cast.roles:
            if role.key in getattr(state, "humans", ()):
                label = "you"
            else:
                label = role.model
            if label not in models:
                models.append(label)
        if path:
            updated = path[-1].created
        if form.finished(state):
            status = "finished"
        elif not path:
            status = "not started"
        else:
            game = getattr(state, "game", None)
            if game is not None and hasattr(game, "round"):
                status = f"paused in round {game.round}"
            else:
                status = f"paused at scene {max(state.scene, 1)} turn {getattr(state, 'turn_in_scene', state.turn)}"
    except Exception:  # noqa: BLE001 - one damaged run must not hide the others
        pass
    return RunSummary(info.id, info.name or info.title, info.title, status, models, info.created, updated,
                      info.events, info.archived)


def summaries(store: Any, archived: bool = False) -> list[RunSummary]:
    """Newest first; archived runs only when asked for."""
    return [summarize(store, info) for info in reversed(store.runs()) if archived or not info.archived]


def run_name_problem(name: str) -> str | None:
    """What is wrong with a run's new name, or None: the CLI and the app refuse the same names with the
    same words, rather than saving a name other than the one typed ('' clears; spaces alone are a slip)."""
    from studio.clean import LINE_CONTROLS
    from studio.model.play import MAX_NAME

    if LINE_CONTROLS.search(name) or len(name) > MAX_NAME:
        return (f"a run's name is one line of at most {MAX_NAME} printable characters "
                "(no line breaks, tabs, control characters or direction overrides)")
    if name and not name.strip():
        return "a run's name of only spaces would not show; an empty name clears it"
    return None


def rename(store: Any, run_id: int, name: str) -> str:
    """Give run `run_id` the playwright's own name ('' clears it); the words that say so. A name
    `run_name_problem` refuses raises ValueError and changes nothing."""
    problem = run_name_problem(name)
    if problem:
        raise ValueError(problem)
    store.rename_run(run_id, name)
    return f"Run {run_id} is now called “{name.strip()}”." if name.strip() else f"Run {run_id} has no name of its own now."


def archive(store: Any, run_id: int, undo: bool) -> str:
    """Hide run `run_id` from the lists, or bring it back with `undo`; nothing is deleted."""
    store.archive_run(run_id, not undo)
    if undo:
        return f"Run {run_id} is back in the lists."
    return f"Run {run_id} is archived: hidden from the lists, nothing deleted. 'studio archive {run_id} --undo' brings it back."


def describe(store: Any, run_id: int) -> str:
    """The run as a confirmation names it: its name, number and how many lines it holds on stage."""
    from studio.store import events as ev

    info = store.run(run_id)
    lines = sum(1 for e in store.events(run_id) if e.kind in ev.ON_STAGE and e.kind != ev.SCENE)
    name = info.name or info.title
    return f"“{name}” (run {run_id}, {lines} line{'' if lines == 1 else 's'} over every take)"


def delete(store: Any, run_id: int) -> str:
    """Delete run `run_id` whole, for good (a lab trial's run is refused by the store); the words that say so."""
    said = describe(store, run_id)
    gone = store.delete_run(run_id)
    return f"Deleted {said}: {gone} event{'' if gone == 1 else 's'}, its take names and critiques."
