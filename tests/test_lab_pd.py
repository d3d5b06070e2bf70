"""The dilemma's rules and statistics on cases whose answers are known by hand."""

import random

import numpy as np
import pytest
from planted_dilemma import PAPER_PATTERN, dilemma_trials

from studio.engine.forms.dilemma import game as pd
from studio.lab.stats import Trial, cells, holm, hypotheses, mean_ci, mixed_model, rate_ci


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
    ("I will not cooperate this time.", "D"),
    ("I won't cooperate with someone who keeps taking.", "D"),
    ("I refuse to defect.", "C"),
    ("I will cooperate; I would never betray them.", "C"),
    ("I weigh it up.\nChoice: Project Blue", "D"),
    ("Choice: [Project Green]", "C"),
    ('{"move": "Project Green", "reason": "build trust"}', "C"),
    ("I won't choose Project Blue this time.", "C"),
])
def test_moves_are_read_leniently(reply, move):
    assert pd.read_move(reply) == (move, None)


@pytest.mark.parametrize("reply", ['{"move": "maybe"}', "I might cooperate or defect", "hello"])
def test_a_reply_that_is_not_a_move_is_not_guessed(reply):
    move, error = pd.read_move(reply)
    assert move is None and error


def test_every_group_has_three_wordings():
    assert set(pd.GROUPS) == {"cooperative", "competitive", "altruistic", "self_interested", "mixed_motivation", "control"}
    assert all(len(w) == 3 for w in pd.GROUPS.values())


def test_one_conversation_persona_first_then_own_replies_and_the_partner_s_projects():
    study = pd.instructions(6)
    msgs = pd.conversation(pd.GROUPS["competitive"][2], study, [("Choice: Project Blue", "C"), ("Choice: Project Green", "D")])
    assert [m["role"] for m in msgs] == ["user", "assistant", "user", "assistant", "user"]
    assert msgs[0]["content"].startswith(pd.GROUPS["competitive"][2]) and study in msgs[0]["content"]
    assert msgs[1]["content"] == "Choice: Project Blue"  # its own reply, as it wrote it
    assert "Project Green" in msgs[2]["content"] and "Project Blue" in msgs[4]["content"]  # the partner's choices


def test_the_study_is_framed_as_two_projects_with_dollar_payoffs():
    study = pd.instructions(6).lower()
    assert "project green" in study and "project blue" in study and "$7.00" in study and "$0.00" in study
    assert "cooperat" not in study and "defect" not in study and "points" not in study


def test_a_reply_that_named_no_project_is_asked_again_in_the_conversation():
    msgs = pd.conversation("You are careful.", "The study.", [], unreadable="Hmm.", problem="no project named")
    assert [m["role"] for m in msgs] == ["user", "assistant", "user"] and msgs[1]["content"] == "Hmm."
    assert "no project named" in msgs[2]["content"]


def test_interval_of_a_known_sample():
    est = mean_ci([2.0, 4.0, 6.0])
    assert est.mean == 4.0 and est.high - est.mean == pytest.approx(4.969, abs=1e-3)


PLANTED = {  # group -> partner -> cooperation rate, every hypothesis true in the direction it predicts
    "cooperative": {"always_defect": 0.7, "always_cooperate": 0.7, "tit_for_tat_c": 0.85, "tit_for_tat_d": 0.55},
    "altruistic": {"always_defect": 0.8, "always_cooperate": 0.99, "tit_for_tat_c": 0.85, "tit_for_tat_d": 0.7},
    "self_interested": {"always_defect": 0.35, "always_cooperate": 0.1, "tit_for_tat_c": 0.3, "tit_for_tat_d": 0.45},
    "competitive": {"always_defect": 0.1, "always_cooperate": 0.1, "tit_for_tat_c": 0.05, "tit_for_tat_d": 0.2},
    "mixed_motivation": dict.fromkeys(pd.PARTNERS, 0.55),
    "control": dict.fromkeys(pd.PARTNERS, 0.42),
}


def _trials(rates, n=30, seed=3, personas=3):
    """n trials of six moves per cell, each move C with the cell's rate; trial `rep` plays persona rep % personas."""
    rng = random.Random(seed)
    return [Trial(group, partner, sum(rng.random() < p for _ in range(6)) / 6, 0, rep % personas, rep)
            for group, row in rates.items() for partner, p in row.items() for rep in range(n)]


