"""Statistics for the lab: means and rates with intervals, and the Prisoner's Dilemma hypotheses H1-H9.

The rank tests are scipy's (Mann-Whitney U, Wilcoxon signed-rank, by their normal approximations, computed
here and checked against scipy by the tests, since a report runs dozens of them); the persona-mean t test
takes scipy's t distribution. A hypothesis is read as its words say, so several of them are compound: H3 (the
mixed group lies between two others) is two comparisons, H4 ("every group differs from every other") is
one comparison per pair of groups, H5 ("whatever the partner") one per partner, H6 and H7 ("compared to
when paired with a defector or a tit-for-tat partner") one per other partner, H8 and H9 one per group they
name. A compound hypothesis is supported only when every part is (an intersection-union test: its p is
the largest of its parts' p, and its effect the smallest of its parts' effects, the weakest link).

Nine hypotheses tested at once would find something in pure noise far more often than one time in
twenty, so the nine p-values are corrected together by Holm's step-down method (Holm, 1979, A Simple
Sequentially Rejective Multiple Test Procedure), which holds the chance of any false "supported" at 5%;
the report shows the adjusted p beside the raw one.

Every effect is a difference of mean cooperation rates, taken in the direction the claim predicts, so a
positive effect is the predicted one; H4's parts are absolute differences.

What the groups differ in is the persona text, and every trial of one persona shares it: trials are not
independent replications of a group, personas are. The group hypotheses (H1-H5) therefore compare persona
means (each persona's rate averaged over the partners it met, or against the one partner a part names)
with a t test whose error is the persona-to-persona spread, pooled over all the groups run (the
between-persona error of a mixed model with a random intercept per persona, exact for a balanced design):
`k` personas in `g` groups give `k - g` degrees of freedom. Counting each trial as independent would put
"supported" on data whose only difference is which three personas a group happened to get. With a
group's three personas the tests see large gaps only (see docs/lab/dilemma.md for the power measured).
Partners met by the same persona are paired: the plan gives a group's trial `rep` the same wording against
every partner, so partner comparisons within a group (H6-H9) use the Wilcoxon signed-rank test on those
pairs, where the persona's own level cancels, and fall back to Mann-Whitney only where no pairs exist.

Rates get Wilson intervals, which lie within 0-1 by construction. The six moves of one trial are not
independent, so the interval is taken on the effective number of moves: the moves divided by the design
effect that the spread between trials implies (never fewer than the trials, never more than the moves).

`mixed_model` offers the kind of fit the paper's repository makes of the same data: a mixed model by group
and group x partner with a random intercept per simulacrum (group and wording), through statsmodels.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

ALPHA = 0.05
Z95 = 1.959963984540054


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
    half = float(stats.t.ppf(0.5 + confidence / 2, n - 1)) * sd / math.sqrt(n)
    return Estimate(n, mean, mean - half, mean + half)


def wilson(rate: float, n: float, z: float = Z95) -> tuple[float, float]:
    """Wilson's score interval for a proportion `rate` out of `n` (which may be an effective, fractional n):
    always within 0-1, and never empty at 0 or 1, unlike a t interval on a rate."""
    if n <= 0 or math.isnan(rate):
        return math.nan, math.nan
    denominator = 1 + z * z / n
    centre = (rate + z * z / (2 * n)) / denominator
    half = z * math.sqrt(rate * (1 - rate) / n + z * z / (4 * n * n)) / denominator
    low = 0.0 if rate <= 0 else max(0.0, centre - half)  # exact at the ends, where rounding would stray
    high = 1.0 if rate >= 1 else min(1.0, centre + half)
    return low, high


def share_ci(clusters: Sequence[tuple[float, float]]) -> Estimate:
    """A share counted in clusters (hits, of how many) with a Wilson interval on the effective count.

    Counts within a cluster (the moves of one trial, a player's actions in one game) are correlated, so the
    pooled count would overstate what is known. The effective n is `p(1-p)` over the ratio estimator's
    variance across clusters, kept between the number of clusters and the count: independent counts give
    the count, clusters all alike the clusters. `n` of the estimate is the number of clusters."""
    kept = [(float(h), float(n)) for h, n in clusters if n > 0]
    k, total = len(kept), sum(n for _, n in kept)
    if k == 0:
        return Estimate(0, math.nan, math.nan, math.nan)
    p = sum(h for h, _ in kept) / total
    if k == 1:
        n_eff = total
    else:
        var = sum((h - p * n) ** 2 for h, n in kept) / (k * (k - 1) * (total / k) ** 2)
        n_eff = total if var == 0 else min(total, max(float(k), p * (1 - p) / var))
    low, high = wilson(p, n_eff)
    return Estimate(k, p, low, high)


def rate_ci(rates: Sequence[float], moves_each: int) -> Estimate:
    """The cooperation rate of a cell of trials, each trial a cluster of its moves (`share_ci`)."""
    moves = max(1, moves_each)
    return share_ci([(r * moves, moves) for r in rates])


@dataclass(frozen=True)
class Trial:
    group: str
    partner: str
    cooperation: float  # share of rounds the simulacrum cooperated
    total: int  # its score over the game
    wording: int = 0
    rep: int = -1  # the repetition: with the group and wording, what pairs one simulacrum's partners (-1: unknown)
    rounds: int = 6


def cells(trials: Iterable[Trial]) -> dict[tuple[str, str], dict[str, Estimate]]:
    """Per (group, partner): cooperation rate (Wilson) and mean score (t), each with its interval."""
    by: dict[tuple[str, str], list[Trial]] = {}
    for t in trials:
        by.setdefault((t.group, t.partner), []).append(t)
    return {
        key: {"cooperation": rate_ci([t.cooperation for t in ts], ts[0].rounds),
              "score": mean_ci([t.total for t in ts])}
        for key, ts in sorted(by.items())
    }


@dataclass
class Finding:
    name: str
    claim: str
    test: str
    effect: float | None  # a difference of mean rates, in the predicted direction
    p: float | None
    supported: bool | None  # None: not enough data to test
    p_adjusted: float | None = None  # after Holm's correction across the hypotheses
    parts: list[Finding] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "parts"}
        out["parts"] = [p.as_dict() for p in self.parts]
        return out


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _difference(a: Sequence[float], b: Sequence[float]) -> float:
    """mean(a) - mean(b), rounded off below 1e-12 so equal rates read as 0, not as floating-point dust."""
    return round(_mean(a) - _mean(b), 12)


def _rates(trials: Sequence[Trial], groups: Iterable[str], partners: Iterable[str] | None = None) -> list[float]:
    groups = set(groups)
    partners = set(partners) if partners is not None else None
    return [t.cooperation for t in trials if t.group in groups and (partners is None or t.partner in partners)]


def _ranks(values: Sequence[float]) -> tuple[list[float], list[int]]:
    """Average ranks (1-based) and the sizes of the groups of ties."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    ties = []
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            ranks[order[k]] = (i + j) / 2 + 1
        ties.append(j - i + 1)
        i = j + 1
    return ranks, ties


def _normal_sf(z: float) -> float:
    return 0.5 * math.erfc(z / math.sqrt(2))


def mann_whitney(a: Sequence[float], b: Sequence[float], two_sided: bool = False) -> float:
    """The Mann-Whitney U test's p (is `a` greater, or two-sided different), by the normal approximation with
    the tie and continuity corrections: scipy's `mannwhitneyu(..., method="asymptotic")`, computed here
    because the hypotheses run it dozens of times a report and scipy's per-call cost dominates."""
    n1, n2 = len(a), len(b)
    ranks, ties = _ranks(list(a) + list(b))
    u1 = sum(ranks[:n1]) - n1 * (n1 + 1) / 2
    u = max(u1, n1 * n2 - u1) if two_sided else u1
    n = n1 + n2
    spread = n1 * n2 / 12 * ((n + 1) - sum(t ** 3 - t for t in ties) / (n * (n - 1)))
    if spread <= 0:
        return 1.0
    p = _normal_sf((u - n1 * n2 / 2 - 0.5) / math.sqrt(spread))
    return min(1.0, 2 * p if two_sided else p)


def wilcoxon_greater(a: Sequence[float], b: Sequence[float]) -> float:
    """The Wilcoxon signed-rank test's one-sided p (is `a` greater than its pair in `b`), zero differences
    dropped, by the normal approximation with the tie correction: scipy's `wilcoxon(..., method="approx")`.
    Rates over six moves tie all the time, where the exact test turns into a slow permutation test."""
    diffs = [x - y for x, y in zip(a, b) if x != y]
    n = len(diffs)
    if n == 0:
        return 1.0
    ranks, ties = _ranks([abs(d) for d in diffs])
    plus = sum(r for r, d in zip(ranks, diffs) if d > 0)
    spread = (n * (n + 1) * (2 * n + 1) - 0.5 * sum(t * (t * t - 1) for t in ties)) / 24
    return _normal_sf((plus - n * (n + 1) / 4) / math.sqrt(spread)) if spread > 0 else 1.0


def _unpaired(name: str, claim: str, a: list[float], b: list[float], two_sided: bool = False) -> Finding:
    """Mann-Whitney U: are rates in `a` higher than in `b` (or, two-sided, different)?"""
    test = "Mann-Whitney U, " + ("two-sided" if two_sided else "one-sided")
    if len(a) < 2 or len(b) < 2:
        return Finding(name, claim, test, None, None, None)
    effect = _difference(a, b)
    if two_sided:
        effect = abs(effect)
    if len(set(a) | set(b)) == 1:
        return Finding(name, claim, test, effect, 1.0, False)
    p = mann_whitney(a, b, two_sided)
    return Finding(name, claim, test, effect, p, p < ALPHA)


@dataclass(frozen=True)
class Personas:
    """Each group's persona means (a persona: a group's wording) and the persona-to-persona spread
    within groups, pooled over every group with two personas or more: what a group comparison's error is."""

    means: dict[str, list[float]]
    sd: float
    df: int

    def of(self, groups: Iterable[str]) -> list[float]:
        return [m for g in groups for m in self.means.get(g, [])]


def persona_cells(trials: Sequence[Trial]) -> dict[tuple[str, int], dict[str, float]]:
    """Each persona's (group and wording's) mean rate against each partner it met."""
    rates: dict[tuple[str, int], dict[str, list[float]]] = {}
    for t in trials:
        rates.setdefault((t.group, t.wording), {}).setdefault(t.partner, []).append(t.cooperation)
    return {key: {partner: _mean(rs) for partner, rs in by_partner.items()} for key, by_partner in rates.items()}


def personas(cells: dict[tuple[str, int], dict[str, float]], partners: Iterable[str] | None = None) -> Personas:
    """Persona means against `partners` (all when None): a persona's rate against each partner it met,
    averaged over those partners, so a persona short of a few trials against one partner is not pulled
    towards the others."""
    wanted = set(partners) if partners is not None else None
    means: dict[str, list[float]] = {}
    for (group, _), by_partner in sorted(cells.items()):
        rates = [r for partner, r in by_partner.items() if wanted is None or partner in wanted]
        if rates:
            means.setdefault(group, []).append(_mean(rates))
    squares = sum((m - _mean(ms)) ** 2 for ms in means.values() for m in ms)
    df = sum(len(ms) - 1 for ms in means.values())
    return Personas(means, math.sqrt(squares / df) if df else math.nan, df)


def _t_sf(t: float, df: int) -> float:
    """Student's t upper tail, through scipy.special: `scipy.stats.t.sf` costs a hundred times more a call."""
    from scipy.special import stdtr

    return float(stdtr(df, -t))


def _between(name: str, claim: str, spread: Personas, high: Sequence[str], low: Sequence[str],
             two_sided: bool = False) -> Finding:
    """Do the personas of `high` cooperate more than those of `low` (or, two-sided, differently)? A t test
    on persona means with the pooled persona spread as its error; too few data without a persona a side
    or without two personas in some group to measure the spread from."""
    a, b = spread.of(high), spread.of(low)
    test = (f"t test on persona means ({len(a)} vs {len(b)} personas, {spread.df} df), "
            + ("two-sided" if two_sided else "one-sided"))
    if not a or not b or spread.df < 1:
        return Finding(name, claim, test, None, None, None)
    effect = _difference(a, b)
    shown = abs(effect) if two_sided else effect
    se = spread.sd * math.sqrt(1 / len(a) + 1 / len(b))
    if se == 0:  # every persona of every group alike: the difference is all there is
        p = 0.0 if shown > 0 else 1.0
    else:
        p = min(1.0, 2 * _t_sf(abs(effect) / se, spread.df)) if two_sided else _t_sf(effect / se, spread.df)
    return Finding(name, claim, test, shown, p, p < ALPHA)


def _pairs(trials: Sequence[Trial], group: str, high: str, low: str) -> list[tuple[float, float]]:
    """One group's trials against partner `high` and partner `low`, matched by wording and repetition."""
    def keyed(partner: str) -> dict[tuple[int, int], float]:
        return {(t.wording, t.rep): t.cooperation for t in trials
                if t.group == group and t.partner == partner and t.rep >= 0}

    a, b = keyed(high), keyed(low)
    return [(a[k], b[k]) for k in sorted(set(a) & set(b))]


def _paired(name: str, claim: str, trials: Sequence[Trial], groups: Sequence[str], high: str, low: str) -> Finding:
    """Wilcoxon signed-rank, one-sided: does each simulacrum of `groups` cooperate more with `high` than with
    `low`? Without pairs (trials that carry no repetition), Mann-Whitney on the two samples."""
    pairs = [pair for g in groups for pair in _pairs(trials, g, high, low)]
    if len(pairs) < 2:
        return _unpaired(name, claim, _rates(trials, groups, [high]), _rates(trials, groups, [low]))
    test = "Wilcoxon signed-rank, paired, one-sided"
    diffs = [a - b for a, b in pairs]
    effect = round(_mean(diffs), 12)
    if all(d == 0 for d in diffs):
        return Finding(name, claim, test, effect, 1.0, False)
    p = wilcoxon_greater([a for a, _ in pairs], [b for _, b in pairs])
    return Finding(name, claim, test, effect, p, p < ALPHA)


def _all_of(name: str, claim: str, parts: list[Finding], how: str) -> Finding:
    """A claim that holds only if every part does: p is the largest part's, the effect the smallest."""
    test = f"{how}, all must hold"
    if not parts or any(p.supported is None for p in parts):
        return Finding(name, claim, test, None, None, None, parts=parts)
    effect = min(p.effect for p in parts if p.effect is not None)
    p = max(p.p for p in parts if p.p is not None)
    return Finding(name, claim, test, effect, p, all(part.supported for part in parts), parts=parts)


def holm(ps: Sequence[float | None]) -> list[float | None]:
    """Holm's step-down adjusted p-values (None stays None and does not count towards the family)."""
    present = sorted((p, i) for i, p in enumerate(ps) if p is not None)
    m = len(present)
    out: list[float | None] = [None] * len(ps)
    running = 0.0
    for rank, (p, i) in enumerate(present):
        running = max(running, min(1.0, (m - rank) * p))
        out[i] = running
    return out


ALL_PARTNERS = ("always_defect", "always_cooperate", "tit_for_tat_c", "tit_for_tat_d")
OTHERS_THAN_COOPERATOR = ("always_defect", "tit_for_tat_c", "tit_for_tat_d")


def hypotheses(trials: Sequence[Trial], alpha: float = ALPHA) -> list[Finding]:
    """H1-H9 as their words say, each with its parts, corrected together by Holm."""
    groups = sorted({t.group for t in trials})
    partners = [p for p in ALL_PARTNERS if any(t.partner == p for t in trials)]
    by_persona = persona_cells(trials)
    spread = personas(by_persona)
    out = [
        _between("H1", "cooperative cooperate more than competitive", spread, ["cooperative"], ["competitive"]),
        _between("H2", "altruistic cooperate more than self-interested", spread, ["altruistic"], ["self_interested"]),
    ]
    out.append(_all_of("H3", "mixed-motivation cooperate between competitive and cooperative", [
        _between("H3 above competitive", "mixed-motivation cooperate more than competitive", spread,
                 ["mixed_motivation"], ["competitive"]),
        _between("H3 below cooperative", "cooperative cooperate more than mixed-motivation", spread,
                 ["cooperative"], ["mixed_motivation"]),
    ], "two one-sided t tests on persona means"))
    h4 = [_between(f"H4 {a} vs {b}", f"{a} and {b} differ", spread, [a], [b], two_sided=True)
          for i, a in enumerate(groups) for b in groups[i + 1:]]
    out.append(_all_of("H4", "every group's cooperation rate differs from every other group's", h4 if len(groups) > 1 else [],
                       "a two-sided t test on persona means per pair of groups"))
    others = [g for g in groups if g != "competitive"]
    out.append(_all_of("H5", "competitive defect more than the other groups, whatever the partner", [
        _between(f"H5 against {p}", f"against {p}, the other groups cooperate more than competitive",
                 personas(by_persona, [p]), others, ["competitive"]) for p in partners
    ] if "competitive" in groups and others else [], "a one-sided t test on persona means per partner"))
    out.append(_all_of("H6", "altruistic cooperate more with an unconditional cooperator than with the others", [
        _paired(f"H6 vs {p}", f"altruistic cooperate more with always_cooperate than with {p}", trials,
                ["altruistic"], "always_cooperate", p) for p in OTHERS_THAN_COOPERATOR
    ], "a one-sided paired test against each other partner"))
    out.append(_all_of("H7", "self-interested cooperate less with an unconditional cooperator than with the others", [
        _paired(f"H7 vs {p}", f"self-interested cooperate more with {p} than with always_cooperate", trials,
                ["self_interested"], p, "always_cooperate") for p in OTHERS_THAN_COOPERATOR
    ], "a one-sided paired test against each other partner"))
    out.append(_all_of("H8", "cooperative and altruistic cooperate more with tit-for-tat starting C than D", [
        _paired(f"H8 {g}", f"{g} cooperate more with tit_for_tat_c than with tit_for_tat_d", trials, [g],
                "tit_for_tat_c", "tit_for_tat_d") for g in ("cooperative", "altruistic")
    ], "a one-sided paired test per group"))
    out.append(_all_of("H9", "competitive and self-interested cooperate less with tit-for-tat starting C than D", [
        _paired(f"H9 {g}", f"{g} cooperate more with tit_for_tat_d than with tit_for_tat_c", trials, [g],
                "tit_for_tat_d", "tit_for_tat_c") for g in ("competitive", "self_interested")
    ], "a one-sided paired test per group"))
    for finding, adjusted in zip(out, holm([f.p for f in out])):
        finding.p_adjusted = adjusted
        if finding.supported is not None and adjusted is not None:
            finding.supported = bool(finding.supported and adjusted < alpha)
    return out


# The terms of the mixed model, named as a reader of the report would: the reference levels are the
# control group and the unconditional defector, as in the paper's repository.
MIXED_FORMULA = ("C(group, Treatment('control')) + C(group, Treatment('control')):C(partner, Treatment('always_defect'))")


@dataclass
class ModelTerm:
    term: str
    estimate: float  # a difference of cooperation rates against the reference (control, always_defect)
    se: float
    p: float  # two-sided, Wald


def mixed_model(trials: Sequence[Trial]) -> tuple[list[ModelTerm], float] | None:
    """A mixed model of each trial's cooperation rate by group and group x partner, with a random intercept
    per simulacrum (a group's persona), as the paper's repository models its data; statsmodels fits it
    (`MixedLM`, REML). The repository's model is beta-binomial on the count of cooperative moves; a linear
    model of the rate keeps its terms as differences of rates and fits in seconds where statsmodels'
    binomial mixed model took over a minute on the paper's 2,160 trials. Returns the fixed effects and the
    personas' standard deviation (in rate), or None when the data cannot support the fit (one group, no
    control group or unconditional defector to compare with, every rate the same, or no convergence)."""
    groups = {t.group for t in trials}
    if "control" not in groups or len(groups) < 2 or "always_defect" not in {t.partner for t in trials}:
        return None
    if len({t.cooperation for t in trials}) < 2:  # every rate the same: nothing to fit
        return None
    import warnings

    import pandas as pd
    import statsmodels.formula.api as smf

    data = pd.DataFrame([{"rate": t.cooperation, "group": t.group, "partner": t.partner,
                          "simulacrum": f"{t.group}/{t.wording}"} for t in trials])
    with warnings.catch_warnings():  # convergence chatter (a persona spread of 0 sits on the boundary)
        warnings.simplefilter("ignore")
        try:
            fitted = smf.mixedlm("rate ~ " + MIXED_FORMULA, data, groups=data["simulacrum"]).fit(reml=True)
        except (ValueError, ArithmeticError, np_errors()):
            return None
    terms = [ModelTerm(_term(name), float(fitted.params[name]), float(fitted.bse[name]), float(fitted.pvalues[name]))
             for name in fitted.model.exog_names]
    return terms, math.sqrt(max(0.0, float(fitted.cov_re.iloc[0, 0])))


def np_errors() -> type[Exception]:
    import numpy as np

    return np.linalg.LinAlgError


def _term(name: str) -> str:
    """'C(group, Treatment('control'))[T.cooperative]:C(partner, ...)[T.tit_for_tat_c]' -> 'cooperative x tit_for_tat_c'."""
    import re

    levels = re.findall(r"\[T\.([^\]]+)\]", name)
    if name == "Intercept":
        return "intercept (control, always_defect)"
    group = re.search(r"C\(group[^)]*\)\)\[T\.([^\]]+)\]|C\(group[^)]*\)\)\[([^\]]+)\]", name)
    partner = re.search(r"C\(partner[^)]*\)\)\[T\.([^\]]+)\]", name)
    if group and partner:
        return f"{group.group(1) or group.group(2)} x {partner.group(1)}"
    return " x ".join(levels) or name


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
