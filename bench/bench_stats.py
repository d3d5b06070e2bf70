"""The dilemma's statistics on the paper's design: how long a report's statistics take, how often null data
show a 'supported' row, and how often the paper's pattern is found.

Simulated data only (no model, `tests/planted_dilemma.py`): 6 groups x 4 partners x N trials of six moves,
three personas a group, each persona's level off its group's by a normal draw of the given spread.

    .venv/bin/python bench/bench_stats.py [--reps 90] [--sets 400]

Measured:
  (a) hypotheses H1-H9 with every part, on the paper's 2,160 trials;
  (b) the mixed model (statsmodels MixedLM) on the same data, its libraries' import apart, and the whole
      report with the mixed model (cells, hypotheses, model, protocol card): the goal is under 2 s;
  (c) the share of null data sets (no group effect; persona spread 0, 0.05, 0.08, 0.12) with any
      'supported' row after Holm's correction (goal: <= 5%);
  (d) the power: the share of sets with H1-H3 planted as the paper concludes them in which each is found;
  (e) the partner verdicts H6-H9 on null data whose personas react to each partner their own way (persona x
      partner sd 0.05, 0.10, 0.15): the share with any of them 'supported' (goal: <= 5%);
  (f) the partner tests' power at the paper's size: a gap of 0.1, 0.25 or 0.4 planted for H8's cooperative
      group (tit-for-tat starting C over starting D), the share of sets whose H8 part for it holds (raw p),
      beside the power the report prints for it.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

import numpy as np  # noqa: E402
from planted_dilemma import PAPER_PATTERN, dilemma_trials  # noqa: E402

from studio.lab import stats  # noqa: E402
from studio.lab.pd_kind import pd_report  # noqa: E402

SPREADS = (0.0, 0.05, 0.08, 0.12)
REACTIONS = (0.05, 0.10, 0.15)
GAPS = (0.1, 0.25, 0.4)


def timed(fn, repeat: int) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def _results(trials: list[stats.Trial]) -> list[dict]:
    """The trials as the lab's store hands them to the report."""
    return [{"group": t.group, "partner": t.partner, "wording": t.wording, "rep": t.rep, "cooperation": t.cooperation,
             "total": t.total, "moves": "C" * t.rounds} for t in trials]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--reps", type=int, default=90)
    parser.add_argument("--sets", type=int, default=400)
    args = parser.parse_args()
    rng = np.random.default_rng(1)
    data = dilemma_trials(rng, args.reps, PAPER_PATTERN, 0.05)
    stats.hypotheses(data)  # warm
    own = timed(lambda: stats.hypotheses(data), 5)
    print(f"(a) H1-H9 on {len(data)} trials: {own * 1000:.1f} ms")
    start = time.perf_counter()
    import pandas  # noqa: F401
    import statsmodels.formula.api  # noqa: F401
    imported = time.perf_counter() - start
    start = time.perf_counter()
    stats.mixed_model(data)
    model = time.perf_counter() - start
    spec = {"name": "bench", "model": "scripted", "reps": args.reps, "pd": {"mixed_model": True, "temperature": 0.2,
                                                                           "max_tokens": 100, "wordings": [0, 1, 2]}}
    results = _results(data)
    whole = timed(lambda: pd_report(spec, results), 3)
    print(f"(b) importing pandas and statsmodels {imported:.2f} s; the mixed model's first fit on {len(data)} trials "
          f"{model:.2f} s; the whole report with it, warm: {whole:.2f} s (goal: import, fit and report < 2 s)")
    for sd in SPREADS:
        hits = sum(any(f.supported for f in stats.hypotheses(dilemma_trials(rng, args.reps, None, sd,
                                                                                  base=rng.uniform(0.2, 0.8))))
                   for _ in range(args.sets))
        print(f"(c) persona sd {sd:.2f}, no group effect: any 'supported' in {hits / args.sets:.1%} of {args.sets} sets")
    for sd in SPREADS:
        found = {"H1": 0, "H2": 0, "H3": 0}
        every = 0
        for _ in range(args.sets):
            verdicts = {f.name: bool(f.supported) for f in stats.hypotheses(dilemma_trials(rng, args.reps, PAPER_PATTERN, sd))}
            for name in found:
                found[name] += verdicts[name]
            every += all(verdicts[name] for name in found)
        shares = ", ".join(f"{name} {count / args.sets:.0%}" for name, count in found.items())
        print(f"(d) persona sd {sd:.2f}, the paper's pattern: {shares}, all three {every / args.sets:.0%}")
    for sd in REACTIONS:
        hits = 0
        for _ in range(args.sets):
            found = stats.hypotheses(dilemma_trials(rng, args.reps, None, 0.05, base=rng.uniform(0.3, 0.7),
                                                    reaction_sd=sd))
            hits += any(f.supported for f in found if f.name in ("H6", "H7", "H8", "H9"))
        print(f"(e) persona x partner sd {sd:.2f}, no partner effect: any of H6-H9 'supported' in "
              f"{hits / args.sets:.1%} of {args.sets} sets")
    for sd in REACTIONS:
        line = []
        for gap in GAPS:
            rates = {"cooperative": {"tit_for_tat_c": 0.5 + gap / 2, "tit_for_tat_d": 0.5 - gap / 2,
                                     "always_defect": 0.5, "always_cooperate": 0.5}}
            held = shown = 0.0
            for _ in range(args.sets):
                part = next(f for f in stats.hypotheses(dilemma_trials(rng, args.reps, rates, 0.05, reaction_sd=sd))
                            if f.name == "H8").parts[0]
                held += bool(part.supported)
                shown += part.power or 0.0
            line.append(f"gap {gap:.2f}: found {held / args.sets:.0%} (printed power at 0.25: {shown / args.sets:.0%})")
        print(f"(f) persona x partner sd {sd:.2f}, H8 cooperative part, raw p < 0.05: " + "; ".join(line))


if __name__ == "__main__":
    main()
