"""The lab's record of trials, kept in the run store beside the runs: what is planned, done or failed.

A rerun reads it and runs only what is missing; a failed trial keeps its error while the others go on.

A runner leases a trial before it plays it, in one write transaction: the row names the runner (its
machine, its process and a draw of its own) and when the lease runs out. While the runner plays, a
heartbeat renews its leases; when it stops (the trials played, a failure, Ctrl-C) it gives back what it
still holds. So any number of runners of one experiment, in terminals on one machine or on several
machines sharing a store, play each trial once, and the trials of a runner that died (kill -9, a machine
switched off) are taken over once its lease runs out: at once when the runner was on this machine and
its process is gone, after `LEASE` seconds otherwise. A trial taken over goes on in the run it began.

The table is created when the lab first opens a store (an additive, idempotent migration: older
databases gain it, or the columns a lease names, and nothing else changes).
"""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from studio.store.leases import LEASE, gone, heartbeat, holder_name

# The store's leases (studio/store/leases.py): a trial is leased as a run open for playing is.
runner_name = holder_name


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
        store.keep_table(_SCHEMA, "lab_trials", (("owner", "TEXT"), ("lease", "REAL")))

    def claim(self, experiment: str, key: str, owner: str) -> dict[str, Any] | None:
        """Lease the trial to `owner` unless it is done or another runner's lease on it still holds.
        Returns what an earlier attempt recorded (its run, to continue), or None when the trial is not ours."""
        conn = self.store.conn
        with self.store.lock:
            conn.execute("BEGIN IMMEDIATE")
            try:
                now = time.time()
                row = conn.execute("SELECT status, result, owner, lease FROM lab_trials WHERE experiment = ? AND key = ?",
                                   (experiment, key)).fetchone()
                if row is not None and (row[0] == "done" or (row[0] == "running" and self._held(row[2], row[3], owner, now))):
                    conn.execute("COMMIT")
                    return None
                earlier = json.loads(row[1]) if row is not None else {}
                kept = {"run": earlier["run"]} if earlier.get("run") else {}
                conn.execute(
                    "INSERT INTO lab_trials (experiment, key, status, result, error, updated, owner, lease) "
                    "VALUES (?, ?, 'running', ?, NULL, ?, ?, ?) ON CONFLICT(experiment, key) DO UPDATE SET "
                    "status = 'running', result = excluded.result, error = NULL, updated = excluded.updated, "
                    "owner = excluded.owner, lease = excluded.lease",
                    (experiment, key, json.dumps(kept), now, owner, now + LEASE),
                )
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
        return kept

    @staticmethod
    def _held(holder: str | None, lease: float | None, owner: str, now: float) -> bool:
        """Whether another runner's lease on a running trial still holds."""
        return holder != owner and lease is not None and lease > now and not gone(holder)

    def renew(self, owner: str) -> None:
        """The heartbeat: every trial `owner` is playing stays its own for another LEASE seconds."""
        with self.store.lock:
            self.store.conn.execute("UPDATE lab_trials SET lease = ? WHERE owner = ? AND status = 'running'",
                                    (time.time() + LEASE, owner))

    def release(self, owner: str) -> None:
        """`owner` has stopped: what it was playing is free for the next runner at once."""
        with self.store.lock:
            self.store.conn.execute("UPDATE lab_trials SET lease = NULL WHERE owner = ? AND status = 'running'", (owner,))

    def held(self, experiment: str, owner: str) -> set[str]:
        """Keys of the trials other runners are playing now, under leases that still hold."""
        now = time.time()
        with self.store.lock:
            rows = self.store.conn.execute(
                "SELECT key, owner, lease FROM lab_trials WHERE experiment = ? AND status = 'running'", (experiment,)
            ).fetchall()
        return {key for key, holder, lease in rows if self._held(holder, lease, owner, now)}

    def running(self, experiment: str) -> set[str]:
        """Keys of the trials recorded as being played (by any runner, alive or not)."""
        with self.store.lock:
            rows = self.store.conn.execute(
                "SELECT key FROM lab_trials WHERE experiment = ? AND status = 'running'", (experiment,)).fetchall()
        return {key for (key,) in rows}

    def heartbeat(self, owner: str) -> threading.Event:
        """Renew `owner`'s leases in a thread of their own until the returned event is set, so a trial
        that keeps the event loop busy (a long local call) never lets its lease run out."""
        return heartbeat(lambda: self.renew(owner), "lab-lease")

    def done(self, experiment: str) -> dict[str, dict[str, Any]]:
        with self.store.lock:
            rows = self.store.conn.execute(
                "SELECT key, result FROM lab_trials WHERE experiment = ? AND status = 'done'", (experiment,)
            ).fetchall()
        return {key: json.loads(result) for key, result in rows}

    def done_keys(self, experiment: str) -> set[str]:
        """The keys of the finished trials, without their results (what a runner skips)."""
        with self.store.lock:
            rows = self.store.conn.execute(
                "SELECT key FROM lab_trials WHERE experiment = ? AND status = 'done'", (experiment,)).fetchall()
        return {key for (key,) in rows}

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
               error: str | None = None, owner: str | None = None) -> bool:
        """Record the trial's state. With `owner`, only while the trial is still that runner's: a runner whose
        heartbeat was starved past its lease may have lost the trial to another, whose record then stands
        alone. False when nothing was written for that reason."""
        with self.store.lock:
            cursor = self.store.conn.execute(
                "INSERT INTO lab_trials (experiment, key, status, result, error, updated, owner) "
                "VALUES (?, ?, ?, ?, ?, ?, ?) "
                "ON CONFLICT(experiment, key) DO UPDATE SET status = excluded.status, result = excluded.result, "
                "error = excluded.error, updated = excluded.updated "
                "WHERE ? IS NULL OR lab_trials.owner IS NULL OR lab_trials.owner = ?",
                (experiment, key, status, json.dumps(result or {}), error, time.time(), owner, owner, owner),
            )
            return cursor.rowcount > 0

    def experiments(self) -> list[tuple[str, int, int]]:
        """(experiment, trials done, trials failed), for `studio lab status`."""
        with self.store.lock:
            rows = self.store.conn.execute(
                "SELECT experiment, SUM(status = 'done'), SUM(status = 'failed') FROM lab_trials "
                "GROUP BY experiment ORDER BY experiment"
            ).fetchall()
        return [(e, int(d or 0), int(f or 0)) for e, d, f in rows]
