"""The edges of the surfaces: numbers past what the store holds, files that are not files, a run deleted
while it plays, Ctrl-C in `studio continue`, controls stored from the command line. Each ends with the
right behaviour or one message and exit 2, never a traceback."""

from __future__ import annotations

import shutil
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT
from test_cli import bad, studio, workdir  # noqa: F401  (fixture)

INTERVIEW = ROOT / "plays" / "interview.toml"
TOO_BIG = str(2**63)


@pytest.fixture(scope="module")
def played(tmp_path_factory):
    """A store holding one finished scripted run, run 1, to copy into each test that may spoil it."""
    db = tmp_path_factory.mktemp("played") / "s.db"
    assert studio("run", INTERVIEW, "--model", "scripted", "--turns", "1", db=db).returncode == 0
    return db


def _copy(db: Path, folder: Path) -> Path:
    for part in db.parent.glob(db.name + "*"):  # the database and its write-ahead log
        shutil.copy(part, folder / part.name)
    return folder / db.name


# -- numbers ------------------------------------------------------------------------------------------

# Every command that takes a run or an event number, with NUMBER where it goes.
NUMBERED = [
    ["show", "N"], ["show", "1", "--take", "N"], ["resume", "N"], ["rewind", "N"], ["override", "N", "1", "words"],
    ["override", "1", "N", "words"], ["continue", "N", "1"], ["continue", "1", "N"], ["export", "N"],
    ["critique", "N"], ["critique", "N", "--stored"], ["rename", "N", "a name"], ["archive", "N"],
    ["delete", "N", "--yes"], ["step", "N"], ["stage", "N"], ["mind", "N", "Jenny"], ["game", "N"], ["open", "N"],
    ["lab", "interview", "--run", "N"],
]


@pytest.mark.parametrize("command", NUMBERED, ids=lambda c: " ".join(c))
def test_a_number_past_what_the_store_holds_is_one_message(played, tmp_path, command):
    db = _copy(played, tmp_path)
    result = studio(*[TOO_BIG if word == "N" else word for word in command], db=db)
    bad(result, "not a", "number", "9223372036854775807")


numbers = st.one_of(st.integers(min_value=2**63 - 2, max_value=2**80), st.integers(max_value=0),
                    st.integers(min_value=2, max_value=2**63 - 1),
                    st.text(alphabet="0123456789١٢³ -+_.e", min_size=1, max_size=25))


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(command=st.sampled_from(NUMBERED), number=numbers)
def test_any_number_in_any_command_is_an_answer_or_one_message(played, command, number):
    with tempfile.TemporaryDirectory() as folder:
        db = _copy(played, Path(folder))
        result = studio(*[str(number) if word == "N" else word for word in command], db=db)
    assert "Traceback" not in result.stderr, result.stderr[-2000:]
    assert result.returncode in (0, 1, 2), (result.returncode, result.stderr[-800:])
    if result.returncode == 2:
        assert result.stderr.startswith("studio: ") and result.stderr.strip().count("\n") <= 1, result.stderr


# -- files that are not files --------------------------------------------------------------------------


def _limited(*args, db):
    """The command as its own process, with its memory and its time bounded: a reader without a bound
    ends here in MemoryError or a timeout instead of taking the machine."""
    import os
    import resource
    import subprocess

    from conftest import STUDIO

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (2 * 1024**3, 2 * 1024**3))

    try:
        return subprocess.run([*STUDIO, *map(str, args)], capture_output=True, text=True, timeout=60, cwd=ROOT,
                              env={**os.environ, "STUDIO_DB": str(db)}, preexec_fn=cap, stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        pytest.fail(f"studio {' '.join(map(str, args))} was still reading after a minute")


@pytest.mark.parametrize("command", [["run"], ["import"], ["open"], ["export-card"], ["lab", "run"]],
                         ids=lambda c: " ".join(c))
@pytest.mark.parametrize("source", ["/dev/zero", "/dev/urandom", "fifo"])
def test_a_device_or_a_pipe_is_refused_not_read(tmp_path, command, source):
    import os

    if source == "fifo":
        source = tmp_path / "play.toml"
        os.mkfifo(source)
    result = _limited(*command, source, db=tmp_path / "s.db")
    bad(result, str(source))
    assert "Error" not in result.stderr


def test_a_regular_file_past_its_bound_is_refused_before_it_is_read(tmp_path):
    huge = tmp_path / "huge.toml"
    with open(huge, "wb") as f:
        f.truncate(40 * 1000 * 1000)
    bad(studio("run", huge, db=tmp_path / "s.db"), "huge.toml", "40.0 MB", "a play is at most 32 MB")


# -- controls typed on the command line -----------------------------------------------------------------


def _spoken(db: Path) -> int:
    import json

    shown = studio("show", "1", "--json", db=db)
    return next(e["id"] for e in map(json.loads, shown.stdout.splitlines())
                if e["kind"] == "stage" and e["role"] not in (None, "director"))


def test_a_direction_is_stored_without_its_escape_bytes(played, tmp_path):
    import json

    db = _copy(played, tmp_path)
    line = _spoken(db)
    typed = "\x1b]0;owned\x07slower,\x1b[2J more\u202e doubt\x07"
    result = studio("continue", "1", line, "--direction", typed, db=db)
    assert result.returncode == 0, result.stderr
    stored = [e for e in map(json.loads, studio("show", "1", "--json", "--all", db=db).stdout.splitlines())
              if e["data"].get("direction")]
    assert [e["data"]["direction"]["note"] for e in stored] == ["slower, more doubt"]


LONG_MODEL = "openai/" + "m" * 293  # 300 characters


@pytest.mark.parametrize("command", [
    ["run", INTERVIEW, "--model", LONG_MODEL], ["run", INTERVIEW, "--role", f"ego={LONG_MODEL}"],
    ["compare", INTERVIEW, "--model", LONG_MODEL], ["lab", "interview", "mara", "--model", LONG_MODEL],
], ids=lambda c: f"{c[0]} {c[-2]}")
def test_a_model_name_past_its_bound_is_refused_and_never_stored(tmp_path, command):
    db = tmp_path / "s.db"
    message = bad(studio(*command, db=db), "at most 200 characters, not 300")
    assert LONG_MODEL not in message
    assert not db.exists() or studio("runs", "--json", db=db).stdout == ""


def test_a_model_name_with_terminal_control_is_refused(tmp_path):
    bad(studio("run", INTERVIEW, "--model", "scripted\x1b[2J", db=tmp_path / "s.db"), "control characters")


# -- Ctrl-C in `studio continue` -----------------------------------------------------------------------


def test_ctrl_c_while_a_line_is_continued_marks_it_unsaved_and_keeps_the_run(played, tmp_path, monkeypatch):
    from studio.present import terminal

    db = _copy(played, tmp_path)
    line = _spoken(db)
    before = studio("show", "1", "--json", db=db).stdout
    shown = terminal.StagePrinter.token
    pieces: list[str] = []

    def token(self, step, piece):
        shown(self, step, piece)
        pieces.append(piece)
        if len(pieces) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(terminal.StagePrinter, "token", token)
    result = studio("continue", "1", line, db=db)
    assert result.returncode == 130
    half = "".join(pieces).strip()
    said = next(row for row in result.stdout.splitlines() if half and half in row)
    assert "not saved" in said  # the half line itself says it was never kept
    assert studio("show", "1", "--json", db=db).stdout == before  # the run stands where it stood
