"""Ensemble scenes: any cast, who speaks next, entrances and exits, and each character's lens."""

from __future__ import annotations

import asyncio
import tempfile
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings, strategies as st

from studio.engine import Engine, NeedsPick
from studio.store import Store, events as ev
from conftest import RecordingGateway, make_cast

PLAY = "last_crossing.toml"
SPEECH = ("speak", "draft", "revise", "critique", "rewrite_speech", "rewrite_prompt", "epilogue")


def lines(engine):
    return [e for e in engine.path if e.kind in (ev.STAGE, ev.DIRECTION)]


async def test_the_third_play_runs_with_picks_exits_entrances_and_two_inner_voices(engine_for, gateway):
    engine = engine_for(PLAY)
    await engine.play_to_end()
    assert engine.finished
    speakers = {e.character for e in engine.path if e.kind == ev.STAGE}
    assert speakers >= {"Ines", "Tomas", "Marit", "Oskar"}
    picks = [e for e in engine.path if e.kind == ev.PICK]
    assert picks and all(e.role == "moderator" and e.data["pick"] and e.data["reason"] for e in picks)
    moves = [e.text for e in engine.path if e.data.get("task") == "stage_move"]
    assert moves == ["Tomas leaves.", "Oskar enters."]
    voices = {e.role for e in engine.path if e.is_backstage and e.kind not in (ev.PICK, ev.DRAFT)}
    assert voices == {"c1.voice", "c2.voice"}
    # each picked speaker is the one who then speaks
    for pick in picks:
        after = next(e for e in engine.path if e.id > pick.id and e.kind in (ev.STAGE, ev.DRAFT, ev.DIRECTION))
        assert after.role == pick.data["pick"]


async def test_an_absent_character_learns_nothing_of_the_scene(engine_for, gateway):
    engine = engine_for(PLAY)
    await engine.play_to_end()
    scene_one = [e for e in lines(engine) if e.scene == 1]
    oskar_saw = "\n".join(gateway.shown(task="speak") + gateway.shown(task="draft"))
    oskar_calls = ["\n".join(m["content"] for m in msgs) for c, msgs in gateway.calls if c.character == "Oskar"]
    assert oskar_calls
    for event in scene_one:
        assert all(event.text not in call for call in oskar_calls), event.text
    assert any(scene_one[0].text in call for call in [oskar_saw])  # the others did hear it


async def test_the_playwright_picks_moves_and_switches_policy_as_events(engine_for):
    engine = engine_for(PLAY, turns=3)
    await engine.step()  # the scene opens
    engine.switch_policy("human")
    with pytest.raises(NeedsPick) as asked:
        await engine.play_turn()
    assert set(asked.value.choices) == {"Ines", "Tomas", "Marit"}
    with pytest.raises(ValueError, match="not on stage"):
        engine.pick("Oskar")
    engine.stage_move("Oskar", enter=True)
    engine.pick("Oskar")
    await engine.play_turn()
    assert lines(engine)[-1].character == "Oskar"
    assert "c4" in lines(engine)[-1].data["present"]
    engine.reload()  # all of it was events
    assert engine.state.policy == "human" and "c4" in engine.state.on_stage


@settings(max_examples=12, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    policy=st.sampled_from(["round_robin", "mentions", "moderator", "alternate", "random"]),
    ops=st.lists(
        st.one_of(
            st.just(("turn", "")),
            st.tuples(st.sampled_from(["enter", "exit"]), st.sampled_from(["Ines", "Tomas", "Marit", "Oskar"])),
        ),
        min_size=1,
        max_size=14,
    ),
)
def test_no_event_reaches_the_prompt_of_a_character_absent_when_it_happened(policy, ops):
    from studio.llm import scripted

    scripted.reset()
    with tempfile.TemporaryDirectory() as tmp:
        store = Store(Path(tmp) / "p.db")
        gateway = RecordingGateway()
        cast = make_cast(PLAY, turns=4)
        cast = cast.model_copy(update={"play": cast.play.model_copy(update={"next": policy})})
        engine = Engine.create(store, cast, {}, gateway=gateway)

        async def run():
            for op, name in ops:
                if engine.finished:
                    break
                if op == "turn":
                    try:
                        await engine.play_turn()
                    except NeedsPick:
                        pass
                else:
                    try:
                        engine.stage_move(name, enter=op == "enter")
                    except ValueError:
                        pass

        asyncio.run(run())
        names = {r.name: r.key for r in cast.roles if r.kind == "other"}
        for ctx, messages in gateway.calls:
            if ctx.task not in SPEECH:
                continue
            # an inner voice sees through its character's eyes
            owner = ctx.character if ctx.character in names else None
            if owner is None:
                voice = next(r for r in cast.roles if r.name == ctx.character)
                owner = cast.role(voice.key.split(".")[0]).name
            key = names[owner]
            shown = "\n".join(m["content"] for m in messages)
            everything = [e for e in engine.store.events(engine.run_id) if e.kind in (ev.STAGE, ev.DIRECTION)]
            # a text also said where this character was ("Tomas leaves." twice) may rightly be shown
            seen = {e.text for e in everything if e.witnessed_by(key)}
            for event in everything:
                if not event.witnessed_by(key) and event.text not in seen:
                    assert event.text not in shown, (owner, event.text)
        store.close() if hasattr(store, "close") else None


