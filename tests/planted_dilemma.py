"""Planted dilemma data for the statistics' tests and bench/bench_stats.py: groups of personas whose
rates differ only by what is planted, each persona's own level off its group's by a normal draw.

`dilemma_trials(rng, reps, rates, persona_sd)` gives `reps` trials of six moves per group and partner, as
the plan lays them out (repetition `r` uses persona `r % 3`, the same one against every partner).
`rates` maps a group to one rate or to a rate per partner; a group left out plays at `base`.
`reaction_sd` adds each persona's own reaction to each partner (a persona x partner draw), and `group_sd`
maps a group to a persona spread of its own (groups whose personas vary more than the rest).
"""

from __future__ import annotations

from typing import Any

import numpy as np

from studio.engine.forms.dilemma import game as pd
from studio.lab.stats import Trial

# H1-H3 as the paper concludes them (cooperative above mixed-motivation above competitive, altruistic
# above self-interested), nothing else planted; the paper's Table 2 rates are not filed, so the gaps are
# ours: 0.25 between neighbours of H3, 0.5 for H1 and H2.
PAPER_PATTERN = {"cooperative": 0.8, "mixed_motivation": 0.55, "competitive": 0.3, "altruistic": 0.8,
                 "self_interested": 0.3, "control": 0.55}


def dilemma_trials(rng: np.random.Generator, reps: int, rates: dict[str, Any] | None = None,
                   persona_sd: float = 0.0, personas: int = 3, base: float = 0.5, reaction_sd: float = 0.0,
                   group_sd: dict[str, float] | None = None) -> list[Trial]:
    out = []
    for group in pd.GROUPS:
        planted = (rates or {}).get(group, base)
        sd = (group_sd or {}).get(group, persona_sd)
        shift = rng.normal(0.0, sd, personas) if sd else np.zeros(personas)
        for partner in pd.PARTNERS:
            rate = planted[partner] if isinstance(planted, dict) else planted
            wording = np.arange(reps) % personas
            reaction = rng.normal(0.0, reaction_sd, personas) if reaction_sd else np.zeros(personas)
            p = np.clip(rate + shift[wording] + reaction[wording], 0.0, 1.0)
            cooperated = rng.binomial(pd.ROUNDS, p)
            out += [Trial(group, partner, c / pd.ROUNDS, 0, int(w), rep, pd.ROUNDS)
                    for rep, (c, w) in enumerate(zip(cooperated.tolist(), wording.tolist()))]
    return out
