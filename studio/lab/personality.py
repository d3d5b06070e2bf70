"""Scoring a character's measured personality against the one it was designed with (InCharacter, 2024).

Three ways of measuring, all landing on the same 1-5 scale per Big-Five dimension so they compare:
OC (option choice: the character picks 1-5 on each questionnaire item and the keyed items are
averaged), d-OC (the interviewer rates each dimension from the character's whole interview) and ER
(an expert rater reads the interview and gives each dimension a score with a reason). The rater's
reply is data, so it is read with studio.structured: a score without words is not a rating.

Agreement is reported as the paper does: the mean absolute error scaled to the range (0 is perfect, 1 is
as far apart as the scale allows), and accuracy: whether measured and target fall on the same side of the
scale's midpoint, per dimension and for all five at once. Accuracy comes by two rules. The paper's
(Wang et al., 2024, section 4.1 and appendix C): a target in the middle fifth of the range (40-60% of it,
"marginal") is ambiguous and left out, of accuracy and MAE alike, and a measure is high when above the
midpoint, low otherwise. The strict rule keeps every dimension and hits a middle target only with a
measure exactly in the middle.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from studio import structured

DIMENSIONS = ("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism")
LOW, HIGH = 1, 5
MIDPOINT = (LOW + HIGH) / 2
_ALIASES = {"emotional_stability": "neuroticism", "intellect": "openness", "imagination": "openness"}

# The answer words a character may use instead of a number, in scale order.
_CHOICES = {
    "strongly disagree": 1, "very inaccurate": 1,
    "moderately disagree": 2, "disagree": 2, "moderately inaccurate": 2, "inaccurate": 2,
    "neither agree nor disagree": 3, "neither accurate nor inaccurate": 3, "neutral": 3, "unsure": 3,
    "strongly agree": 5, "very accurate": 5,
    "moderately agree": 4, "agree": 4, "moderately accurate": 4, "accurate": 4,
}


@dataclass(frozen=True)
class Item:
    """One questionnaire statement, the dimension it measures and its key (+1, or -1 when reversed)."""

    text: str
    dimension: str
    keyed: int = 1


def read_choice(reply: str) -> int | None:
    """The option a character chose, from a bare number or the scale's words; None when it chose none.

    The longest phrase wins, so "strongly disagree" is never read as "disagree" or "agree". Two
    different numbers are no choice: the reply is kept as unanswered rather than guessed.
    """
    text = " ".join((reply or "").lower().split())
    numbers = set(re.findall(r"(?<![\d.])([1-5])(?!\d|\.\d)", text))
    if len(numbers) == 1:
        return int(numbers.pop())
    if numbers:
        return None
    for phrase in sorted(_CHOICES, key=len, reverse=True):
        if re.search(rf"\b{re.escape(phrase)}\b", text):
            return _CHOICES[phrase]
    return None


def score_oc(items: list[Item], answers: Mapping[int, int | None]) -> dict[str, float | None]:
    """Mean keyed answer per dimension; reversed items count LOW+HIGH-answer; unanswered items are left out."""
    sums: dict[str, list[float]] = {d: [] for d in DIMENSIONS}
    for index, item in enumerate(items):
        answer = answers.get(index)
        if answer is None:
            continue
        if not LOW <= answer <= HIGH:
            raise ValueError(f"item {index + 1}: answer {answer} is outside {LOW}-{HIGH}")
        sums[item.dimension].append(answer if item.keyed > 0 else LOW + HIGH - answer)
    return {d: (sum(v) / len(v) if v else None) for d, v in sums.items()}


class Rating(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    score: StrictInt = Field(ge=LOW, le=HIGH)
    reason: str

    @field_validator("reason")
    @classmethod
    def _words(cls, value: str) -> str:
        return structured.words(value)


class Ratings(BaseModel):
    """A rater's verdict on all five dimensions (d-OC or ER): a score and a reason for each."""

    model_config = ConfigDict(extra="ignore")

    openness: Rating
    conscientiousness: Rating
    extraversion: Rating
    agreeableness: Rating
    neuroticism: Rating

    def scores(self) -> dict[str, float]:
        return {d: float(getattr(self, d).score) for d in DIMENSIONS}


def _normalise(obj: dict[str, Any]) -> dict[str, Any]:
    data = {structured.key(k, _ALIASES): v for k, v in obj.items()}
    out: dict[str, Any] = {}
    for dim in DIMENSIONS:
        if dim not in data:
            continue
        value = data[dim]
        if isinstance(value, dict):
            fields = {structured.key(k): v for k, v in value.items()}
            score = fields.get("score", fields.get("rating"))
            reason = fields.get("reason", fields.get("interpretation", fields.get("explanation")))
            out[dim] = {"score": structured.whole_number(score, HIGH), "reason": reason}
        else:
            out[dim] = {"score": structured.whole_number(value, HIGH), "reason": None}
    return out


def read_ratings(reply: str) -> tuple[Ratings | None, str | None]:
    """A rater's reply as five ratings, or None and one line saying what is wrong with it."""
    return structured.read(reply, Ratings, _normalise)


