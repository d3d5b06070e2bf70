"""Memory held by `studio lab run` before its first trial, at the largest repetition count.

`studio lab run experiments/pd_paper.toml --reps 10000` plans 240,000 trials (six groups, four partners).
Everything the runner builds before the first trial begins (the plan, the record of what is done, the
work still to do) is what this measures: the process's peak resident memory at the moment the first
trial starts, less what the same process held before the experiment was loaded, so imports do not count.
Goal: at most 100 MB.

Run: .venv/bin/python bench/bench_lab_plan.py [--reps N] [--experiment PATH]
"""

from __future__ import annotations

import argparse
import asyncio
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))


class _First(Exception):
    """Raised at the first trial: nothing after it is measured."""


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KiB on Linux


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10_000)
    parser.add_argument("--experiment", default=str(ROOT / "experiments" / "pd_paper.toml"))
    args = parser.parse_args()

    from studio.lab.experiment import load_experiment
    from studio.lab.runner import run_experiment
    from studio.store import Store

    import studio.lab.pd_kind  # noqa: F401  (the kinds' imports are not the plan's cost)

    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "s.db")
        before = _rss_mb()
        began = time.perf_counter()
        experiment = load_experiment(args.experiment, reps=args.reps, model="scripted")
        seen: dict[str, float] = {}

        def first(trial) -> None:
            seen["rss"], seen["seconds"] = _rss_mb(), time.perf_counter() - began
            raise _First

        try:
            asyncio.run(run_experiment(store, experiment, on_trial=first))
        except _First:
            pass
        store.close()
    trials = len(experiment.kind.plan(experiment.spec))
    print(f"{Path(args.experiment).name} --reps {args.reps}: {trials:,} trials planned")
    print(f"  before loading: {before:.0f} MB; at the first trial: {seen['rss']:.0f} MB peak "
          f"(+{seen['rss'] - before:.0f} MB), {seen['seconds']:.2f} s after loading began")


if __name__ == "__main__":
    main()
