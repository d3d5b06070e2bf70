"""The lab under several runners at once and under edits: every trial played once, one report, and an
edited experiment never reported under the old one's results."""

from __future__ import annotations

import json
import os
import subprocess
import sqlite3
import time

import pytest

from conftest import ROOT, STUDIO

EXPERIMENT = ROOT / "experiments" / "pd_small.toml"


def _start(db, *extra, env=None):
    environment = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "STUDIO_DB": str(db),
                   "STUDIO_SCRIPTED_DELAY": "0.005", **(env or {})}
    return subprocess.Popen([*STUDIO, "lab", "run", str(EXPERIMENT), "--reps", "5", "--json", *extra],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment, cwd=ROOT)


def _report(out: str) -> dict:
    """The report as a reader compares it: what this process itself played and spent is its own."""
    data = json.loads(out)
    for own in ("played_now", "tokens"):
        data.pop(own)
    return data


@pytest.fixture(scope="module")
def alone(tmp_path_factory):
    db = tmp_path_factory.mktemp("alone") / "s.db"
    process = _start(db)
    out, err = process.communicate(timeout=300)
    assert process.returncode == 0, err
    return _report(out)


@pytest.mark.parametrize("runners", [2, 3, 4])
def test_runners_at_once_play_every_trial_once_and_agree_on_the_report(tmp_path, alone, runners):
    db = tmp_path / "s.db"
    processes = [_start(db) for _ in range(runners)]
    results = [p.communicate(timeout=300) for p in processes]
    for process, (out, err) in zip(processes, results, strict=True):
        assert process.returncode == 0, err
        assert "Traceback" not in err
        assert _report(out) == alone  # every runner ends with the whole experiment's report
    played = [json.loads(out)["played_now"] for out, _ in results]
    assert sum(played) == 20  # 2 groups x 2 partners x 5 reps, each played by exactly one runner
    with sqlite3.connect(db) as conn:
        runs = conn.execute("SELECT COUNT(*) FROM runs").fetchone()[0]
        trial_runs = conn.execute("SELECT COUNT(DISTINCT json_extract(result, '$.run')) FROM lab_trials "
                                  "WHERE status = 'done'").fetchone()[0]
    assert runs == trial_runs == 20  # no run belongs to no trial


def test_a_killed_runners_trials_are_taken_over_and_continued(tmp_path, alone):
    """kill -9 mid-way: the next runner on this machine sees the process is gone, takes its trials over
    without waiting for the lease, and goes on in the runs they began."""
    db = tmp_path / "s.db"
    slow = _start(db, env={"STUDIO_SCRIPTED_DELAY": "0.05"})
    try:
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and slow.poll() is None and _count(db, "done") < 3:
            time.sleep(0.05)
    finally:
        slow.kill()
        slow.communicate()
    cut = {key: run for key, run in _runs(db, "running").items() if run}
    assert cut and _count(db, "done") < 20  # it was killed holding leases on trials it had begun
    after = _start(db)
    out, err = after.communicate(timeout=300)
    assert after.returncode == 0, err
    assert _report(out) == alone
    finished = _runs(db, "done")
    assert len(finished) == 20
    assert {key: finished[key] for key in cut} == cut  # the cut trials went on in the runs they began


def _count(db, status: str) -> int:
    return len(_runs(db, status)) if db.exists() else 0


def _runs(db, status: str) -> dict[str, int | None]:
    with sqlite3.connect(db) as conn:
        try:
            rows = conn.execute("SELECT key, json_extract(result, '$.run') FROM lab_trials WHERE status = ?",
                                (status,)).fetchall()
        except sqlite3.OperationalError:  # not made yet
            return {}
    return dict(rows)
