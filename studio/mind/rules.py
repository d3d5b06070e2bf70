"""Deterministic rules: traits to prompt text, seeded moods, unlock conditions, memory scoring."""

from __future__ import annotations

import math
import random
from collections.abc import Mapping, Sequence

from studio.model.inner_life import Condition, Mood, persona_text  # noqa: F401 - persona_text read from here too

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
