import pytest
from pydantic import ValidationError

from studio.mind.rules import draw_mood, holds, memory_score, normalise, persona_text, recency
from studio.model.inner_life import Condition, Mood, Traits
from studio.model.play import CharacterSheet


def test_sheet_accepts_mind_fields_and_bounds_them():
    sheet = CharacterSheet(name="Ada", prompt="a sailor", traits={"openness": 2}, moods=[{"name": "wry"}],
                           knowledge=[{"text": "the key is lost", "when": {"keyword": "key"}}])
    assert sheet.traits.openness == 2
    with pytest.raises(ValidationError):
        CharacterSheet(name="Ada", prompt="x", traits={"openness": 3})
    with pytest.raises(ValidationError):
        CharacterSheet(name="Ada", prompt="x", moods=[{"name": f"m{i}"} for i in range(13)])


def test_persona_text_is_deterministic_and_skips_neutral_traits():
    text = persona_text(Traits(extraversion=-2, agreeableness=1), "mentor")
    assert text == "You are very reserved and quiet; somewhat warm and accommodating. Your part in the story: the mentor."
    assert persona_text(Traits(), None) == ""


def test_mood_draw_is_seeded_and_follows_weights():
    moods = [Mood(name="calm", weight=9), Mood(name="angry", weight=1)]
    assert draw_mood(moods, 7, "Ada", 2) == draw_mood(moods, 7, "Ada", 2)
    drawn = [draw_mood(moods, s, "Ada", 1).name for s in range(500)]
    assert 0.8 < drawn.count("calm") / 500 < 0.97


def test_conditions_need_all_parts():
    cond = Condition(keyword="Key", fact="door", equals="open")
    assert holds(cond, heard="where is the key?", scene=1, turn=0, facts={"door": "open"})
    assert not holds(cond, heard="where is the key?", scene=1, turn=0, facts={"door": "shut"})
    assert not holds(Condition(scene=3), heard="", scene=2, turn=9, facts={})
    with pytest.raises(ValidationError):
        Condition()


def test_memory_score_is_a_weighted_sum_so_an_unrelated_memory_still_counts():
    assert recency(10, 10) == pytest.approx(0.5) and recency(0, 10) == 1.0
    # a memory sharing no word (relevance 0) still scores on being fresh and weighty
    assert memory_score(recency=1.0, importance=1.0, relevance=0.0) == 2.0
    assert memory_score(recency=1.0, importance=0.0, relevance=0.0, weights=(0.5, 1, 1)) == 0.5
    assert list(normalise([2, 4, 6])) == [0.0, 0.5, 1.0] and list(normalise([3, 3])) == [0.5, 0.5]


def test_example_character_uses_every_mind_field():
    from pathlib import Path

    from studio.model.loading import load_character

    sheet = load_character(Path(__file__).parent.parent / "characters" / "mara_lighthouse.toml")
    assert sheet.traits.extraversion == -2 and sheet.archetype == "skeptic"
    assert [m.name for m in sheet.moods] == ["weary", "sharp"]
    assert sheet.knowledge[1].when.keyword == "logbook" and sheet.goals[1].scene == 1
    assert sheet.memory.half_life_turns == 40 and sheet.reflect_every == 6


# -- the Drama Engine's moods and conditions ------------------------------------------------------------

def test_mood_weights_under_one_are_chances_and_the_rest_is_neutral():
    from studio.mind.rules import NEUTRAL, mood_chances

    moods = [Mood(name="wry", weight=0.2), Mood(name="sad", weight=0.3)]
    assert [(m.name, c) for m, c in mood_chances(moods)] == [("wry", 0.2), ("sad", 0.3), ("neutral", 0.5)]
    drawn = [draw_mood(moods, 3, "Ada", scene) for scene in range(4000)]
    share = {name: sum(m.name == name for m in drawn) / len(drawn) for name in ("wry", "sad", "neutral")}
    assert 0.47 < share["neutral"] < 0.53 and 0.18 < share["wry"] < 0.22 and 0.27 < share["sad"] < 0.33
    assert all(m is NEUTRAL for m in drawn if m.name == "neutral")
    # summing over 1 they are relative weights: normalised, never neutral
    heavy = [Mood(name="calm", weight=3), Mood(name="sharp", weight=1)]
    assert [c for _, c in mood_chances(heavy)] == [0.75, 0.25]
    assert not any(draw_mood(heavy, 3, "Ada", scene).name == "neutral" for scene in range(500))


