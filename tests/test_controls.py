"""The playwright's controls belong to the run: rewinds, regenerates and take switches keep them."""

from __future__ import annotations

import pytest

from studio.engine import EngineError
from studio.llm import scripted
from studio.store import events as ev


async def test_a_rewind_keeps_a_take_over_and_a_strategy_switch_made_later(engine_for):
    engine = engine_for(turns=4, epilogue=False)
    await engine.play_turn()
    await engine.play_turn()
    engine.take_over("other")
    engine.switch_strategy("critique", False)
    engine.rewind(2)
    assert engine.state.is_human("other")
    assert not engine.state.strategy_on("critique")
    engine.reload()  # a reopened run agrees
    assert engine.state.is_human("other") and not engine.state.strategy_on("critique")


async def test_a_regenerate_and_a_take_switch_keep_the_current_controls(engine_for, gateway):
    engine = engine_for(turns=3, epilogue=False)
    await engine.play_turn()
    first_ego = [e for e in engine.path if e.role == "ego" and e.kind == ev.STAGE][-1]
    engine.switch_strategy("rewrite_speech", False)
    engine.switch_strategy("critique", False)
    new = await engine.regenerate(first_ego.id)
    assert new.id != first_ego.id
    engine.choose_take(first_ego.id)  # back to the first take, made before the switches
    assert not engine.state.strategy_on("critique")
    gateway.calls.clear()
    await engine.play_turn()
    assert ("superego", "critique") not in gateway.tasks() and ("superego", "rewrite_speech") not in gateway.tasks()


async def test_a_failed_regenerate_leaves_the_run_where_it_was(engine_for):
    engine = engine_for(turns=2, epilogue=False, strategies=[])
    await engine.play_to_end()
    head, stage = engine.head, [e.id for e in engine.stage()]
    other = [e for e in engine.path if e.role == "other"][0]
    for _ in range(4):
        scripted.queue("!error:500", task="speak", role="other")
    with pytest.raises(EngineError):
        await engine.regenerate(other.id)
    assert engine.head == head and [e.id for e in engine.stage()] == stage
    engine.reload()
    assert engine.head == head and engine.finished


async def test_moving_the_head_in_memory_gives_the_state_a_fresh_reopen_gives(engine_for, store):
    from studio.engine import Engine

    def same(a, b):
        left = {k: v for k, v in vars(a.state).items() if k != "cast"}
        right = {k: v for k, v in vars(b.state).items() if k != "cast"}
        assert left == right
        assert [e.id for e in a.path] == [e.id for e in b.path]

    engine = engine_for("last_crossing.toml", turns=30)
    await engine.play_to_end()
    tip = engine.head
    for turns in (1, 3, 20, 41):  # across checkpoints (one per 64 events)
        engine.rewind(turns)
        same(engine, Engine(store, engine.run_id, gateway=object()))
        engine.choose_take(tip)
        same(engine, Engine(store, engine.run_id, gateway=object()))
    line = [e for e in engine.path if e.kind == ev.STAGE][-10]
    await engine.regenerate(line.id)
    same(engine, Engine(store, engine.run_id, gateway=object()))
    engine.rewind_to(None)
    same(engine, Engine(store, engine.run_id, gateway=object()))


async def test_a_role_held_in_another_window_is_never_asked_here_and_its_hold_is_replayed(store, engine_for, gateway):
    from studio.engine import Engine, HeldElsewhere
    from studio.store.leases import holder_name, window_name

    engine = engine_for(turns=4, epilogue=False)
    await engine.play_turn()
    there = Engine(store, engine.run_id, gateway=gateway)
    there.holder, engine.holder = holder_name(), holder_name()
    for window in (there, engine):
        store.hold(engine.run_id, window.holder)
    there.take_over("other")
    engine.reload()
    asked = []
    with pytest.raises(HeldElsewhere, match=f"Sasha \\(other\\) is played by {window_name(there.holder)}"):
        await engine.play_turn(human=lambda pending: asked.append(pending) or "Mine.")
    with pytest.raises(ValueError, match=f"played by {window_name(there.holder)}: only that window"):
        engine.take_over("other")
    with pytest.raises(ValueError, match="only that window"):
        engine.release("other")
    engine.rewind(1)  # who holds a role is a control: kept across a rewind and a reopen
    engine.reload()
    assert engine.holders() == {"other": there.holder} and asked == []
    store.let_go(engine.run_id, there.holder)  # that window has gone without handing the role back
    await engine.play_turn(human=lambda pending: asked.append(pending) or "Mine.")
    assert asked == [] and "other" not in engine.humans()
    freed = [e for e in engine.path if e.kind == ev.CONTROL][-1]
    assert freed.text == f"Sasha (other) goes back to the model: {window_name(there.holder)} has gone."
    assert [e for e in engine.stage() if e.role == "other"][-1].origin == "model"


def test_every_key_that_changes_the_stage_says_so_in_the_table():
    """In a run another window plays, these keys ask first (studio/tui/screens/shared.py); keys that only
    look, move the selection or arrange the panes never ask."""
    from studio.tui.controls import MAIN

    changing = {c.id for c in MAIN if c.changes_stage}
    assert {"step", "play", "rewind", "regenerate", "continue-line", "take-previous", "take-next", "edit-line",
            "note", "insert-after", "insert-before", "cut-line", "move-up", "move-down", "undo", "redo"} <= changing
    assert not changing & {"search", "jump", "diff-takes", "view-as", "toggle-stage", "critiques", "export"}
