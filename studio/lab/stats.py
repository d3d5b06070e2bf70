"""Statistics for the lab: means with intervals, and the Prisoner's Dilemma hypotheses H1-H9.

scipy does the tests. Each hypothesis names its test, the effect it measures (a difference of mean
cooperation rates, per trial, taken in the direction the claim predicts, so a positive effect is
the predicted one), the p-value, and whether the data support it at the 5% level. The tests
are one-sided where the hypothesis states a direction, and rank-based (Mann-Whitney U, Kruskal-Wallis),
since a cooperation rate over six rounds takes seven values and is nothing like normal.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

ALPHA = 0.05


@dataclass(frozen=True)
class Estimate:
    n: int
    mean: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float | int]:
        return {"n": self.n, "mean": self.mean, "low": self.low, "high": self.high}


def mean_ci(values: Sequence[float], confidence: float = 0.95) -> Estimate:
    """Mean with a t interval; one value has no spread (its interval is itself), none has no mean."""
    from scipy import stats

    n = len(values)
    if n == 0:
        return Estimate(0, math.nan, math.nan, math.nan)
    mean = sum(values) / n
    if n == 1:
        return Estimate(1, mean, mean, mean)
    sd = math.sqrt(sum((v - mean) ** 2 for v in values) / (n - 1))
    half = stats.t.ppf(0.5 + confidence / 2, n - 1) * sd / math.sqrt(n)
    return Estimate(n, mean, mean - half, mean + half)


@dataclass(frozen=True)
class Trial:
    group: str
    partner: str
    cooperation: float  # share of rounds the simulacrum cooperated
    total: int  # its score over the game
    wording: int = 0


def cells(trials: Iterable[Trial]) -> dict[tuple[str, str], dict[str, Estimate]]:
    """Per (group, partner): cooperation rate and mean score, each with its interval."""
    by: dict[tuple[str, str], list[Trial]] = {}
    for t in trials:
        by.setdefault((t.group, t.partner), []).append(t)
    return {
        key: {"cooperation": mean_ci([t.cooperation for t in ts]), "score": mean_ci([t.total for t in ts])}
        for key, ts in sorted(by.items())
    }


@dataclass
class Finding:
    name: str
    claim: str
    test: str
    effect: float | None
    p: float | None
    supported: bool | None  # None: not enough data to test

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


def _rates(trials: Sequence[Trial], groups: Iterable[str], partners: Iterable[str] | None = None) -> list[float]:
    groups = set(groups)
    partners = set(partners) if partners is not None else None
    return [t.cooperation for t in trials if t.group in groups and (partners is None or t.partner in partners)]


def _greater(name: str, claim: str, a: list[float], b: list[float]) -> Finding:
    """One-sided Mann-Whitney U: are rates in `a` higher than in `b`?"""
    from scipy import stats

    test = "Mann-Whitney U, one-sided"
    if len(a) < 2 or len(b) < 2:
        return Finding(name, claim, test, None, None, None)
    effect = sum(a) / len(a) - sum(b) / len(b)
    if len(set(a) | set(b)) == 1:
        return Finding(name, claim, test, effect, 1.0, False)
    p = float(stats.mannwhitneyu(a, b, alternative="greater").pvalue)
    return Finding(name, claim, test, effect, p, p < ALPHA)


ALL_PARTNERS = ("always_defect", "always_cooperate", "tit_for_tat_c", "tit_for_tat_d")


def hypotheses(trials: Sequence[Trial]) -> list[Finding]:
    from scipy import stats

    out = [
        _greater("H1", "cooperative cooperate more than competitive", _rates(trials, ["cooperative"]),
                 _rates(trials, ["competitive"])),
        _greater("H2", "altruistic cooperate more than self-interested", _rates(trials, ["altruistic"]),
                 _rates(trials, ["self_interested"])),
    ]
    mixed, coop, comp = (_rates(trials, [g]) for g in ("mixed_motivation", "cooperative", "competitive"))
    above = _greater("H3a", "", mixed, comp)
    below = _greater("H3b", "", coop, mixed)
    both = None if above.supported is None or below.supported is None else bool(above.supported and below.supported)
    p3 = None if above.p is None or below.p is None else max(above.p, below.p)
    effect3 = None if not mixed else sum(mixed) / len(mixed)
    out.append(Finding("H3", "mixed-motivation cooperate between competitive and cooperative",
                       "two one-sided Mann-Whitney U tests (both must hold; p is the larger)", effect3, p3, both))
    groups = sorted({t.group for t in trials})
    samples = [_rates(trials, [g]) for g in groups]
    if len(samples) >= 2 and all(len(s) >= 2 for s in samples) and len({v for s in samples for v in s}) > 1:
        p4 = float(stats.kruskal(*samples).pvalue)
        spread = max(sum(s) / len(s) for s in samples) - min(sum(s) / len(s) for s in samples)
        out.append(Finding("H4", "the groups' cooperation rates differ", "Kruskal-Wallis", spread, p4, p4 < ALPHA))
    else:
        out.append(Finding("H4", "the groups' cooperation rates differ", "Kruskal-Wallis", None, None, None))
    others = [g for g in groups if g != "competitive"]
    out.append(_greater("H5", "competitive defect more than the other groups, whatever the partner",
                        _rates(trials, others), _rates(trials, ["competitive"])))
    out.append(_greater("H6", "altruistic cooperate more with an unconditional cooperator than with the others",
                        _rates(trials, ["altruistic"], ["always_cooperate"]),
                        _rates(trials, ["altruistic"], ["always_defect", "tit_for_tat_c", "tit_for_tat_d"])))
    out.append(_greater("H7", "self-interested cooperate less with an unconditional cooperator than with the others",
                        _rates(trials, ["self_interested"], ["always_defect", "tit_for_tat_c", "tit_for_tat_d"]),
                        _rates(trials, ["self_interested"], ["always_cooperate"])))
    out.append(_greater("H8", "cooperative and altruistic cooperate more with tit-for-tat starting C than D",
                        _rates(trials, ["cooperative", "altruistic"], ["tit_for_tat_c"]),
                        _rates(trials, ["cooperative", "altruistic"], ["tit_for_tat_d"])))
    out.append(_greater("H9", "competitive and self-interested cooperate less with tit-for-tat starting C than D",
                        _rates(trials, ["competitive", "self_interested"], ["tit_for_tat_d"]),
                        _rates(trials, ["competitive", "self_interested"], ["tit_for_tat_c"])))
    return out


@dataclass(frozen=True)
class Paired:
    """A paired comparison: the mean of (b - a) over the pairs with its 95% t interval, and the paired t
    test's two-sided p (None where it cannot be computed: fewer than two pairs, or no spread)."""

    n: int
    diff: float
    low: float
    high: float
    p: float | None


def paired_t(a: Sequence[float], b: Sequence[float]) -> Paired:
    """The paired t test of b against a, pair by pair (a[i] and b[i] share a seed, a character, a moment):
    a pair's own difference is what varies, so what the two conditions share cancels. Pairs missing a value
    on either side are the caller's to drop; the sequences must be the same length."""
    from scipy import stats

    if len(a) != len(b):
        raise ValueError(f"paired values come in pairs: {len(a)} against {len(b)}")
    diffs = [y - x for x, y in zip(a, b)]
    est = mean_ci(diffs)
    if est.n < 2 or all(d == diffs[0] for d in diffs):
        return Paired(est.n, est.mean, est.low, est.high, None)
    return Paired(est.n, est.mean, float(est.low), float(est.high), float(stats.ttest_rel(b, a).pvalue))
