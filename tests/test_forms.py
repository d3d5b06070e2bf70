"""The form protocol: facts fold in order, rule seats answer without a model, a play names its form."""

from __future__ import annotations

import pytest

from studio.engine.forms import Form, Reply, fold_facts, form_for
from studio.engine.forms.drama import DramaMachine
from studio.store import events as ev
from studio.store.events import Event


def _event(i, facts):
    return Event(id=i, run_id=1, parent=i - 1 or None, kind=ev.CONTROL, text="", data={"facts": facts})


def test_facts_fold_in_order_and_none_removes_a_fact():
    facts: dict = {}
    for i, f in enumerate([{"ben.mood": "wary", "score.jenny": 1}, {"score.jenny": 5}, {"ben.mood": None}], 1):
        fold_facts(facts, _event(i, f))
    assert facts == {"score.jenny": 5}


async def test_the_shipped_plays_use_the_drama_machine_and_facts_survive_a_reload(engine_for, store):
    engine = engine_for(turns=1, epilogue=False)
    assert isinstance(engine.form, DramaMachine)
    engine._commit(ev.CONTROL, "Ben is wary.", origin="human", data={"facts": {"ben.mood": "wary"}})
    engine.reload()
    assert engine.state.facts == {"ben.mood": "wary"}


async def test_a_rule_seat_answers_without_a_model(engine_for, gateway):
    from tests.conftest import make_cast

    cast = make_cast(turns=2, epilogue=False, strategies=[])
    others = [r.model_copy(update={"rule": "listens"}) if r.kind == "other" else r for r in cast.roles]
    engine = engine_for(turns=2, epilogue=False, strategies=[])
    engine.cast = cast.model_copy(update={"roles": others})
    await engine.play_to_end()
    assert ("other", "speak") not in gateway.tasks()
    ruled = [e for e in engine.path if e.origin == "rule"]
    assert len(ruled) == 2 and all(e.kind == ev.DIRECTION and e.text == "Sasha listens." for e in ruled)


def test_an_unknown_form_or_rule_in_a_play_file_is_named(tmp_path):
    from studio.model import load_play
    from studio.model.errors import InputError

    src = (__import__("pathlib").Path(__file__).parents[1] / "plays" / "interview.toml").read_text()
    bad = tmp_path / "bad.toml"
    bad.write_text(src.replace('epilogue = true', 'epilogue = true\nform = "chess"'))
    with pytest.raises(InputError) as err:
        load_play(bad)
    assert "form" in str(err.value) and "drama_machine" in str(err.value)
    bad.write_text(src.replace('character = "sasha_interviewer"', 'character = "sasha_interviewer"\nrule = "x"'))
    with pytest.raises(InputError) as err:
        load_play(bad)
    assert "listens" in str(err.value)


def test_a_form_reads_replies_through_one_seam():
    class Coin(Form):
        name = "coin"

        def read(self, state, step, role, text):
            move = text.strip().lower()
            return Reply(move, data={"facts": {f"{role.key}.move": move}})

    reply = Coin().read(None, None, type("R", (), {"key": "a"})(), " Heads ")
    assert reply.text == "heads" and reply.data == {"facts": {"a.move": "heads"}}


async def test_a_draw_is_an_event_so_a_reload_keeps_it(engine_for):
    engine = engine_for(turns=1, epilogue=False)
    event = engine.draw("weather", ["rain", "sun", "fog"])
    assert event.kind == ev.CONTROL and event.data["facts"]["weather"] in ("rain", "sun", "fog")
    engine.reload()
    assert engine.state.facts["weather"] == event.data["facts"]["weather"]
