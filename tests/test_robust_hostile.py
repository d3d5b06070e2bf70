"""Hostile lorebooks and macros, other programs' databases, full disks, read-only and damaged stores,
Ctrl-D at a question, a pipe named for a report, a provider's echo of a key: each case ends in seconds,
in bounded memory, with one message or quietly, and nothing already saved is lost. (A closed pipe is in
tests/test_robust_cli.py.)

The costly cases run in a process of their own under a memory limit (RLIMIT_AS) and a timeout, so a
regression fails the test instead of the machine; a full disk is a file size limit (RLIMIT_FSIZE) on the
studio's own process, or SQLite's max_page_count."""

from __future__ import annotations

import json
import os
import pty
import resource
import shutil
import signal
import sqlite3
import stat
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from conftest import ROOT, STUDIO
from test_cli import bad, studio  # noqa: F401

PYTHON_LIMIT = 1_500_000_000  # bytes of address space for a process of the studio: litellm's import fits


def _limited(memory: int = PYTHON_LIMIT, file_size: int | None = None):
    def apply() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (memory, memory))
        if file_size is not None:
            resource.setrlimit(resource.RLIMIT_FSIZE, (file_size, file_size))
            signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # a write past the limit fails instead of killing
    return apply


def _env(db: Path | None = None) -> dict[str, str]:
    env = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "PYTHONPATH": str(ROOT)}
    if db is not None:
        env["STUDIO_DB"] = str(db)
    return env


def _studio_limited(*args, db: Path, cwd: Path = ROOT, seconds: float = 120, **limits):
    return subprocess.run([*STUDIO, *map(str, args)], capture_output=True, text=True, env=_env(db), cwd=cwd,
                          timeout=seconds, preexec_fn=_limited(**limits))


PEAK = ("def peak():\n"
        "    for line in open('/proc/self/status'):\n"
        "        if line.startswith('VmHWM:'):\n"
        "            return int(line.split()[1]) // 1024\n")


def _python_limited(code: str, seconds: float = 60, memory: int = 400_000_000):
    """`code` in a fresh interpreter under `memory` bytes of address space; its stdout, and how long it took.
    `code` may call `peak()`: the interpreter's own highest resident set so far, in MB (VmHWM; Linux's
    ru_maxrss carries the parent's over fork and exec, so a test process of 300 MB would read as 300)."""
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", PEAK + textwrap.dedent(code)], capture_output=True, text=True,
                          env=_env(), cwd=ROOT, timeout=seconds, preexec_fn=_limited(memory))
    assert done.returncode == 0, done.stderr[-3000:]
    return done.stdout, time.perf_counter() - start


# -- World Info keys that cost gigabytes to compile ----------------------------------------------------------

HOSTILE_KEYS = [
    "/a{999999999}/",  # RE2 refuses it; the `regex` package wrote it out: gigabytes before the first match
    "/(a{1000}){1000}/",
    "/((a{100}){100}){100}/",
    "/(?<=a{100000})b/",
    "/(a)\\1{1000000}/",
    "/" + "(" * 40 + "a" + ")" * 40 + "/",
    "/" + "a|" * 600 + "b/",  # 1,201 characters
    "/(a{100}){100}/",  # 10,000 atoms: within what RE2 runs, past what a key may cost
]


def test_a_hostile_key_costs_its_budget_and_no_more():
    out, took = _python_limited(f"""
        import time
        from studio.mind.worldinfo import matches, regex_key
        text = "a" * 20_000 + "b"
        for key in {HOSTILE_KEYS!r}:
            start = time.perf_counter()
            found = matches(key, text)
            print(key[:30], found, regex_key(key) is None, round(time.perf_counter() - start, 3))
        print("peak", peak())
    """)
    lines = out.splitlines()
    for line in lines[:-1]:
        key, found, refused, seconds = line.rsplit(" ", 3)
        assert found == "False" and refused == "True", line  # never compiled, so it stands for its own text
        assert float(seconds) < 2.0, line  # each well under 0.1 s alone; the machine may be busy
    assert int(lines[-1].split()[1]) < 200, lines[-1]  # MB at the peak, the interpreter's own included
    assert took < 30


