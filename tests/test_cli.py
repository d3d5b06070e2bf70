"""The `studio` command as a playwright meets it: bad files, the prompt for a human line, show and runs."""

from __future__ import annotations

import contextlib
import io
import json
import os
import sys
import shutil
import subprocess
from pathlib import Path

import pytest

from conftest import PLAYS, ROOT, STUDIO


class Result:
    def __init__(self, returncode, stdout, stderr):
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def studio(*args, db=None, input=None, env=None, cwd=None):
    """The studio command, run in this process (litellm is imported once per test session, not per call)."""
    from studio.cli import main

    environment = {**(env or {})}
    if db is not None:
        environment["STUDIO_DB"] = str(db)
    saved = {k: os.environ.get(k) for k in environment}
    out, err = io.StringIO(), io.StringIO()
    old_cwd = os.getcwd()
    old_stdin = sys.stdin
    try:
        os.environ.update(environment)
        os.chdir(cwd or ROOT)
        sys.stdin = io.StringIO(input or "")
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([str(a) for a in args])
    finally:
        sys.stdin = old_stdin
        os.chdir(old_cwd)
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
    return Result(code, out.getvalue(), err.getvalue())


def studio_process(*args, db=None, input=None, env=None):
    """The studio command as its own process: exit codes and stderr exactly as a shell sees them."""
    environment = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", **(env or {})}
    if db is not None:
        environment["STUDIO_DB"] = str(db)
    return subprocess.run(
        [*STUDIO, *map(str, args)], input=input, capture_output=True, text=True, env=environment, cwd=ROOT,
        timeout=180,
    )


@pytest.fixture
def workdir(tmp_path):
    """A copy of the shipped plays and characters that a test may spoil."""
    shutil.copytree(ROOT / "plays", tmp_path / "plays")
    shutil.copytree(ROOT / "characters", tmp_path / "characters")
    return tmp_path


def bad(result, *words):
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    message = result.stderr.strip()
    assert message.count("\n") <= 1, message  # one message (and its fix)
    for word in words:
        assert word in message, message
    return message


def test_toml_syntax_error_names_the_file(workdir):
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text().replace('title = "The Interview"', 'title = "The Interview'))
    message = bad(studio_process("run", play, "--model", "scripted", db=workdir / "s.db"), str(play), "not valid TOML")
    assert "line 1" in message


def test_wrong_type_names_the_field(workdir):
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text().replace("turns = 10", 'turns = "ten"'))
    bad(studio("run", play, "--model", "scripted", db=workdir / "s.db"), str(play), "'turns'", "whole number")


def test_temperature_out_of_range(workdir):
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text().replace('character = "jenny"', 'character = "jenny"\ntemperature = 7.5'))
    bad(studio("run", play, "--model", "scripted", db=workdir / "s.db"), "cast.ego.temperature", "2", "fix")


def test_unknown_role_in_the_play(workdir):
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text() + '\n[cast.hero]\ncharacter = "jenny"\n')
    bad(studio("run", play, "--model", "scripted", db=workdir / "s.db"), "unknown role 'hero'", "ego, superego")


def test_unknown_role_on_the_command_line():
    bad(studio("run", PLAYS / "interview.toml", "--model", "scripted", "--role", "butler=human"), "butler", "Jenny")


def test_unknown_character(workdir):
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text().replace('character = "cleo"', 'character = "clea"'))
    bad(
        studio("run", play, "--model", "scripted", db=workdir / "s.db"),
        "cast.superego.character",
        "clea",
        "characters/clea.toml",
    )


def test_missing_file(tmp_path):
    bad(studio("run", tmp_path / "nowhere.toml", db=tmp_path / "s.db"), "nowhere.toml", "no such play file")


def test_not_utf8(workdir):
    sheet = workdir / "characters" / "jenny.toml"
    sheet.write_bytes(sheet.read_bytes().replace(b"Jenny", "J\xe9nny".encode("latin-1"), 1))
    bad(studio("run", workdir / "plays" / "interview.toml", "--model", "scripted", db=workdir / "s.db"),
        "jenny.toml", "UTF-8")


