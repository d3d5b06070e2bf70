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
