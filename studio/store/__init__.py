"""The run log: immutable events in SQLite, heads and takes, resume."""

from studio.store import events
from studio.store.db import HeadMoved, RunGone, RunInfo, Store, StoreError, StoreTrouble, default_db_path, parse_id
from studio.store.events import Event

__all__ = ["Event", "HeadMoved", "RunGone", "RunInfo", "Store", "StoreError", "StoreTrouble", "default_db_path", "events", "parse_id"]