async def test_a_character_past_its_budget_sums_up_instead_of_forgetting(engine_for, gateway):
    engine = engine_for(PLAY, turns=8)
    engine.cast = engine.cast.model_copy(
        update={"roles": [r.model_copy(update={"context_tokens": 700}) for r in engine.cast.roles]}
    )
    engine.reload()
    await engine.play_to_end()
    summaries = [e for e in engine.path if e.kind == ev.SUMMARY]
    assert summaries, "no character summed up"
    first = summaries[0]
    assert first.data["private"] == first.role and first.data["present"] == [first.role]
    assert first.origin == "model" and first.data["upto"]
    # the character's next call carries its summary in place of the lines it covers
    name = first.character
    later = [m for c, m in gateway.calls if c.character == name and c.task in ("speak", "draft")
             and c.turn >= first.turn]
    assert later
    shown = "\n".join(x["content"] for x in later[0])
    assert f"as {name} remembers it: {first.text}" in shown
    covered = [e for e in engine.path if e.kind == ev.STAGE and e.id <= first.data["upto"]]
    assert covered[0].text not in shown
    # nobody else is shown it
    others = [m for c, m in gateway.calls if c.character != name and c.task == "speak"]
    assert all(first.text not in "\n".join(x["content"] for x in msgs) for msgs in others)


# -- the Drama Engine's random policy and the moderator's fallback chain ----------------------------------

async def _speakers(store, gateway, policy, seed):
    cast = make_cast(PLAY, turns=6, scenes=1, epilogue=False, seed=seed)
    cast.play = cast.play.model_copy(update={"next": policy})
    engine = Engine.create(store, cast, {}, gateway=gateway)
    await engine.play_to_end()
    return engine, [e.character for e in engine.path if e.kind == ev.STAGE and e.role in engine.state.characters]


async def test_the_random_policy_draws_a_speaker_seeded_and_never_the_last_one_twice(store):
    gateway = RecordingGateway()
    engine, first = await _speakers(store, gateway, "random", seed=5)
    assert len(first) == 6 and all(a != b for a, b in zip(first, first[1:]))
    assert not [c for c, _ in gateway.calls if c.task == "pick"]          # no model decides
    _, again = await _speakers(store, RecordingGateway(), "random", seed=5)
    assert again == first                                                  # the same seed, the same order
    others = [(await _speakers(store, RecordingGateway(), "random", seed=s))[1] for s in (6, 7, 8)]
    assert any(o != first for o in others)
    rotation = (await _speakers(store, RecordingGateway(), "round_robin", seed=5))[1]
    assert first != rotation or any(o != rotation for o in others)         # not the rotation in disguise


async def test_the_moderator_is_asked_only_when_the_chain_before_it_does_not_settle_who_speaks(engine_for, gateway):
    from studio.llm import scripted
    from studio.store.events import Event

    engine = engine_for(PLAY, turns=6, scenes=1, epilogue=False)
    await engine.step()                                                    # the scene opens: all four on stage
    state = engine.state
    assert len([k for k in state.on_stage if k in state.characters]) > 2
    scripted.queue("Nobody I can name, sorry.", task="pick")               # unreadable: the last fallback
    await engine.play_turn()
    [pick] = [e for e in engine.path if e.kind == ev.PICK]
    assert "drawn at random" in pick.data["reason"] and pick.data["pick"] in state.on_stage
    # a line naming someone on stage (not its speaker) settles who answers, before any model is asked
    speaker = state.last_speaker
    named = next(k for k in state.on_stage if k in state.characters and k != speaker)
    state.other_line = Event(0, 0, None, ev.STAGE, f"Well, {state.cast.role(named).name}? Say it.", character="x")
    assert state.settled() == named and state.suggestion() == named
    # two on stage: the other one answers, and the moderator is not asked again
    for key in [k for k in state.on_stage if k in state.characters and k not in (speaker, named)]:
        engine.stage_move(state.cast.role(key).name, enter=False)
    asked = len([c for c, _ in gateway.calls if c.task == "pick"])
    for _ in range(3):
        await engine.play_turn()
    assert len([c for c, _ in gateway.calls if c.task == "pick"]) == asked
    spoken = [e.role for e in engine.path if e.kind == ev.STAGE and e.role in state.characters][-4:]
    assert all(a != b for a, b in zip(spoken, spoken[1:])) and set(spoken) == {speaker, named}
