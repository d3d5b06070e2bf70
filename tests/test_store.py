"""The run store under the worst a playwright's machine can do: kill -9, two processes, one file."""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import time

import pytest

from conftest import PLAYS, ROOT, STUDIO, make_cast
from studio.engine import Engine
from studio.store import HeadMoved, Store, StoreError


def _env(db, delay="0"):
    return {**os.environ, "STUDIO_DB": str(db), "STUDIO_SCRIPTED_DELAY": delay, "LITELLM_LOCAL_MODEL_COST_MAP": "True"}


def _count(db) -> int:
    try:
        conn = sqlite3.connect(db, timeout=5)
        try:
            return conn.execute("SELECT COUNT(*) FROM events").fetchone()[0]
        finally:
            conn.close()
    except sqlite3.OperationalError:
        return 0


def test_events_are_immutable(store):
    run = store.create_run("t", "p", "{}", {})
    event = store.append(run, None, "stage", "hello")
    with pytest.raises(sqlite3.DatabaseError, match="immutable"):
        store.conn.execute("UPDATE events SET text = 'changed' WHERE id = ?", (event.id,))
    with pytest.raises(sqlite3.DatabaseError, match="never deleted one by one"):
        store.conn.execute("DELETE FROM events WHERE id = ?", (event.id,))
    assert store.event(event.id).text == "hello"


