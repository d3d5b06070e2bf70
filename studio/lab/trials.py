"""The lab's record of trials, kept in the run store beside the runs: what is planned, done or failed.

A rerun reads it and runs only what is missing; a failed trial keeps its error while the others go on.
A runner claims a trial before it plays it, in one write transaction, so two runners of the same
experiment (two terminals on one store) never play one trial twice; a trial whose runner is gone (a
crash, Ctrl-C) is claimed again and goes on in its run. The table is created when the lab first opens a
store (an additive, idempotent migration: older databases gain it, or the column a claim names, and
nothing else changes).
"""

from __future__ import annotations

import json
import os
import secrets
import socket
import time
from typing import Any

_LIVE: set[str] = set()  # the runners of this process now playing, by their claim's name


def runner_name() -> str:
    """A name for one runner's claims: the machine, the process and a draw of its own."""
    return f"{socket.gethostname()}:{os.getpid()}:{secrets.token_hex(4)}"


def begin(owner: str) -> None:
    _LIVE.add(owner)


def end(owner: str) -> None:
    _LIVE.discard(owner)


def _alive(owner: str | None) -> bool:
    """Whether the runner that claimed a trial may still be playing it. Another machine's cannot be
    asked, so it counts as alive; on this one a process that has ended has let go of its claims."""
    if not owner or owner.count(":") < 2:
        return False
    host, pid_text, _ = owner.rsplit(":", 2)
    if host != socket.gethostname():
        return True
    try:
        pid = int(pid_text)
    except ValueError:
        return False
    if pid == os.getpid():
        return owner in _LIVE
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True

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
            columns = {row[1] for row in store.conn.execute("PRAGMA table_info(lab_trials)")}
            if "owner" not in columns:
                store.conn.execute("ALTER TABLE lab_trials ADD COLUMN owner TEXT")

    def claim(self, experiment: str, key: str, owner: str) -> dict[str, Any] | None:
        """Take the trial for `owner` unless it is done or a runner still alive is playing it. Returns
        what an earlier attempt recorded (its run, to continue), or None when the trial is not ours."""
        conn = self.store.conn
        with self.store.lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                row = conn.execute("SELECT status, result, owner FROM lab_trials WHERE experiment = ? AND key = ?",
                                   (experiment, key)).fetchone()
                if row is not None and (row[0] == "done" or (row[0] == "running" and row[2] != owner
                                                              and _alive(row[2]))):
                    conn.execute("COMMIT")
                    return None
                earlier = json.loads(row[1]) if row is not None else {}
                kept = {"run": earlier["run"]} if earlier.get("run") else {}
                conn.execute(
                    "INSERT INTO lab_trials (experiment, key, status, result, error, updated, owner) "
                    "VALUES (?, ?, 'running', ?, NULL, ?, ?) ON CONFLICT(experiment, key) DO UPDATE SET "
                    "status = 'running', result = excluded.result, error = NULL, updated = excluded.updated, "
                    "owner = excluded.owner",
                    (experiment, key, json.dumps(kept), time.time(), owner),
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return kept

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