def mae_scaled(designed: Mapping[str, float], measured: Mapping[str, float | None]) -> float | None:
    """Mean absolute error over the dimensions measured, divided by the scale's range (0 best, 1 worst)."""
    gaps = [abs(designed[d] - value) for d in DIMENSIONS
            if d in designed and (value := measured.get(d)) is not None]
    return sum(gaps) / len(gaps) / (HIGH - LOW) if gaps else None


def _side(value: float) -> int:
    return (value > MIDPOINT) - (value < MIDPOINT)


def accuracy(designed: Mapping[str, float], measured: Mapping[str, float | None]) -> dict[str, bool | None]:
    """Per dimension, whether measured and designed sit on the same side of the midpoint; 'full' if all five do.

    A dimension not measured is None and makes 'full' None too: an unmeasured trait is not a hit.
    """
    result: dict[str, bool | None] = {}
    for d in DIMENSIONS:
        m = measured.get(d)
        result[d] = None if m is None or d not in designed else _side(designed[d]) == _side(m)
    values = [result[d] for d in DIMENSIONS]
    result["full"] = None if any(v is None for v in values) else all(values)
    return result


MARGINAL = (0.4, 0.6)  # the share of the range, inclusive, where a target is too ambiguous to score (the paper's)


def marginal(target: float) -> bool:
    """Whether a target 1-5 sits in the paper's ambiguous middle (40% to 60% of the range, ends included)."""
    share = (target - LOW) / (HIGH - LOW)
    return MARGINAL[0] <= share <= MARGINAL[1]


def decided(target: Mapping[str, float | None]) -> dict[str, float]:
    """The target's dimensions the paper's rule scores: those set and not marginal."""
    return {d: v for d in DIMENSIONS if (v := target.get(d)) is not None and not marginal(v)}


def accuracy_paper(target: Mapping[str, float | None],
                   measured: Mapping[str, float | None]) -> dict[str, bool | None]:
    """The paper's rule: per non-marginal dimension, whether the measure is high (above the midpoint) exactly
    when the target is; marginal or unmeasured dimensions are None. 'full': every scored dimension hit
    (None when none can be scored or one scored dimension went unmeasured)."""
    scored = decided(target)
    result: dict[str, bool | None] = {}
    for d in DIMENSIONS:
        m = measured.get(d)
        result[d] = None if d not in scored or m is None else (scored[d] > MIDPOINT) == (m > MIDPOINT)
    values = [result[d] for d in scored]
    result["full"] = None if not scored or any(v is None for v in values) else all(values)
    return result


def mae_paper(target: Mapping[str, float | None], measured: Mapping[str, float | None]) -> float | None:
    """The scaled MAE over the dimensions the paper's rule scores (marginal targets left out)."""
    return mae_scaled(decided(target), measured)


def summarise(pairs: Iterable[tuple[Mapping[str, float], Mapping[str, float | None]]]) -> dict[str, float | None]:
    """Over many characters: mean scaled MAE, accuracy per dimension and full-profile accuracy (fractions)."""
    pairs = list(pairs)
    maes = [m for m in (mae_scaled(d, x) for d, x in pairs) if m is not None]
    hits = [accuracy(d, x) for d, x in pairs]
    out: dict[str, float | None] = {"n": float(len(pairs)), "mae": sum(maes) / len(maes) if maes else None}
    for key in (*DIMENSIONS, "full"):
        known = [hit for h in hits if (hit := h[key]) is not None]
        out[key] = sum(known) / len(known) if known else None
    return out


def _sd(values: list[float]) -> float:
    """The population standard deviation (spread about the values' own mean, divided by their number)."""
    mean = sum(values) / len(values)
    return (sum((v - mean) ** 2 for v in values) / len(values)) ** 0.5


def consistency(runs: Iterable[Mapping[Any, Mapping[str, float]]],
                dimension_of: Mapping[str, str]) -> dict[str, float | None]:
    """InCharacter's item-level consistency (Wang et al., 2024, section 4.1, Table 2), in percent of the
    scale's range: `Std_Item`, how far a character's keyed score on one item moves between runs (the
    spread over its runs, averaged over items and characters), and `Std_Dim`, how far the items of one
    dimension disagree within a run (the spread over a dimension's items, averaged over dimensions, runs and
    characters). `runs` maps each character to its runs, each run an item -> keyed score (1-5);
    `dimension_of` maps an item to its dimension. The paper does not say which standard deviation it takes;
    this is the population one. None where nothing can be spread (one run, or one item a dimension)."""
    per_item: list[float] = []
    per_dim: list[float] = []
    for by_run in runs:
        scored = [run for run in by_run.values() if run]
        items = sorted({i for run in scored for i in run})
        for item in items:
            values = [run[item] for run in scored if item in run]
            if len(values) >= 2:
                per_item.append(_sd(values))
        for run in scored:
            for d in DIMENSIONS:
                values = [v for i, v in run.items() if dimension_of.get(i) == d]
                if len(values) >= 2:
                    per_dim.append(_sd(values))
    scale = 100 / (HIGH - LOW)
    return {"std_item": scale * sum(per_item) / len(per_item) if per_item else None,
            "std_dim": scale * sum(per_dim) / len(per_dim) if per_dim else None}
