"""Placement statistics for the social game's experiments, as Thudium et al. (2024) report them: the lab's
game kind and `studio lab game` read finished games' placements through them.

The paper asks two questions of finished games: does a player's cognitive architecture (none, goals,
impressions, both) change where it places, and does its persona (charismatic or aloof)? It answers with a
one-way ANOVA across groups and Tukey's HSD between pairs. We compute the same with scipy, and say how
many games and players each figure rests on, since a handful of games cannot carry a strong claim. The
ANOVA treats every player's place as independent, where the places of one game are 1 to its size and its
players meet the same rivals; the verdict reads the permutation of group labels within each game instead
(`permutation_within_games`), which assumes only that places are exchangeable within a game.

Placement 1 is the winner; lower is better. The paper leaves out players voted off in the first round,
whose vote is near random; `min_round` does the same when asked.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class GroupSummary:
    name: str
    n: int
    mean: float
    sd: float
    ci_low: float
    ci_high: float


@dataclass(frozen=True)
class PairResult:
    a: str
    b: str
    difference: float  # mean(a) - mean(b)
    p: float
    ci_low: float
    ci_high: float

    @property
    def significant(self) -> bool:
        return self.p < 0.05


@dataclass
class PlacementTest:
    groups: list[GroupSummary]
    test: str
    statistic: float | None
    p: float | None
    pairs: list[PairResult] = field(default_factory=list)
    note: str = ""
    permutation_p: float | None = None  # the labels shuffled within games: the p the verdict reads
    permutations: int = 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "test": self.test,
            "statistic": self.statistic,
            "p": self.p,
            "note": self.note,
            "groups": [g.__dict__ for g in self.groups],
            "pairs": [p.__dict__ | {"significant": p.significant} for p in self.pairs],
            "permutation_p": self.permutation_p,
            "permutations": self.permutations,
        }

    @property
    def differs(self) -> bool | None:
        """The verdict: do the groups place differently, by the permutation within games (None: untested)."""
        return None if self.permutation_p is None else self.permutation_p < 0.05


def summarise(name: str, values: list[float]) -> GroupSummary:
    """Mean with a 95% t interval (the lab's one estimate), and the spread."""
    from studio.lab.stats import mean_ci

    est = mean_ci(values)
    n = len(values)
    sd = math.sqrt(sum((v - est.mean) ** 2 for v in values) / (n - 1)) if n > 1 else (0.0 if n else math.nan)
    return GroupSummary(name, n, est.mean, sd, est.low, est.high)


def compare_placements(groups: dict[str, list[float]],
                       games: list[list[tuple[str, float]]] | None = None) -> PlacementTest:
    """ANOVA across the groups and Tukey's HSD between each pair (or Welch's t for exactly two), the paper's
    figures; with `games` (each game's players as (group, place)), the permutation of labels within games
    beside them, which is the test the verdict reads.

    Groups with fewer than two players cannot enter a test; they are summarised and named in the note.
    """
    from scipy import stats

    summaries = [summarise(name, list(values)) for name, values in groups.items()]
    usable = {name: list(v) for name, v in groups.items() if len(v) >= 2}
    left_out = sorted(set(groups) - set(usable))
    note = f"left out of the test (fewer than 2 players): {', '.join(left_out)}" if left_out else ""
    if len(usable) < 2:
        why = "no test: need two groups of 2 or more players"
        return PlacementTest(summaries, "none", None, None, note=f"{why}; {note}" if note else why)
    names = list(usable)
    samples = [usable[n] for n in names]
    if all(_constant(s) for s in samples) and len({s[0] for s in samples}) == 1:
        return PlacementTest(summaries, "none", None, 1.0, note="every group placed the same")
    if len(names) == 2:
        res = stats.ttest_ind(samples[0], samples[1], equal_var=False)
        test, statistic, p = "Welch's t-test", float(res.statistic), float(res.pvalue)
    else:
        res = stats.f_oneway(*samples)
        test, statistic, p = "one-way ANOVA", float(res.statistic), float(res.pvalue)
    tukey = stats.tukey_hsd(*samples)
    ci = tukey.confidence_interval(0.95)
    pairs = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            pairs.append(
                PairResult(
                    names[i], names[j], float(tukey.statistic[i, j]), float(tukey.pvalue[i, j]),
                    float(ci.low[i, j]), float(ci.high[i, j]),
                )
            )
    found = PlacementTest(summaries, test, _finite(statistic), _finite(p), pairs, note)
    if games is not None:
        found.permutation_p = permutation_within_games([[(g, v) for g, v in game if g in usable] for game in games])
        found.permutations = PERMUTATIONS
    return found


PERMUTATIONS = 9999


def permutation_within_games(games: list[list[tuple[str, float]]], draws: int = PERMUTATIONS,
                             seed: int = 0) -> float | None:
    """The p of the groups' placements differing, from shuffling the group labels among the players of each
    game: a game's places are 1 to its size whatever the players did, and its players face the same rivals,
    so places are exchangeable within a game and not across games; which is what the ANOVA assumes away. The
    statistic is the between-group sum of squares (with the group sizes fixed by the shuffle, the F ratio is a
    monotone function of it); p = (1 + shuffles at least as extreme) / (1 + draws), drawn from a generator
    seeded with `seed`, so a report is the same each time. None without two groups."""
    import numpy as np

    names = sorted({g for game in games for g, _ in game})
    if len(names) < 2:
        return None
    code = {g: i for i, g in enumerate(names)}
    rng = np.random.default_rng(seed)
    sums = np.zeros((draws + 1, len(names)))
    counts = np.zeros(len(names))
    for game in games:
        if not game:
            continue
        labels = np.array([code[g] for g, _ in game])
        places = np.array([p for _, p in game], dtype=float)
        np.add.at(counts, labels, 1)
        shuffled = np.vstack([labels, rng.permuted(np.tile(labels, (draws, 1)), axis=1)])
        for i in range(len(names)):
            sums[:, i] += (shuffled == i) @ places
    kept = counts > 0
    stat = (sums[:, kept] ** 2 / counts[kept]).sum(axis=1)
    return float((1 + np.sum(stat[1:] >= stat[0] - 1e-9)) / (1 + draws))


def _constant(values: list[float]) -> bool:
    return max(values) == min(values)


def _finite(x: float) -> float | None:
    return None if math.isnan(x) or math.isinf(x) else x


def table(result: PlacementTest) -> str:
    """The result as plain text for a terminal or a Markdown report (a fenced block reads well in both)."""
    lines = [f"{'group':<16} {'n':>4} {'mean place':>11} {'95% CI':>17}"]
    for g in result.groups:
        ci = f"{g.ci_low:.2f} to {g.ci_high:.2f}" if g.n else "-"
        mean = f"{g.mean:.2f}" if g.n else "-"
        lines.append(f"{g.name:<16} {g.n:>4} {mean:>11} {ci:>17}")
    if result.permutation_p is not None:
        lines.append(f"labels shuffled within games ({result.permutations} draws): p = {result.permutation_p:.3g}"
                     + (", the groups place differently" if result.differs else ", no difference shown"))
    if result.p is not None and result.statistic is not None:
        lines.append(f"{result.test}: statistic {result.statistic:.2f}, p = {result.p:.3g}")
    elif result.p is not None:
        lines.append(f"p = {result.p:.3g}")
    for pair in result.pairs:
        mark = " *" if pair.significant else ""
        lines.append(
            f"Tukey HSD {pair.a} - {pair.b}: {pair.difference:+.2f} "
            f"(95% CI {pair.ci_low:+.2f} to {pair.ci_high:+.2f}), p = {pair.p:.3g}{mark}"
        )
    if result.note:
        lines.append(result.note)
    return "\n".join(lines)


@dataclass(frozen=True)
class WinRate:
    """How often one group won, beside how often it would by chance: each of its `seats` players has a
    1/players chance, so the group wins `seats/players` of the games when personas or architectures do not
    matter (Thudium et al., 2024, section 5.2: "82% ... over random chance (50%)" with 3 of 6)."""

    name: str
    games: int
    wins: int
    seats: int  # this group's players in each game
    players: int  # players in each game
    rate: float
    low: float  # Wilson 95% interval
    high: float
    chance: float
    p: float | None  # exact two-sided binomial test against `chance`


def win_rate(name: str, wins: int, games: int, seats: int, players: int) -> WinRate:
    """The group's win rate with a Wilson interval (in [0, 1] by construction) and an exact binomial test
    against the chance rate seats/players."""
    from scipy import stats

    chance = seats / players if players else math.nan
    if not games:
        return WinRate(name, 0, 0, seats, players, math.nan, math.nan, math.nan, chance, None)
    test = stats.binomtest(wins, games, chance)
    ci = test.proportion_ci(confidence_level=0.95, method="wilson")
    return WinRate(name, games, wins, seats, players, wins / games, float(ci.low), float(ci.high), chance,
                   float(test.pvalue))