def test_a_file_that_is_not_a_database_is_refused_clearly(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_text("this is a shopping list, not a database\n" * 200)
    with pytest.raises(StoreError, match="not a studio database"):
        Store(junk)
    assert junk.read_text().startswith("this is a shopping list")


def test_kill_9_mid_run_then_resume(tmp_path):
    db = tmp_path / "crash.db"
    proc = subprocess.Popen(
        [*STUDIO, "run", str(PLAYS / "interview.toml"), "--model", "scripted", "--turns", "12"],
        env=_env(db, delay="0.003"),
        cwd=ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.time() + 60
    while _count(db) < 14 and time.time() < deadline and proc.poll() is None:
        time.sleep(0.02)
    assert proc.poll() is None, "the run ended before it could be killed: " + proc.stderr.read().decode()
    proc.send_signal(signal.SIGKILL)
    proc.wait()

    store = Store(db)
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    before = store.take(1)
    assert len(before) >= 14
    for parent, child in zip(before, before[1:]):
        assert child.parent == parent.id
    engine = Engine(store, 1)
    assert not engine.finished
    import asyncio

    asyncio.run(engine.play_to_end())
    after = store.take(1)
    assert [(e.id, e.text) for e in after[: len(before)]] == [(e.id, e.text) for e in before]
    assert engine.finished and after[-1].kind == "epilogue"
    assert len([e for e in after if e.kind == "stage"]) == 24  # 12 turns, two lines each


def test_two_processes_share_one_database(tmp_path):
    db = tmp_path / "shared.db"
    Store(db).close()
    args = [*STUDIO, "run", str(PLAYS / "interview.toml"), "--model", "scripted", "--turns", "6"]
    procs = [
        subprocess.Popen(args, env=_env(db, "0.0005"), cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(2)
    ]
    for p in procs:
        assert p.wait(timeout=120) == 0, p.stderr.read().decode()
    store = Store(db)
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
    runs = store.runs()
    assert len(runs) == 2
    for info in runs:
        take = store.take(info.id)
        assert take[-1].kind == "epilogue"
        assert all(e.run_id == info.id for e in take)


async def test_two_windows_on_one_run_cannot_fork_it_silently(tmp_path):
    db = tmp_path / "s.db"
    first = Engine.create(Store(db), make_cast(turns=3, strategies=[]), {})
    second = Engine(Store(db), first.run_id)
    await first.step()
    with pytest.raises(HeadMoved):
        await second.step()
    second.reload()
    event = await second.step()
    assert event.parent == first.head


def _old_database(path):
    """A database as studio wrote it before whole runs could be deleted: a guard that refuses every delete."""
    conn = sqlite3.connect(path)
    conn.executescript(
        """
        CREATE TABLE runs (id INTEGER PRIMARY KEY AUTOINCREMENT, created REAL NOT NULL, title TEXT NOT NULL,
            play_path TEXT NOT NULL, cast_json TEXT NOT NULL, options TEXT NOT NULL DEFAULT '{}',
            head INTEGER REFERENCES events(id));
        CREATE TABLE events (id INTEGER PRIMARY KEY AUTOINCREMENT, run_id INTEGER NOT NULL REFERENCES runs(id),
            parent INTEGER REFERENCES events(id), kind TEXT NOT NULL, role TEXT, character TEXT, text TEXT NOT NULL,
            scene INTEGER, turn INTEGER, origin TEXT NOT NULL DEFAULT 'model', data TEXT NOT NULL DEFAULT '{}',
            model TEXT, settings TEXT NOT NULL DEFAULT '{}', usage TEXT NOT NULL DEFAULT '{}', created REAL NOT NULL);
        CREATE TABLE take_marks (event_id INTEGER PRIMARY KEY REFERENCES events(id),
            run_id INTEGER NOT NULL REFERENCES runs(id), name TEXT, starred INTEGER NOT NULL DEFAULT 0,
            updated REAL NOT NULL);
        CREATE TRIGGER events_are_kept BEFORE DELETE ON events
        BEGIN SELECT RAISE(ABORT, 'events are never deleted'); END;
        INSERT INTO runs (created, title, play_path, cast_json) VALUES (1, 'old', 'p', '{}');
        INSERT INTO events (run_id, kind, text, created) VALUES (1, 'stage', 'kept', 1);
        INSERT INTO take_marks (event_id, run_id, name, updated) VALUES (1, 1, 'first', 1);
        UPDATE runs SET head = 1;
        """
    )
    conn.commit()
    conn.close()


def test_a_whole_run_is_deleted_with_everything_it_holds_and_nothing_else(store):
    from studio.store.takes import name_take

    doomed = store.create_run("doomed", "p", "{}", {})
    first = store.append(doomed, None, "stage", "one")
    store.append(doomed, first.id, "stage", "two")
    store.append(doomed, first.id, "stage", "two again", branch=True)
    name_take(store, first.id, "opening")
    store.add_critique(doomed, first.id, "m", {"note": "fine"})
    kept = store.create_run("kept", "p", "{}", {})
    store.append(kept, None, "stage", "stays")

    assert store.delete_run(doomed) == 3
    assert [r.id for r in store.runs()] == [kept]
    with pytest.raises(StoreError, match=f"no run {doomed}"):
        store.run(doomed)
    for table in ("events", "take_marks", "critiques"):
        assert store.conn.execute(f"SELECT COUNT(*) FROM {table} WHERE run_id = ?", (doomed,)).fetchone()[0] == 0
    assert [e.text for e in store.take(kept)] == ["stays"]
    # one event of a run still cannot go on its own
    with pytest.raises(sqlite3.DatabaseError, match="never deleted one by one"):
        store.conn.execute("DELETE FROM events WHERE run_id = ?", (kept,))


def test_an_old_database_learns_whole_run_deletion_and_keeps_its_events(tmp_path):
    path = tmp_path / "old.db"
    _old_database(path)
    store = Store(path)
    with pytest.raises(sqlite3.DatabaseError, match="never deleted one by one"):
        store.conn.execute("DELETE FROM events WHERE id = 1")
    assert store.take(1)[0].text == "kept"
    assert store.delete_run(1) == 1
    assert store.runs() == []
    store.close()
    Store(path).close()  # opening it again changes nothing


def test_a_lab_trials_run_is_never_deleted(store):
    run = store.create_run("trial", "p", "{}", {})
    store.append(run, None, "stage", "a line")
    store.conn.execute("CREATE TABLE lab_trials (experiment TEXT, key TEXT, status TEXT, result TEXT, error TEXT, "
                       "updated REAL)")
    store.conn.execute("INSERT INTO lab_trials VALUES ('pd', 'k', 'done', ?, NULL, 1)", (f'{{"run": {run}}}',))
    with pytest.raises(StoreError, match="lab trial"):
        store.delete_run(run)
    assert store.remove_if_empty(run) is False
    assert len(store.events(run)) == 1


def test_only_a_run_that_never_held_anything_is_removed_as_empty(store):
    empty = store.create_run("empty", "p", "{}", {})
    stepped = store.create_run("stepped", "p", "{}", {})
    store.append(stepped, None, "stage", "a line")
    criticised = store.create_run("criticised", "p", "{}", {})
    store.add_critique(criticised, None, "m", {"note": "nothing yet"})
    assert [store.remove_if_empty(r) for r in (empty, stepped, criticised)] == [True, False, False]
    assert [r.title for r in store.runs()] == ["stepped", "criticised"]


def test_empty_runs_older_than_a_day_are_cleared_away_and_newer_ones_wait(store):
    old = store.create_run("crashed", "p", "{}", {})
    store.conn.execute("UPDATE runs SET created = created - 2 * 86400 WHERE id = ?", (old,))
    opened = store.create_run("opened now", "p", "{}", {})
    kept_old = store.create_run("asked for", "p", "{}", {})
    store.conn.execute("UPDATE runs SET created = created - 2 * 86400 WHERE id = ?", (kept_old,))
    assert store.remove_stale_empty_runs(keep=kept_old) == [old]
    assert {r.id for r in store.runs()} == {opened, kept_old}


def test_processes_opening_a_new_database_at_once_all_open_it(tmp_path):
    """The lab's runners open one new database together: each used to add the newer columns itself,
    and all but the first failed with 'duplicate column' or 'database is locked'."""
    import sys

    db = tmp_path / "new.db"
    go = tmp_path / "go"
    code = (
        "import os, sys, time\n"
        "while not os.path.exists(sys.argv[2]): time.sleep(0.001)\n"
        "from studio.store import Store\n"
        "Store(sys.argv[1]).close()\n"
    )
    for _ in range(3):
        if db.exists():
            db.unlink()
        go.unlink(missing_ok=True)
        runners = [subprocess.Popen([sys.executable, "-c", code, str(db), str(go)], stderr=subprocess.PIPE, text=True)
                   for _ in range(6)]
        # every runner has imported the store before the word is given, so they race for the file itself
        time.sleep(1.5)
        go.touch()
        for runner in runners:
            _, err = runner.communicate(timeout=120)
            assert runner.returncode == 0, err
