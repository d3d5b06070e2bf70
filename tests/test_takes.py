"""Steering a take (a directed regenerate) and naming, starring and picking takes."""

from __future__ import annotations

import json

import pytest

from studio.store import StoreError
from studio.store import events as ev
from studio.store.takes import marks, name_take, resolve_take, star_take
from conftest import settings_seen
from test_cli import studio

pytestmark = pytest.mark.asyncio


async def test_a_directed_regenerate_steers_one_new_take_and_keeps_the_note(engine_for, gateway, store):
    engine = engine_for(turns=3)
    await engine.play_turn()
    await engine.play_turn()
    other = next(e for e in engine.path if e.kind == ev.STAGE and e.role == "other" and e.turn == 2)
    seen = settings_seen(gateway)
    calls_before = len(gateway.calls)
    new = await engine.regenerate(other.id, direction="angrier; she lies here", temperature=1.7)
    # the model was asked once, with the note and the temperature
    assert len(gateway.calls) == calls_before + 1
    assert "The playwright's direction for this line: angrier; she lies here" in gateway.calls[-1][1][-1]["content"]
    assert seen[-1].temperature == 1.7
    # a new take of that line, with the note kept in it; the old take is still there
    assert new.parent == other.parent and new.id != other.id
    assert new.data["direction"] == {"note": "angrier; she lies here", "temperature": 1.7}
    assert new.settings["temperature"] == 1.7
    assert [t.id for t in engine.takes(other.id)] == [other.id, new.id]
    # the direction is for that take only: the next step is played as the cast says
    await engine.play_turn()
    assert seen[-1].temperature != 1.7
    assert all("direction for this line" not in m["content"] for m in gateway.calls[-1][1])
    # and it survives a reopen of the run from the store
    assert store.event(new.id).data["direction"]["note"] == "angrier; she lies here"


async def test_the_scripted_voice_writes_each_take_of_a_line_anew_and_the_same_take_alike_in_every_run(engine_for):
    async def three_takes():
        engine = engine_for(turns=3)
        await engine.play_turn()
        await engine.play_turn()
        line = next(e for e in engine.path if e.kind == ev.STAGE and e.role == "other" and e.turn == 2)
        await engine.regenerate(line.id)
        await engine.regenerate(line.id)
        return [t.text for t in engine.takes(line.id)]

    first = await three_takes()
    assert len(set(first)) == 3, first  # a new take is a new line, not the old one again
    assert all(text.startswith("(scripted)") for text in first), first
    assert "take" not in first[0] and ", take 2:" in first[1] and ", take 3:" in first[2], first
    assert await three_takes() == first  # another run of the same play writes the same takes


async def test_a_bad_temperature_is_refused_before_the_run_moves(engine_for):
    engine = engine_for(turns=2)
    await engine.play_turn()
    head = engine.head
    line = engine.stage()[-1]
    with pytest.raises(ValueError, match="out of range"):
        await engine.regenerate(line.id, direction="x", temperature=3.0)
    assert engine.head == head


async def test_takes_are_named_starred_and_found_by_name(engine_for, store):
    engine = engine_for(turns=3)
    await engine.play_turn()
    await engine.play_turn()
    line = engine.stage()[-1]
    first_head = engine.head
    new = await engine.regenerate(line.id)
    await engine.play_turn()
    name_take(store, new.id, "the quiet one")
    star_take(store, new.id)
    assert marks(store, engine.run_id)[new.id].starred and marks(store, engine.run_id)[new.id].name == "the quiet one"
    star_take(store, new.id)  # a toggle
    assert not marks(store, engine.run_id)[new.id].starred
    engine.choose_take(line.id)
    assert engine.head == first_head
    # the name leads to the newest end of its branch, wherever the run's head is now
    assert resolve_take(store, engine.run_id, "the quiet one") == store.tips(engine.run_id)[-1]
    with pytest.raises(StoreError, match="already has a take called"):
        name_take(store, line.id, "the quiet one")
    with pytest.raises(StoreError, match="no take called 'loud'.*the quiet one"):
        resolve_take(store, engine.run_id, "loud")
    with pytest.raises(StoreError, match="cannot name a take"):
        name_take(store, line.id, "12")


async def test_show_and_export_pick_a_take_by_name(engine_for, store, tmp_path):
    engine = engine_for(turns=2)
    await engine.play_turn()
    line = engine.stage()[-1]
    new = engine.override(line.id, "I was never there.")
    name_take(store, new.id, "denial")
    engine.choose_take(line.id)  # the current take is the other one again
    db = store.path
    shown = studio("show", engine.run_id, "--take", "denial", db=db)
    assert shown.returncode == 0, shown.stderr
    assert "I was never there." in shown.stdout
    current = studio("show", engine.run_id, db=db)
    assert "I was never there." not in current.stdout
    as_json = studio("show", engine.run_id, "--take", "denial", "--json", db=db)
    assert json.loads(as_json.stdout.splitlines()[-1])["id"] == new.id
    out = tmp_path / "denial.fountain"
    exported = studio("export", engine.run_id, "--take", "denial", "--out", out, db=db)
    assert exported.returncode == 0, exported.stderr
    assert "I was never there." in out.read_text()
    missing = studio("export", engine.run_id, "--take", "bravado", db=db)
    assert missing.returncode == 2
    assert "--take" in missing.stderr and "denial" in missing.stderr and "Traceback" not in missing.stderr
