"""The run store: every event of every run, append-only, in one SQLite file in WAL mode.

Each append is its own transaction, committed before the caller shows the event anywhere, so a run
killed at any instant (kill -9 included) reopens at its last committed event. A run's head names the
last event of its current take; moving the head back is a rewind; appending after an earlier event
starts a new branch; no event is ever updated, and none is deleted on its own: only a whole run goes,
when the playwright asked for it and confirmed it (or when it never held a line). Appends check the
head they expect, so two processes driving one run cannot interleave a take: the second is told the
run moved on.

A database is someone's file before it is the studio's: one the playwright names with `--db` is read
first through a read-only connection, and written only when it is a studio store (its application id, or
the runs and events tables an older studio made) or new. Anything else is refused without a byte
changed. A store that cannot be written (a read-only file or disk) is opened for reading, and a damaged
one (SQLite's quick check fails) is opened for reading what still can be; either refuses writes with what
happened and what to do, as a full disk does. A new store and its folder are the playwright's alone
(0600 and 0700): the file holds every line of every play.
"""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import threading
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import Any

from studio.store.events import Event
from studio.store.leases import LEASE, holds
from studio.store.schema import APPLICATION_ID, SCHEMA_VERSION, add_columns, bring_up_to_date, statements

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


class StoreTrouble(StoreError):
    """The store's file cannot do what was asked (a full disk, a read-only file, a damaged database): what
    happened, and `fix`, what the playwright can do about it. Nothing already saved is lost."""

    def __init__(self, message: str, fix: str, kind: str = ""):
        super().__init__(message)
        self.fix = fix
        self.kind = kind  # "full", "disk", "read-only", "damaged", "not sqlite", or "" (refused on open)


# SQLite's primary result codes (an extended code's low byte), as sqlite3 reports them since Python 3.11
_READONLY, _IOERR, _CORRUPT, _FULL, _CANTOPEN, _NOTADB = 8, 10, 11, 13, 14, 26
_RECOVER = "keep a copy of it, then `sqlite3 {path} .recover | sqlite3 recovered.db` and name recovered.db with --db"


def trouble(exc: BaseException, path: str | os.PathLike[str]) -> StoreTrouble | None:
    """What a failure of SQLite's file means to the playwright, or None when it is not one (a busy store,
    a broken rule, a bug): those keep their own handling."""
    if not isinstance(exc, sqlite3.DatabaseError):
        return None
    code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
    text = str(exc)
    if code == _FULL or "disk is full" in text:
        return StoreTrouble(f"{path}: the disk is full; nothing saved was lost, and what was being written "
                            "was not saved", "free some space and give the command again ('studio resume RUN' goes on from a run's last saved "
                            "line)", "full")
    if code == _IOERR or "disk I/O error" in text:
        return StoreTrouble(f"{path}: the disk refused a write (disk I/O error: it is full, over a size limit, "
                            "or failing); nothing saved was lost", "free space or check the disk, and give the "
                            "command again ('studio resume RUN' goes on from a run's last saved line)", "disk")
    if code == _READONLY or "readonly database" in text:
        return StoreTrouble(f"{path}: the store is read-only here (the file, or the disk it is on): runs, show "
                            "and export read it, nothing can be written", "make it writable (chmod u+w), or copy "
                            "it somewhere writable and name the copy with --db", "read-only")
    if code == _NOTADB:
        return StoreTrouble(f"{path}: not an SQLite database ({text}), so not a studio database; nothing in it was "
                            "changed", "name another file with --db; if it was a store, " + _RECOVER.format(path=path),
                            "not sqlite")
    if code == _CORRUPT or "malformed" in text:
        return StoreTrouble(f"{path}: the store is damaged ({text}); nothing more is written to it",
                            _RECOVER.format(path=path), "damaged")
    return None


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


