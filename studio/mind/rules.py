"""Deterministic rules: traits to prompt text, seeded moods, unlock conditions, memory scoring."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from studio.mind.sheet import ARCHETYPES, Condition, Mood, Traits

_TRAIT_WORDS = {
    "openness": ("attached to the familiar", "curious and drawn to new ideas"),
    "conscientiousness": ("careless and impulsive", "orderly and dutiful"),
    "extraversion": ("reserved and quiet", "outgoing and talkative"),
    "agreeableness": ("blunt and contrary", "warm and accommodating"),
    "neuroticism": ("calm under pressure", "anxious and easily shaken"),
}


def persona_text(traits: Traits | None, archetype: str | None) -> str:
    """Same sheet, same words: a replay must build the same prompt."""
    parts: list[str] = []
    if traits is not None:
        for name, (low, high) in _TRAIT_WORDS.items():
            value = getattr(traits, name)
            if value:
                degree = "very " if abs(value) == 2 else "somewhat "
                parts.append(degree + (high if value > 0 else low))
    text = ("You are " + "; ".join(parts) + ".") if parts else ""
    if archetype:
        role = f"the {archetype}" if archetype in ARCHETYPES else archetype
        text = (text + " " if text else "") + f"Your part in the story: {role}."
    return text


def draw_mood(moods: Sequence[Mood], seed: int, character: str, scene: int, turn: int = 0) -> Mood | None:
    """Seeded by run, character and moment, so a rewind draws the same mood again."""
    if not moods:
        return None
    rng = random.Random(f"{seed}:{character}:{scene}:{turn}")
    return rng.choices(list(moods), weights=[m.weight for m in moods], k=1)[0]


def holds(cond: Condition, *, heard: str, scene: int, turn: int, facts: Mapping[str, object]) -> bool:
    said = heard.casefold()
    if cond.keyword is not None and cond.keyword.casefold() not in said:
        return False
    if cond.keywords is not None and not any(k.casefold() in said for k in cond.keywords):
        return False
    if cond.scene is not None and scene < cond.scene:
        return False
    if cond.turn is not None and turn < cond.turn:
        return False
    if cond.fact is not None and facts.get(cond.fact) != cond.equals:
        return False
    return True


def memory_score(*, age_turns: float, half_life: float, importance: float, relevance: float) -> float:
    """score = 0.5 ** (age / half_life) * (importance / 10) * relevance, each factor in [0, 1]."""
    recency = math.pow(0.5, max(age_turns, 0.0) / half_life)
    return recency * (max(0.0, min(importance, 10.0)) / 10.0) * max(0.0, min(relevance, 1.0))
