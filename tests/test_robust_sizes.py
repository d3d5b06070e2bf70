"""Sizes and secrets: overrides follow the file's rules, nothing unreadable is saved, keys stay out."""

from __future__ import annotations

import sqlite3

import pytest

from conftest import ROOT
from test_cli import studio, workdir  # noqa: F401  (fixture)


def _runs(db) -> int:
    if not db.exists():
        return 0
    with sqlite3.connect(db) as con:
        return con.execute("SELECT count(*) FROM runs").fetchone()[0]


@pytest.mark.parametrize("flags, named", [
    (["--turns", "10001"], "--turns"),
    (["--turns", "0"], "--turns"),
    (["--scenes", "1001"], "--scenes"),
    (["--scenes", "100000000"], "--scenes"),
    (["--scenes", "-3"], "--scenes"),
    (["--seed", str(2**70)], "--seed"),
])
def test_out_of_range_overrides_are_refused_before_anything_is_saved(workdir, flags, named):
    db = workdir / "s.db"
    result = studio("run", ROOT / "plays" / "detective.toml", "--model", "scripted", *flags, db=db)
    assert result.returncode == 2, result.stdout + result.stderr
    assert named in result.stderr and "Traceback" not in result.stderr
    assert _runs(db) == 0


def test_the_largest_allowed_override_makes_a_run_every_command_reads(workdir):
    db = workdir / "s.db"
    play = workdir / "plays" / "interview.toml"
    text = play.read_text()
    play.write_text(text)
    # the bound itself is accepted, and the run it makes is readable by every later command
    run = studio("run", play, "--model", "scripted", "--turns", "10000", "--scenes", "1000",
                 "--role", "jenny=human", db=db, input="")
    assert "Traceback" not in run.stderr
    for command in (["show", "1"], ["runs"], ["export", "1", "--format", "markdown", "--out", str(workdir / "x.md")]):
        done = studio(*command, db=db)
        assert done.returncode == 0 and "Traceback" not in done.stderr, (command, done.stderr)


@pytest.mark.parametrize("field, value, fix", [
    ("prompt", "x" * 20_001, "shorten it"),
    ("description", "y" * 4001, "shorten it"),
    ("name", "N" * 101, "shorten it"),
])
def test_oversized_character_fields_are_named_and_not_echoed_whole(workdir, field, value, fix):
    sheet = workdir / "characters" / "jenny.toml"
    lines = [line for line in sheet.read_text().splitlines() if not line.startswith(f"{field} =")]
    if field == "prompt":
        text = sheet.read_text()
        start = text.index("prompt =")
        end = text.index('"""', text.index('"""', start) + 3) + 3
        sheet.write_text(text[:start] + f'prompt = "{value}"' + text[end:])
    else:
        sheet.write_text(f'{field} = "{value}"\n' + "\n".join(lines) + "\n")
    db = workdir / "s.db"
    result = studio("run", workdir / "plays" / "interview.toml", "--model", "scripted", db=db)
    assert result.returncode == 2, result.stderr
    assert f"field '{field}'" in result.stderr and fix in result.stderr
    assert len(result.stderr) < 600  # the 20,000 characters are not printed back
    assert _runs(db) == 0


def test_a_key_in_a_wrongly_typed_field_is_never_echoed(workdir):
    play = workdir / "plays" / "interview.toml"
    play.write_text(play.read_text().replace("turns = 10", 'turns = "sk-abcdefghijklmnop1234"'))
    result = studio("run", play, "--model", "scripted", db=workdir / "s.db")
    assert result.returncode == 2
    assert "sk-abcdefghijklmnop1234" not in result.stderr and "turns" in result.stderr


def test_credentials_in_an_address_are_never_stored(workdir):
    sheet = workdir / "characters" / "jenny.toml"
    secret = "hunter2secretvalue"
    sheet.write_text(f'api_base = "http://user:{secret}@127.0.0.1:9/v1"\n' + sheet.read_text())
    db = workdir / "s.db"
    # scripted ignores the address; the run and its events are stored without the secret
    run = studio("run", workdir / "plays" / "interview.toml", "--model", "scripted", "--turns", "1", db=db)
    assert run.returncode == 0, run.stderr
    dump = "\n".join(sqlite3.connect(db).iterdump())
    assert secret not in dump and "***@127.0.0.1:9" in dump
    for command in (["show", "1", "--json", "--all"], ["runs", "--json"]):
        out = studio(*command, db=db)
        assert secret not in out.stdout + out.stderr


def test_a_reopened_run_reads_the_address_again_from_the_play(workdir):
    from studio.engine import engine as engine_module
    from studio.engine.forms import load_play, resolve_cast
    from studio.store import Store

    sheet = workdir / "characters" / "jenny.toml"
    address = "http://user:hunter2secretvalue@127.0.0.1:9/v1"
    sheet.write_text(f'api_base = "{address}"\n' + sheet.read_text())
    play = workdir / "plays" / "interview.toml"
    cast = resolve_cast(load_play(play), play, model="scripted")
    store = Store(workdir / "s.db")
    engine = engine_module.Engine.create(store, cast)
    jenny = next(r for r in engine.cast.roles if r.name == "Jenny")
    assert jenny.api_base == address
    from studio.engine.credentials import ADDRESSES

    ADDRESSES.clear()  # as in a new process
    again = engine_module.Engine(store, engine.run_id)
    assert next(r for r in again.cast.roles if r.name == "Jenny").api_base == address
    # the play no longer says it: the run opens, with the address still hidden
    sheet.write_text(sheet.read_text().replace(address, "http://127.0.0.1:9/v1"))
    third = engine_module.Engine(store, engine.run_id)
    assert next(r for r in third.cast.roles if r.name == "Jenny").api_base == "http://***@127.0.0.1:9/v1"