def _older_studio(conn: sqlite3.Connection, tables: Sequence[str]) -> bool:
    """Whether a database with no application id is a store an older studio made (before it wrote one): its
    runs and events tables, with the columns only the studio gives them."""
    if "runs" not in tables or "events" not in tables:
        return False
    runs = {row[1] for row in conn.execute("PRAGMA table_info(runs)")}
    events = {row[1] for row in conn.execute("PRAGMA table_info(events)")}
    return {"cast_json", "play_path", "head"} <= runs and {"run_id", "parent", "kind", "origin", "settings"} <= events


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

    __slots__ = ("conn", "store")

    def __init__(self, owner: Store | sqlite3.Connection):
        """`owner`: the store (whose failures of its file are then said as what they are), or a bare connection."""
        self.store = owner if isinstance(owner, Store) else None
        self.conn = owner.conn if isinstance(owner, Store) else owner

    def __enter__(self) -> None:
        try:
            self.conn.execute("BEGIN IMMEDIATE")
        except sqlite3.DatabaseError as exc:
            said = self.store.trouble(exc) if self.store is not None else None
            if said is None:
                raise
            raise said from None

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if kind is None:
            try:
                self.conn.execute("COMMIT")
                return
            except BaseException as exc:
                self._roll_back()
                error = exc
        else:
            self._roll_back()
        said = self.store.trouble(error) if error is not None and self.store is not None else None
        if said is not None:
            raise said from None
        if kind is None and error is not None:
            raise error

    def _roll_back(self) -> None:
        """Undo what the transaction wrote. SQLite has already rolled it back itself after a full disk or an
        I/O error, and a ROLLBACK then fails ("no transaction is active") and would hide the reason."""
        if self.conn.in_transaction:
            try:
                self.conn.execute("ROLLBACK")
            except sqlite3.Error:
                pass


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
        self.writable = True  # False: a read-only file or disk, or a damaged store; every write is refused
        self.damage: str | None = None  # what SQLite's quick check found wrong, when it found anything
        try:
            if str(self.path) == ":memory:":
                self.conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
                self._set_up()
            else:
                self._refuse_if_not_a_file()
                if self.path.is_file() and self.path.stat().st_size > 0:
                    self._inspect()
                    self.conn = self._open_existing()
                else:
                    self._create()
                    self.conn = self._connect()
                    self._set_up()
            # what other connections have committed is counted from here (changed_elsewhere)
            self._data_version: int = self.conn.execute("PRAGMA data_version").fetchone()[0]
        except sqlite3.DatabaseError as exc:
            raise self.trouble(exc) or StoreTrouble(
                f"{self.path}: not a studio database ({exc})", "name another file with --db") from None
        except OSError as exc:
            raise StoreTrouble(f"{self.path}: cannot be opened ({exc.strerror})",
                               "check the path and its folder's permissions, or name another file with --db") from None

    def _refuse_if_not_a_file(self) -> None:
        """A folder, a pipe or a device named as the store is refused by what it is: SQLite would fail on
        it with words about the disk, or, on /dev/null, seem to save every line and keep none."""
        try:
            mode = os.stat(self.path).st_mode
        except FileNotFoundError:
            return
        if not stat.S_ISREG(mode):
            kind = ("a folder" if stat.S_ISDIR(mode) else "a pipe" if stat.S_ISFIFO(mode) else "a socket"
                    if stat.S_ISSOCK(mode) else "a device")
            raise StoreTrouble(f"{self.path}: is {kind}, not a file; a store is a file", "name a file with --db, "
                               "e.g. --db .studio/studio.db (a new one is made there)", "not a file")

    def _connect(self, read_only: bool = False, immutable: bool = False) -> sqlite3.Connection:
        if not read_only:
            return sqlite3.connect(str(self.path), timeout=30.0, isolation_level=None, check_same_thread=False)
        address = f"{self.path.absolute().as_uri()}?mode=ro{'&immutable=1' if immutable else ''}"
        conn = sqlite3.connect(address, uri=True, timeout=30.0, isolation_level=None, check_same_thread=False)
        try:
            conn.execute("SELECT 1 FROM sqlite_master LIMIT 1").fetchall()
        except sqlite3.OperationalError as exc:
            # a store in write-ahead mode on a read-only disk, whose shared-memory file cannot be made: no
            # one can be writing it there, so it is read as it stands
            code = (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF
            if immutable or code not in (_READONLY, _CANTOPEN):
                raise
            conn.close()
            return self._connect(read_only=True, immutable=True)
        return conn

    def _create(self) -> None:
        """A new store's folder and empty file, the playwright's alone: the folder 0700 when the studio makes
        it, the file 0600 (SQLite gives its journal and write-ahead files the file's mode)."""
        if not self.path.parent.exists():
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            os.close(os.open(self.path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600))
        except FileExistsError:  # another process made it a moment ago, or an empty file was named
            pass

    def _inspect(self) -> None:
        """Read an existing file without writing to it: refuse one that is not a studio store or is a newer
        studio's, and note damage (SQLite's quick check) so that nothing is written into it."""
        try:
            conn = self._connect(read_only=True)
        except sqlite3.DatabaseError as exc:
            if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF == _CORRUPT:
                self.damage = str(exc)
                return
            raise
        try:
            owner = conn.execute("PRAGMA application_id").fetchone()[0]
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            tables = sorted(name for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'"))
            studio = owner == APPLICATION_ID or (owner == 0 and _older_studio(conn, tables))
            if not studio and (tables or owner or version):
                shown = ", ".join(tables[:6]) + (", ..." if len(tables) > 6 else "") if tables else "none"
                raise StoreTrouble(f"{self.path}: another program's SQLite database (tables: {shown}; application "
                                   f"id {owner}), not a studio database; nothing in it was changed",
                                   "name another file with --db (a new file there becomes a store)")
            if version > SCHEMA_VERSION:
                raise StoreTrouble(f"{self.path}: written by a newer studio (schema {version}); nothing in it was "
                                   "changed", "upgrade the studio, or name another file with --db")
            found = conn.execute("PRAGMA quick_check(1)").fetchone()[0]
            if found != "ok":
                self.damage = str(found)
        except sqlite3.DatabaseError as exc:
            if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF != _CORRUPT:
                raise
            self.damage = str(exc)
        finally:
            conn.close()

    def _open_existing(self) -> sqlite3.Connection:
        """A studio store opened for writing, or for reading when it cannot be written (a read-only file or
        disk) or is damaged: reading commands still work, and every write says why it is refused."""
        if self.damage is None:
            self.conn = self._connect()
            try:
                self._set_up()
                return self.conn
            except sqlite3.OperationalError as exc:
                if (getattr(exc, "sqlite_errorcode", 0) or 0) & 0xFF not in (_READONLY, _CANTOPEN):
                    raise
            except StoreTrouble as exc:
                if exc.kind != "read-only":
                    raise
            self.conn.close()
        self.writable = False
        conn = self._connect(read_only=True)
        conn.execute("PRAGMA busy_timeout=30000")
        return conn

    def _set_up(self) -> None:
        """A store opened for writing: write-ahead logging, its pragmas, its tables brought up to date."""
        self._write_ahead()
        # NORMAL under WAL survives any process crash; only a power cut may lose the newest commits.
        self.conn.execute("PRAGMA synchronous=NORMAL")
        self.conn.execute("PRAGMA foreign_keys=ON")
        self.conn.execute("PRAGMA busy_timeout=30000")
        self._bring_up_to_date()

    def trouble(self, exc: BaseException) -> StoreTrouble | None:
        """What a failure of this store's file means (the module's `trouble`), a damaged store's being said
        as damage whatever it was."""
        said = trouble(exc, self.path)
        # In a damaged store anything read may be garbage (a row that is not UTF-8, JSON that is not JSON):
        # every failure there is the damage, however it showed.
        if self.damage is not None and isinstance(exc, Exception) and not isinstance(exc, StoreError):
            return StoreTrouble(f"{self.path}: the store is damaged ({self.damage}); nothing more is written to "
                                "it, and what can still be read is shown", _RECOVER.format(path=self.path), "damaged")
        if not self.writable and isinstance(exc, sqlite3.OperationalError) and "no such table" in str(exc):
            # a table this studio adds when it first writes a store, which a store it cannot write lacks
            return trouble(sqlite3.OperationalError("attempt to write a readonly database"), self.path)
        return said

    def close(self) -> None:
        self.conn.close()

    def keep_table(self, schema: str, table: str, columns: Sequence[tuple[str, str]] = ()) -> None:
        """Create a table another part of the studio keeps in this database (`schema`: CREATE ... IF NOT
        EXISTS statements) and add its newer `columns`, in one write transaction, as the store's own tables
        are: processes opening one database at once (the lab's runners) each find the work done or do it
        alone, never both. A store that cannot be written is read as it stands."""
        if not self.writable:
            return
        with self.lock, _Immediate(self):
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
        with self.lock, _Immediate(self):
            bring_up_to_date(self.conn)

    # runs -----------------------------------------------------------------

    def _run(self, sql: str, params: tuple[Any, ...] = ()) -> sqlite3.Cursor:
        with self.lock:
            try:
                return self.conn.execute(sql, params)
            except sqlite3.DatabaseError as exc:
                raise self.trouble(exc) or exc from None

    def _one(self, sql: str, params: tuple[Any, ...] = ()) -> Any:
        with self.lock:
            try:
                return self.conn.execute(sql, params).fetchone()
            except sqlite3.DatabaseError as exc:
                raise self.trouble(exc) or exc from None

    def _all(self, sql: str, params: tuple[Any, ...] = ()) -> list[Any]:
        with self.lock:
            try:
                return self.conn.execute(sql, params).fetchall()
            except sqlite3.DatabaseError as exc:
                raise self.trouble(exc) or exc from None

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
        with self.lock, _Immediate(self):
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
        if not self.writable:
            return []
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
        with self.lock, _Immediate(self):
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
        with self.lock, _Immediate(self):
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
