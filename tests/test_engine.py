"""The turn pipeline as the paper describes it, on the scripted model."""

from __future__ import annotations

import pytest

from studio.engine import Engine, EngineError, NeedsHuman
from studio.engine.forms.base import Step
from studio.llm import scripted
from studio.store import events as ev

ONE_TURN_ALL = [
    ("other", "speak"),
    ("superego", "rewrite_speech"),
    ("ego", "draft"),
    ("superego", "critique"),
    ("ego", "revise"),
]


def kinds(engine):
    return [e.kind for e in engine.path]


async def test_one_turn_with_every_strategy_runs_in_the_papers_order(engine_for, gateway):
    engine = engine_for(turns=1, epilogue=False)
    await engine.play_turn()
    assert gateway.tasks() == ONE_TURN_ALL
    assert kinds(engine) == [ev.SCENE, ev.STAGE, ev.REWRITE_SPEECH, ev.DRAFT, ev.CRITIQUE, ev.STAGE]
    other_line, ego_line = engine.stage()[1], engine.stage()[2]
    assert other_line.character == "Sasha" and ego_line.character == "Jenny"
    assert "(scripted)" in ego_line.text
    assert engine.finished


@pytest.mark.parametrize(
    "strategy, expected",
    [
        ("rewrite_speech", [("other", "speak"), ("superego", "rewrite_speech"), ("ego", "speak")]),
        ("critique", [("other", "speak"), ("ego", "draft"), ("superego", "critique"), ("ego", "revise")]),
        ("rewrite_prompt", [("other", "speak"), ("ego", "speak"), ("superego", "rewrite_prompt")]),
        (None, [("other", "speak"), ("ego", "speak")]),
    ],
)
async def test_each_strategy_alone(engine_for, gateway, strategy, expected):
    engine = engine_for(turns=5, epilogue=False, strategies=[strategy] if strategy else [])
    # the interview rewrites the prompt every 5 turns: play to turn 5 and look at it
    for _ in range(5):
        await engine.play_turn()
    fifth = [c for c in gateway.calls if c[0].turn == 5]
    assert [(c.role, c.task) for c, _ in fifth] == expected


async def test_the_ego_hears_the_rewritten_line_and_never_the_original(engine_for, gateway):
    engine = engine_for(turns=2, epilogue=False)
    await engine.play_to_end()
    said = [e for e in engine.path if e.kind == ev.STAGE and e.role == "other"]
    heard = [e for e in engine.path if e.kind == ev.REWRITE_SPEECH]
    assert len(said) == len(heard) == 2
    assert all(h.data["source"] == s.id for s, h in zip(said, heard))
    ego_view = "\n".join(gateway.shown(role="ego"))
    for line in said:
        assert line.text not in ego_view
    for line in heard:
        assert line.text in ego_view


async def test_the_other_never_sees_drafts_critiques_or_rewrites(engine_for, gateway):
    engine = engine_for(turns=6, epilogue=False)
    await engine.play_to_end()
    other_view = "\n".join(gateway.shown(role="other"))
    backstage = [e for e in engine.path if e.is_backstage]
    assert {e.kind for e in backstage} == {ev.REWRITE_SPEECH, ev.DRAFT, ev.CRITIQUE, ev.REWRITE_PROMPT}
    for event in backstage:
        assert event.text not in other_view
    # what the ego actually said reaches the other
    for line in [e for e in engine.path if e.kind == ev.STAGE and e.role == "ego"][:-1]:
        assert line.text in other_view


async def test_backstage_never_appears_on_stage(engine_for):
    engine = engine_for(turns=5)
    await engine.play_to_end()
    stage = engine.stage()
    assert stage and all(not e.is_backstage for e in stage)
    stage_text = "\n".join(e.text for e in stage)
    for event in engine.path:
        if event.is_backstage and event.kind != ev.DRAFT:
            assert event.text not in stage_text


async def test_the_critique_reaches_the_revision_and_kept_draft_is_recorded(engine_for, gateway):
    engine = engine_for(turns=2, epilogue=False, strategies=["critique"])
    scripted.queue("I will keep this line.", task="draft")
    scripted.queue("I will keep this line.", task="revise")
    await engine.play_to_end()
    critiques = [e for e in engine.path if e.kind == ev.CRITIQUE]
    revise_views = gateway.shown(task="revise")
    assert critiques[0].text in revise_views[0]
    ego_lines = [e for e in engine.path if e.kind == ev.STAGE and e.role == "ego"]
    assert ego_lines[0].data["kept_draft"] is True
    assert ego_lines[1].data["kept_draft"] is False


