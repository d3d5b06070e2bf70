"""The game experiments' statistics on data whose answer is known by hand."""

import math

import pytest

from studio.lab.game_analysis import compare_placements, summarise, table


def test_anova_matches_the_hand_computed_F():
    # means 2, 5, 8; between-groups SS 54 on 2 df, within SS 6 on 6 df: F = 27 / 1 = 27
    result = compare_placements({"none": [1, 2, 3], "goals": [4, 5, 6], "both": [7, 8, 9]})
    assert result.test == "one-way ANOVA"
    assert result.statistic == pytest.approx(27.0)
    assert result.p < 0.01
    far = next(p for p in result.pairs if {p.a, p.b} == {"none", "both"})
    assert far.difference == pytest.approx(-6.0) and far.significant


def test_groups_that_place_alike_are_not_called_different():
    result = compare_placements({"charismatic": [1, 4, 2, 3, 5], "aloof": [2, 3, 5, 1, 4]})
    assert result.test == "Welch's t-test" and result.p > 0.5
    assert not any(p.significant for p in result.pairs)
    assert "Welch" in table(result)


def test_a_group_too_small_to_test_is_named_not_hidden():
    result = compare_placements({"a": [1, 2], "b": [3, 4], "c": [5]})
    assert "c" in result.note and result.groups[2].n == 1
    lonely = compare_placements({"a": [1], "b": [2]})
    assert lonely.p is None and "need two groups" in lonely.note


def test_interval_is_a_t_interval():
    g = summarise("x", [2.0, 4.0, 6.0])
    # sd 2, n 3, t(0.975, 2) = 4.303: half-width 4.303 * 2 / sqrt(3) = 4.969
    assert g.mean == 4.0 and g.ci_high - g.mean == pytest.approx(4.969, abs=1e-3)
    assert math.isnan(summarise("empty", []).mean)