def test_unknown_model():
    bad(studio_process("run", PLAYS / "interview.toml", "--model", "nonsense-model-xyz"), "nonsense-model-xyz", "model")


def test_bad_input_saves_nothing_and_loses_nothing(workdir):
    db = workdir / "s.db"
    ok = studio("run", PLAYS / "interview.toml", "--model", "scripted", "--turns", "1", db=db)
    assert ok.returncode == 0, ok.stderr
    before = studio("runs", "--json", db=db).stdout
    bad(studio("run", workdir / "missing.toml", db=db), "missing.toml")
    assert studio("runs", "--json", db=db).stdout == before


def test_run_streams_the_stage_and_show_prints_it_again(tmp_path):
    db = tmp_path / "s.db"
    result = studio("run", PLAYS / "interview.toml", "--model", "scripted", "--turns", "2", db=db)
    assert result.returncode == 0, result.stderr
    out = result.stdout
    assert "SASHA" in out and "JENNY" in out and "(scripted)" in out
    assert "critiques" not in out  # no backstage unless asked
    assert "afterwards" in out  # the epilogue
    shown = studio("show", "1", db=db).stdout
    lines = [json.loads(line) for line in studio("show", "1", "--json", db=db).stdout.splitlines()]
    for event in lines:
        if event["kind"] == "stage":
            assert event["text"][:30] in shown.replace("\n", " ") or event["text"][:30] in out
    assert {e["kind"] for e in lines} >= {"scene", "stage", "epilogue"}
    assert not any(e["kind"].startswith("backstage") for e in lines)
    with_backstage = [json.loads(x) for x in studio("show", "1", "--json", "--backstage", db=db).stdout.splitlines()]
    assert any(e["kind"] == "backstage.critique" for e in with_backstage)
    # two turns with every strategy (other, rewrite, draft, critique, revise, twice), then the epilogue: the
    # count tests/test_embedded.py holds the real model to, each call's tokens counted
    spoken = [e for e in with_backstage if e["origin"] == "model"]
    assert len(spoken) == 11 and with_backstage[-1]["kind"] == "epilogue"
    assert all(e["usage"]["completion_tokens"] > 0 and e["usage"]["prompt_tokens"] > 0 for e in spoken)
    runs = [json.loads(x) for x in studio("runs", "--json", db=db).stdout.splitlines()]
    assert runs[0]["title"] == "The Interview" and runs[0]["events"] == len(with_backstage)


def test_backstage_flag_streams_the_inner_voice(tmp_path):
    result = studio(
        "run", PLAYS / "interview.toml", "--model", "scripted", "--turns", "1", "--backstage", db=tmp_path / "s.db"
    )
    assert "Cleo critiques" in result.stdout and "Jenny drafts" in result.stdout
    # the superego rewrites what Jenny hears: the line credits the hearing to Jenny, as the export does
    assert "Cleo makes Jenny hear it as:" in result.stdout and "Cleo hears it as" not in result.stdout


def test_a_human_answers_at_the_prompt(tmp_path):
    db = tmp_path / "s.db"
    result = studio_process(
        "run",
        PLAYS / "interview.toml",
        "--model",
        "scripted",
        "--role",
        "ego=human",
        "--turns",
        "2",
        "--no-superego",
        input="My father kept a ledger of our sins.\nAnd my mother burned it.\n",
        db=db,
    )
    assert result.returncode == 0, result.stderr
    assert "Jenny (ego, speak)" in result.stdout
    lines = [json.loads(x) for x in studio("show", "1", "--json", db=db).stdout.splitlines()]
    human = [e for e in lines if e["origin"] == "human"]
    assert [e["text"] for e in human] == ["My father kept a ledger of our sins.", "And my mother burned it."]


