"""The dilemma's rules and statistics on cases whose answers are known by hand."""

import random

import pytest

from studio.engine.forms.dilemma import game as pd
from studio.lab.stats import Trial, cells, hypotheses, mean_ci


def test_payoffs_follow_the_paper():
    assert pd.score("C", "C") == (5, 5) and pd.score("D", "D") == (3, 3)
    assert pd.score("D", "C") == (7, 0) and pd.score("C", "D") == (0, 7)


@pytest.mark.parametrize("partner, mine, theirs", [
    ("always_defect", "CCCCCC", "DDDDDD"),
    ("always_cooperate", "DDDDDD", "CCCCCC"),
    ("tit_for_tat_c", "DCDCDC", "CDCDCD"),
    ("tit_for_tat_d", "CCCCCC", "DCCCCC"),
])
def test_rule_partners_answer_the_simulacrum_s_last_move(partner, mine, theirs):
    script = iter(mine)
    game = pd.play(lambda m, t: next(script), partner)
    assert "".join(game.partner_moves) == theirs


def test_a_game_s_scores_follow_from_its_moves():
    game = pd.play(lambda m, t: "C", "tit_for_tat_d")  # partner: D then C forever
    assert game.scores == [0, 5, 5, 5, 5, 5] and game.total == 25
    assert game.partner_scores == [7, 5, 5, 5, 5, 5]
    assert game.cooperation == 1.0
    greedy = pd.play(lambda m, t: "D", "always_cooperate")
    assert greedy.total == 42 and greedy.cooperation == 0.0


@pytest.mark.parametrize("reply, move", [
    ('{"move": "C", "reason": "trust"}', "C"),
    ('```json\n{"Move": "defect"}\n```', "D"),
    ("I will cooperate this round.", "C"),
    ("Defect. They cannot be trusted.", "D"),
])
def test_moves_are_read_leniently(reply, move):
    assert pd.read_move(reply) == (move, None)


@pytest.mark.parametrize("reply", ['{"move": "maybe"}', "I might cooperate or defect", "hello"])
def test_a_reply_that_is_not_a_move_is_not_guessed(reply):
    move, error = pd.read_move(reply)
    assert move is None and error


def test_every_group_has_three_wordings_and_the_messages_carry_history():
    assert set(pd.GROUPS) == {"cooperative", "competitive", "altruistic", "self_interested", "mixed_motivation", "control"}
    assert all(len(w) == 3 for w in pd.GROUPS.values())
    msgs = pd.messages("competitive", 2, [("C", "D")])
    assert pd.GROUPS["competitive"][2] in msgs[0]["content"] and "round 1: you C, they D" in msgs[1]["content"]


def test_interval_of_a_known_sample():
    est = mean_ci([2.0, 4.0, 6.0])
    assert est.mean == 4.0 and est.high - est.mean == pytest.approx(4.969, abs=1e-3)


def _synthetic(seed=3, n=20):
    """Groups cooperate at planted rates: cooperative 0.9, competitive 0.1, mixed 0.5, altruistic 0.9 except
    against a defector, self-interested 0.2 and less against a cooperator; control 0.5."""
    rng = random.Random(seed)
    base = {"cooperative": 0.9, "competitive": 0.1, "mixed_motivation": 0.5, "altruistic": 0.8,
            "self_interested": 0.3, "control": 0.5}
    trials = []
    for group, rate in base.items():
        for partner in pd.PARTNERS:
            p = rate
            if group == "altruistic":
                p = 0.98 if partner == "always_cooperate" else 0.6
            if group == "self_interested" and partner == "always_cooperate":
                p = 0.02
            if group in ("cooperative", "altruistic") and partner == "tit_for_tat_d":
                p -= 0.3
            for _ in range(n):
                moves = ["C" if rng.random() < p else "D" for _ in range(6)]
                trials.append(Trial(group, partner, moves.count("C") / 6, 0))
    return trials


def test_the_hypotheses_find_what_was_planted():
    found = {f.name: f for f in hypotheses(_synthetic())}
    for name in ("H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8"):
        assert found[name].supported, found[name]
    assert found["H1"].effect > 0.5 and found["H1"].test.startswith("Mann-Whitney")
    assert found["H9"].supported is False  # nothing planted there


def test_no_difference_planted_means_none_found():
    trials = [Trial(g, p, t.cooperation, 0) for t, g, p in zip(
        _synthetic(), [t.group for t in _synthetic()], [t.partner for t in _synthetic()])]
    flat = [Trial(t.group, t.partner, random.Random(i).choice([0.5, 0.5, 0.33, 0.67]), 0) for i, t in enumerate(trials)]
    found = {f.name: f for f in hypotheses(flat)}
    assert not found["H1"].supported and not found["H4"].supported


def test_cells_give_rate_and_score_with_intervals():
    table = cells([Trial("control", "always_defect", 0.5, 20), Trial("control", "always_defect", 1.0, 30)])
    cell = table[("control", "always_defect")]
    assert cell["cooperation"].mean == 0.75 and cell["score"].mean == 25 and cell["score"].n == 2
