"""A huge --scenes is refused before anything is built from it (it once padded a brief list to 9 GB)."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from studio.cli import build_parser
from studio.model.errors import InputError

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("count", ["100000000", "1000000000000"])
def test_a_huge_scene_count_fails_at_once_in_little_memory(tmp_path, count):
    args = build_parser().parse_args(["run", str(ROOT / "plays/detective.toml"), "--model", "scripted",
                                      "--scenes", count, "--db", str(tmp_path / "s.db")])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(InputError) as info:
        args.func(args)
    assert "scenes" in info.value.message
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB: under 100 MB grown


_FIRST_TRIAL = """
import asyncio, resource, sys, tempfile
from pathlib import Path
from studio.lab.experiment import load_experiment
from studio.lab.runner import run_experiment
from studio.store import Store
import studio.lab.pd_kind

class First(Exception):
    pass

def first(trial):
    raise First(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)

with tempfile.TemporaryDirectory() as folder:
    store = Store(Path(folder) / "s.db")
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    experiment = load_experiment(sys.argv[1], reps=10000, model="scripted")
    try:
        asyncio.run(run_experiment(store, experiment, on_trial=first))
    except First as at:
        print(len(experiment.kind.plan(experiment.spec)), (at.args[0] - before) // 1024)
"""


def test_ten_thousand_repetitions_are_planned_lazily():
    """`lab run pd_paper --reps 10000` (240,000 trials) held about 580 MB before its first trial."""
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-c", _FIRST_TRIAL, str(ROOT / "experiments" / "pd_paper.toml")],
                          capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert done.returncode == 0, done.stderr
    trials, grown_mb = map(int, done.stdout.split())
    assert trials == 240_000
    assert grown_mb < 100
