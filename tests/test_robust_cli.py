"""Text from a play file is printed as text, and every command ends with a message, not a traceback."""

from __future__ import annotations

import os
import subprocess

import pytest

from conftest import STUDIO, ROOT
from test_cli import studio, workdir  # noqa: F401  (fixture)

NASTY_TITLES = ["Act [/] One", "[link=http://evil.example]Click[/link]", "[bold red]Loud", "Mal [/]"]


@pytest.mark.parametrize("title", NASTY_TITLES)
def test_markup_in_a_title_is_printed_as_typed(workdir, title):
    play = workdir / "plays" / "interview.toml"
    text = play.read_text().replace('title = "The Interview"', f'title = "{title}"')
    play.write_text(text.replace("turns = 10", "turns = 2"))
    db = workdir / "s.db"
    run = studio("run", play, "--model", "scripted", db=db)
    assert run.returncode == 0, run.stderr
    assert title in run.stdout
    runs = studio("runs", db=db)
    assert runs.returncode == 0, runs.stderr
    show = studio("show", "1", db=db)
    assert show.returncode == 0, show.stderr
    assert title in show.stdout
    assert "\x1b]8;" not in run.stdout + show.stdout + runs.stdout  # no live link


@pytest.mark.parametrize("command", [["rewind", "999"], ["show", "999"], ["override", "999", "3", "x"]])
def test_unknown_run_is_a_message_not_a_traceback(workdir, command):
    result = studio(*command, db=workdir / "s.db")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr
    assert "999" in result.stderr and "studio runs" in result.stderr


@pytest.mark.parametrize("turns", [1, 8], ids=["output that fits the buffer", "output past the pipe's buffer"])
@pytest.mark.parametrize("reads", [0, 1], ids=["reader gone before a byte", "reader takes a line and goes"])
def test_closed_pipe_ends_quietly(workdir, turns, reads):
    """`studio show 1 --json --all | head -1`, without a shell's timing: a reader gone before the first byte
    makes every write meet a closed pipe (the flush at exit too, when the output fits Python's buffer), the
    same on every machine at any load; a reader that takes a line and goes is `head -1` itself, quiet
    whichever write it goes before."""
    db = workdir / "s.db"
    assert studio("run", ROOT / "plays" / "interview.toml", "--model", "scripted", "--turns", str(turns), db=db).returncode == 0
    env = {"PATH": "/usr/bin:/bin", "STUDIO_DB": str(db), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    read, write = os.pipe()
    if not reads:
        os.close(read)
    process = subprocess.Popen([*STUDIO, "show", "1", "--json", "--all"], stdout=write, stderr=subprocess.PIPE,
                               text=True, env=env, cwd=ROOT)
    os.close(write)
    lines = []
    if reads:
        with os.fdopen(read, "rb") as reader:
            lines = [reader.readline() for _ in range(reads)]
    stderr = process.communicate(timeout=120)[1]
    assert process.returncode == 0, stderr
    assert all(line.startswith(b"{") for line in lines)
    assert stderr == "", stderr  # no traceback, no "Exception ignored ... BrokenPipeError"


@pytest.mark.parametrize("command, words", [
    (["rewind", "1", "--turns", "-1"], ["--turns", "at least 1"]),
    (["rewind", "1", "--turns", "0"], ["--turns", "at least 1"]),
    (["override", "1", "3", ""], ["empty"]),
    (["override", "1", "3", "   "], ["empty"]),
])
def test_commands_that_would_do_nothing_say_so(workdir, command, words):
    db = workdir / "s.db"
    result = studio(*command, db=db)
    assert result.returncode == 2, result.stdout + result.stderr
    assert "Traceback" not in result.stderr
    for word in words:
        assert word in result.stderr


@pytest.mark.parametrize("name", ["plays/interview.toml", "characters/jenny.toml"])
def test_a_byte_order_mark_is_accepted(workdir, name):
    path = workdir / name
    path.write_bytes(b"\xef\xbb\xbf" + path.read_bytes())
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text(encoding="utf-8-sig").replace("turns = 10", "turns = 1"), encoding="utf-8-sig")
    result = studio("run", play, "--model", "scripted", db=workdir / "s.db")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("ref, suggested", [("missing.toml", "create missing.toml,"),
                                            ("nobody", "create characters/nobody.toml,")])
def test_a_missing_character_suggests_the_right_file(workdir, ref, suggested):
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text().replace('character = "jenny"', f'character = "{ref}"'))
    result = studio("run", play, "--model", "scripted", db=workdir / "s.db")
    assert result.returncode == 2
    assert suggested in result.stderr and ".toml.toml" not in result.stderr, result.stderr


def test_two_speakers_with_one_name_are_refused(workdir):
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text().replace('character = "sasha_interviewer"', 'character = "jenny"'))
    result = studio("run", play, "--model", "scripted", db=workdir / "s.db")
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert "already speaks" in result.stderr and "cast.others" in result.stderr, result.stderr


def test_two_processes_on_one_run_the_loser_says_so_without_a_traceback(workdir):
    import asyncio
    import os
    import time

    from studio.engine import Engine
    from studio.store import Store

    db = workdir / "s.db"
    play = workdir / "plays" / "interview.toml"
    assert studio("run", play, "--model", "scripted", "--turns", "1", "--role", "jenny=human", db=db).returncode == 0
    env = {**os.environ, "STUDIO_DB": str(db), "STUDIO_SCRIPTED_DELAY": "0.2", "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    env.pop("COLUMNS", None)
    slow = subprocess.Popen([*STUDIO, "resume", "1", "--role", "jenny=model"], cwd=ROOT, env=env, text=True,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        time.sleep(4.0)  # it has opened the run and is writing a line, slowly
        store = Store(db)
        try:
            winner = Engine(store, 1)
            asyncio.run(winner.step("Not now, Sasha."))  # the human's line lands first
        finally:
            store.close()
        out, err = slow.communicate(timeout=120)
    finally:
        if slow.poll() is None:
            slow.kill()
    assert slow.returncode == 1, (out, err)
    assert "another process moved this run on" in err and "Traceback" not in err
