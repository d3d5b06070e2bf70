"""The form protocol: facts fold in order, rule seats answer without a model, a play names its form."""

from __future__ import annotations

import pytest

from studio.engine.forms import Form, Reply, fold_facts
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
    from conftest import make_cast

    cast = make_cast(turns=2, epilogue=False, strategies=[])
    others = [r.model_copy(update={"rule": "listens"}) if r.kind == "other" else r for r in cast.roles]
    engine = engine_for(turns=2, epilogue=False, strategies=[])
    engine.cast = cast.model_copy(update={"roles": others})
    await engine.play_to_end()
    assert ("other", "speak") not in gateway.tasks()
    ruled = [e for e in engine.path if e.origin == "rule"]
    assert len(ruled) == 2 and all(e.kind == ev.DIRECTION and e.text == "Sasha listens." for e in ruled)


def test_an_unknown_form_or_rule_in_a_play_file_is_named(tmp_path):
    from studio.engine.forms import load_play
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


# The worked example of docs/forms.md, kept running here so the guide cannot rot.
COINS = """
from dataclasses import dataclass, field
from studio.engine.forms.base import Form, Reply, fold_facts, rule
from studio.engine.forms.base import Step
from studio.store import events as ev

@dataclass
class CoinState:
    cast: object
    scene: int = 1
    turn: int = 0
    finished: bool = False
    facts: dict = field(default_factory=dict)
    humans: set = field(default_factory=set)
    waiting: str = "ego"          # whose move is next this round

class Coins(Form):                 # each round both say "heads" or "tails"; matching scores the ego a point
    name = "coins"
    def new_state(self, cast): return CoinState(cast)
    def fold(self, state, event):
        fold_facts(state.facts, event)
        if event.kind == ev.STAGE and event.role == state.waiting:
            if state.waiting == "ego":
                state.waiting = "other"
            else:
                state.turn += 1
                state.waiting = "ego"
                state.finished = state.turn >= state.cast.play.turns
    def next_step(self, state):
        return None if state.finished else Step(ev.STAGE, "move", state.waiting, 1, state.turn + 1)
    def messages(self, state, path, by_id, step, role):
        return [{"role": "system", "content": role.sheet.prompt},
                {"role": "user", "content": "Say heads or tails, one word."}]
    def read(self, state, step, role, text):
        move = "tails" if "tail" in text.lower() else "heads"   # lenient: anything else reads as heads
        return Reply(move, data={"facts": {f"move.{role.key}.{step.turn}": move}})
    def present(self, state, kind, role, data): return ["ego", "other"]
    def ends_turn(self, state, done): return done[-1].role == "other"

@rule("copy_last")                 # the partner copies the ego's last move: no model call
def copy_last(state, step, role):
    return state.facts.get(f"move.ego.{step.turn}", "heads")
"""


async def test_the_guides_worked_example_runs_with_a_rule_partner(engine_for, gateway, store):
    from studio.engine import Engine
    from studio.engine.forms import FORMS, RULES
    from conftest import make_cast

    space: dict = {}
    exec(COINS, space)
    FORMS["coins"] = space["Coins"]
    try:
        cast = make_cast(turns=3)
        roles = [r.model_copy(update={"rule": "copy_last"}) if r.kind == "other" else r for r in cast.roles]
        cast = cast.model_copy(update={"play": cast.play.model_copy(update={"form": "coins"}), "roles": roles})
        engine = Engine.create(store, cast, {}, gateway=gateway)
        await engine.play_to_end()
    finally:
        FORMS.pop("coins")
        RULES.pop("copy_last")
    assert gateway.tasks() == [("ego", "move")] * 3  # the partner never called a model
    moves = [(e.role, e.text, e.origin) for e in engine.path]
    assert all(m[1] in ("heads", "tails") for m in moves)
    assert [m[1] for m in moves[0::2]] == [m[1] for m in moves[1::2]]  # the rule copied each move
    assert {m[2] for m in moves[1::2]} == {"rule"}
    assert engine.state.facts["move.other.3"] == moves[-1][1]
