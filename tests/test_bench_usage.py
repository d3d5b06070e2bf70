"""Every benchmark says how to run it when asked, instead of running: a bench takes minutes and loads
every core, and `--help` is how a newcomer finds its options."""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

from conftest import ROOT

BENCHES = sorted((ROOT / "bench").glob("bench_*.py"))


def test_every_bench_is_found():
    assert len(BENCHES) >= 10, BENCHES


@pytest.mark.parametrize("bench", BENCHES, ids=lambda p: p.stem)
def test_a_bench_asked_for_help_prints_its_usage_and_runs_nothing(bench, tmp_path):
    done = subprocess.run([sys.executable, str(bench), "--help"], cwd=tmp_path, capture_output=True, text=True,
                          timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("usage:"), done.stdout[:400]
    assert not re.search(r"\d+\.\d+ ?(ms|s)\b", done.stdout), f"the bench measured something:\n{done.stdout[:400]}"
    assert list(tmp_path.iterdir()) == [], "the bench wrote files when asked for help"
