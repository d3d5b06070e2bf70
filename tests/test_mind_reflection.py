"""Reflection, impressions, moods and unlocks as committed events: what the next prompt carries, and replays."""

from __future__ import annotations

import json

from studio.llm import CallSettings, scripted
from studio.mind import reflection
from studio.mind.moments import (
    current_goals,
    fact_event,
    goals_by_hand,
    mind_text,
    mood_event,
    set_mood,
    unlock_by_hand,
    unlock_events,
)
from studio.mind.state import fold
from studio.model import load_character
from studio.store.events import STAGE
from conftest import ROOT

SETTINGS = CallSettings(model="scripted", temperature=0.7, max_tokens=200)
MARA = load_character(ROOT / "characters" / "mara_lighthouse.toml")


def _run(store):
    return store.create_run("Lighthouse", "plays/x.toml", "{}", {})


def _commit(store, run_id, fields):
    return store.append(run_id, store.head(run_id), **fields)


def _world(store, run_id):
    return fold(store.take(run_id))


async def test_reflection_updates_impressions_that_appear_in_the_next_prompt(store, gateway):
    run_id = _run(store)
    said = _commit(store, run_id, {"kind": STAGE, "text": "I saw the lamp go dark.", "character": "Stranger"})
    before = mind_text(MARA, _world(store, run_id).mind("Mara"), scene=1)
    assert "Stranger" not in before
    messages = reflection.messages_for("Mara", MARA.prompt, current_goals(MARA, _world(store, run_id).mind("Mara"), 1),
                                       [f"Stranger: {said.text}"], ["Stranger"], {})
    answer = await reflection.reflect(gateway, SETTINGS, "Mara", messages, scene=1, turn=6)
    fields = reflection.event_fields(answer, "Mara", ["Stranger"], scene=1, turn=6)
    event = _commit(store, run_id, fields)
    mind = _world(store, run_id).mind("Mara")
    imp = mind.impressions["Stranger"]
    assert imp.event == event.id and -5 <= imp.trust <= 5 and "wants" in imp.wants
    after = mind_text(MARA, mind, scene=1)
    assert f"Stranger: trust {imp.trust:+d}, liking {imp.liking:+d}" in after
    assert "Your last private thought: (scripted) Mara turns over" in after
    assert [c.task for c, _ in gateway.calls] == ["reflect"]
    assert "I saw the lamp go dark." in gateway.calls[0][1][1]["content"]


async def test_reflection_revises_goals_and_drops_people_never_met(store, gateway):
    run_id = _run(store)
    scripted.queue(json.dumps({
        "thoughts": "He knows about the log.",
        "impressions": [{"name": "stranger", "trust": "-3", "liking": 1, "wants": "the logbook"},
                        {"name": "Ghost", "trust": 5, "liking": 5}],
        "goals": ["Get the logbook back before dawn."],
    }), task="reflect")
    answer = await reflection.reflect(gateway, SETTINGS, "Mara", reflection.messages_for(
        "Mara", MARA.prompt, [], [], ["Stranger"], {}))
    fields = reflection.event_fields(answer, "Mara", ["Stranger"], scene=1, turn=3)
    assert fields["data"]["dropped"] == ["Ghost"]
    _commit(store, run_id, fields)
    mind = _world(store, run_id).mind("Mara")
    assert set(mind.impressions) == {"Stranger"} and mind.impressions["Stranger"].trust == -3
    assert current_goals(MARA, mind, scene=1) == ["Get the logbook back before dawn."]
    assert "Keep the lamp's failure secret." not in mind_text(MARA, mind, 1)


async def test_an_invalid_reflection_changes_nothing(gateway):
    scripted.queue('{"thoughts": "hm", "impressions": {"Stranger": {"trust": 9, "liking": 0}}}', task="reflect")
    scripted.queue("I would rather not say.", task="reflect")
    answer = await reflection.reflect(gateway, SETTINGS, "Mara", reflection.messages_for(
        "Mara", "", [], [], ["Stranger"], {}))
    assert answer.value is None and answer.error and len(answer.replies) == 2
    assert "trust" in gateway.calls[1][1][-1]["content"]  # the second ask says what was wrong
    assert reflection.event_fields(answer, "Mara", ["Stranger"], scene=1, turn=1) is None


def test_reflection_is_due_every_n_turns_and_at_scene_end():
    assert not reflection.due(0, 50, None, True)
    assert reflection.due(6, 6, None, False) and not reflection.due(6, 11, 6, False)
    assert reflection.due(6, 12, 6, False) and reflection.due(6, 7, 6, True)


def _play_scenes(store, run_id, seed, scenes):
    drawn = []
    for scene in scenes:
        fields = mood_event(MARA, "Mara", _world(store, run_id).mind("Mara"), seed=seed, scene=scene, turn=scene * 10)
        if fields:
            drawn.append(_commit(store, run_id, fields).data["mood"])
        assert mood_event(MARA, "Mara", _world(store, run_id).mind("Mara"), seed=seed, scene=scene, turn=scene * 10 + 1) is None
    return drawn