@pytest.mark.parametrize("key, text, found", [
    ("/a{3}b/", "xaaab", True),
    ("/(ab){2,4}!/", "abab!", True),
    ("/(a{10}){100}/", "a" * 999, False),  # 1,000 atoms written out: within the bounds, and it runs
    ("/(a{10}){100}/", "a" * 1_000, True),
    ("/(\\w+) \\1/", "so so", True),  # a back-reference: the slow engine, still run
    ("/[]{}]{2}/", "x}{", True),
])
def test_keys_within_the_bounds_still_match(key, text, found):
    from studio.mind.worldinfo import matches, regex_key

    assert regex_key(key) is not None
    assert matches(key, text) is found


def test_the_size_of_a_key_is_counted_with_its_repeats_written_out():
    from studio.mind.worldinfo import MAX_PATTERN_SIZE, pattern_size

    assert pattern_size("(ab){3}") == 6
    assert pattern_size("\\p{L}{3}") == 3  # a named class is one atom, not a repeat
    assert pattern_size("a{999999999}") > MAX_PATTERN_SIZE
    assert pattern_size("(a{10}){100}") == MAX_PATTERN_SIZE
    assert pattern_size("(" * 40 + "a" + ")" * 40) is None
    assert pattern_size("a" * 1_001) is None


def test_a_book_of_many_costly_keys_shares_one_budget_the_same_on_every_call():
    from studio.mind.worldinfo import MAX_CALL_PATTERN_SIZE, MAX_PATTERN_SIZE, activate
    from studio.model.lorebook import Lorebook

    costly = MAX_CALL_PATTERN_SIZE // MAX_PATTERN_SIZE  # about this many keys of the largest size fill it
    # each key about MAX_PATTERN_SIZE atoms (a lookbehind, 990 letters, its number), the slow engine's
    entries = [{"keys": [f"/(?<=x)(a{{10}}){{99}}{n}/"], "content": f"Lore {n}.", "enabled": True,
                "insertion_order": 100, "extensions": {}, "comment": f"e{n}"} for n in range(costly + 5)]
    book = Lorebook.model_validate({"entries": entries})
    line = "x" + "a" * 990 + f"{costly + 2}"  # the key of an entry past the budget, and of e5, match this
    first = activate([book], [line], budget_tokens=10_000)
    again = activate([book], [line], budget_tokens=10_000)
    assert first.notes == again.notes and first.entries == again.entries
    past = [n for n in first.notes if "past this call's budget" in n]
    assert len(past) == 5 and f"e{costly + 2}" in " ".join(past)
    assert [e.comment for e in first.entries] == ["e5"]  # within the budget a pattern; past it, plain text


def test_many_books_of_costly_keys_hold_bounded_memory():
    """Books one after another, each within its budget, 2,000 costly keys in all: the compiled keys held
    are bounded (about 50 MB at worst), not the sum of every book's (about 400 MB)."""
    out, took = _python_limited("""
        from studio.mind.worldinfo import activate
        from studio.model.lorebook import Lorebook
        base = peak()
        for book_number in range(40):
            entries = [{"keys": ["/(?<=x)(a{10}){98}%d_%d/" % (book_number, n)], "content": "Lore.", "enabled": True,
                        "insertion_order": 100, "extensions": {}} for n in range(50)]
            activate([Lorebook.model_validate({"entries": entries})], ["x" + "a" * 100], budget_tokens=1_000)
        print(peak() - base)
    """, seconds=120, memory=1_000_000_000)
    assert int(out.split()[-1]) < 100, out  # MB grown at the peak: about 55 here