async def test_every_backstage_event_is_linked_to_the_line_it_shaped(engine_for):
    engine = engine_for(turns=5, epilogue=False)
    await engine.play_to_end()
    ego_lines = [e for e in engine.path if e.kind == ev.STAGE and e.role == "ego"]
    linked = {i for line in ego_lines for i in line.shaped_by}
    backstage = {e.id for e in engine.path if e.is_backstage}
    # the last prompt rewrite (after the final turn) has no line left to shape
    last_rewrite = [e.id for e in engine.path if e.kind == ev.REWRITE_PROMPT][-1]
    assert backstage - {last_rewrite} <= linked
    first = ego_lines[0]
    assert [e.kind for e in engine.backstage_for(first.id)] == [
        ev.REWRITE_SPEECH,
        ev.DRAFT,
        ev.CRITIQUE,
    ]


async def test_a_small_models_rewritten_character_begins_with_that_characters_name(engine_for, gateway):
    # asked to rewrite Jenny, a 135M model wrote "You are Sasha, ...": Jenny's prompt then named her the interviewer
    engine = engine_for(turns=3, epilogue=False, strategies=["rewrite_prompt"])
    engine.cast.superego.rewrite_prompt.every = 2
    engine.cast.role("superego").small = True
    engine.reload()
    streamed: list[str] = []
    engine.token_listeners.append(lambda step, piece: streamed.append(piece) if step.task == "rewrite_prompt" else None)
    scripted.queue(" a clerk who counts what she keeps.", task="rewrite_prompt")
    await engine.play_to_end()
    rewrite = next(e for e in engine.path if e.kind == ev.REWRITE_PROMPT)
    assert rewrite.text == "You are Jenny, a clerk who counts what she keeps."
    assert rewrite.data["opening"] == "You are Jenny,"
    assert "".join(streamed).startswith("You are Jenny, a clerk")  # shown as it is written, opening first
    ego_systems = [m[0]["content"] for c, m in gateway.calls if c.role == "ego" and c.turn == 3]
    assert ego_systems and ego_systems[0].startswith("You are Jenny, a clerk who counts what she keeps.")
    assert engine.form.opening(engine.state, Step(ev.REWRITE_PROMPT, "rewrite_prompt", "superego", 1, 3),
                               engine.cast.role("superego").model_copy(update={"small": False})) is None


async def test_a_prompt_rewrite_takes_effect_on_the_next_turn(engine_for, gateway):
    engine = engine_for(turns=3, epilogue=False, strategies=["rewrite_prompt"])
    engine.cast.superego.rewrite_prompt.every = 2
    engine.reload()
    scripted.queue("You are Jenny, newly careful: you weigh every word.", task="rewrite_prompt")
    await engine.play_to_end()
    ego_systems = [(c.turn, m[0]["content"]) for c, m in gateway.calls if c.role == "ego"]
    assert "newly careful" not in ego_systems[0][1]  # turn 1
    assert "newly careful" not in ego_systems[1][1]  # turn 2: the rewrite comes after its line
    assert ego_systems[2][0] == 3 and "newly careful" in ego_systems[2][1]
    rewrite = next(e for e in engine.path if e.kind == ev.REWRITE_PROMPT)
    assert "Jenny" in rewrite.data["replaces"]
    third = [e for e in engine.path if e.kind == ev.STAGE and e.role == "ego"][2]
    assert third.data["prompt_event"] == rewrite.id and rewrite.id in third.shaped_by


async def test_a_wholly_italic_line_is_a_direction_for_any_character(engine_for):
    engine = engine_for(turns=1, epilogue=False, strategies=["rewrite_speech"])
    scripted.queue("*Sasha slides the recorder closer.*", task="speak", role="other")
    await engine.play_to_end()
    first = engine.stage()[1]
    assert first.kind == ev.DIRECTION and first.text == "Sasha slides the recorder closer."
    # a direction is not speech: the superego has nothing to rewrite
    assert not any(e.kind == ev.REWRITE_SPEECH for e in engine.path)


