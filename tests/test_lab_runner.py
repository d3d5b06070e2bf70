"""The dilemma's trials in batch on the scripted model: recorded, resumable, failures kept apart."""

import asyncio

from conftest import RecordingGateway
from studio.lab.runner import Plan, run
from studio.lab.trials import Trials
from studio.llm import scripted


def test_a_rerun_plays_no_trial_twice(store):
    plan = Plan(["cooperative", "competitive"], ["always_defect", "tit_for_tat_c"], reps=2, model="scripted")
    gateway = RecordingGateway()
    finished, failed = asyncio.run(run(store, plan, concurrency=4, gateway=gateway))
    assert len(finished) == 8 and not failed
    assert len(gateway.calls) == 8 * 6  # six rounds, one call each
    again = RecordingGateway()
    finished_again, _ = asyncio.run(run(store, plan, concurrency=4, gateway=again))
    assert again.calls == [] and sorted(map(repr, finished_again)) == sorted(map(repr, finished))
    bigger = Plan(plan.groups, plan.partners, reps=3, model="scripted")
    third = RecordingGateway()
    finished_more, _ = asyncio.run(run(store, bigger, concurrency=4, gateway=third))
    assert len(finished_more) == 12 and len(third.calls) == 4 * 6  # only the new repetitions


def test_a_failing_trial_is_recorded_and_the_others_finish(store):
    scripted.queue("!error:400", task="move")  # the first call fails, for good (a rejected request)
    plan = Plan(["control"], ["always_cooperate", "always_defect"], reps=2, model="scripted")
    finished, failed = asyncio.run(run(store, plan, concurrency=1))
    assert len(finished) == 3 and len(failed) == 1
    assert "rejected" in next(iter(failed.values()))
    assert Trials(store).experiments() == [("pd:scripted", 3, 1)]
    # the rerun retries only the failed one
    finished, failed = asyncio.run(run(store, plan, concurrency=1))
    assert len(finished) == 4 and not failed


def test_a_reply_that_is_never_a_move_fails_the_trial_without_guessing(store):
    for _ in range(2):
        scripted.queue("I am not sure what to do.", task="move")
    plan = Plan(["control"], ["always_cooperate"], reps=1, model="scripted")
    finished, failed = asyncio.run(run(store, plan, concurrency=1))
    assert finished == [] and "not a move twice" in next(iter(failed.values()))


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
    assert "pd:scripted: 16 trials done, 0 failed" in status.stdout
    bad = studio("lab", "pd", "--model", "scripted", "--group", "pirates", db=db)
    assert bad.returncode == 2 and "--group" in bad.stderr and "cooperative" in bad.stderr
