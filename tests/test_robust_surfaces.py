"""The newer surfaces under bad input and interruption: ensembles, experiment tables, facts, typed lines,
votes. Every case ends with one message and exit 2 (or the right behaviour), never a traceback."""

from __future__ import annotations

import pytest

from conftest import ROOT
from test_cli import bad, studio, workdir  # noqa: F401  (fixture)

INTERVIEW = ROOT / "plays" / "interview.toml"


def test_ctrl_c_in_the_middle_of_a_streamed_line_marks_it_unsaved(tmp_path, monkeypatch):
    from studio.present import terminal

    shown = terminal.StagePrinter.token
    pieces: list[str] = []

    def token(self, step, piece):
        shown(self, step, piece)
        pieces.append(piece)
        if len(pieces) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(terminal.StagePrinter, "token", token)
    result = studio("run", INTERVIEW, "--model", "scripted", db=tmp_path / "s.db")
    assert result.returncode == 130
    half = "".join(pieces)
    line = next(row for row in result.stdout.splitlines() if half.strip() and half.strip() in row)
    assert "not saved" in line  # the half line itself says it was never kept
    assert studio("show", "1", db=tmp_path / "s.db").stdout.count(half.strip()) == 0


def _ask(api_base):
    import asyncio

    from studio.llm import CallContext, CallSettings, Gateway

    settings = CallSettings(model="openai/stub", temperature=0.2, max_tokens=20, api_base=api_base, retries=0)
    ctx = CallContext(role="other", task="line", character="Jenny")
    return asyncio.run(Gateway(backoff=0.001).complete(settings, [{"role": "user", "content": "Speak."}], ctx))


def test_credentials_in_an_address_reach_the_server_as_a_header():
    import base64

    from stub_server import Reply, StubServer

    with StubServer([Reply("Here I am.")], max_requests=3, lifetime=30) as server:
        address = server.url.replace("http://", "http://reader:hunter2secret@")
        assert _ask(address).text == "Here I am."
        sent = {k.lower(): v for k, v in server.headers[0].items()}
    assert sent["authorization"] == "Basic " + base64.b64encode(b"reader:hunter2secret").decode()


def test_a_key_in_an_address_query_is_never_stored_or_printed(workdir):
    from stub_server import Reply, StubServer

    with StubServer([Reply("Tell me where you grew up.")], max_requests=20, lifetime=60) as server:
        sheet = workdir / "characters" / "jenny.toml"
        sheet.write_text(f'api_base = "{server.url}?key=SECRETVALUE99"\nmodel = "openai/stub"\n' + sheet.read_text())
        play = workdir / "plays" / "interview.toml"
        play.write_text(play.read_text().replace("turns = 10", "turns = 1"))
        db = workdir / "s.db"
        run = studio("run", play, db=db)
        assert run.returncode == 0, run.stderr
        assert server.requests  # the call was made, to the address with its key
    dump = b"".join(p.read_bytes() for p in workdir.glob("s.db*"))
    assert b"SECRETVALUE99" not in dump
    for command in (["show", "1", "--json", "--all"], ["runs", "--json"], ["show", "1"]):
        out = studio(*command, db=db)
        assert "SECRETVALUE99" not in out.stdout + out.stderr


def test_a_refused_address_never_echoes_its_key(tmp_path):
    path = tmp_path / "pd.toml"
    path.write_text('kind = "pd"\nmodel = "openai/stub"\nendpoints = ["http//host/v1?key=SECRETVALUE99"]\n')
    result = studio("lab", "run", path, db=tmp_path / "s.db")
    bad(result)
    assert "SECRETVALUE99" not in result.stderr + result.stdout


def _process(*args, db, stdin: bytes = b""):
    import os
    import subprocess

    from conftest import STUDIO

    environment = {**os.environ, "LITELLM_LOCAL_MODEL_COST_MAP": "True", "STUDIO_DB": str(db)}
    done = subprocess.run([*STUDIO, *map(str, args)], input=stdin, capture_output=True, env=environment, cwd=ROOT,
                          timeout=180)
    return done.returncode, done.stdout.decode("utf-8", "replace"), done.stderr.decode("utf-8", "replace")


@pytest.mark.parametrize("typed", [
    b"I grew up \x1b]0;owned\x07by the sea.\x1b[2J\n",
    b"I grew up \xff\xfe by the sea.\n",
    b"\xc3 by the sea\n",
])
def test_a_typed_line_is_stored_clean_and_every_show_is_safe(workdir, typed):
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text().replace("turns = 10", "turns = 2"))
    db = workdir / "s.db"
    code, out, err = _process("run", play, "--model", "scripted", "--role", "ego=human", db=db, stdin=typed * 4)
    assert code == 0 and "Traceback" not in err, err
    for command in (["show", "1"], ["show", "1", "--json", "--all"]):
        code, out, err = _process(*command, db=db)
        assert code == 0, err
        assert "\x1b" not in out and "by the sea" in out  # the line kept, its control gone


FIRST_SCENE = 'on_stage = ["Ines", "Tomas", "Marit"]\n\n[[scenes]]\nbrief = "Open'


@pytest.mark.parametrize("change, words", [
    ('on_stage = ["Nobody"]', ["scenes[0].on_stage", "'Nobody' is not a character", "Ines"]),
    ("on_stage = []", ["scenes[0].on_stage", "nobody on stage"]),
    ('on_stage = ["Ines"]\nexit = { Ines = 1 }', ["scenes[0].exit", "everyone has left after turn 1"]),
    ('on_stage = ["Ines", "Tomas"]\nenter = { Nobody = 1 }', ["scenes[0].enter", "'Nobody'"]),
    ('on_stage = ["Ines", "Tomas"]\nexit = { Nobody = 1 }', ["scenes[0].exit", "'Nobody'"]),
])
def test_a_scene_that_names_nobody_or_empties_the_stage_is_refused(workdir, change, words):
    play = workdir / "plays" / "last_crossing.toml"
    text = play.read_text()
    assert FIRST_SCENE in text
    play.write_text(text.replace(FIRST_SCENE, FIRST_SCENE.replace('on_stage = ["Ines", "Tomas", "Marit"]', change), 1))
    bad(studio("run", play, "--model", "scripted", db=workdir / "s.db"), str(play), *words)


def test_a_human_turn_policy_asks_the_playwright_who_speaks(workdir):
    play = workdir / "plays" / "last_crossing.toml"
    text = play.read_text().replace('next = "moderator"', 'next = "human"').replace("turns = 6", "turns = 2")
    play.write_text(text.replace("[[scenes]]", "[[scenes_]]", 0))
    db = workdir / "s.db"
    result = studio("run", play, "--model", "scripted", "--scenes", "1", db=db, input="Nobody\nmarit\n\n")
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert "Who speaks next?" in result.stdout
    assert "Nobody is not on stage" in result.stdout  # asked again, not forfeited
    assert "MARIT" in result.stdout  # the pick took
