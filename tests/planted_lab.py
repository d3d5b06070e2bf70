"""Planted data for the lab's verdicts and intervals beyond the dilemma (tests/planted_dilemma.py): social
games whose placements carry a planted group effect or none, Critic readings with a planted position bias,
per-game action shares, and interviews whose characters hit their targets at rates of their own.

Every generator takes a numpy Generator, so a test's figures are the same on every machine.
"""

from __future__ import annotations

from typing import Any

import numpy as np

CRITERIA = ("behavioural_change", "introspection", "narrative_divergence", "successful_adaptation")


def games(rng: np.random.Generator, count: int, groups: dict[str, int], shift: dict[str, float] | None = None,
          drop_first: bool = True) -> list[list[tuple[str, float]]]:
    """`count` games, each seating `groups[g]` players of group g; a player's place is the rank of its
    strength (a normal draw plus the group's `shift`, higher is better: place 1 the strongest). One player
    of each game (the first voted out, at random) is left out when `drop_first`, as the lab leaves them."""
    seats = [g for g, k in groups.items() for _ in range(k)]
    out = []
    for _ in range(count):
        strength = rng.normal(0.0, 1.0, len(seats)) + np.array([(shift or {}).get(g, 0.0) for g in seats])
        places = np.empty(len(seats))
        places[np.argsort(-strength)] = np.arange(1, len(seats) + 1)
        game = [(g, float(p)) for g, p in zip(seats, places)]
        if drop_first:
            game.pop(int(rng.integers(len(game))))
        out.append(game)
    return out


def critic_readings(rng: np.random.Generator, reps: int, first_of: Any, effect: float = 0.0,
                    position: float = 1.5, noise: float = 1.0) -> list[dict[str, Any]]:
    """Paired readings of `reps` repetitions as the compare kind records them: each repetition's two
    scripts share a level (what the seed does), the one with the inner voice gets `effect` more, and
    whichever is read second gets `position` more (a Critic that prefers what it read last). `first_of(rep)`
    says whether the script with the inner voice was shown first."""
    out = []
    for rep in range(reps):
        level = rng.uniform(3, 6)
        with_first = bool(first_of(rep))
        for condition, second in (("without", with_first), ("with", not with_first)):
            scores = {k: float(np.clip(round(level + (effect if condition == "with" else 0.0)
                                             + (position if second else 0.0) + rng.normal(0, noise)), 0, 10))
                      for k in CRITERIA}
            out.append({"condition": condition, "rep": rep, "valid": True, "scores": scores,
                        "shown": 2 if second else 1})
    return out


def action_shares(rng: np.random.Generator, count: int, share: float, spread: float = 0.1,
                  actions: tuple[int, int] = (20, 60)) -> list[tuple[int, int]]:
    """(talk actions, all actions) for `count` games of one group: each game's own share drawn about `share`
    (its players, its talk), each action a draw at the game's share."""
    out = []
    for _ in range(count):
        p = float(np.clip(rng.normal(share, spread), 0.02, 0.98))
        n = int(rng.integers(*actions))
        out.append((int(rng.binomial(n, p)), n))
    return out


def interviews(rng: np.random.Generator, characters: int, reps: int, rate: float,
               spread: float = 0.15) -> list[dict[str, Any]]:
    """Interviews as the interview kind records them, for `characters` characters of one target (every
    dimension high, 5): each character measured on the right side of the midpoint at a rate of its own
    (drawn about `rate`), the same on every run of it, a dimension's measure 4 on a hit and 2 on a miss."""
    from studio.lab.personality import DIMENSIONS

    out = []
    for c in range(characters):
        own = float(np.clip(rng.normal(rate, spread), 0.0, 1.0))
        for rep in range(reps):
            measured = {d: (4.0 if rng.random() < own else 2.0) for d in DIMENSIONS}
            out.append({"character": f"C{c}", "rep": rep, "measured": {"doc": measured}})
    return out
