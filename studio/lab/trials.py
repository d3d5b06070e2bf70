"""The lab's record of trials, kept in the run store beside the runs: what is planned, done or failed.

A rerun reads it and runs only what is missing; a failed trial keeps its error while the others go on.
The table is created when the lab first opens a store (an additive, idempotent migration: older
databases gain it, nothing else changes).
"""

from __future__ import annotations

import json
import time
from typing import Any

_SCHEMA = """
CREATE TABLE IF NOT EXISTS lab_trials (
    experiment TEXT NOT NULL,
    key        TEXT NOT NULL,
    status     TEXT NOT NULL,
    result     TEXT NOT NULL DEFAULT '{}',
    error      TEXT,
    updated    REAL NOT NULL,
    PRIMARY KEY (experiment, key)
);
"""


class Trials:
    def __init__(self, store: Any):
        self.store = store
        with store.lock:
            store.conn.executescript(_SCHEMA)

    def done(self, experiment: str) -> dict[str, dict[str, Any]]:
        with self.store.lock:
            rows = self.store.conn.execute(
                "SELECT key, result FROM lab_trials WHERE experiment = ? AND status = 'done'", (experiment,)
            ).fetchall()
        return {key: json.loads(result) for key, result in rows}

    def failed(self, experiment: str) -> dict[str, str]:
        with self.store.lock:
            rows = self.store.conn.execute(
                "SELECT key, error FROM lab_trials WHERE experiment = ? AND status = 'failed'", (experiment,)
            ).fetchall()
        return dict(rows)

    def started(self, experiment: str) -> dict[str, dict[str, Any]]:
        """Trials begun but not finished (left running by a crash, or failed) with what they recorded,
        e.g. the run they started, so the next attempt can continue it."""
        with self.store.lock:
            rows = self.store.conn.execute(
                "SELECT key, result FROM lab_trials WHERE experiment = ? AND status IN ('running', 'failed')",
                (experiment,),
            ).fetchall()
        return {key: json.loads(result) for key, result in rows}

    def record(self, experiment: str, key: str, status: str, result: dict[str, Any] | None = None,
               error: str | None = None) -> None:
        with self.store.lock:
            self.store.conn.execute(
                "INSERT INTO lab_trials (experiment, key, status, result, error, updated) VALUES (?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(experiment, key) DO UPDATE SET status = excluded.status, result = excluded.result, "
                "error = excluded.error, updated = excluded.updated",
                (experiment, key, status, json.dumps(result or {}), error, time.time()),
            )

    def experiments(self) -> list[tuple[str, int, int]]:
        """(experiment, trials done, trials failed), for `studio lab status`."""
        with self.store.lock:
            rows = self.store.conn.execute(
                "SELECT experiment, SUM(status = 'done'), SUM(status = 'failed') FROM lab_trials "
                "GROUP BY experiment ORDER BY experiment"
            ).fetchall()
        return [(e, int(d or 0), int(f or 0)) for e, d, f in rows]
