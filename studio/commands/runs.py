"""The saved runs as a playwright looks for them: a name, how far each got, who played it, when.

Shared by `studio runs`, `studio rename`, `studio archive` and the app's picker, so the two lists
always agree on what a run is called and where it stands.
"""

from __future__ import annotations

import argparse
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
        return _date(self.updated)


def _date(stamp: float) -> str:
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
        state = form_for(cast).replay(cast, path)  # each form's own state: a game ends without an epilogue
        for role in cast.roles:
            if role.key in getattr(state, "humans", ()):
                label = "you"
            else:
                label = role.model
            if label not in models:
                models.append(label)
        if path:
            updated = path[-1].created
        if state.finished:
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


# -- the commands ------------------------------------------------------------------------


def register(sub: Any, db_option: Any) -> None:
    rename = sub.add_parser("rename", help="give a run a name of your own (the play's title stays)")
    rename.add_argument("run", help="a run number")
    rename.add_argument("name", help="the new name; '' clears it")
    db_option(rename)
    archive = sub.add_parser("archive", help="hide a run from the lists (nothing is deleted)")
    archive.add_argument("run", help="a run number")
    archive.add_argument("--undo", action="store_true", help="bring an archived run back")
    db_option(archive)


def cmd_rename(store: Any, run_id: int, name: str) -> str:
    store.rename_run(run_id, name)
    return f"Run {run_id} is now called “{name.strip()}”." if name.strip() else f"Run {run_id} has no name of its own now."


def cmd_archive(store: Any, run_id: int, undo: bool) -> str:
    store.archive_run(run_id, not undo)
    if undo:
        return f"Run {run_id} is back in the lists."
    return f"Run {run_id} is archived: hidden from the lists, nothing deleted. 'studio archive {run_id} --undo' brings it back."


def table(store: Any, args: argparse.Namespace) -> Any:
    """The rows of `studio runs`: what the picker shows, plus tokens and cost."""
    from rich.table import Table
    from rich.text import Text

    from studio import usage

    out = Table("run", "name", "status", "models", "started", "last line", "tokens", "cost")
    for summary in summaries(store, archived=getattr(args, "all", False)):
        spent = usage.run_usage(store, summary.id).total
        name = Text(summary.title)
        if summary.archived:
            name.append(" (archived)", style="dim")
        out.add_row(str(summary.id), name, Text(summary.status), Text(", ".join(summary.models)),
                    _date(summary.started), summary.when,
                    usage.tokens(spent.prompt_tokens + spent.completion_tokens), usage.money(spent.cost))
    return out
