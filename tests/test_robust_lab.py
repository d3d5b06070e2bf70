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


def _edited(folder, text):
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "pd_small.toml"
    path.write_text(text)
    return path


def test_an_edited_experiment_is_a_new_one_unless_continued(tmp_path):
    from test_cli import studio

    db = tmp_path / "s.db"
    original = EXPERIMENT.read_text()
    first = studio("lab", "run", _edited(tmp_path / "a", original), "--json", db=db)
    assert first.returncode == 0, first.stderr
    assert json.loads(first.stdout)["played_now"] == 8
    hotter = original.replace("[pd]\n", "[pd]\ntemperature = 0.9\n")
    again = studio("lab", "run", _edited(tmp_path / "a", hotter), "--json", db=db)
    assert again.returncode == 0, again.stderr
    report = json.loads(again.stdout)
    assert report["played_now"] == 8  # the old results are not reported under the new temperature
    assert report["experiment"] != json.loads(first.stdout)["experiment"]  # the report names which one it is
    assert "has changed" in again.stderr and "--continue" in again.stderr
    # the same settings in a file of the same name elsewhere are the same experiment; other settings are not
    same = studio("lab", "run", _edited(tmp_path / "b", original), "--json", db=db)
    assert json.loads(same.stdout)["played_now"] == 0
    longer = original.replace("[pd]\n", "[pd]\nmax_tokens = 200\n")
    other = studio("lab", "run", _edited(tmp_path / "c", longer), "--json", "--continue", db=db)
    assert other.returncode == 0, other.stderr
    assert json.loads(other.stdout)["played_now"] == 0  # --continue: goes on with the latest earlier one
    assert "--continue" in other.stderr
    # how many repetitions and how many at once change no trial: the same experiment, widened
    more = studio("lab", "run", _edited(tmp_path / "b", original.replace("reps = 2", "reps = 3")
                                        .replace("concurrency = 8", "concurrency = 2")), "--json", db=db)
    assert json.loads(more.stdout)["played_now"] == 4 and json.loads(more.stdout)["done"] == 12


def test_an_edited_play_makes_a_game_experiment_new(tmp_path):
    """A file the experiment names counts by its contents, not its path."""
    from studio.lab.experiment import load_experiment

    play = tmp_path / "island.toml"
    play.write_text((ROOT / "plays" / "island.toml").read_text())
    path = tmp_path / "game.toml"
    path.write_text(f'kind = "game"\nmodel = "scripted"\n[game]\nexperiment = "architecture"\nplay = "{play}"\n')
    before = load_experiment(path).name
    play.write_text(play.read_text() + "\n# a note\n")
    assert load_experiment(path).name != before


def test_a_runner_that_lost_its_lease_cannot_overwrite_the_runner_that_took_the_trial_over(store):
    from studio.lab.trials import Trials

    trials = Trials(store)
    assert trials.claim("exp", "t1", "here:1:a") is not None
    with store.lock:  # the first runner's heartbeat starved past its lease: the lease has run out
        store.conn.execute("UPDATE lab_trials SET lease = ? WHERE key = 't1'", (time.time() - 1,))
    assert trials.claim("exp", "t1", "here:2:b") is not None  # taken over
    assert trials.record("exp", "t1", "done", {"cooperation": 1.0}, owner="here:2:b")
    assert not trials.record("exp", "t1", "failed", {"run": 9}, error="late", owner="here:1:a")
    assert trials.done("exp")["t1"] == {"cooperation": 1.0}


def _open_trials(db: str, start: float) -> str:
    import time as clock

    from studio.lab.trials import Trials
    from studio.store import Store

    clock.sleep(max(0.0, start - clock.time()))  # every process opens the database at the same moment
    try:
        Trials(Store(db))
        return "ok"
    except Exception as exc:  # noqa: BLE001 - the failure is what the test reports
        return f"{type(exc).__name__}: {exc}"


def test_runners_opening_an_older_lab_table_at_once_all_bring_it_up_to_date(tmp_path):
    """A lab table from before trials were leased lacks two columns: runners starting together each saw them
    missing and added them, and all but the first stopped on "duplicate column name"."""
    import multiprocessing
    import time as clock

    from studio.store import Store

    context = multiprocessing.get_context("spawn")
    with context.Pool(8) as pool:
        pool.map(clock.sleep, [0.0] * 8)  # the workers started, so all open the database in the same instant
        for attempt in range(8):  # the window is a few milliseconds wide: several rounds find it
            db = tmp_path / f"studio{attempt}.db"
            Store(db).close()
            with sqlite3.connect(db) as conn:
                conn.execute("CREATE TABLE lab_trials (experiment TEXT NOT NULL, key TEXT NOT NULL, "
                             "status TEXT NOT NULL, result TEXT NOT NULL DEFAULT '{}', error TEXT, "
                             "updated REAL NOT NULL, PRIMARY KEY (experiment, key))")
            said = pool.starmap(_open_trials, [(str(db), clock.time() + 0.5)] * 8)
            assert said == ["ok"] * 8, said
            with sqlite3.connect(db) as conn:
                columns = [row[1] for row in conn.execute("PRAGMA table_info(lab_trials)")]
            assert columns.count("owner") == 1 and columns.count("lease") == 1, columns
