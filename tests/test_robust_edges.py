"""The edges of the surfaces: numbers past what the store holds, files that are not files, a run deleted
while it plays, Ctrl-C in `studio continue`, controls stored from the command line. Each ends with the
right behaviour or one message and exit 2, never a traceback."""

from __future__ import annotations

import sqlite3
import tempfile
from contextlib import closing
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
    """A copy of the store through SQLite's own backup: copying its files one by one raced the write-ahead
    log's index, which SQLite removes as the last connection to the store closes."""
    target = folder / db.name
    with closing(sqlite3.connect(db)) as source, closing(sqlite3.connect(target)) as copy:
        source.backup(copy)
    return target


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


@pytest.mark.parametrize("name", ["scripted\x1b[2J", "scripted\u202e", "scripted\x85", "scripted\u2028"])
def test_a_model_name_with_terminal_control_is_refused(tmp_path, name):
    bad(studio("run", INTERVIEW, "--model", name, db=tmp_path / "s.db"), "control characters")


# -- Ctrl-C in `studio continue` -----------------------------------------------------------------------


def test_ctrl_c_while_a_line_is_continued_marks_it_unsaved_and_keeps_the_run(played, tmp_path, ctrl_c_mid_line):
    db = _copy(played, tmp_path)
    line = _spoken(db)
    before = studio("show", "1", "--json", db=db).stdout
    result = studio("continue", "1", line, db=db)
    assert result.returncode == 130
    half = "".join(ctrl_c_mid_line).strip()
    said = next(row for row in result.stdout.splitlines() if half and half in row)
    assert "not saved" in said  # the half line itself says it was never kept
    assert studio("show", "1", "--json", db=db).stdout == before  # the run stands where it stood


# -- deleting a run that is being played ---------------------------------------------------------------


def _stale(db: Path, run: int) -> None:
    """The lease of a player that stopped beating (a laptop lid closed, another machine gone): run out."""
    import sqlite3

    conn = sqlite3.connect(db)
    with conn:
        conn.execute("UPDATE run_players SET holder = 'elsewhere:1:0', lease = 0 WHERE run_id = ?", (run,))
    conn.close()


