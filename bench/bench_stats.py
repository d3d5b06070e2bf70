"""The dilemma's statistics on the paper's design: how long a report's tests take, and how often null data
show a 'supported' row with and without Holm's correction.

Simulated data only (no model): 6 groups x 4 partners x N trials of six moves.

    .venv/bin/python bench/bench_stats.py [--reps 90] [--null 400]

Measured, side by side:
  (a) hypotheses H1-H9 with every part, on the paper's 2,160 trials: the module's own rank tests against
      the same tests through scipy (mannwhitneyu / wilcoxon per part);
  (b) the mixed model (statsmodels MixedLM) on the same data;
  (c) the share of null data sets with any raw p below 0.05 and with any 'supported' row after Holm's
      correction (goal: the second <= 5%).
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from studio.engine.forms.dilemma import game as pd  # noqa: E402
from studio.lab import stats  # noqa: E402


def trials(rng: random.Random, reps: int, rate: dict[str, float] | None = None) -> list[stats.Trial]:
    out = []
    for group in pd.GROUPS:
        p = (rate or {}).get(group, 0.5)
        for partner in pd.PARTNERS:
            for rep in range(reps):
                out.append(stats.Trial(group, partner, sum(rng.random() < p for _ in range(6)) / 6, 0, rep % 3, rep))
    return out


def _scipy_mwu(a, b, two_sided=False):
    from scipy import stats as s

    return float(s.mannwhitneyu(a, b, alternative="two-sided" if two_sided else "greater", method="asymptotic").pvalue)


def _scipy_wilcoxon(a, b):
    from scipy import stats as s

    return float(s.wilcoxon(a, b, alternative="greater", method="approx").pvalue)


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=90)
    parser.add_argument("--null", type=int, default=400)
    args = parser.parse_args()
    rng = random.Random(1)
    data = trials(rng, args.reps, {"cooperative": 0.8, "competitive": 0.2, "altruistic": 0.85, "self_interested": 0.3,
                                   "mixed_motivation": 0.55, "control": 0.45})
    stats.hypotheses(data)  # warm
    own = timed(lambda: stats.hypotheses(data), 5)
    with mock.patch.object(stats, "mann_whitney", _scipy_mwu), mock.patch.object(stats, "wilcoxon_greater", _scipy_wilcoxon):
        via_scipy = timed(lambda: stats.hypotheses(data), 5)
    print(f"(a) H1-H9 on {len(data)} trials: module {own * 1000:.1f} ms, scipy {via_scipy * 1000:.1f} ms "
          f"({via_scipy / own:.1f} x)")
    start = time.perf_counter()
    stats.mixed_model(data)
    print(f"(b) mixed model on {len(data)} trials: {time.perf_counter() - start:.2f} s")
    raw = corrected = 0
    for _ in range(args.null):
        p = rng.uniform(0.2, 0.8)
        found = stats.hypotheses(trials(rng, 6, dict.fromkeys(pd.GROUPS, p)))
        raw += any(f.p is not None and f.p < stats.ALPHA for f in found)
        corrected += any(f.supported for f in found)
    print(f"(c) {args.null} null data sets: any raw p < 0.05 in {raw / args.null:.1%}, "
          f"any supported after Holm in {corrected / args.null:.1%} (goal <= 5%)")


if __name__ == "__main__":
    main()
