"""Statistics for the lab: means and rates with intervals, and the Prisoner's Dilemma hypotheses H1-H9.

A hypothesis is read as its words say, so several of them are compound: H3 (the mixed group lies between
two others) is two comparisons, H4 ("every group differs from every other") is one comparison per pair of
groups, H5 ("whatever the partner") one per partner, H6 and H7 ("compared to when paired with a defector or
a tit-for-tat partner") one per other partner, H8 and H9 one per group they name. A compound hypothesis is
supported only when every part is (an intersection-union test: its p is the largest of its parts' p, and
its effect the smallest of its parts' effects, the weakest link).

Nine hypotheses tested at once would find something in pure noise far more often than one time in
twenty, so the nine p-values are corrected together by Holm's step-down method (Holm, 1979, A Simple
Sequentially Rejective Multiple Test Procedure), which holds the chance of any false "supported" at 5%;
the report shows the adjusted p beside the raw one.

Every effect is a difference of mean cooperation rates, taken in the direction the claim predicts, so a
positive effect is the predicted one; H4's parts are absolute differences.

What the groups differ in is the persona text, and every trial of one persona shares it: trials are not
independent replications of a group, personas are. The group hypotheses (H1-H5) therefore compare persona
means with Welch's t test, each side's error its own personas' spread (so two groups whose personas spread
more than the rest are not judged by the rest's calm). A persona's mean is its rate over every partner its
group met, a partner it missed filled in by the additive fit persona + partner (`adjusted_means`), so a lost
cell does not move it. A persona also reacts to partners in its own way, so the partner hypotheses (H6-H9)
take each persona's difference between two partners as one unit, in a paired t test over the group's
personas, and show beside the verdict the chance of finding a gap of POWER_GAP with that many personas.
With a group's three personas the tests see large gaps only (docs/lab/dilemma.md gives the rates measured).

A cell's rate and score are estimated for the group, with its personas as replications (`clustered`: a t
interval over the persona means, widened to the within-persona interval where that is wider). Shares
counted in clusters have Wilson intervals on the effective count (`share_ci`).

`mixed_model` offers the kind of fit the paper's repository makes of the same data: a mixed model by group
and group x partner with a random intercept per simulacrum (group and wording), through statsmodels.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
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


def game_share(clusters: Sequence[tuple[float, float]]) -> Estimate:
    """A share whose replications are its clusters (a game's actions, which the same players make in the
    same talk): the mean of the clusters' own shares with a t interval on clusters - 1 df (`clustered`),
    widened to `share_ci`'s where that is wider. A z interval on two to five games covered the true share
    seven to eight times in ten, not 95."""
    kept = [(h, n) for h, n in clusters if n > 0]
    return clustered([h / n for h, n in kept], share_ci(kept))


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


def clustered(units: Sequence[float], within: Estimate, low: float = 0.0, high: float = 1.0) -> Estimate:
    """An estimate whose replications are `units` (a persona's, a game's, a character's own mean), not the
    counts inside them: their mean with a t interval on units - 1 degrees of freedom, kept within `low` to
    `high` and widened to `within` (the interval the counts alone give) where that is wider, since units that
    happen to agree (every persona at 1.0) show no spread. One unit has no spread between units: `within`
    stands, its n the one unit. `n` of the estimate is the number of units."""
    import dataclasses

    k = len(units)
    if k < 2:
        return dataclasses.replace(within, n=k) if k else within
    est = mean_ci(units)
    return Estimate(k, est.mean, max(low, min(est.low, within.low)), min(high, max(est.high, within.high)))


def cells(trials: Iterable[Trial]) -> dict[tuple[str, str], dict[str, Any]]:
    """Per (group, partner): cooperation rate and mean score, each with an interval for the group's own value:
    its personas are the replications (`clustered` over persona means, a t interval on personas - 1 df), the
    trials of one persona sharing its text; n is the number of personas, `trials` counts the trials."""
    by: dict[tuple[str, str], list[Trial]] = {}
    for t in trials:
        by.setdefault((t.group, t.partner), []).append(t)
    out = {}
    for key, ts in sorted(by.items()):
        per: dict[int, list[Trial]] = {}
        for t in ts:
            per.setdefault(t.wording, []).append(t)
        rates = [_mean([t.cooperation for t in p]) for _, p in sorted(per.items())]
        scores = [_mean([float(t.total) for t in p]) for _, p in sorted(per.items())]
        out[key] = {"cooperation": clustered(rates, rate_ci([t.cooperation for t in ts], ts[0].rounds)),
                    "score": clustered(scores, mean_ci([float(t.total) for t in ts]), -math.inf, math.inf),
                    "trials": len(ts)}
    return out


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
    power: float | None = None  # the chance of finding a partner gap of POWER_GAP at this many personas
    n: int = 0  # the personas its tests rest on (a compound claim: its largest part's)

    def as_dict(self) -> dict[str, Any]:
        out = {k: v for k, v in self.__dict__.items() if k != "parts"}
        out["parts"] = [p.as_dict() for p in self.parts]
        return out


def _mean(values: Sequence[float]) -> float:
    return sum(values) / len(values)


def _difference(a: Sequence[float], b: Sequence[float]) -> float:
    """mean(a) - mean(b), rounded off below 1e-12 so equal rates read as 0, not as floating-point dust."""
    return round(_mean(a) - _mean(b), 12)


@dataclass(frozen=True)
class Personas:
    """Each group's persona means (a persona: a group's wording), adjusted for the partners it met."""

    means: dict[str, list[float]]

    def of(self, groups: Iterable[str]) -> list[float]:
        return [m for g in groups for m in self.means.get(g, [])]


def persona_cells(trials: Sequence[Trial]) -> dict[tuple[str, int], dict[str, float]]:
    """Each persona's (group and wording's) mean rate against each partner it met."""
    rates: dict[tuple[str, int], dict[str, list[float]]] = {}
    for t in trials:
        rates.setdefault((t.group, t.wording), {}).setdefault(t.partner, []).append(t.cooperation)
    return {key: {partner: _mean(rs) for partner, rs in by_partner.items()} for key, by_partner in rates.items()}


def adjusted_means(by_persona: Mapping[Any, Mapping[str, float]]) -> dict[Any, float]:
    """Each persona's mean over all the partners any persona of its group met, a partner it never met filled
    in from the others: the additive fit rate = persona + partner (alternating least squares over the cells
    present). With every cell present this is the plain mean over partners; with a cell lost, a persona that
    missed the hardest partner is not lifted by the gap, nor one that missed the easiest pulled down."""
    partners = sorted({p for by in by_persona.values() for p in by})
    persona = {k: _mean(list(by.values())) for k, by in by_persona.items()}
    if all(len(by) == len(partners) for by in by_persona.values()):
        return persona
    for _ in range(200):
        partner = {p: _mean([by[p] - persona[k] for k, by in by_persona.items() if p in by]) for p in partners}
        shift = _mean(list(partner.values()))
        partner = {p: v - shift for p, v in partner.items()}
        fitted = {k: _mean([r - partner[p] for p, r in by.items()]) for k, by in by_persona.items()}
        moved = max(abs(fitted[k] - persona[k]) for k in persona)
        persona = fitted
        if moved < 1e-12:
            break
    return persona


def personas(cells: dict[tuple[str, int], dict[str, float]], partners: Iterable[str] | None = None) -> Personas:
    """Persona means against `partners` (all when None), each adjusted for the partners it met
    (`adjusted_means`, within its group), so a persona short of a cell is not moved by which one it lost."""
    wanted = set(partners) if partners is not None else None
    by_group: dict[str, dict[int, dict[str, float]]] = {}
    for (group, wording), by_partner in sorted(cells.items()):
        kept = {p: r for p, r in by_partner.items() if wanted is None or p in wanted}
        if kept:
            by_group.setdefault(group, {})[wording] = kept
    return Personas({group: [m for _, m in sorted(adjusted_means(ws).items())] for group, ws in by_group.items()})


def _t_sf(t: float, df: float) -> float:
    """Student's t upper tail, through scipy.special: `scipy.stats.t.sf` costs a hundred times more a call."""
    from scipy.special import stdtr

    return float(stdtr(df, -t))