def test_seeded_mood_replays_after_rewind_and_on_another_take(store):
    run_id = _run(store)
    first = _play_scenes(store, run_id, 11, range(1, 9))
    assert len(first) == 8 and len(set(first)) == 2  # both moods come up over eight scenes
    mid = [e for e in store.take(run_id) if e.kind == "mind.mood"][3]
    store.set_head(run_id, mid.id)  # rewind to after scene 4's draw
    assert _world(store, run_id).mind("Mara").mood == first[3]
    again = _play_scenes(store, run_id, 11, range(5, 9))
    assert again == first[4:]
    other = _run(store)  # another take from the start, same seed
    assert _play_scenes(store, other, 11, range(1, 9)) == first
    assert _play_scenes(store, _run(store), 12, range(1, 9)) != first


def test_unlock_fires_on_its_keyword_only_in_presence(store):
    run_id = _run(store)
    mind = _world(store, run_id).mind("Mara")
    args = {"heard": "Who wrote the LOGBOOK that night?", "scene": 1, "turn": 3, "facts": {}}
    assert unlock_events(MARA, "Mara", mind, present=["Stranger", "Harbour master"], **args) == []
    assert unlock_events(MARA, "Mara", mind, present=["Mara"], heard="the lamp", scene=1, turn=3, facts={}) == []
    (fields,) = unlock_events(MARA, "Mara", mind, present=["Mara", "Stranger"], line_event=41, **args)
    event = _commit(store, run_id, fields)
    mind = _world(store, run_id).mind("Mara")
    assert mind.unlocked == {1: event.id} and event.data["heard_in"] == 41
    assert "She paid the harbour master" in mind_text(MARA, mind, 1)
    assert unlock_events(MARA, "Mara", mind, present=["Mara"], **args) == []  # once only


def test_fact_and_scene_conditions_read_the_world_state(store):
    run_id = _run(store)
    _commit(store, run_id, fact_event("storm", True, origin="human", scene=1, turn=2))
    world = _world(store, run_id)
    mind = world.mind("Mara")
    at = {"heard": "", "present": ["Mara"], "turn": 9, "facts": world.facts}
    assert unlock_events(MARA, "Mara", mind, scene=1, **at) == []  # scene 2 not reached
    (fields,) = unlock_events(MARA, "Mara", mind, scene=2, **at)
    assert fields["data"]["because"] == {"fact": "storm", "equals": True, "scene": 2}
    assert fold(store.take(run_id), facts={"storm": False}).facts["storm"] is True  # the event beats the play's value


def test_playwright_sets_mood_unlocks_and_edits_goals_by_hand(store):
    run_id = _run(store)
    _commit(store, run_id, set_mood(MARA, "Mara", "Sharp", scene=1, turn=2))
    _commit(store, run_id, unlock_by_hand(MARA, "Mara", 2, scene=1, turn=2))
    _commit(store, run_id, goals_by_hand("Mara", ["Leave the island.", " "], scene=1, turn=2))
    events = store.take(run_id)
    assert {e.origin for e in events} == {"human"}
    mind = _world(store, run_id).mind("Mara")
    assert mind.mood == "sharp" and mind.goals == ["Leave the island."]
    text = mind_text(MARA, mind, 1)
    assert "Your mood now: sharp (clipped, sarcastic" in text and "The harbour master has left town." in text
    assert "very orderly and dutiful" in text and "Your part in the story: the skeptic." in text
    try:
        set_mood(MARA, "Mara", "giddy", scene=1, turn=2)
    except ValueError as exc:
        assert "weary, sharp" in str(exc)
    else:
        raise AssertionError("an unknown mood was accepted")


def test_runner_turns_moments_into_events_and_cites_them_on_the_next_line(store):
    from studio.mind.runner import MindRunner

    runner = MindRunner({"Mara": MARA}, seed=3, facts={"storm": False})
    run_id = _run(store)
    present_at: dict[int, list[str]] = {}

    def say(who, text, turn, present):
        path = store.take(run_id)
        for fields in runner.moment(path, scene=1, turn=turn, present=present, heard=text):
            _commit(store, run_id, fields)
        event = _commit(store, run_id, {"kind": STAGE, "text": text, "character": who, "scene": 1, "turn": turn})
        present_at[event.id] = list(present)
        return event

    say("Stranger", "Where is the logbook kept?", 1, ["Stranger"])  # Mara is not on stage: no unlock
    assert "mind.unlock" not in {e.kind for e in store.take(run_id)}
    say("Stranger", "I asked about the logbook.", 2, ["Stranger", "Mara"])
    path = store.take(run_id)
    kinds = [e.kind for e in path]
    assert kinds.count("mind.mood") == 1 and kinds.count("mind.unlock") == 1
    shaped = runner.shaping("Mara", path)
    assert shaped["mind"] == [e.id for e in path if e.kind.startswith("mind.")]
    recalled = runner.recall("Mara", path, present_at, query="the logbook", turn=3, shown=[])
    assert [r.memory.text for r in recalled] == ["I asked about the logbook."]  # not what was said in her absence
    assert runner.recall("Mara", path, present_at, query="the logbook", turn=3, shown=[path[-1].id]) == []
    store.set_head(run_id, path[0].id)  # rewind: the index follows the take
    assert runner.recall("Mara", store.take(run_id), present_at, query="the logbook", turn=3, shown=[]) == []
    assert "She paid the harbour master" in runner.prompt_text("Mara", path, scene=1)
    assert runner.pending_scores(path, present_at) == [("Mara", path[-1])]
