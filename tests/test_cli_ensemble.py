"""The ensemble at the command line: one step at a time, --next, entrances and exits, show --as."""

from __future__ import annotations

import json

from test_cli import studio


def _events(db, run=1):
    out = studio("show", run, "--json", "--backstage", db=db).stdout
    return [json.loads(line) for line in out.splitlines()]


def test_step_with_next_stage_moves_and_show_as(tmp_path):
    db = tmp_path / "s.db"
    # a run to pause: one step of the ensemble at a time
    made = studio("run", "plays/last_crossing.toml", "--model", "scripted", "--turns", "4", db=db, input="")
    assert made.returncode == 0, made.stderr
    studio("rewind", 1, "--turns", "30", db=db)
    first = studio("step", 1, "--next", "Marit", db=db)
    assert first.returncode == 0, first.stderr
    events = _events(db)
    assert [e["kind"] for e in events if e["kind"] in ("stage", "backstage.pick")][:2] == ["backstage.pick", "stage"]
    assert [e["character"] for e in events if e["kind"] == "stage"][0] == "Marit"
    bad = studio("step", 1, "--next", "Oskar", db=db)
    assert bad.returncode == 2 and "not on stage" in bad.stderr and "Traceback" not in bad.stderr
    moved = studio("stage", 1, "--enter", "Oskar", "--exit", "Tomas", db=db)
    assert moved.returncode == 0 and "Oskar enters." in moved.stdout and "Tomas leaves." in moved.stdout
    assert studio("step", 1, "--next", "Oskar", db=db).returncode == 0
    assert studio("step", 1, "--policy", "round_robin", db=db).returncode == 0
    lines = [e for e in _events(db) if e["kind"] == "stage"]
    assert lines[1]["character"] == "Oskar"
    tomas = studio("show", 1, "--as", "Tomas", db=db).stdout
    assert lines[0]["text"][:40] in tomas
    assert lines[1]["text"][:40] not in tomas  # said after Tomas left
    oskar = studio("show", 1, "--as", "Oskar", db=db).stdout
    assert lines[0]["text"][:40] not in oskar and lines[1]["text"][:40] in oskar
    wrong = studio("show", 1, "--as", "Nobody", db=db)
    assert wrong.returncode == 2 and "Ines" in wrong.stderr


def test_step_switches_one_inner_voice(tmp_path):
    db = tmp_path / "s.db"
    made = studio("run", "plays/last_crossing.toml", "--model", "scripted", "--turns", "2", db=db, input="")
    assert made.returncode == 0, made.stderr
    studio("rewind", 1, "--turns", "30", db=db)
    done = studio("step", 1, "--switch", "Pride:critique=off", db=db)
    assert done.returncode == 0, done.stderr
    controls = [e for e in _events(db) if e["kind"] == "control"]
    assert controls[-1]["data"] == {"strategy": "critique", "enabled": False, "voice": "c1.voice"}
    assert "Pride's critique switched off." == controls[-1]["text"]
    for bad in ("Nobody:critique=off", "Pride:shout=off", "Pride:critique=maybe"):
        wrong = studio("step", 1, "--switch", bad, db=db)
        assert wrong.returncode == 2 and "--switch" in wrong.stderr and "Pride" in wrong.stderr, wrong.stderr
        assert "Traceback" not in wrong.stderr


def test_the_last_exit_of_a_running_scene_is_refused_and_nothing_moves(tmp_path):
    db = tmp_path / "s.db"
    made = studio("run", "plays/last_crossing.toml", "--model", "scripted", "--turns", "4", db=db, input="")
    assert made.returncode == 0, made.stderr
    studio("rewind", 1, "--turns", "30", db=db)
    assert studio("step", 1, "--next", "Marit", db=db).returncode == 0
    before = _events(db)
    everyone = studio("stage", 1, "--exit", "Ines", "--exit", "Tomas", "--exit", "Marit", db=db)
    assert everyone.returncode == 2 and "no one on stage" in everyone.stderr and "Traceback" not in everyone.stderr
    assert "fix: keep someone on" in everyone.stderr
    assert _events(db) == before  # not even the first two exits were saved
    assert studio("stage", 1, "--exit", "Ines", "--exit", "Tomas", db=db).returncode == 0
    last = studio("stage", 1, "--exit", "Marit", db=db)
    assert last.returncode == 2 and "no one on stage" in last.stderr
    assert [e["text"] for e in _events(db) if e["kind"] == "direction"][-1] == "Tomas leaves."
    handover = studio("stage", 1, "--exit", "Marit", "--enter", "Oskar", db=db)
    assert handover.returncode == 0, handover.stderr
    assert handover.stdout.index("Oskar enters.") < handover.stdout.index("Marit leaves.")
    assert studio("step", 1, "--next", "Oskar", db=db).returncode == 0
