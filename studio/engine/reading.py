"""A run read from the store as a script: one take, and whether it is finished as its form decides.

The script itself is a pure reading (studio.engine.script); this is where the store and the form come in,
so the exports and the Critic read a run the same way.
"""

from __future__ import annotations

from typing import Any

from studio.engine.forms import form_for
from studio.engine.script import Script, read_script
from studio.model.play import ResolvedCast
from studio.store import Store, StoreError
from studio.store import events as ev
from studio.store.events import Event


def finished(cast: Any, path: list[Event]) -> bool:
    """As the engine decides it (a play without an epilogue, a game, an interview end without one)."""
    if any(e.kind == ev.EPILOGUE for e in path):
        return True
    try:
        form = form_for(cast)
        return form.finished(form.replay(cast, path))
    except Exception:  # noqa: BLE001 - a state that cannot be replayed is not known to be finished
        return False


def run_finished(store: Store, run_id: int, head: int | None = None) -> bool:
    """Whether one take of a stored run (the current one unless `head` names another) is finished."""
    cast = ResolvedCast.model_validate_json(store.run(run_id).cast_json)
    return finished(cast, store.take(run_id, head))


def build_script(store: Store, run_id: int, head: int | None = None, backstage: bool = False) -> Script:
    """Read one take of a run (the current one unless `head` names another) as a script."""
    info = store.run(run_id)
    cast = ResolvedCast.model_validate_json(info.cast_json)
    if head is not None:
        try:
            event = store.event(head)
        except StoreError:
            raise StoreError(
                f"run {run_id} has no event {head}; 'studio show {run_id} --json --all' lists them"
            ) from None
        if event.run_id != run_id:
            raise StoreError(f"event {head} belongs to run {event.run_id}, not run {run_id}")
    path = store.take(run_id, head)
    return read_script(cast, path, run_id=run_id, created=info.created, finished=finished(cast, path),
                       backstage=backstage)