# -- macros: unclosed openers, linear ---------------------------------------------------------------------------

# Each text as the expression that makes it: the texts are too long for a command line.
HOSTILE_TEXTS = {
    "an unclosed {{ and 6,000 spaces": '"{{" + " " * 6_000 + "x"',
    "20,000 unclosed <%": '"<%" * 20_000',
    "20,000 unclosed {{//": '"{{//" * 20_000',
    "20,000 unclosed {{if": '"{{if" * 20_000',
    "a roll of 6,000 spaces": '"{{roll:" + " " * 6_000 + "x}}"',
    "50,000 {{ ": '"{{ " * 50_000',
    "100,000 spaces in one macro": '"{{" + " " * 100_000 + "}}"',
    "10,000 distinct unknown macros": '"".join("{{m%d}}" % n for n in range(10_000))',
}


def test_hostile_macros_resolve_in_linear_time():
    out, took = _python_limited(f"""
        import time
        from studio.model.macros import MacroContext, macro_notes, resolve, unknown_macros
        from studio.model.lorebook import template_code
        ctx = MacroContext("Ann", "Bob", seed=1)
        for name, made in {HOSTILE_TEXTS!r}.items():
            text = eval(made)
            start = time.perf_counter()
            resolve(text, ctx); unknown_macros(text); template_code(text); macro_notes({{"description": text}})
            print(round(time.perf_counter() - start, 3), name)
    """)
    lines = out.splitlines()
    assert len(lines) == len(HOSTILE_TEXTS)
    for line in lines:
        assert float(line.split()[0]) < 5.0, line  # the first took 30 s at 3,000 spaces (cubic); all well under 1 s
    assert took < 30


def test_macros_still_read_as_before():
    from studio.model.macros import MacroContext, resolve, unknown_macros

    ctx = MacroContext("Ann", "Bob", seed=1)
    text = ("Hi {{ char }}, I'm {{user}}.{{// a note }} <% if (x) { %>hidden<% } %>{{setvar::a::b}} "
            "{{roll: 1d1+2 }} {{weird}} {{if x}}gone{{/if}} <% never closed")
    assert resolve(text, ctx) == "Hi Ann, I'm Bob.  3 {{weird}} gone <% never closed"
    assert unknown_macros("{{weird}} {{roll:x}} {{ weird }} {{weird}}") == ["{{weird}}", "{{roll:x}}", "{{ weird }}"]


# -- the same two through a real run ------------------------------------------------------------------------------


def _tea(tmp_path: Path, key: str, prompt: str) -> Path:
    (tmp_path / "characters").mkdir()
    (tmp_path / "plays").mkdir()
    shutil.copy(ROOT / "characters" / "sasha_interviewer.toml", tmp_path / "characters")
    (tmp_path / "characters" / "lin.toml").write_text(f"name = \"Lin\"\nprompt = {json.dumps(prompt)}\n")
    book = {"entries": [{"keys": [key, "kettle"], "content": "The kettle was her mother's.", "enabled": True,
                         "insertion_order": 100, "extensions": {}}]}
    (tmp_path / "plays" / "world.json").write_text(json.dumps(book))
    play = tmp_path / "plays" / "tea.toml"
    play.write_text('title = "Tea"\nseed = 5\nturns = 2\nepilogue = false\nlorebooks = ["world.json"]\n\n'
                    '[cast.ego]\ncharacter = "lin"\n\n[[cast.others]]\ncharacter = "sasha_interviewer"\n')
    return play


