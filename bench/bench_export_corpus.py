"""What the PDF export of the test corpora costs, this checkout beside another (main, say), side by side.

The corpora are the tests' own: the planted run (tests/planted.py: every Fountain construct and a dozen
writing systems, long Chinese, Arabic and Hebrew) and the world run (tests/world.py: a line in each of
thirty-odd writing systems, marks on letters, unspaced Thai, Lao and Khmer, right-to-left text with
digits). Each checkout is run in a process of its own, the corpora always from this checkout, so
both export the same runs; the first export of a process registers the fonts and is left out, then
each corpus is exported `repeat` times in each PDF layout. The two checkouts run in turn, `rounds`
times each, so a busy spell of the computer weighs on both alike. Each figure is the least CPU time
of an export over all of them: the wall clock counts whatever else the computer is doing meanwhile,
and so, on a busy computer, does a process's CPU time (shared caches, a shared core), only upwards.

    .venv/bin/python bench/bench_export_corpus.py [--against PATH] [--repeat N] [--rounds N]

Goal: no slower than main.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent.parent
LAYOUTS = ("pdf", "play-pdf")


def measure(root: Path, repeat: int) -> dict[str, float]:
    """Median seconds of each corpus in each layout, with the studio imported from `root`."""
    sys.path[:0] = [str(root), str(HERE / "tests")]
    from planted import planted_run
    from world import world_run

    from studio.export import export_run
    from studio.store import Store

    out: dict[str, float] = {}
    with tempfile.TemporaryDirectory() as folder:
        store = Store(Path(folder) / "studio.db")
        runs = {"planted": planted_run(store), "world": world_run(store)}
        export_run(store, runs["planted"], "pdf", out=Path(folder) / "warm.pdf", warn=lambda m: None)
        for name, run_id in runs.items():
            for layout in LAYOUTS:
                times = []
                for _ in range(repeat):
                    started = time.process_time()
                    export_run(store, run_id, layout, out=Path(folder) / f"{name}-{layout}.pdf", warn=lambda m: None)
                    times.append(time.process_time() - started)
                out[f"{name} {layout}"] = min(times)
        store.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--against", type=Path, default=Path("/work/main"), help="the other checkout (main)")
    parser.add_argument("--repeat", type=int, default=3, help="exports of each corpus and layout in a process")
    parser.add_argument("--rounds", type=int, default=3, help="processes of each checkout, taken in turn")
    parser.add_argument("--one", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(measure(args.one, args.repeat)))
        return
    rounds: dict[str, list[dict[str, float]]] = {"this": [], "against": []}
    for _ in range(args.rounds):  # the two in turn, so a busy spell of the machine falls on both
        for label, root in (("this", HERE), ("against", args.against.resolve())):
            done = subprocess.run([sys.executable, __file__, "--one", str(root), "--repeat", str(args.repeat)],
                                  capture_output=True, text=True, check=True, timeout=900)
            rounds[label].append(json.loads(done.stdout.strip().splitlines()[-1]))
    figures = {label: {key: min(r[key] for r in runs) for key in runs[0]} for label, runs in rounds.items()}
    print(f"PDF export, least CPU seconds of {args.rounds} rounds of {args.repeat}; this checkout: {HERE}; against: {args.against}")
    print(f"{'corpus, layout':<18} {'this':>9} {'against':>9} {'ratio':>6}")
    for key in figures["this"]:
        this, other = figures["this"][key], figures["against"][key]
        print(f"{key:<18} {this:8.2f}s {other:8.2f}s {this / other:6.2f}")
    total_this, total_other = sum(figures["this"].values()), sum(figures["against"].values())
    print(f"{'all':<18} {total_this:8.2f}s {total_other:8.2f}s {total_this / total_other:6.2f}")


if __name__ == "__main__":
    main()
