"""InCharacter scoring on crafted replies: OC, d-OC/ER ratings, scaled MAE and accuracy."""

import json

import pytest

from studio.lab.personality import (
    DIMENSIONS, Item, accuracy, mae_scaled, read_choice, read_ratings, score_oc, summarise,
)


@pytest.mark.parametrize("reply, choice", [
    ("4", 4), ("I'd say 2.", 2), ("Strongly disagree, I hate crowds.", 1), ("I agree with that.", 4),
    ("Neither agree nor disagree", 3), ("Very accurate for me", 5), ("somewhere between 2 and 3", None),
    ("I refuse to answer.", None), ("10", None),
])
def test_a_choice_is_read_from_numbers_or_the_scale_words(reply, choice):
    assert read_choice(reply) == choice


def test_reversed_items_are_turned_round_and_unanswered_ones_left_out():
    items = [Item("Am the life of the party.", "extraversion"), Item("Keep in the background.", "extraversion", -1),
             Item("Get upset easily.", "neuroticism"), Item("Have a vivid imagination.", "openness")]
    scores = score_oc(items, {0: 5, 1: 1, 2: 2, 3: None})
    assert scores["extraversion"] == 5.0  # 5 and the reversed 1 both say "very extraverted"
    assert scores["neuroticism"] == 2.0
    assert scores["openness"] is None and scores["agreeableness"] is None
    with pytest.raises(ValueError, match="item 1"):
        score_oc(items, {0: 6})


def _ratings(score, reason):
    return json.dumps({d: {"score": score, "reason": reason} for d in DIMENSIONS})


def test_ratings_with_reasons_in_prose_are_read_and_a_number_is_not_a_reason():
    ratings, error = read_ratings("My ratings:\n" + _ratings("4/5", "She talks to everyone at the party."))
    assert error is None and ratings.scores()["extraversion"] == 4.0
    ratings, error = read_ratings(_ratings(4, "5"))
    assert ratings is None and "reason" in error
    ratings, error = read_ratings(_ratings(9, "Far too many words here."))
    assert ratings is None and "score" in error


def test_scaled_mae_and_accuracy_against_the_design():
    designed = {"openness": 5, "conscientiousness": 1, "extraversion": 4, "agreeableness": 2, "neuroticism": 3}
    exact = dict(designed)
    assert mae_scaled(designed, exact) == 0.0
    opposite = {d: 6 - v for d, v in designed.items()}
    assert mae_scaled(designed, opposite) == pytest.approx((4 + 4 + 2 + 2 + 0) / 5 / 4)
    hits = accuracy(designed, opposite)
    assert hits["openness"] is False and hits["neuroticism"] is True and hits["full"] is False
    assert accuracy(designed, exact)["full"] is True
    partial = {**exact, "neuroticism": None}
    assert accuracy(designed, partial)["full"] is None and accuracy(designed, partial)["openness"] is True


def test_summary_over_characters_gives_fractions():
    designed = {d: 5 for d in DIMENSIONS}
    good = {d: 4 for d in DIMENSIONS}
    bad = {**good, "openness": 1}
    summary = summarise([(designed, good), (designed, bad)])
    assert summary["openness"] == 0.5 and summary["extraversion"] == 1.0 and summary["full"] == 0.5
    assert summary["mae"] == pytest.approx(((1 * 5) / 5 / 4 + (4 + 4) / 5 / 4) / 2)