def test_a_run_with_a_hostile_key_and_sheet_plays_in_seconds_in_bounded_memory(tmp_path):
    play = _tea(tmp_path, "/a{999999999}/", "You are Lin, who keeps a tea house. {{" + " " * 6_000 + ".")
    start = time.perf_counter()
    done = _studio_limited("run", play, "--model", "scripted", db=tmp_path / "s.db", cwd=tmp_path, seconds=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert time.perf_counter() - start < 60  # the key took gigabytes and the sheet minutes a turn


# -- other programs' databases ------------------------------------------------------------------------------------


def _foreign(path: Path, version: int = 7, owner: int = 0) -> bytes:
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE songs (id INTEGER PRIMARY KEY, title TEXT)")
    conn.execute("INSERT INTO songs (title) VALUES ('la')")
    conn.execute(f"PRAGMA user_version={version}")
    conn.execute(f"PRAGMA application_id={owner}")
    conn.commit()
    conn.close()
    return path.read_bytes()


@pytest.mark.parametrize("command", [["runs"], ["show", "1"], ["run", "plays/interview.toml", "--model", "scripted"]])
def test_another_programs_database_is_refused_without_a_byte_changed(tmp_path, command):
    db = tmp_path / "music.db"
    before = _foreign(db)
    message = bad(studio(*command, db=db), str(db), "another program's SQLite database", "songs", "--db")
    assert "newer studio" not in message
    assert db.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == ["music.db"]  # no journal, no write-ahead log


def test_a_newer_studios_store_is_refused_unchanged(tmp_path):
    from studio.store.schema import APPLICATION_ID

    db = tmp_path / "s.db"
    before = _foreign(db, version=7, owner=APPLICATION_ID)
    bad(studio("runs", db=db), "newer studio", "upgrade")
    assert db.read_bytes() == before


def test_a_file_that_is_not_sqlite_is_refused_unchanged(tmp_path):
    db = tmp_path / "notes.db"
    db.write_text("my notes\n" * 500)
    bad(studio("runs", db=db), "not an SQLite database", "--db")
    assert db.read_text() == "my notes\n" * 500


@pytest.mark.parametrize("what", ["a device", "a folder", "a pipe"])
def test_a_store_that_is_not_a_file_is_refused_by_what_it_is(tmp_path, what):
    db = {"a device": Path("/dev/null"), "a folder": tmp_path, "a pipe": tmp_path / "pipe.db"}[what]
    if what == "a pipe":
        os.mkfifo(db)
    bad(studio("run", ROOT / "plays" / "interview.toml", "--model", "scripted", "--turns", "1", db=db),
        str(db), f"is {what}, not a file", "--db")


def test_a_store_an_older_studio_made_is_opened_and_given_its_id(tmp_path):
    from studio.store import Store
    from studio.store.schema import APPLICATION_ID

    db = tmp_path / "s.db"
    store = Store(db)
    store.create_run("Old", "p.toml", "{}", {})
    store.conn.execute("PRAGMA application_id=0")  # as stores were before the id was written
    store.close()
    assert studio("runs", "--all", db=db).returncode == 0
    assert sqlite3.connect(db).execute("PRAGMA application_id").fetchone()[0] == APPLICATION_ID


def test_a_studio_store_still_gains_new_tables_on_open(tmp_path):
    from studio.store import Store

    store = Store(tmp_path / "s.db")
    store.keep_table("CREATE TABLE IF NOT EXISTS later_notes (id INTEGER PRIMARY KEY, body TEXT);", "later_notes",
                     (("kind", "TEXT"),))
    store.close()
    again = Store(tmp_path / "s.db")
    assert {r[1] for r in again.conn.execute("PRAGMA table_info(later_notes)")} == {"id", "body", "kind"}
    again.close()


def test_a_new_store_and_its_folder_are_the_playwrights_alone(tmp_path):
    db = tmp_path / "private" / "s.db"
    assert studio("run", ROOT / "plays" / "interview.toml", "--model", "scripted", "--turns", "1", db=db).returncode == 0
    assert stat.S_IMODE(db.stat().st_mode) == 0o600
    assert stat.S_IMODE(db.parent.stat().st_mode) == 0o700
    from studio.store import Store

    store = Store(db)  # while it is open, its write-ahead files exist: the same mode
    for extra in ("s.db-wal", "s.db-shm"):
        assert stat.S_IMODE((db.parent / extra).stat().st_mode) == 0o600, extra
    store.close()


# -- a full disk ------------------------------------------------------------------------------------------------


def test_a_full_disk_says_so_and_loses_nothing(store):
    from studio.store import StoreTrouble

    run = store.create_run("Full", "p.toml", "{}", {})
    first = store.append(run, None, "stage", "The first line.")
    pages = store.conn.execute("PRAGMA page_count").fetchone()[0]
    store.conn.execute(f"PRAGMA max_page_count={pages}")
    with pytest.raises(StoreTrouble) as caught:
        for n in range(200):  # a page or two holds a few lines; the rest does not fit
            store.append(run, store.head(run), "stage", f"Line {n}. " + "x" * 3_000)
    assert "disk is full" in str(caught.value) and "nothing saved was lost" in str(caught.value)
    assert "resume" in caught.value.fix
    kept = store.take(run)
    assert kept[0] == first and store.head(run) == kept[-1].id  # the head is a line that was saved
    store.conn.execute("PRAGMA max_page_count=1073741823")  # space freed: it goes on
    store.append(run, store.head(run), "stage", "After the space was freed.")
    assert store.conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_run_on_a_full_disk_ends_with_one_message_and_resumes(tmp_path):
    db = tmp_path / "s.db"
    play = ROOT / "plays" / "interview.toml"
    assert studio("run", play, "--model", "scripted", "--turns", "1", db=db).returncode == 0
    saved = studio("show", "1", "--json", "--all", db=db).stdout
    size = db.stat().st_size
    done = _studio_limited("run", play, "--model", "scripted", "--turns", "6", db=db, file_size=size + 12_000)
    assert done.returncode == 2, done.stdout[-1000:] + done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "no transaction is active" not in done.stderr
    assert "disk" in done.stderr and "nothing saved was lost" in done.stderr, done.stderr
    assert "not a studio database" not in done.stderr
    assert "studio resume 2" in done.stderr  # the run it was playing, named
    assert studio("show", "1", "--json", "--all", db=db).stdout == saved  # the first run is untouched
    resumed = studio("resume", "2", db=db)
    assert resumed.returncode == 0, resumed.stderr
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_the_lab_on_a_full_disk_ends_with_one_message(tmp_path):
    experiment = tmp_path / "dilemma.toml"
    experiment.write_text('kind = "pd"\nmodel = "scripted"\nreps = 3\nconcurrency = 2\n[pd]\n'
                          'groups = ["cooperative", "competitive"]\npartners = ["always_defect", "tit_for_tat_c"]\n')
    db = tmp_path / "s.db"
    assert studio("runs", db=db).returncode == 0
    done = _studio_limited("lab", "run", experiment, db=db, file_size=db.stat().st_size + 150_000)
    assert done.returncode == 2, done.stderr[-2000:]
    assert "Traceback" not in done.stderr and "disk" in done.stderr and "fix:" in done.stderr
    again = studio("lab", "run", experiment, db=db)  # space freed: the experiment is played to its end
    assert again.returncode == 0, again.stderr
    assert sqlite3.connect(db).execute("PRAGMA integrity_check").fetchone()[0] == "ok"


# -- read-only and damaged stores ---------------------------------------------------------------------------------


def _as_reader(tmp_path: Path, read_only_folder: bool):
    """A store this test's user can read but not write, and how to run the studio on it. Permissions do not
    stop root, so as root the command runs without the capabilities that pass them by (setpriv)."""
    folder = tmp_path / "store"
    db = folder / "s.db"
    assert studio("run", ROOT / "plays" / "interview.toml", "--model", "scripted", "--turns", "1", db=db).returncode == 0
    out = tmp_path / "out"
    out.mkdir()
    os.chmod(db, 0o444)
    if read_only_folder:
        os.chmod(folder, 0o555)
    prefix: list[str] = []
    if os.geteuid() == 0:
        if shutil.which("setpriv") is None:
            pytest.skip("as root, a read-only file needs setpriv to be read-only")
        prefix = ["setpriv", "--bounding-set", "-dac_override,-dac_read_search"]

    def run(*args):
        return subprocess.run([*prefix, *STUDIO, *map(str, args)], capture_output=True, text=True, cwd=ROOT,
                              timeout=120, env=_env(db))

    def cleanup() -> None:
        os.chmod(folder, 0o700)
        os.chmod(db, 0o600)
    return db, out, run, cleanup


@pytest.mark.parametrize("read_only_folder", [False, True], ids=["read-only file", "read-only folder"])
def test_a_read_only_store_is_read_and_refuses_writes_with_what_happened(tmp_path, read_only_folder):
    db, out, run, cleanup = _as_reader(tmp_path, read_only_folder)
    try:
        before = db.read_bytes()
        listed = run("runs")
        assert listed.returncode == 0 and "Interview" in listed.stdout, listed.stderr
        shown = run("show", "1")
        assert shown.returncode == 0 and "SASHA" in shown.stdout.upper(), shown.stderr
        exported = run("export", "1", "--format", "fountain", "--out", out / "one.fountain")
        assert exported.returncode == 0, exported.stderr
        for command in (["run", ROOT / "plays" / "interview.toml", "--model", "scripted", "--turns", "1"],
                        ["archive", "1"], ["rename", "1", "Renamed"], ["delete", "1", "--yes"]):
            refused = run(*command)
            assert refused.returncode == 2, (command, refused.stdout + refused.stderr)
            assert "read-only" in refused.stderr and "not a studio database" not in refused.stderr, refused.stderr
            assert "Traceback" not in refused.stderr and "fix:" in refused.stderr, refused.stderr
        assert db.read_bytes() == before
    finally:
        cleanup()


def _damaged(tmp_path: Path) -> Path:
    db = tmp_path / "s.db"
    play = ROOT / "plays" / "interview.toml"
    assert studio("run", play, "--model", "scripted", "--turns", "3", db=db).returncode == 0
    data = bytearray(db.read_bytes())
    page = 4096
    for at in range(2 * page, len(data), page):  # every page past the schema's: the header stays readable
        data[at] = 0xFF  # not a kind of page SQLite knows
        data[at + 100: at + 400] = b"\xa5" * 300  # and garbage where its rows were
    db.write_bytes(bytes(data))
    return db


def test_a_damaged_store_refuses_writes_and_says_how_to_recover(tmp_path):
    db = _damaged(tmp_path)
    before = db.read_bytes()
    for command in (["run", ROOT / "plays" / "interview.toml", "--model", "scripted", "--turns", "1"],
                    ["show", "1"], ["runs"], ["resume", "1"], ["delete", "1", "--yes"]):
        done = studio(*command, db=db)
        assert "Traceback" not in done.stderr, (command, done.stderr)
        if done.returncode != 0:
            assert done.returncode == 2, (command, done.stderr)
            assert "damaged" in done.stderr and ".recover" in done.stderr, (command, done.stderr)
    assert db.read_bytes() == before
    assert studio("run", ROOT / "plays" / "interview.toml", "--model", "scripted", db=db).returncode == 2


# -- the rest of the round's cases ----------------------------------------------------------------------------------


def test_ctrl_d_at_the_delete_question_keeps_the_run(tmp_path):
    db = tmp_path / "s.db"
    assert studio("run", ROOT / "plays" / "interview.toml", "--model", "scripted", "--turns", "1", db=db).returncode == 0
    leader, follower = pty.openpty()
    try:
        process = subprocess.Popen([*STUDIO, "delete", "1"], stdin=follower, stdout=subprocess.PIPE,
                                   stderr=subprocess.PIPE, text=True, env=_env(db), cwd=ROOT)
        os.close(follower)
        follower = -1
        time.sleep(0.5)
        os.write(leader, b"\x04")  # Ctrl-D: end of input
        out, err = process.communicate(timeout=60)
    finally:
        if follower >= 0:
            os.close(follower)
        os.close(leader)
    assert process.returncode == 0, err
    assert "Traceback" not in err and "EOFError" not in err
    assert "kept" in out
    assert studio("show", "1", db=db).returncode == 0


def test_a_report_is_never_written_into_a_pipe(tmp_path):
    fifo = tmp_path / "report.csv"
    os.mkfifo(fifo)
    experiment = tmp_path / "dilemma.toml"
    experiment.write_text('kind = "pd"\nmodel = "scripted"\nreps = 1\n')
    done = subprocess.run([*STUDIO, "lab", "report", experiment, "--format", "csv", "--out", fifo,
                           "--db", tmp_path / "s.db"], capture_output=True, text=True, env=_env(), cwd=ROOT,
                          timeout=60)
    bad(done, str(fifo), "--out", "pipe")


def test_a_direction_is_a_short_note(tmp_path):
    db = tmp_path / "s.db"
    assert studio("run", ROOT / "plays" / "interview.toml", "--model", "scripted", "--turns", "1", db=db).returncode == 0
    events = len(json.loads("[" + ",".join(studio("show", "1", "--json", "--all", db=db).stdout.split("\n")[:-1]) + "]"))
    bad(studio("continue", "1", "2", "--direction", "x" * 100_000, db=db), "--direction", "4,000")
    again = studio("show", "1", "--json", "--all", db=db).stdout
    assert len(again.split("\n")[:-1]) == events  # nothing stored
    from studio.engine.steer import Direction

    with pytest.raises(ValueError):
        Direction("x" * 5_000)


@pytest.mark.parametrize("code", [400, 401, 403])
def test_a_providers_echo_of_a_masked_key_is_not_shown_through_the_real_road(monkeypatch, code):
    import asyncio

    from stub_server import Status, StubServer

    from studio.llm.gateway import CallContext, CallSettings, Gateway, ModelError

    monkeypatch.setenv("OPENAI_API_KEY", "sk-proj-" + "k" * 40 + "wxyz")  # refused; the provider echoes its end
    echo = "Incorrect API key provided: sk-proj-************************************wxyz. You can find yours"
    with StubServer([Status(code, body=echo)], max_requests=3, lifetime=30) as server:
        settings = CallSettings(model="openai/stub", temperature=0.4, max_tokens=20, timeout=20,
                                api_base=server.url, retries=0)
        with pytest.raises(ModelError) as caught:
            asyncio.run(Gateway(backoff=0.01).complete(settings, [{"role": "user", "content": "Hi."}],
                                                       CallContext(role="other", task="line", character="Jenny",
                                                                   scene=1, turn=1)))
    said = str(caught.value)
    assert "wxyz" not in said and "kkkk" not in said, said
    if "Incorrect API key" in said:  # the provider's words are shown: its key is not
        assert "***" in said, said


def test_a_providers_masked_key_is_not_echoed():
    from studio.clean import redact_secrets
    from studio.llm.faults import scrub

    echoed = "Incorrect API key provided: sk-proj-********************************wxyz. You can find your key"
    for said in (scrub(echoed), redact_secrets(echoed), redact_secrets("bad key sk-...wxyz given")):
        assert "wxyz" not in said and "***" in said, said
    assert redact_secrets("wait... then the ***bold*** word") == "wait... then the *** word"


def test_an_experiments_model_is_a_models_name(tmp_path):
    experiment = tmp_path / "dilemma.toml"
    experiment.write_text(f'kind = "pd"\nmodel = "{"m" * 300}"\nreps = 1\n')
    bad(studio("lab", "run", experiment, "--db", tmp_path / "s.db"), str(experiment), "model", "200")