def test_effects_in_the_predicted_direction_are_supported_after_the_correction():
    """Ten personas a group, every one of them as planted: each hypothesis holds, corrected."""
    found = {f.name: f for f in hypotheses(_trials(PLANTED, n=120, personas=10))}
    for name in ("H1", "H2", "H3", "H4", "H5", "H6", "H7", "H8", "H9"):
        assert found[name].supported, found[name]
        assert found[name].effect > 0 and found[name].p_adjusted >= found[name].p
    assert found["H1"].effect == pytest.approx(0.7 - 0.11, abs=0.08)  # a difference of rates, not a mean
    assert found["H6"].test.startswith("a one-sided paired t over personas")
    assert found["H6"].parts[0].test.startswith("paired t over personas (10 personas, 9 df)")


def test_three_personas_a_group_say_how_little_a_partner_verdict_can_find():
    """The paper's three personas a group leave a partner test two degrees of freedom: the verdict shows the
    chance it had of finding a gap of 0.25, beside it."""
    found = {f.name: f for f in hypotheses(_trials(PLANTED))}
    assert all(0 < found[h].power <= 1 for h in ("H6", "H7", "H8", "H9"))
    assert found["H1"].power is None and found["H1"].n == 6


def test_h3_reports_each_part_as_a_difference():
    found = {f.name: f for f in hypotheses(_trials(PLANTED))}["H3"]
    above, below = found.parts
    assert above.effect == pytest.approx(0.55 - 0.11, abs=0.08) and below.effect == pytest.approx(0.7 - 0.55, abs=0.08)
    assert found.effect == min(above.effect, below.effect)


def test_only_the_control_group_differing_does_not_make_every_group_differ():
    rates = {g: dict.fromkeys(pd.PARTNERS, 0.5) for g in pd.GROUPS}
    rates["control"] = dict.fromkeys(pd.PARTNERS, 0.95)
    found = {f.name: f for f in hypotheses(_trials(rates))}["H4"]
    assert found.supported is False
    against_control = [p for p in found.parts if "control" in p.name]
    assert len(found.parts) == 15 and all(p.supported for p in against_control)  # those pairs do differ
    assert not all(p.supported for p in found.parts)


def test_competitive_lower_against_one_partner_only_is_not_whatever_the_partner():
    rates = {g: dict.fromkeys(pd.PARTNERS, 0.6) for g in pd.GROUPS}
    rates["competitive"] = {**dict.fromkeys(pd.PARTNERS, 0.6), "always_defect": 0.05}
    found = {f.name: f for f in hypotheses(_trials(rates))}["H5"]
    assert found.supported is False and len(found.parts) == 4
    assert [p.supported for p in found.parts if p.name.endswith("always_defect")] == [True]


def test_on_null_data_at_most_one_set_in_twenty_supports_any_hypothesis():
    """400 data sets with no difference anywhere (each set its own common rate): the family-wise rate of a
    false 'supported' stays at 5% or below."""
    rng = random.Random(11)
    hits = 0
    for _ in range(400):
        p = rng.uniform(0.2, 0.8)
        trials = [Trial(g, partner, sum(rng.random() < p for _ in range(6)) / 6, 0, rep % 3, rep)
                  for g in pd.GROUPS for partner in pd.PARTNERS for rep in range(6)]
        hits += any(f.supported for f in hypotheses(trials))
    assert hits / 400 <= 0.05


def test_personas_that_differ_by_chance_do_not_make_their_groups_differ():
    """200 data sets with no group effect, each persona's own level off by sd 0.05, 0.08 or 0.12: trials of
    one persona share its text, so counting them as independent found a group difference in a third of
    these sets; persona means keep any false 'supported' at 5% or below."""
    rng = np.random.default_rng(7)
    hits = 0
    for i in range(200):
        sd = (0.05, 0.08, 0.12)[i % 3]
        hits += any(f.supported for f in hypotheses(dilemma_trials(rng, 30, None, sd, base=rng.uniform(0.2, 0.8))))
    assert hits / 200 <= 0.05