async def test_director_opens_every_scene_and_the_epilogue_ends_the_run(engine_for, gateway):
    engine = engine_for("detective.toml", turns=1)
    await engine.play_to_end()
    stage = engine.stage()
    assert [e.kind for e in stage if e.kind in (ev.SCENE, ev.DIRECTION)] == [ev.SCENE, ev.DIRECTION] * 3
    assert stage[-1].kind == ev.EPILOGUE and stage[-1].character == "Timothy"
    directions = [c for c, _ in gateway.calls if c.task == "direct"]
    assert [c.scene for c in directions] == [1, 2, 3]
    last_direct = [m for c, m in gateway.calls if c.task == "direct"][-1]
    assert "last scene" in last_direct[-1]["content"]
    epilogue_view = gateway.shown(task="epilogue")[0]
    assert "inner voice" in epilogue_view


async def test_rewind_keeps_the_old_take_and_a_new_step_branches(engine_for, store):
    engine = engine_for(turns=4, epilogue=False)
    for _ in range(3):
        await engine.play_turn()
    old_third = [e for e in engine.stage() if e.turn == 3]
    engine.rewind(1)
    assert max(e.turn for e in engine.stage()) == 2
    assert engine.state.turn == 2
    await engine.play_turn()
    new_third = [e for e in engine.stage() if e.turn == 3]
    assert new_third[0].id != old_third[0].id
    assert len(store.tips(engine.run_id)) == 2
    everything = {e.id for e in store.events(engine.run_id)}
    assert {e.id for e in old_third} <= everything
    assert [e.id for e in engine.takes(new_third[0].id)] == [old_third[0].id, new_third[0].id]
    engine.choose_take(old_third[0].id)
    assert engine.stage()[-1].id == old_third[-1].id


async def test_override_branches_and_the_superego_rewrites_the_humans_line(engine_for, gateway, store):
    engine = engine_for(turns=3, epilogue=False)
    await engine.play_turn()
    await engine.play_turn()
    second_other = next(e for e in engine.stage() if e.turn == 2 and e.role == "other")
    answer = engine.stage()[-1]
    replaced = engine.override(second_other.id, "Tell me about your father's garage.")
    assert replaced.origin == "override" and replaced.data["override_of"] == second_other.id
    # the lines after it are kept as written: Jenny's answer is copied, not asked again
    assert engine.stage()[-1].text == answer.text and engine.stage()[-1].data["kept"] == answer.id
    assert second_other.id not in engine.by_id and store.event(second_other.id).text == second_other.text
    engine.rewind_to(replaced.id)  # replay from the edited line
    await engine.play_turn()
    rewrite = engine.path[engine.path.index(replaced) + 1]
    assert rewrite.kind == ev.REWRITE_SPEECH and rewrite.data["source"] == replaced.id
    assert "Tell me about your father's garage." in gateway.shown(task="rewrite_speech")[-1]


async def test_a_human_role_waits_for_its_line(engine_for):
    engine = engine_for(turns=2, epilogue=False, roles={"ego": "human"})
    with pytest.raises(NeedsHuman) as waiting:
        await engine.play_turn()
    assert waiting.value.role.name == "Jenny"
    assert engine.path[-1].kind == ev.REWRITE_SPEECH  # the line she will hear is ready
    await engine.play_turn(lambda pending: "Which father? I had two: the one at home and the one at church.")
    line = engine.stage()[-1]
    assert line.origin == "human" and line.text.startswith("Which father?")


async def test_take_over_and_release_mid_run(engine_for):
    engine = engine_for(turns=3, epilogue=False)
    await engine.play_turn()
    engine.take_over("other")
    answered = []

    async def sasha(pending):
        answered.append(pending.role.key)
        return "What did the kitchen smell like?"

    await engine.play_turn(sasha)
    assert answered == ["other"]
    engine.release("other")
    await engine.play_turn(sasha)
    assert answered == ["other"]
    lines = [e for e in engine.stage() if e.role == "other"]
    assert [e.origin for e in lines] == ["model", "human", "model"]
    # the switches are in the log, so they survive a reopen
    assert Engine(engine.store, engine.run_id, gateway=engine.gateway).state.humans == set()


async def test_switching_a_strategy_off_mid_scene(engine_for, gateway):
    engine = engine_for(turns=3, epilogue=False)
    await engine.play_turn()
    engine.switch_strategy("critique", False)
    await engine.play_turn()
    assert [t for c, t in [(c.turn, c.task) for c, _ in gateway.calls] if c == 2] == [
        "speak",
        "rewrite_speech",
        "speak",
    ]


async def test_a_playwrights_note_reaches_the_next_turn(engine_for, gateway):
    engine = engine_for(turns=2, epilogue=False)
    await engine.play_turn()
    engine.note("Jenny should mention the red bicycle.")
    await engine.play_turn()
    turn2 = [m for c, m in gateway.calls if c.turn == 2 and c.role == "other"]
    assert "red bicycle" in turn2[0][0]["content"]


