"""The app's bench ends on its own clock: a measure that runs over its budget is named and left out, and
the bench goes on with the rest, so a loaded machine gives fewer figures, never a bench that hangs."""

from __future__ import annotations

import time

from conftest import ROOT

BENCH = ROOT / "bench" / "bench_tui.py"


def test_a_measure_over_its_budget_is_named_and_the_bench_goes_on(bench, monkeypatch, capsys):
    monkeypatch.setattr(bench, "PART_BUDGET_S", 0.5)
    monkeypatch.setattr(bench, "_deadline", [time.monotonic() + 60])
    started = time.monotonic()
    bench._measured(bench.report_keypress)
    assert time.monotonic() - started < 20
    said = capsys.readouterr().out
    assert "keypress: not finished within 0 s" in said or "keypress: not finished within 1 s" in said, said
    assert "left out" in said


def test_no_measure_starts_once_the_whole_budget_is_spent(bench, monkeypatch, capsys):
    monkeypatch.setattr(bench, "_deadline", [time.monotonic() - 1])
    started = time.monotonic()
    bench._measured(bench.report_desk, ROOT)
    bench._measured(bench.report_keypress)
    assert time.monotonic() - started < 1
    said = capsys.readouterr().out
    assert said.count("no time left") == 2 and "desk: no time left" in said, said
