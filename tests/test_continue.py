"""Continuing a line: the model goes on from where a spoken line stopped, as a new take of that line."""

from __future__ import annotations

import pytest
from conftest import settings_seen

from studio.llm import scripted
from studio.store import StoreError
from studio.store import events as ev

pytestmark = pytest.mark.asyncio


async def test_a_continued_line_is_a_new_take_that_goes_on_from_the_old_text(engine_for, gateway, store):
    engine = engine_for(turns=3)
    await engine.play_turn()
    line = engine.stage()[-1]
    assert line.kind == ev.STAGE and line.role == "ego"
    seen = settings_seen(gateway)
    streamed: list[str] = []
    engine.token_listeners.append(lambda step, token: streamed.append(token))
    calls = len(gateway.calls)
    new = await engine.continue_line(line.id)
    # asked once, as the line itself was (same step, same history), with the line so far to go on from
    assert len(gateway.calls) == calls + 1
    assert gateway.calls[-1][0].task == gateway.calls[calls - 1][0].task
    assert seen[-1].prefill == line.text
    # the new line is the old text and then more, said to be the understudy's
    assert new.text.startswith(line.text) and len(new.text) > len(line.text)
    assert "(scripted)" in new.text[len(line.text):] and "goes on" in new.text
    # and it streamed as one line: the old text first, then what was added
    assert "".join(streamed).startswith(line.text)
    # a sibling of the old line: both are takes, the new one followed
    assert new.parent == line.parent and new.id != line.id
    assert new.data["continues"] == line.id
    assert [t.id for t in engine.takes(line.id)] == [line.id, new.id]
    assert engine.stage()[-1].id == new.id
    # kept in the store, so a reopened run replays it exactly
    assert store.event(new.id).text == new.text and store.event(new.id).data["continues"] == line.id
    # rewind, then each take comes back whole
    engine.rewind(1)
    engine.choose_take(line.id)
    assert engine.stage()[-1].text == line.text
    engine.choose_take(new.id)
    assert engine.stage()[-1].text == new.text
    # the next turn plays on from the continued line
    await engine.play_turn()
    assert new.id in engine.by_id


async def test_the_scripted_continuation_is_the_same_every_time(engine_for):
    first = engine_for(turns=3)
    await first.play_turn()
    one = await first.continue_line(first.stage()[-1].id)
    second = engine_for(turns=3)
    await second.play_turn()
    two = await second.continue_line(second.stage()[-1].id)
    assert one.text == two.text


async def test_continuing_an_older_line_branches_like_a_regenerate(engine_for):
    engine = engine_for(turns=3)
    await engine.play_turn()
    await engine.play_turn()
    other = next(e for e in engine.path if e.kind == ev.STAGE and e.role == "other" and e.turn == 2)
    old_head = engine.head
    scripted.queue(" And the door stays shut.", task="speak", role="other")
    new = await engine.continue_line(other.id)
    assert new.text == other.text + " And the door stays shut."
    assert new.parent == other.parent and engine.head == new.id
    # what followed the old line stays with the old take
    engine.choose_take(other.id)
    assert engine.head == old_head


async def test_a_model_that_goes_on_mid_word_is_joined_without_a_space(engine_for):
    engine = engine_for(turns=3)
    await engine.play_turn()
    line = engine.stage()[-1]
    scripted.queue("!", task=None, role="ego")
    new = await engine.continue_line(line.id)
    assert new.text == line.text + "!"


async def test_only_a_spoken_line_can_be_continued(engine_for):
    engine = engine_for(turns=3)
    await engine.play_turn()
    note = engine.note("Faster, please.")
    heading = next(e for e in engine.path if e.kind == ev.SCENE)
    critique = next(e for e in engine.path if e.kind == ev.CRITIQUE)
    head = engine.head
    for event, word in ((heading, "scene heading"), (note, "note"), (critique, "critique")):
        with pytest.raises(StoreError, match=f"{word}.*only a character's spoken line can be continued"):
            await engine.continue_line(event.id)
        assert engine.head == head


async def test_a_failed_continuation_leaves_the_run_where_it_was(engine_for):
    engine = engine_for(turns=3)
    await engine.play_turn()
    line = engine.stage()[-1]
    head = engine.head
    scripted.queue("!error:400", task=None, role="ego")
    from studio.engine import EngineError

    with pytest.raises(EngineError):
        await engine.continue_line(line.id)
    assert engine.head == head and engine.stage()[-1].id == line.id