def test_running_out_of_input_pauses_and_resume_continues(tmp_path):
    db = tmp_path / "s.db"
    first = studio(
        "run", PLAYS / "interview.toml", "--model", "scripted", "--role", "ego=human", "--turns", "2",
        "--strategies", "none", input="Only this.\n", db=db,
    )
    assert first.returncode == 0 and "studio resume 1" in first.stdout
    second = studio("resume", "1", "--role", "ego=model", db=db)
    assert second.returncode == 0, second.stderr
    lines = [json.loads(x) for x in studio("show", "1", "--json", db=db).stdout.splitlines()]
    assert lines[-1]["kind"] == "epilogue"
    assert [e["origin"] for e in lines if e["role"] == "ego" and e["kind"] == "stage"] == ["human", "model"]


def test_rewind_and_override_from_the_command_line(tmp_path):
    db = tmp_path / "s.db"
    studio("run", PLAYS / "interview.toml", "--model", "scripted", "--turns", "2", "--strategies", "none", db=db)
    lines = [json.loads(x) for x in studio("show", "1", "--json", db=db).stdout.splitlines()]
    first_ego = next(e for e in lines if e["role"] == "ego" and e["kind"] == "stage")
    result = studio("override", "1", first_ego["id"], "I have never told anyone this.", db=db)
    assert result.returncode == 0, result.stderr
    assert studio("resume", "1", db=db).returncode == 0
    now = [json.loads(x) for x in studio("show", "1", "--json", db=db).stdout.splitlines()]
    assert any(e["text"] == "I have never told anyone this." and e["origin"] == "override" for e in now)
    everything = [json.loads(x) for x in studio("show", "1", "--json", "--all", db=db).stdout.splitlines()]
    assert first_ego["id"] in {e["id"] for e in everything}
    assert studio("rewind", "1", "--turns", "2", db=db).returncode == 0
    rewound = [json.loads(x) for x in studio("show", "1", "--json", db=db).stdout.splitlines()]
    assert max(e["turn"] or 0 for e in rewound) <= 1


def test_no_api_key_reaches_the_database(tmp_path):
    db = tmp_path / "s.db"
    secret = "sk-test-THIS-MUST-NOT-BE-STORED-1234567890"
    studio_process(
        "run", PLAYS / "interview.toml", "--model", "scripted", "--turns", "1",
        env={"OPENAI_API_KEY": secret, "ANTHROPIC_API_KEY": secret}, db=db,
    )
    for path in tmp_path.glob("s.db*"):
        assert secret.encode() not in Path(path).read_bytes()


def test_a_line_that_breaks_off_and_is_retried_is_not_shown_twice(tmp_path):
    from studio.llm import scripted

    scripted.queue("Tell me about the house on Elm !error:500", task="speak", role="other")
    scripted.queue("Tell me about the garden instead.", task="speak", role="other")
    result = studio("run", PLAYS / "interview.toml", "--model", "scripted", "--turns", "1", "--strategies", "none",
                    db=tmp_path / "s.db")
    assert result.returncode == 0, result.stderr
    # the broken attempt is shown struck with why, never as Sasha's line
    assert "✗ SASHA Tell me about the house on Elm (dropped: the provider is unavailable" in result.stdout
    assert "SASHA  Tell me about the house" not in result.stdout
    committed = [json.loads(x) for x in studio("show", "1", "--json", db=tmp_path / "s.db").stdout.splitlines()]
    assert [e["text"] for e in committed if e["role"] == "other"] == ["Tell me about the garden instead."]


def test_a_command_called_in_another_process_leaves_its_database_unheld(tmp_path):
    """A command called from a script or a test closes what it opened as it ends: its database is left
    without write-ahead files for the next reader to race, even while the collector is off."""
    import gc

    db = tmp_path / "studio.db"
    collecting = gc.isenabled()
    gc.disable()  # a connection held in a reference cycle would outlive the command until collected
    try:
        for args in (["run", PLAYS / "interview.toml", "--model", "scripted", "--turns", "1"], ["runs"],
                     ["show", "1"]):
            assert studio(*args, db=db).returncode == 0
            assert sorted(p.name for p in tmp_path.iterdir()) == ["studio.db"], args[0]
    finally:
        if collecting:
            gc.enable()