def welch(a: Sequence[float], b: Sequence[float]) -> tuple[float, float] | None:
    """The standard error of mean(a) - mean(b) from each side's own spread, and its Welch-Satterthwaite
    degrees of freedom; None with fewer than two values a side."""
    na, nb = len(a), len(b)
    if na < 2 or nb < 2:
        return None
    va = sum((x - _mean(a)) ** 2 for x in a) / (na - 1) / na
    vb = sum((x - _mean(b)) ** 2 for x in b) / (nb - 1) / nb
    se = math.sqrt(va + vb)
    if se <= 1e-12:
        return 0.0, float(na + nb - 2)
    return se, (va + vb) ** 2 / (va * va / (na - 1) + vb * vb / (nb - 1))


def _between(name: str, claim: str, spread: Personas, high: Sequence[str], low: Sequence[str],
             two_sided: bool = False) -> Finding:
    """Do the personas of `high` cooperate more than those of `low` (or, two-sided, differently)? Welch's t
    test on persona means: each side's error is its own personas' spread, so a pair of groups whose
    personas spread more than the others is not judged by the others' calm. Too few data without two
    personas a side."""
    a, b = spread.of(high), spread.of(low)
    found = welch(a, b)
    df_text = f"{found[1]:.1f} df" if found else "no df"
    test = (f"Welch t on persona means ({len(a)} vs {len(b)} personas, {df_text}), "
            + ("two-sided" if two_sided else "one-sided"))
    if found is None:
        return Finding(name, claim, test, None, None, None, n=len(a) + len(b))
    se, df = found
    effect = _difference(a, b)
    shown = abs(effect) if two_sided else effect
    if se == 0:  # every persona of both sides alike: the difference is all there is
        p = 0.0 if shown > 0 else 1.0
    else:
        p = min(1.0, 2 * _t_sf(abs(effect) / se, df)) if two_sided else _t_sf(effect / se, df)
    return Finding(name, claim, test, shown, p, p < ALPHA, n=len(a) + len(b))