async def test_a_model_that_gives_up_leaves_an_error_event_and_the_run_resumable(engine_for):
    engine = engine_for(turns=1, epilogue=False, strategies=[])
    for _ in range(4):
        scripted.queue("!error:500", task="speak", role="other")
    with pytest.raises(EngineError):
        await engine.play_turn()
    assert engine.path[-1].kind == ev.ERROR and "scripted" in engine.path[-1].text.lower()
    assert engine.pending().step.task == "speak"  # still the other's turn
    await engine.play_to_end()
    assert engine.finished and [e.kind for e in engine.stage()] == [ev.SCENE, ev.STAGE, ev.STAGE]


async def test_usage_is_recorded_per_call(engine_for):
    engine = engine_for(turns=1, epilogue=False)
    await engine.play_to_end()
    calls = [e for e in engine.path if e.origin == "model"]
    assert calls and all(e.usage.get("completion_tokens", 0) > 0 for e in calls)
    assert all(e.settings["model"] == "scripted" for e in calls)
    assert engine.usage()["calls"] == len(calls)


async def test_a_model_writing_the_rest_of_the_play_is_cut_to_its_own_line(engine_for):
    engine = engine_for(turns=1, epilogue=False, strategies=[])
    scripted.queue('Jenny: "The kettle knew before we did."\n\nSasha: And then?\nJenny: Nothing.', task="speak", role="ego")
    await engine.play_to_end()
    assert engine.stage()[-1].text == "The kettle knew before we did."


async def _heads_by_turn(engine, turns):
    """Play `turns` turns; the head after each, the take's ids after each."""
    heads, takes = [engine.head], [[e.id for e in engine.path]]
    for _ in range(turns):
        await engine.play_turn()
        heads.append(engine.head)
        takes.append([e.id for e in engine.path])
    return heads, takes


@pytest.mark.parametrize("back", [1, 2, 3, 4])
async def test_a_rewind_of_n_turns_leaves_exactly_the_turns_before_them(engine_for, back):
    engine = engine_for(turns=6, epilogue=False)
    heads, takes = await _heads_by_turn(engine, 5)
    assert engine.rewind(back) == heads[5 - back]
    assert engine.head == heads[5 - back]
    assert [e.id for e in engine.path] == takes[5 - back]
    assert engine.state.turn == 5 - back
    engine.reload()  # the run as reopened agrees with the engine that rewound it
    assert [e.id for e in engine.path] == takes[5 - back]


async def test_a_rewind_over_a_note_and_a_switch_at_the_head_still_takes_a_whole_turn(engine_for):
    """Notes and controls written after a turn are not a turn: a rewind goes past them and takes the turn
    before them, and the switch still holds (the controls are kept apart from the take)."""
    engine = engine_for(turns=6, epilogue=False)
    heads, takes = await _heads_by_turn(engine, 3)
    engine.note("Slower here.")
    engine.switch_strategy("critique", False)
    assert engine.path[-1].kind == ev.CONTROL and engine.path[-2].kind == ev.NOTE
    engine.rewind(1)
    assert engine.head == heads[2] and [e.id for e in engine.path] == takes[2]
    assert not engine.state.strategy_on("critique")


async def test_a_switch_between_turns_is_a_boundary_and_the_next_rewind_takes_the_turn_before_it(engine_for):
    engine = engine_for(turns=6, epilogue=False)
    heads, _ = await _heads_by_turn(engine, 2)
    switch = engine.switch_strategy("critique", False)
    await engine.play_turn()
    engine.rewind(1)
    assert engine.head == switch.id  # turn 3 gone, the switch made before it kept
    engine.rewind(1)
    assert engine.head == heads[1] and max(e.turn for e in engine.stage()) == 1
    assert not engine.state.strategy_on("critique")


async def test_a_rewind_of_more_turns_than_were_played_empties_the_take_and_the_play_starts_again(engine_for):
    engine = engine_for(turns=4, epilogue=False)
    await _heads_by_turn(engine, 2)
    assert engine.rewind(10) is None
    assert engine.path == [] and engine.head is None
    await engine.play_turn()
    assert [e.kind for e in engine.path][:2] == [ev.SCENE, ev.STAGE] and engine.state.turn == 1


async def test_a_rewind_of_the_first_turn_takes_its_scene_heading_too(engine_for):
    engine = engine_for(turns=4, epilogue=False)
    await engine.play_turn()
    assert engine.rewind(1) is None and engine.path == []
