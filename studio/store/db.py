"""The run store: every event of every run, append-only, in one SQLite file in WAL mode.

Each append is its own transaction, committed before the caller shows the event anywhere, so a run
killed at any instant (kill -9 included) reopens at its last committed event. A run's head names the
last event of its current take; moving the head back is a rewind; appending after an earlier event
starts a new branch; no event is ever updated, and none is deleted on its own: only a whole run goes,
when the playwright asked for it and confirmed it (or when it never held a line). Appends check the
head they expect, so two processes driving one run cannot interleave a take: the second is told the
run moved on.
"""

from __future__ import annotations

import json
import os
import sqlite3
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from studio.store.events import Event
from studio.store.leases import LEASE, holds
from studio.store.schema import SCHEMA_VERSION, add_columns, bring_up_to_date, statements

DAY = 24 * 60 * 60

# SQLite keeps a row's id in eight signed bytes: no run or event can be numbered higher, and a larger
# number handed to a query is an OverflowError instead of "no such run".
LARGEST_ID = 2**63 - 1

_EVENT_COLUMNS = (
    "id, run_id, parent, kind, text, role, character, scene, turn, origin, data, model, settings, usage, created"
)
_AS_WRITTEN = json.JSONEncoder(ensure_ascii=False)  # one encoder for every event's data: made once, not per append
_INSERT_EVENT = (
    "INSERT INTO events (run_id, parent, kind, role, character, text, scene, turn, origin, data, "
    "model, settings, usage, created) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)


class StoreError(Exception):
    """A store problem a user can act on (wrong file, unknown run, a run moved on elsewhere)."""


class HeadMoved(StoreError):
    """Another process (or window) advanced this run since we read it."""


class RunGone(StoreError):
    """The run was deleted while this process played it: nothing more of it can be saved."""


@dataclass(frozen=True)
class RunInfo:
    id: int
    created: float
    title: str
    play_path: str
    cast_json: str
    options: dict[str, Any]
    head: int | None
    events: int = 0
    status: str = ""
    name: str = ""  # the playwright's own name for the run; the play's title stays in `title`
    archived: bool = False  # hidden from the lists, never deleted

    def as_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "created": self.created,
            "title": self.title,
            "play_path": self.play_path,
            "head": self.head,
            "events": self.events,
            "status": self.status,
            "name": self.name,
            "archived": self.archived,
            "options": self.options,
        }


def parse_id(text: str | int, what: str) -> int:
    """A run or event number as typed, the one reading of them all: digits only, from 1 up to what the
    store can hold. `what` is "run" or "event"; anything else is a StoreError saying so."""
    typed = str(text).strip()
    if not typed.isascii() or not typed.isdigit() or len(typed) > len(str(LARGEST_ID)) or \
            not 1 <= int(typed) <= LARGEST_ID:
        shown = typed if len(typed) <= 30 else typed[:27] + "..."
        raise StoreError(f"'{shown}' is not {'an' if what[0] in 'aeiou' else 'a'} {what} number "
                         f"({what}s are numbered from 1 to {LARGEST_ID})")
    return int(typed)


def default_db_path() -> Path:
    return Path(os.environ.get("STUDIO_DB") or Path(".studio") / "studio.db")


def _row_event(row: sqlite3.Row | tuple[Any, ...]) -> Event:
    (id_, run_id, parent, kind, text, role, character, scene, turn, origin, data, model, settings, usage, created) = row
    return Event(
        id=id_,
        run_id=run_id,
        parent=parent,
        kind=kind,
        text=text,
        role=role,
        character=character,
        scene=scene,
        turn=turn,
        origin=origin,
        data=json.loads(data),
        model=model,
        settings=json.loads(settings),
        usage=json.loads(usage),
        created=created,
    )


