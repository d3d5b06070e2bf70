"""The line-before reader's sums (bench/bench_answers.py): a scene whose subject drifts scores against any
other line of the speaker before, and not against that speaker's line before; one whose lines answer
what was just said scores against both."""

from __future__ import annotations

from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_answers.py"


LINES = [("Sasha" if i % 2 == 0 else "Jenny", f"line {i}") for i in range(20)]


def _table(bench, score):
    return {(i, j): score(i, j) for j, after in bench.pairs_needed(LINES).items() for i in after}


def test_only_lines_a_shuffle_could_set_after_another_are_read(bench):
    needed = bench.pairs_needed(LINES)
    assert needed[0] == [i for i in range(20) if i % 2 == 1]  # Jenny's lines after Sasha's first
    assert all(LINES[i][0] != LINES[j][0] for j, after in needed.items() for i in after)
    ensemble = [("Ines", "a"), ("Tomas", "b"), ("Marit", "c"), ("Ines", "d")]
    assert bench.pairs_needed(ensemble) == {0: [1], 1: [2], 2: [0, 3], 3: [1]}


def test_drift_scores_against_any_line_and_not_against_the_line_before(bench):
    # each line a little less likely the farther it stands from the one before: the subject drifts
    drift = _table(bench, lambda i, j: -abs(i - j) / 10)
    result = bench.report("drift", [(LINES, drift)])
    assert result["lift_over_any"] > 0.2 and result["shuffled_chance"] < 0.05
    # the line it followed (one back) against the line two turns before it (three back): nearer, so it
    # still wins; held at equal distance, nothing is left
    flat = _table(bench, lambda i, j: 0.0 if abs(i - j) in (1, 3) else -abs(i - j) / 10)
    assert bench.report("flat", [(LINES, flat)])["lift_over_line_before"] == 0.0
    assert bench.report("flat", [(LINES, flat)])["sign_p"] == 1.0


def test_lines_that_answer_the_line_before_score_against_both(bench):
    answering = _table(bench, lambda i, j: 0.0 if j == i - 1 else -1.0)
    result = bench.report("answering", [(LINES, answering)])
    assert result["lift_over_any"] == pytest.approx(1.0) and result["lift_over_line_before"] == pytest.approx(1.0)
    assert result["more_likely"] == "17/17" and result["sign_p"] < 0.001 and result["shuffled_chance"] < 0.01
    none = _table(bench, lambda i, j: -1.0)
    assert bench.report("none", [(LINES, none)])["shuffled_chance"] == 1.0
