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
    with pytest.raises(sqlite3.DatabaseError, match="never deleted"):
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
