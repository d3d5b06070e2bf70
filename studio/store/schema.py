"""The run store's tables and how an older database is brought up to date: tables and columns are only
ever added, with defaults that mean what the old database meant, inside the one write transaction the
store opens them in (studio/store/db.py), so running it twice, or in two processes at once, changes
nothing."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence

SCHEMA_VERSION = 1
# Written in the file's header so the studio knows its own stores from other programs' databases (the
# bytes "Stud"); a store an older studio made is known by its tables, and given it on its next open.
APPLICATION_ID = 0x53747564

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    created   REAL NOT NULL,
    title     TEXT NOT NULL,
    play_path TEXT NOT NULL,
    cast_json TEXT NOT NULL,
    options   TEXT NOT NULL DEFAULT '{}',
    head      INTEGER REFERENCES events(id)
);
CREATE TABLE IF NOT EXISTS events (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    parent    INTEGER REFERENCES events(id),
    kind      TEXT NOT NULL,
    role      TEXT,
    character TEXT,
    text      TEXT NOT NULL,
    scene     INTEGER,
    turn      INTEGER,
    origin    TEXT NOT NULL DEFAULT 'model',
    data      TEXT NOT NULL DEFAULT '{}',
    model     TEXT,
    settings  TEXT NOT NULL DEFAULT '{}',
    usage     TEXT NOT NULL DEFAULT '{}',
    created   REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS events_by_run ON events(run_id, id);
CREATE INDEX IF NOT EXISTS events_by_parent ON events(parent);
CREATE TABLE IF NOT EXISTS critiques (
    id        INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    head      INTEGER,
    created   REAL NOT NULL,
    model     TEXT,
    body      TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS take_marks (
    event_id  INTEGER PRIMARY KEY REFERENCES events(id),
    run_id    INTEGER NOT NULL REFERENCES runs(id),
    name      TEXT,
    starred   INTEGER NOT NULL DEFAULT 0,
    updated   REAL NOT NULL
);
CREATE UNIQUE INDEX IF NOT EXISTS take_names ON take_marks(run_id, name);
CREATE TABLE IF NOT EXISTS run_players (
    run_id    INTEGER NOT NULL,
    holder    TEXT NOT NULL,
    lease     REAL NOT NULL,
    PRIMARY KEY (run_id, holder)
);
CREATE TABLE IF NOT EXISTS pen_history (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id      INTEGER NOT NULL,
    holder      TEXT,
    action      TEXT NOT NULL,
    before_head INTEGER,
    after_head  INTEGER,
    description TEXT NOT NULL,
    undone      INTEGER NOT NULL DEFAULT 0,
    created     REAL NOT NULL
);
CREATE INDEX IF NOT EXISTS pen_history_by_run ON pen_history(run_id, holder, id);
CREATE TRIGGER IF NOT EXISTS events_are_immutable BEFORE UPDATE ON events
BEGIN SELECT RAISE(ABORT, 'events are immutable'); END;
"""

# A run's history is never pruned piecemeal: an event may go only with its whole run, inside the one
# transaction of `delete_run`, which marks the run as being deleted first. Older databases carry a
# trigger that refused every delete; `keep_events` replaces it.
KEEP_EVENTS = """
CREATE TRIGGER events_are_kept BEFORE DELETE ON events
WHEN NOT EXISTS (SELECT 1 FROM runs r WHERE r.id = OLD.run_id AND r.deleting = 1)
BEGIN SELECT RAISE(ABORT, 'events are never deleted one by one; only a whole run is deleted'); END;
"""


def statements(script: str) -> list[str]:
    """A script's statements one by one: `executescript` would commit the transaction they belong in."""
    statements: list[str] = []
    pending = ""
    for line in script.splitlines(keepends=True):
        pending += line
        if sqlite3.complete_statement(pending):
            statements.append(pending)
            pending = ""
    return statements


def add_columns(conn: sqlite3.Connection, table: str, columns: Sequence[tuple[str, str]]) -> None:
    """Inside a write transaction: the `columns` (name, declaration) `table` lacks, added."""
    have = {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}
    for column, declaration in columns:
        if column not in have:
            conn.execute(f"ALTER TABLE {table} ADD COLUMN {column} {declaration}")


def keep_events(conn: sqlite3.Connection) -> None:
    """The guard on events as it is now: an older database's guard (which refused every delete, so a run
    could never be deleted at all) is replaced inside the set-up's one transaction, so no moment goes
    unguarded."""
    row = conn.execute("SELECT sql FROM sqlite_master WHERE type = 'trigger' AND name = 'events_are_kept'").fetchone()
    if row is not None and "deleting" in row[0]:
        return
    conn.execute("DROP TRIGGER IF EXISTS events_are_kept")
    conn.execute(KEEP_EVENTS)


def bring_up_to_date(conn: sqlite3.Connection) -> None:
    """Inside the store's opening transaction: every table, the newer columns, the events' guard."""
    for statement in statements(SCHEMA):
        conn.execute(statement)
    # `player` and `lease` held a run's one lease before each player had its own (run_players); they are
    # left unread rather than dropped, as columns are only ever added.
    add_columns(conn, "runs", (("name", "TEXT NOT NULL DEFAULT ''"), ("archived", "INTEGER NOT NULL DEFAULT 0"),
                               ("deleting", "INTEGER NOT NULL DEFAULT 0"), ("player", "TEXT"), ("lease", "REAL")))
    add_columns(conn, "take_marks", (("hidden", "INTEGER NOT NULL DEFAULT 0"),))
    keep_events(conn)
    conn.execute(f"PRAGMA user_version={SCHEMA_VERSION}")
    conn.execute(f"PRAGMA application_id={APPLICATION_ID}")