def _power(gap: float, sd: float, n: int, alpha: float = ALPHA) -> float | None:
    """The chance that a one-sided t test over `n` units (n - 1 df) finds a true mean of `gap` when the units
    spread by `sd`: the noncentral t's tail beyond the critical value. None with fewer than two units."""
    if n < 2 or math.isnan(sd):
        return None
    if sd <= 0:
        return 1.0
    from scipy.stats import nct, t

    df = n - 1
    return float(nct.sf(t.ppf(1 - alpha, df), df, gap / (sd / math.sqrt(n))))


POWER_GAP = 0.25  # the partner gap whose chance of being found a partner verdict shows beside it


def _within(name: str, claim: str, cells: dict[tuple[str, int], dict[str, float]], groups: Sequence[str],
            high: str, low: str) -> Finding:
    """Do the personas of `groups` cooperate more with partner `high` than with `low`? A one-sided paired t
    test over personas: each persona's rate against `high` minus its rate against `low` is one unit, so the
    trials of one persona (which share its text and its way of reacting to a partner) count once. The
    error is the spread of those differences between the personas; the power shown is the chance of
    finding a gap of POWER_GAP with this many personas and that spread."""
    diffs = [by[high] - by[low] for (group, _), by in sorted(cells.items())
             if group in groups and high in by and low in by]
    n = len(diffs)
    test = f"paired t over personas ({n} personas, {max(0, n - 1)} df), one-sided"
    if n < 2:
        return Finding(name, claim, test, None, None, None, n=n)
    effect = round(_mean(diffs), 12)
    sd = math.sqrt(sum((d - effect) ** 2 for d in diffs) / (n - 1))
    if sd <= 1e-12:  # every persona moved alike: the difference is all there is
        p = 0.0 if effect > 0 else 1.0
    else:
        p = _t_sf(effect / (sd / math.sqrt(n)), n - 1)
    return Finding(name, claim, test, effect, p, p < ALPHA, power=_power(POWER_GAP, sd, n), n=n)


def _all_of(name: str, claim: str, parts: list[Finding], how: str) -> Finding:
    """A claim that holds only if every part does: p is the largest part's, the effect the smallest."""
    test = f"{how}, all must hold"
    powers = [p.power for p in parts if p.power is not None]
    power = min(powers) if powers and len(powers) == len(parts) else None  # the weakest part's, at most
    n = max((p.n for p in parts), default=0)
    if not parts or any(p.supported is None for p in parts):
        return Finding(name, claim, test, None, None, None, parts=parts, power=power, n=n)
    effect = min(p.effect for p in parts if p.effect is not None)
    p = max(p.p for p in parts if p.p is not None)
    return Finding(name, claim, test, effect, p, all(part.supported for part in parts), parts=parts, power=power,
                   n=n)


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
    ], "two one-sided Welch t tests on persona means"))
    h4 = [_between(f"H4 {a} vs {b}", f"{a} and {b} differ", spread, [a], [b], two_sided=True)
          for i, a in enumerate(groups) for b in groups[i + 1:]]
    out.append(_all_of("H4", "every group's cooperation rate differs from every other group's", h4 if len(groups) > 1 else [],
                       "a two-sided Welch t test on persona means per pair of groups"))
    others = [g for g in groups if g != "competitive"]
    out.append(_all_of("H5", "competitive defect more than the other groups, whatever the partner", [
        _between(f"H5 against {p}", f"against {p}, the other groups cooperate more than competitive",
                 personas(by_persona, [p]), others, ["competitive"]) for p in partners
    ] if "competitive" in groups and others else [], "a one-sided Welch t test on persona means per partner"))
    out.append(_all_of("H6", "altruistic cooperate more with an unconditional cooperator than with the others", [
        _within(f"H6 vs {p}", f"altruistic cooperate more with always_cooperate than with {p}", by_persona,
                ["altruistic"], "always_cooperate", p) for p in OTHERS_THAN_COOPERATOR
    ], "a one-sided paired t over personas against each other partner"))
    out.append(_all_of("H7", "self-interested cooperate less with an unconditional cooperator than with the others", [
        _within(f"H7 vs {p}", f"self-interested cooperate more with {p} than with always_cooperate", by_persona,
                ["self_interested"], p, "always_cooperate") for p in OTHERS_THAN_COOPERATOR
    ], "a one-sided paired t over personas against each other partner"))
    out.append(_all_of("H8", "cooperative and altruistic cooperate more with tit-for-tat starting C than D", [
        _within(f"H8 {g}", f"{g} cooperate more with tit_for_tat_c than with tit_for_tat_d", by_persona, [g],
                "tit_for_tat_c", "tit_for_tat_d") for g in ("cooperative", "altruistic")
    ], "a one-sided paired t over personas per group"))
    out.append(_all_of("H9", "competitive and self-interested cooperate less with tit-for-tat starting C than D", [
        _within(f"H9 {g}", f"{g} cooperate more with tit_for_tat_d than with tit_for_tat_c", by_persona, [g],
                "tit_for_tat_d", "tit_for_tat_c") for g in ("competitive", "self_interested")
    ], "a one-sided paired t over personas per group"))
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
