"""The dilemma's trials in batch on the scripted model, as `studio lab pd` builds them: recorded, resumable,
failures kept apart, every trial a run of its own."""

import asyncio
import re
import socket
import subprocess
import sys
import time

from conftest import RecordingGateway
from studio.lab.experiment import built
from studio.lab.runner import run_experiment
from studio.lab.trials import Trials
from studio.llm import scripted


def _ended_pid() -> int:
    """The id of a process that has ended."""
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    return int(done.stdout)


def dilemma(groups, partners, reps, model="scripted", concurrency=4):
    return built("pd", {"name": f"pd:{model}", "model": model, "reps": reps, "concurrency": concurrency,
                        "pd": {"groups": groups, "partners": partners}})


def run(store, experiment, gateway=None):
    """(finished trials by key, failures by key), as the command reads them."""
    outcome = asyncio.run(run_experiment(store, experiment, gateway=gateway))
    return outcome.finished, outcome.failed


def test_a_rerun_plays_no_trial_twice(store):
    groups, partners = ["cooperative", "competitive"], ["always_defect", "tit_for_tat_c"]
    gateway = RecordingGateway()
    finished, failed = run(store, dilemma(groups, partners, reps=2), gateway=gateway)
    assert len(finished) == 8 and not failed
    assert len(gateway.calls) == 8 * 6  # six rounds, one call each
    again = RecordingGateway()
    finished_again, _ = run(store, dilemma(groups, partners, reps=2), gateway=again)
    assert again.calls == [] and finished_again == finished
    third = RecordingGateway()
    finished_more, _ = run(store, dilemma(groups, partners, reps=3), gateway=third)
    assert len(finished_more) == 12 and len(third.calls) == 4 * 6  # only the new repetitions
    # every trial is a run of its own, played by the engine
    assert len({r["run"] for r in finished_more.values()}) == 12 == len(store.runs())


def test_a_failing_trial_is_recorded_and_the_others_finish(store):
    scripted.queue("!error:400", task="move")  # the first call fails, for good (a rejected request)
    experiment = dilemma(["control"], ["always_cooperate", "always_defect"], reps=2, concurrency=1)
    finished, failed = run(store, experiment)
    assert len(finished) == 3 and len(failed) == 1
    assert "rejected" in next(iter(failed.values()))
    assert Trials(store).experiments() == [(experiment.name, 3, 1)] and experiment.name.startswith("pd:scripted@")
    # the rerun retries only the failed one, in the run it began
    finished, failed = run(store, experiment)
    assert len(finished) == 4 and not failed and len(store.runs()) == 4


def test_a_reply_that_is_never_a_move_fails_the_trial_without_guessing(store):
    for _ in range(2):
        scripted.queue("I am not sure what to do.", task="move")
    finished, failed = run(store, dilemma(["control"], ["always_cooperate"], reps=1, concurrency=1))
    assert finished == {} and "not a move twice" in next(iter(failed.values()))


def test_the_lab_command_prints_cells_and_hypotheses(tmp_path):
    import json

    from test_cli import studio

    db = tmp_path / "s.db"
    done = studio("lab", "pd", "--model", "scripted", "--reps", "2", "--group", "control", "--group", "competitive",
                  "--json", db=db)
    assert done.returncode == 0, done.stderr
    report = json.loads(done.stdout)
    assert report["trials"] == 16 and len(report["cells"]) == 8
    assert {h["name"] for h in report["hypotheses"]} >= {"H1", "H4", "H9"}
    status = studio("lab", "status", db=db)
    assert re.search(r"pd:scripted@[0-9a-f]{12}: 16 trials done, 0 failed", status.stdout), status.stdout
    from studio.store import Store

    store = Store(db)
    try:  # one run in the store per trial, each the one its trial records
        [(name, _, _)] = Trials(store).experiments()
        recorded = {r["run"] for r in Trials(store).done(name).values()}
        assert len(recorded) == 16 and recorded == {r.id for r in store.runs()}
    finally:
        store.close()
    bad = studio("lab", "pd", "--model", "scripted", "--group", "pirates", db=db)
    assert bad.returncode == 2 and "--group" in bad.stderr and "cooperative" in bad.stderr


def test_two_runners_of_one_experiment_never_play_a_trial_twice(store):
    """Each trial is claimed in one write before it plays: two runners at once (two terminals on one
    store) share the trials between them, and a trial a runner left when it stopped is taken again."""
    from studio.lab import trials as claims

    gateway = RecordingGateway()

    name = dilemma(["control", "cooperative"], ["always_defect", "tit_for_tat_c"], reps=2).name

    async def both():
        experiment = dilemma(["control", "cooperative"], ["always_defect", "tit_for_tat_c"], reps=2, concurrency=2)
        return await asyncio.gather(run_experiment(store, experiment, gateway=gateway),
                                    run_experiment(store, experiment, gateway=gateway))

    first, second = asyncio.run(both())
    assert len(gateway.calls) == 8 * 6 and len(store.runs()) == 8  # every trial once, by one runner or the other
    assert len(first.finished) == len(second.finished) == 8
    assert first.tally.played + second.tally.played == 8
    # a lease that holds keeps a trial; one given back, run out, or left by a process that has ended does not
    trials = Trials(store)
    key = "control/0/always_defect/9"
    trials.record(name, key, "running", {"run": 3})
    elsewhere = "another-machine:4242:abcd"
    assert trials.claim(name, key, elsewhere) == {"run": 3}
    assert trials.claim(name, key, claims.runner_name()) is None  # its lease holds
    with store.lock:
        store.conn.execute("UPDATE lab_trials SET lease = ? WHERE key = ?", (time.time() - 1, key))
    here = claims.runner_name()
    assert trials.claim(name, key, here) == {"run": 3}  # run out: taken over, its run goes on
    assert trials.claim(name, key, claims.runner_name()) is None
    trials.release(here)
    assert trials.claim(name, key, elsewhere) == {"run": 3}  # given back
    with store.lock:
        store.conn.execute("UPDATE lab_trials SET owner = ? WHERE key = ?", (f"{socket.gethostname()}:{_ended_pid()}:ab", key))
    assert trials.claim(name, key, here) == {"run": 3}  # its process on this machine has ended
    assert trials.claim(name, "control/0/always_defect/0", claims.runner_name()) is None  # done


def test_the_same_flags_go_on_with_their_trials_and_other_flags_are_another_experiment(tmp_path):
    import json

    from test_cli import studio

    from studio.store import Store

    db = tmp_path / "s.db"
    flags = ["lab", "pd", "--model", "scripted", "--reps", "1", "--partner", "always_defect", "--json"]
    first = studio(*flags, "--group", "control", db=db)
    assert first.returncode == 0, first.stderr
    again = studio(*flags, "--group", "control", "--concurrency", "1", db=db)  # how many at once changes no trial
    assert again.returncode == 0 and json.loads(again.stdout)["trials"] == json.loads(first.stdout)["trials"]
    other = studio(*flags, "--group", "cooperative", db=db)
    assert other.returncode == 0, other.stderr
    store = Store(db)
    try:
        names = [name for name, *_ in Trials(store).experiments()]
        assert len(store.runs()) == 2  # one trial each: the rerun played nothing
    finally:
        store.close()
    assert len(names) == 2 and all(re.fullmatch(r"pd:scripted@[0-9a-f]{12}", n) for n in names), names
    status = studio("lab", "status", db=db).stdout
    assert all(f"{n}: 1 trials done" in status or f"{n}: 1 trial done" in status for n in names), status