def test_a_neutral_draw_is_an_event_that_leaves_the_prompt_without_a_mood():
    from studio.mind.moments import mind_text, mood_event
    from studio.mind.state import MindState

    sheet = CharacterSheet(name="Ada", prompt="x", moods=[{"name": "wry", "weight": 0.01, "voice": "dry"}])
    events = [mood_event(sheet, "Ada", MindState(), seed=1, scene=s, turn=0) for s in range(1, 40)]
    neutral = [e for e in events if e["data"]["mood"] is None]
    assert neutral and neutral[0]["text"] == "Ada is in no particular mood"
    state = MindState(mood=None, mood_at=(1, 0))
    assert "mood" not in mind_text(sheet, state, 1)
    assert "Your mood now: wry" in mind_text(sheet, MindState(mood="wry", mood_voice="dry"), 1)


def test_conditions_have_upper_bounds_exclusive_as_the_drama_engines():
    window = Condition(turn=3, turn_max=6)
    assert [holds(window, heard="", scene=1, turn=t, facts={}) for t in range(2, 8)] == [False, True, True, True,
                                                                                         False, False]
    early = Condition(keyword="lamp", scene_max=2)
    assert holds(early, heard="the lamp", scene=1, turn=9, facts={})
    assert not holds(early, heard="the lamp", scene=2, turn=9, facts={})


def test_conditions_count_interactions_and_keywords_heard():
    from studio.mind.rules import Tally

    tally = Tally(spoken=4, heard_from={"ben": 2}, keywords={"lamp": 2})
    assert holds(Condition(interactions=4), heard="", scene=1, turn=1, facts={}, tally=tally)
    assert not holds(Condition(interactions=5), heard="", scene=1, turn=1, facts={}, tally=tally)
    assert not holds(Condition(interactions_max=4), heard="", scene=1, turn=1, facts={}, tally=tally)
    assert holds(Condition(interactions=2, partner="Ben"), heard="", scene=1, turn=1, facts={}, tally=tally)
    assert not holds(Condition(interactions=3, partner="Ben"), heard="", scene=1, turn=1, facts={}, tally=tally)
    assert holds(Condition(keyword="Lamp", times=2), heard="nothing now", scene=1, turn=1, facts={}, tally=tally)
    assert not holds(Condition(keyword="lamp", times=3), heard="lamp", scene=1, turn=1, facts={}, tally=tally)


@pytest.mark.parametrize("fields, says", [
    ({"times": 2}, "keyword"),
    ({"partner": "Ben", "turn": 1}, "interactions"),
    ({"turn": 5, "turn_max": 5}, "turn_max"),
    ({"interactions": 3, "interactions_max": 2}, "interactions_max"),
])
def test_a_condition_that_cannot_mean_anything_is_refused_with_its_fix(fields, says):
    with pytest.raises(ValidationError, match=says):
        Condition(**fields)


def test_the_runner_counts_lines_spoken_heard_and_keywords_on_the_path():
    from studio.mind.runner import MindRunner
    from studio.store.events import Event

    ada = CharacterSheet(name="Ada", prompt="x", knowledge=[
        {"text": "the lamp failed", "when": {"keyword": "lamp", "times": 3}},
        {"text": "Ben can be trusted", "when": {"interactions": 2, "partner": "Ben"}},
        {"text": "too late to tell", "when": {"interactions": 1, "interactions_max": 2}}])
    ben = CharacterSheet(name="Ben", prompt="y")
    runner = MindRunner({"Ada": ada, "Ben": ben}, seed=1)
    lines = [("Ben", "The lamp, the lamp."), ("Ada", "What of it?"), ("Ben", "Only that LAMP again.")]
    path = [Event(i + 1, 1, i or None, "stage", text, character=who, scene=1, turn=i + 1)
            for i, (who, text) in enumerate(lines)]
    tally = runner.tally(path, "Ada")
    assert (tally.spoken, tally.heard_from, tally.keywords) == (1, {"ben": 2}, {"lamp": 3})
    unlocked = [e["data"]["knowledge"] for e in runner.moment(path, scene=1, turn=4, present=["Ada", "Ben"],
                                                               who=["Ada"])]
    assert unlocked == ["the lamp failed", "Ben can be trusted", "too late to tell"]
    assert [e["data"]["knowledge"] for e in runner.moment(path[:1], scene=1, turn=2, present=["Ada", "Ben"],
                                                          who=["Ada"])] == []