def test_the_paper_s_pattern_at_the_paper_s_size_is_still_found():
    """H1-H3 planted as the paper concludes them, 90 trials per group and partner, personas off by sd 0.02
    (each side's own spread on three personas leaves 2-4 degrees of freedom: docs/lab/dilemma.md gives the
    power at larger spreads)."""
    rng = np.random.default_rng(3)
    for _ in range(3):
        found = {f.name: f for f in hypotheses(dilemma_trials(rng, 90, PAPER_PATTERN, 0.02))}
        assert all(found[h].supported for h in ("H1", "H2", "H3")), [found[h] for h in ("H1", "H2", "H3")]
        assert found["H1"].test.startswith("Welch t on persona means (3 vs 3 personas, ")


def test_one_persona_a_group_cannot_tell_the_group_from_the_persona():
    trials = dilemma_trials(np.random.default_rng(1), 30, PAPER_PATTERN, personas=1)
    found = {f.name: f for f in hypotheses(trials)}
    assert found["H1"].supported is None and found["H1"].p is None  # "too few data", however large the gap
    assert found["H6"].supported is None  # nor can one persona's partners be told from how it reacts


def test_the_protocol_card_names_the_unit_of_replication_and_what_few_personas_cost():
    from studio.lab.pd_kind import protocol

    card = protocol({"reps": 90, "pd": {"wordings": [0, 1, 2], "temperature": 0.2, "max_tokens": 100}})
    unit = next(line for line in card if line.startswith("Unit of replication"))
    assert "the persona, 3 a group" in unit and "little power" in unit
    alone = next(line for line in protocol({"reps": 1, "pd": {"wordings": [0, 1, 2]}}) if line.startswith("Unit"))
    assert "cannot be told from its persona" in alone


def test_holm_adjusts_step_down_and_keeps_order():
    assert holm([0.01, 0.04, None, 0.03]) == pytest.approx([0.03, 0.06, None, 0.06])
    assert holm([0.5, 0.9]) == [1.0, 1.0]  # never above 1, never below an earlier step


def test_rate_intervals_stay_within_zero_and_one():
    for rates in ([1.0] * 3, [0.0, 0.0], [1.0, 0.83, 1.0], [0.5]):
        est = rate_ci(rates, 6)
        assert 0.0 <= est.low <= est.mean <= est.high <= 1.0
    assert rate_ci([1.0] * 3, 6).low < 1.0  # all cooperated, yet the interval says how little three trials show
    # correlated trials (all-or-nothing) give a wider interval than the same rate from independent moves
    assert rate_ci([0.0, 1.0] * 5, 6).high - rate_ci([0.0, 1.0] * 5, 6).low > \
        rate_ci([0.5] * 10, 6).high - rate_ci([0.5] * 10, 6).low


def test_the_mixed_model_finds_the_planted_group_effects():
    terms, spread = mixed_model(_trials(PLANTED, n=12))
    by = {t.term: t for t in terms}
    # against the control group (0.42) with the unconditional defector: cooperative 0.7, competitive 0.1
    assert by["cooperative"].estimate == pytest.approx(0.7 - 0.42, abs=0.12) and by["cooperative"].p < 0.05
    assert by["competitive"].estimate == pytest.approx(0.1 - 0.42, abs=0.12) and by["competitive"].p < 0.05
    assert by["mixed_motivation x tit_for_tat_c"].p > 0.01  # nothing planted there
    assert spread >= 0
    assert mixed_model([Trial("cooperative", "always_defect", 1.0, 0)]) is None


def test_cells_give_rate_and_score_with_intervals():
    table = cells([Trial("control", "always_defect", 0.5, 20), Trial("control", "always_defect", 1.0, 30)])
    cell = table[("control", "always_defect")]
    assert cell["cooperation"].mean == 0.75 and cell["score"].mean == 25 and cell["score"].n == 1  # one persona
    assert cell["trials"] == 2
    assert 0 <= cell["cooperation"].low < 0.75 < cell["cooperation"].high <= 1


def test_a_reply_in_words_that_names_no_project_says_so_for_the_second_chance():
    move, error = pd.read_move("I am not sure what to do.")
    assert move is None and "neither project" in error and "JSON" not in error