class _Immediate:
    """One write transaction, taken before the first read so no other writer can slip in between; it
    commits whole or, on any error (the commit's own included), not at all. The caller holds the store's
    lock around it. A class, not a generator: every append goes through it."""

    __slots__ = ("conn",)

    def __init__(self, conn: sqlite3.Connection):
        self.conn = conn

    def __enter__(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if kind is None:
            try:
                self.conn.execute("COMMIT")
                return
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
        self.conn.execute("ROLLBACK")


def _inserted(cur: sqlite3.Cursor) -> int:
    """The id SQLite gave the row an INSERT just wrote; sqlite3 leaves it None only for other statements."""
    if cur.lastrowid is None:
        raise StoreError("the database wrote a row but gave it no id; check the file with `PRAGMA integrity_check`")
    return cur.lastrowid


class Store:
    def __init__(self, path: str | os.PathLike[str] | None = None):
        self.path = Path(path) if path is not None else default_db_path()
        # One connection may be shared by the UI loop and a worker thread: a statement from one must
        # never land inside the other's transaction.
        self.lock = threading.RLock()
        if str(self.path) != ":memory:":
            try:
                self.path.parent.mkdir(parents=True, exist_ok=True)
            except OSError as exc:
                raise StoreError(f"{self.path}: cannot create its folder ({exc.strerror})") from None
        try:
            self.conn = sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None, check_same_thread=False)
            self._write_ahead()
            # NORMAL under WAL survives any process crash; only a power cut may lose the newest commits.
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.conn.execute("PRAGMA busy_timeout=30000")
            version = self.conn.execute("PRAGMA user_version").fetchone()[0]
            if version > SCHEMA_VERSION:
                raise StoreError(f"{self.path}: written by a newer studio (schema {version}); upgrade studio")
            self._bring_up_to_date()
            # what other connections have committed is counted from here (changed_elsewhere)
            self._data_version: int = self.conn.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a studio database ({exc}); name another file with --db") from None

    def close(self) -> None:
        self.conn.close()

    def keep_table(self, schema: str, table: str, columns: Sequence[tuple[str, str]] = ()) -> None:
        """Create a table another part of the studio keeps in this database (`schema`: CREATE ... IF NOT
        EXISTS statements) and add its newer `columns`, in one write transaction, as the store's own tables
        are: processes opening one database at once (the lab's runners) each find the work done or do it
        alone, never both."""
        with self.lock, _Immediate(self.conn):
            for statement in statements(schema):
                self.conn.execute(statement)
            add_columns(self.conn, table, columns)

    def _write_ahead(self) -> None:
        """Switch a new database to write-ahead logging. The switch takes the database alone and does not
        wait for a busy one: a second process opening the same new file at that moment is told "locked"
        at once, so it waits here as it would for any write."""
        deadline = time.monotonic() + 30.0
        while True:
            try:
                self.conn.execute("PRAGMA journal_mode=WAL")
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise
                time.sleep(0.01)

    def _bring_up_to_date(self) -> None:
        """Create the tables, add the newer columns and guards, in one write transaction (schema.py).

        Several processes may open a new database at the same moment (the lab's runners do): each saw a
        column missing and added it, and all but the first failed with "duplicate column". Inside one
        immediate transaction the second process waits, then finds the work done.
        """
        with self.lock, _Immediate(self.conn):
            bring_up_to_date(self.conn)

    # runs -----------------------------------------------------------------

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        with self.lock:
            return self.conn.execute(sql, params)

    def _one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        with self.lock:
            return self.conn.execute(sql, params).fetchone()

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self.lock:
            return self.conn.execute(sql, params).fetchall()

    def create_run(self, title: str, play_path: str, cast_json: str, options: dict[str, Any]) -> int:
        cur = self._run(
            "INSERT INTO runs (created, title, play_path, cast_json, options) VALUES (?, ?, ?, ?, ?)",
            (time.time(), title, play_path, cast_json, json.dumps(options)),
        )
        return _inserted(cur)

    def run(self, run_id: int) -> RunInfo:
        row = self._one(
            "SELECT id, created, title, play_path, cast_json, options, head, name, archived FROM runs WHERE id = ?",
            (run_id,),
        )
        if row is None:
            raise StoreError(f"{self.path}: no run {run_id}; 'studio runs --all' lists the runs there")
        return RunInfo(row[0], row[1], row[2], row[3], row[4], json.loads(row[5]), row[6], name=row[7],
                       archived=bool(row[8]))

    def runs(self) -> list[RunInfo]:
        rows = self._all(
            "SELECT r.id, r.created, r.title, r.play_path, '', r.options, r.head, "
            "(SELECT COUNT(*) FROM events e WHERE e.run_id = r.id), r.name, r.archived FROM runs r ORDER BY r.id"
        )
        return [RunInfo(r[0], r[1], r[2], r[3], r[4], json.loads(r[5]), r[6], r[7], name=r[8], archived=bool(r[9]))
                for r in rows]

    def rename_run(self, run_id: int, name: str) -> None:
        """Run metadata, not part of the play: no event, so rewinds and takes never undo a name."""
        self.run(run_id)
        clean = "".join(ch for ch in name if ch.isprintable()).strip()  # never terminal control
        self._run("UPDATE runs SET name = ? WHERE id = ?", (clean, run_id))

    def archive_run(self, run_id: int, archived: bool = True) -> None:
        """Hide a run from the lists or bring it back; its events are kept either way."""
        self.run(run_id)
        self._run("UPDATE runs SET archived = ? WHERE id = ?", (int(archived), run_id))

    def trial_of(self, run_id: int) -> bool:
        """Whether a lab trial names this run: the lab's results are read from it, so it is never deleted."""
        with self.lock:
            known = self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'lab_trials'").fetchone()
            if not known:
                return False
            return self.conn.execute(
                "SELECT 1 FROM lab_trials WHERE json_valid(result) AND json_extract(result, '$.run') = ?",
                (run_id,)).fetchone() is not None

    def hold(self, run_id: int, holder: str) -> None:
        """Lease the run to `holder` (studio/store/leases.py) for LEASE seconds: it is open for playing
        there, so it is not deleted. Each window, tab or command playing a run holds a lease of its own, so
        the roles a window holds are known to be held for as long as that window lives."""
        self._run("INSERT OR REPLACE INTO run_players (run_id, holder, lease) VALUES (?, ?, ?)",
                  (run_id, holder, time.time() + LEASE))

    def renew(self, run_id: int, holder: str) -> None:
        """The heartbeat: the run stays `holder`'s for another LEASE seconds, if `holder` still plays it."""
        self._run("UPDATE run_players SET lease = ? WHERE run_id = ? AND holder = ?",
                  (time.time() + LEASE, run_id, holder))

    def let_go(self, run_id: int, holder: str) -> None:
        """`holder` has stopped playing the run: it may be deleted at once, unless another plays it too."""
        self._run("DELETE FROM run_players WHERE run_id = ? AND holder = ?", (run_id, holder))

    def players(self, run_id: int) -> set[str]:
        """Who plays the run now: the holders whose lease still holds."""
        now = time.time()
        rows = self._all("SELECT holder, lease FROM run_players WHERE run_id = ?", (run_id,))
        return {holder for holder, lease in rows if holds(holder, lease, now)}

    def _refuse_if_played(self, run_id: int) -> None:
        """Inside delete_run's transaction: a run some process plays under a lease that still holds stays."""
        now = time.time()
        for holder, lease in self.conn.execute("SELECT holder, lease FROM run_players WHERE run_id = ?", (run_id,)):
            if holds(holder, lease, now):
                host, pid, _ = str(holder).rsplit(":", 2)
                raise StoreError(f"run {run_id} is open for playing (process {pid} on {host}): stop it there "
                                 f"first, or wait; a run left open by a process that has died is free within "
                                 f"{LEASE:g} s")

    def delete_run(self, run_id: int) -> int:
        """Delete a whole run: its events, take marks, critiques and undo history, then the run. Only as one transaction,
        and only for a run the playwright chose and confirmed, that no one is playing; a lab trial's run is
        refused. The number of events deleted is returned."""
        self.run(run_id)
        if self.trial_of(run_id):
            raise StoreError(f"run {run_id} is a lab trial's run: the lab's results are read from it, so it "
                             "is kept; 'studio archive' hides it")
        conn = self.conn
        with self.lock, _Immediate(conn):
            self._refuse_if_played(run_id)
            conn.execute("UPDATE runs SET deleting = 1, head = NULL WHERE id = ?", (run_id,))
            conn.execute("DELETE FROM take_marks WHERE run_id = ?", (run_id,))
            conn.execute("DELETE FROM critiques WHERE run_id = ?", (run_id,))
            conn.execute("DELETE FROM run_players WHERE run_id = ?", (run_id,))
            conn.execute("DELETE FROM pen_history WHERE run_id = ?", (run_id,))  # studio/engine/history.py
            gone = conn.execute("DELETE FROM events WHERE run_id = ?", (run_id,)).rowcount
            conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
        return gone

    _EMPTY = (
        "NOT EXISTS (SELECT 1 FROM events e WHERE e.run_id = runs.id) "
        "AND NOT EXISTS (SELECT 1 FROM take_marks m WHERE m.run_id = runs.id) "
        "AND NOT EXISTS (SELECT 1 FROM critiques c WHERE c.run_id = runs.id)"
    )

    def remove_if_empty(self, run_id: int) -> bool:
        """Remove a run that never held anything (no event, take mark or critique): one statement, so a
        line written meanwhile by another process keeps the run. True if it was removed."""
        if self.trial_of(run_id):
            return False
        return self._run(f"DELETE FROM runs WHERE id = ? AND {self._EMPTY}", (run_id,)).rowcount == 1

    def remove_stale_empty_runs(self, keep: int | None = None, older_than: float = DAY) -> list[int]:
        """Runs left empty more than a day ago (a window closed by a crash before its first line): nothing
        can still be about to write their first line, so they only clutter the lists."""
        rows = self._all(f"SELECT id FROM runs WHERE created < ? AND {self._EMPTY}", (time.time() - older_than,))
        return [run for (run,) in rows if run != keep and self.remove_if_empty(run)]

    def changed_elsewhere(self) -> bool:
        """Whether another connection (another window, tab or process) has committed since the last ask
        (or since this store was opened).

        SQLite's data_version moves only for other connections' commits, and asking costs no read of any
        table, so an open run can ask twice a second and reread itself only when something did change."""
        with self.lock:
            version = self.conn.execute("PRAGMA data_version").fetchone()[0]
        seen, self._data_version = self._data_version, version
        return version != seen

    def head(self, run_id: int) -> int | None:
        row = self._one("SELECT head FROM runs WHERE id = ?", (run_id,))
        if row is None:
            raise StoreError(f"{self.path}: no run {run_id}")
        return row[0]

    def set_head(self, run_id: int, event_id: int | None) -> None:
        """Rewind or switch takes: only the pointer moves; every event stays."""
        if event_id is not None:
            event = self.event(event_id)
            if event.run_id != run_id:
                raise StoreError(f"event {event_id} belongs to run {event.run_id}, not run {run_id}")
        self._run("UPDATE runs SET head = ? WHERE id = ?", (event_id, run_id))

    # events ---------------------------------------------------------------

    def append(
        self,
        run_id: int,
        parent: int | None,
        kind: str,
        text: str,
        *,
        role: str | None = None,
        character: str | None = None,
        scene: int | None = None,
        turn: int | None = None,
        origin: str = "model",
        data: dict[str, Any] | None = None,
        model: str | None = None,
        settings: dict[str, Any] | None = None,
        usage: dict[str, Any] | None = None,
        branch: bool = False,
    ) -> Event:
        """Commit one event after `parent` and move the head to it.

        Unless `branch` is set, the head must still be `parent`: appending to a take someone else has
        moved on raises HeadMoved rather than forking it silently.
        """
        created = time.time()
        data = data or {}
        settings = settings or {}
        usage = usage or {}
        row = (run_id, parent, kind, role, character, text, scene, turn, origin, _AS_WRITTEN.encode(data),
               model, json.dumps(settings), json.dumps(usage), created)
        with self.lock, _Immediate(self.conn):
            try:
                event_id = _inserted(self.conn.execute(_INSERT_EVENT, row))
            except sqlite3.IntegrityError:
                if self.conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
                    raise self.gone(run_id) from None
                raise
            self._move_head(run_id, parent, event_id, branch)
        return Event(
            id=event_id,
            run_id=run_id,
            parent=parent,
            kind=kind,
            text=text,
            role=role,
            character=character,
            scene=scene,
            turn=turn,
            origin=origin,
            data=data,
            model=model,
            settings=settings,
            usage=usage,
            created=created,
        )

    def append_chain(self, run_id: int, parent: int | None, rows: Sequence[dict[str, Any]],
                     remap: Any = None) -> list[Event]:
        """Commit several events as one new branch after `parent`, each the next one's parent, and move the
        head to the last: one transaction, so a playwright's edit with a thousand lines kept after it is
        all there or not there at all. Each row holds `append`'s fields; a row's `copy_of` (an event id) is
        noted, and `remap(data, copies)` (copies: old id -> new id so far) may point its data at the copies."""
        created = time.time()
        out: list[Event] = []
        copies: dict[int, int] = {}
        tip = parent
        with self.lock, _Immediate(self.conn):
            for row in rows:
                data = dict(row.get("data") or {})
                if remap is not None and copies:
                    data = remap(data, copies)
                settings, usage = row.get("settings") or {}, row.get("usage") or {}
                values = (run_id, tip, row["kind"], row.get("role"), row.get("character"), row["text"],
                          row.get("scene"), row.get("turn"), row.get("origin", "model"), _AS_WRITTEN.encode(data),
                          row.get("model"), json.dumps(settings), json.dumps(usage), created)
                try:
                    event_id = _inserted(self.conn.execute(_INSERT_EVENT, values))
                except sqlite3.IntegrityError:
                    if self.conn.execute("SELECT 1 FROM runs WHERE id = ?", (run_id,)).fetchone() is None:
                        raise self.gone(run_id) from None
                    raise
                if row.get("copy_of") is not None:
                    copies[int(row["copy_of"])] = event_id
                out.append(Event(event_id, run_id, tip, row["kind"], row["text"], row.get("role"),
                                 row.get("character"), row.get("scene"), row.get("turn"), row.get("origin", "model"),
                                 data, row.get("model"), settings, usage, created))
                tip = event_id
            if out:
                self._move_head(run_id, parent, out[-1].id, True)
            elif self.conn.execute("UPDATE runs SET head = ? WHERE id = ?", (parent, run_id)).rowcount != 1:
                raise self.gone(run_id)
        return out

    def _move_head(self, run_id: int, parent: int | None, event_id: int, branch: bool) -> None:
        """Inside an append's transaction: the head moves only if it is still where this take left it (a new
        branch moves it from anywhere)."""
        guard = "" if branch else " AND head IS ?"
        params = (event_id, run_id) if branch else (event_id, run_id, parent)
        if self.conn.execute(f"UPDATE runs SET head = ? WHERE id = ?{guard}", params).rowcount != 1:
            row = self.conn.execute("SELECT head FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise self.gone(run_id)
            raise HeadMoved(
                f"run {run_id} moved on (now at event {row[0]}, expected {parent}); reopen it to continue"
            )

    def gone(self, run_id: int) -> RunGone:
        """What a window playing a run that was deleted under it is told, by whichever of its reads finds out."""
        return RunGone(f"run {run_id} was deleted while it was being played; nothing more of it is saved")

    def event(self, event_id: int) -> Event:
        row = self._one(f"SELECT {_EVENT_COLUMNS} FROM events WHERE id = ?", (event_id,))
        if row is None:
            raise StoreError(f"{self.path}: no event {event_id}")
        return _row_event(row)

    def events(self, run_id: int) -> list[Event]:
        """Every event of the run, every take, in the order they were written."""
        rows = self._all(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE run_id = ? ORDER BY id", (run_id,)
        )
        return [_row_event(r) for r in rows]

    def controls(self, run_id: int) -> list[Event]:
        """The playwright's control events of every take, oldest first: the controls in force now."""
        rows = self._all(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE run_id = ? AND kind = 'control' ORDER BY id", (run_id,)
        )
        return [_row_event(r) for r in rows]

    def take(self, run_id: int, head: int | None = None) -> list[Event]:
        """The take ending at `head` (the run's head by default), first event first."""
        if head is None:
            head = self.head(run_id)
        if head is None:
            return []
        rows = self._all(
            f"""WITH RECURSIVE take(id) AS (
                    SELECT ? UNION ALL
                    SELECT e.parent FROM events e JOIN take t ON e.id = t.id WHERE e.parent IS NOT NULL
                )
                SELECT {_EVENT_COLUMNS} FROM events WHERE id IN (SELECT id FROM take) ORDER BY id""",
            (head,),
        )
        return [_row_event(r) for r in rows]

    def count_children(self, run_id: int, event_id: int | None) -> int:
        """How many events follow `event_id` in the run (None: how many begin it), counted, not read."""
        return int(self._one("SELECT COUNT(*) FROM events WHERE run_id = ? AND parent IS ?", (run_id, event_id))[0])

    def children(self, event_id: int) -> list[Event]:
        rows = self._all(
            f"SELECT {_EVENT_COLUMNS} FROM events WHERE parent = ? ORDER BY id", (event_id,)
        )
        return [_row_event(r) for r in rows]

    def tips(self, run_id: int) -> list[int]:
        """The last event of every take: events nothing follows."""
        rows = self._all(
            "SELECT e.id FROM events e WHERE e.run_id = ? AND NOT EXISTS "
            "(SELECT 1 FROM events c WHERE c.parent = e.id) ORDER BY e.id",
            (run_id,),
        )
        return [r[0] for r in rows]

    # critiques -------------------------------------------------------------

    def add_critique(self, run_id: int, head: int | None, model: str | None, body: dict[str, Any]) -> int:
        cur = self._run(
            "INSERT INTO critiques (run_id, head, created, model, body) VALUES (?, ?, ?, ?, ?)",
            (run_id, head, time.time(), model, json.dumps(body, ensure_ascii=False)),
        )
        return _inserted(cur)

    def critiques(self, run_id: int) -> list[dict[str, Any]]:
        rows = self._all(
            "SELECT id, head, created, model, body FROM critiques WHERE run_id = ? ORDER BY id", (run_id,)
        )
        return [
            {"id": r[0], "head": r[1], "created": r[2], "model": r[3], **json.loads(r[4])} for r in rows
        ]


def iter_json(events: Iterable[Event]) -> Iterable[str]:
    for event in events:
        yield event.to_json()
