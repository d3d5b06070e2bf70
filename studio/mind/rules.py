"""Deterministic rules: traits to prompt text, seeded moods, unlock conditions, memory scoring."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from studio.model.inner_life import Condition, Mood, persona_text  # noqa: F401 - persona_text read from here too

NEUTRAL = Mood(name="neutral", weight=1.0)  # what the dice give past the moods' chances: no mood at all


def mood_chances(moods: Sequence[Mood]) -> list[tuple[Mood, float]]:
    """Each mood's chance, and the neutral remainder's last when there is one. Weights summing to 1 or less
    are chances (the Drama Engine's rule: the rest of the dice is a neutral mood); summing to more, they
    are relative weights, normalised, and there is no neutral remainder."""
    total = sum(m.weight for m in moods)
    if total > 1:
        return [(m, m.weight / total) for m in moods]
    out = [(m, m.weight) for m in moods]
    if total < 1:
        out.append((NEUTRAL, 1 - total))
    return out


def draw_mood(moods: Sequence[Mood], seed: int, character: str, scene: int, turn: int = 0) -> Mood | None:
    """Seeded by run, character and moment, so a rewind draws the same mood again. None: no moods at all;
    `NEUTRAL`: the dice fell in the neutral remainder."""
    if not moods:
        return None
    chances = mood_chances(moods)
    rng = random.Random(f"{seed}:{character}:{scene}:{turn}")
    return rng.choices([m for m, _ in chances], weights=[c for _, c in chances], k=1)[0]


@dataclass
class Tally:
    """What a character has done and heard so far, for conditions that count: the lines it has spoken, the
    lines it has heard from each other character, and how often each counted keyword reached it."""

    spoken: int = 0
    heard_from: dict[str, int] = field(default_factory=dict)
    keywords: dict[str, int] = field(default_factory=dict)  # keyword (folded) -> times heard


def holds(cond: Condition, *, heard: str, scene: int, turn: int, facts: Mapping[str, object],
          tally: Tally | None = None) -> bool:
    if cond.scene_max is not None and scene >= cond.scene_max:
        return False
    if cond.turn_max is not None and turn >= cond.turn_max:
        return False
    if cond.interactions is not None or cond.interactions_max is not None:
        tally = tally or Tally()
        count = tally.spoken if cond.partner is None else tally.heard_from.get(cond.partner.casefold(), 0)
        if cond.interactions is not None and count < cond.interactions:
            return False
        if cond.interactions_max is not None and count >= cond.interactions_max:
            return False
    if cond.times is not None:
        tally = tally or Tally()
        words = ([cond.keyword] if cond.keyword else []) + list(cond.keywords or [])
        return (max(tally.keywords.get(w.casefold(), 0) for w in words) >= cond.times
                and _rest_holds(cond, scene=scene, turn=turn, facts=facts))
    said = heard.casefold()
    if cond.keyword is not None and cond.keyword.casefold() not in said:
        return False
    if cond.keywords is not None and not any(k.casefold() in said for k in cond.keywords):
        return False
    return _rest_holds(cond, scene=scene, turn=turn, facts=facts)


def _rest_holds(cond: Condition, *, scene: int, turn: int, facts: Mapping[str, object]) -> bool:
    if cond.scene is not None and scene < cond.scene:
        return False
    if cond.turn is not None and turn < cond.turn:
        return False
    if cond.fact is not None and facts.get(cond.fact) != cond.equals:
        return False
    return True


def recency(age_turns, half_life: float):
    """0.5 ** (age / half_life): a memory's freshness, 1 now and half as fresh every `half_life` turns.

    Works on a number or a numpy array of ages alike, so recall scores every memory in one step.
    """
    import numpy as np

    return np.power(0.5, np.maximum(age_turns, 0.0) / half_life)


def normalise(values):
    """Min-max scaling of one factor over the memories being ranked to [0, 1]; all equal reads 0.5 each.

    Park et al., 2023 (Generative Agents) scale each factor this way before adding them, so that no
    factor wins merely because its raw range is wider; when a factor does not tell the memories apart it
    counts the same for all of them (0.5) and the other two decide.
    """
    import numpy as np

    values = np.asarray(values, dtype=float)
    if not values.size:
        return values
    low, high = float(values.min()), float(values.max())
    if high - low <= 1e-12:
        return np.full(values.shape, 0.5)
    return (values - low) / (high - low)


def memory_score(*, recency, importance, relevance, weights: tuple[float, float, float] = (1.0, 1.0, 1.0)):
    """The weighted sum of the three normalised factors (Park et al., 2023; Thudium et al., 2024).

    score = w_recency * recency + w_importance * importance + w_relevance * relevance, each factor already
    in [0, 1]. A sum, not a product: a memory that shares no word with the question can still come back
    on its freshness and weight. Numbers or numpy arrays alike.
    """
    w_rec, w_imp, w_rel = weights
    return w_rec * recency + w_imp * importance + w_rel * relevance