def test_a_run_being_played_is_refused_for_deletion_and_its_player_stops_when_it_vanishes(tmp_path):
    """`studio run` waiting on a human's line holds its run: `studio delete` is refused while it plays. Once
    its lease is stale the run may go, and the player then stops with one message, not a traceback."""
    import os
    import subprocess
    import time

    from conftest import STUDIO

    db = tmp_path / "s.db"
    env = {**os.environ, "STUDIO_DB": str(db), "LITELLM_LOCAL_MODEL_COST_MAP": "True"}
    player = subprocess.Popen([*STUDIO, "run", INTERVIEW, "--model", "scripted", "--role", "ego=human"], cwd=ROOT,
                              env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 90
        while not db.exists() or '"events": 0' in (listed := studio("runs", "--json", db=db).stdout) or not listed:
            assert time.monotonic() < deadline and player.poll() is None, player.stderr.read()
            time.sleep(0.2)
        bad(studio("delete", "1", "--yes", db=db), "run 1 is open for playing", f"process {player.pid}")
        _stale(db, 1)
        assert studio("delete", "1", "--yes", db=db).returncode == 0
        out, err = player.communicate("I was a sailor.\n", timeout=90)
    finally:
        if player.poll() is None:
            player.kill()
    assert player.returncode == 1 and "Traceback" not in err and "IntegrityError" not in err, err[-2000:]
    assert "Run 1 was deleted while it was being played; nothing more of it is saved" in out


def test_a_player_that_died_leaves_its_run_free_to_delete(played, tmp_path):
    import socket
    import subprocess

    from studio.store import Store

    db = _copy(played, tmp_path)
    dead = subprocess.Popen(["true"])
    dead.wait()
    store = Store(db)
    store.hold(1, f"{socket.gethostname()}:{dead.pid}:0")  # a lease that has not run out, of a process gone
    store.close()
    assert studio("delete", "1", "--yes", db=db).returncode == 0
    assert studio("runs", "--json", db=db).stdout == ""


async def test_the_app_holds_the_run_it_plays_and_leaves_it_when_the_run_vanishes(tmp_path, monkeypatch):
    from conftest import make_cast
    from test_tui import notifications, opened, step, wait_for

    from studio.store import Store, StoreError
    from studio.tui.app import StudioApp

    monkeypatch.setenv("STUDIO_TUI_NO_WARMUP", "1")
    db = tmp_path / "studio.db"
    cast = make_cast("interview.toml")
    app = StudioApp(Store(db), play=(Path(cast.play_path), cast, {}), model="scripted")
    other = Store(db)  # the picker of another window, or `studio delete`
    async with app.run_test(size=(110, 32)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        run = screen.engine.run_id
        with pytest.raises(StoreError, match="open for playing"):
            other.delete_run(run)
        _stale(db, run)
        other.delete_run(run)
        await pilot.press("s")
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PickerScreen", "the picker")
        assert notifications(app).count("was deleted while it was being played") == 1
    other.close()



async def test_a_run_deleted_while_its_window_sits_idle_sends_the_window_back_to_the_picker(tmp_path, monkeypatch):
    from conftest import make_cast
    from test_tui import notifications, opened, step, wait_for

    from studio.store import Store
    from studio.tui.app import StudioApp

    monkeypatch.setenv("STUDIO_TUI_NO_WARMUP", "1")
    db = tmp_path / "studio.db"
    cast = make_cast("interview.toml")
    app = StudioApp(Store(db), play=(Path(cast.play_path), cast, {}), model="scripted")
    other = Store(db)
    async with app.run_test(size=(110, 32)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        run = screen.engine.run_id
        _stale(db, run)
        other.delete_run(run)
        said = "was deleted while it was being played"
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PickerScreen" and said in notifications(app),
                       "the picker, and why")  # no key pressed
        assert notifications(app).count(said) == 1
    other.close()

def test_show_json_is_one_event_a_line_whatever_its_text_holds(played, tmp_path):
    """A direction typed with a line separator in it (U+2028, as a pasted note may carry) made `studio show
    --json` print its event over two lines for any line reader that splits there (Python's splitlines), and
    neither half read as JSON. Each event is one line; its text reads back as typed."""
    import json

    db = _copy(played, tmp_path)
    typed = "The lights dim.\u2028Rain.\u2029Then \x85nothing."
    assert studio("continue", "1", _spoken(db), "--direction", typed, db=db).returncode == 0
    shown = studio("show", "1", "--json", "--all", db=db).stdout
    events = [json.loads(line) for line in shown.splitlines()]
    assert len(events) == shown.count("\n")
    notes = [(e["data"].get("direction") or {}).get("note") for e in events]
    assert any(note and "\u2028Rain.\u2029Then" in note for note in notes), notes


# -- properties over the other surfaces ----------------------------------------------------------------

PROPERTY = settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])


@PROPERTY
@given(typed=st.text(min_size=1, max_size=40).filter(lambda t: t.strip() and not t.startswith("-")))
def test_any_direction_is_stored_clean(played, typed):
    import json
    import re

    with tempfile.TemporaryDirectory() as folder:
        db = _copy(played, Path(folder))
        result = studio("continue", "1", _spoken(db), "--direction", typed, db=db)
        assert "Traceback" not in result.stderr and result.returncode in (0, 2), result.stderr[-800:]
        for shown in map(json.loads, studio("show", "1", "--json", "--all", db=db).stdout.splitlines()):
            note = (shown["data"].get("direction") or {}).get("note") or ""
            assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069\ud800-\udfff]", note)


@PROPERTY
@given(length=st.integers(min_value=201, max_value=5000), flag=st.sampled_from(["--model", "--role"]))
def test_a_model_name_of_any_length_past_200_is_refused_and_never_stored(length, flag):
    name = "openai/" + "x" * (length - 7)
    with tempfile.TemporaryDirectory() as folder:
        db = Path(folder) / "s.db"
        result = studio("run", INTERVIEW, flag, name if flag == "--model" else f"ego={name}", db=db)
        listed = studio("runs", "--json", db=db).stdout if db.exists() else ""
    bad(result, "at most 200 characters")
    assert name not in listed and name not in result.stderr


@PROPERTY
@given(size=st.integers(min_value=0, max_value=3000), kind=st.sampled_from(["run", "import", "export-card"]))
def test_any_regular_file_is_read_or_refused_with_one_message(tmp_path, size, kind):
    import os

    target = tmp_path / f"drawn{size}.{'png' if kind == 'import' else 'toml'}"
    target.write_bytes(os.urandom(size))
    result = studio(kind, target, db=tmp_path / "s.db")
    assert "Traceback" not in result.stderr
    bad(result, target.name)
