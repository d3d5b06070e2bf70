"""The lab's verdicts and intervals on planted data with the clustering real data have: personas that react
to partners their own way, groups whose personas spread unequally, lost cells, games whose places are ranks,
a Critic that prefers what it reads second, and characters that hit their targets at rates of their own.

Each rate is counted over a stated number of simulated data sets, and each bound allows two standard errors
of that count (for a 5% rate over 300 sets: 5% + 2.5%), so a test fails on a real excess, not on the
count's own noise. docs/lab/index.md gives the table of these rates and coverages.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from planted_dilemma import dilemma_trials
from planted_lab import action_shares, critic_readings, games, interviews

from studio.lab.stats import Trial, adjusted_means, cells, game_share, hypotheses, personas, persona_cells


def _bound(rate: float, sets: int) -> float:
    return rate + 2 * math.sqrt(rate * (1 - rate) / sets)


PARTNER_VERDICTS = ("H6", "H7", "H8", "H9")


def test_partner_verdicts_stay_at_five_percent_when_personas_react_to_partners_their_own_way():
    """300 null data sets (no partner or group effect), each persona's rate against each partner off by a
    draw of its own (sd 0.10 or 0.15): counting a group's 90 trials as 90 pairs found a partner effect in
    10-17% of such sets; one difference per persona keeps any false H6-H9 at 5% or below."""
    rng = np.random.default_rng(21)
    sets = 300
    false = 0
    for i in range(sets):
        trials = dilemma_trials(rng, 30, None, 0.05, base=rng.uniform(0.3, 0.7), reaction_sd=(0.10, 0.15)[i % 2])
        found = {f.name: f for f in hypotheses(trials)}
        false += any(found[h].supported for h in PARTNER_VERDICTS)
    assert false / sets <= _bound(0.05, sets)


def test_a_partner_verdict_names_its_test_its_personas_and_its_power():
    trials = dilemma_trials(np.random.default_rng(4), 30, None, 0.05, reaction_sd=0.1)
    h6 = {f.name: f for f in hypotheses(trials)}["H6"]
    part = h6.parts[0]
    assert part.test == "paired t over personas (3 personas, 2 df), one-sided" and part.n == 3
    assert 0 < part.power < 1 and h6.power == min(p.power for p in h6.parts)


def test_many_personas_find_a_planted_partner_gap():
    """The test is not blind: 12 personas whose every member cooperates 0.3 more with an unconditional
    cooperator than with anyone else show H6 in each of 20 data sets."""
    rng = np.random.default_rng(5)
    rates = {"altruistic": {"always_cooperate": 0.85, "always_defect": 0.55, "tit_for_tat_c": 0.55,
                            "tit_for_tat_d": 0.55}}
    for _ in range(20):
        found = {f.name: f for f in hypotheses(dilemma_trials(rng, 48, rates, 0.05, personas=12, reaction_sd=0.05))}
        assert found["H6"].supported, found["H6"]


def test_group_verdicts_judge_two_groups_by_their_own_spread():
    """300 null data sets where the two groups H1 compares have personas spread by 0.15 and the other four
    by 0.02: an error pooled over all six groups read H1's gap as real in 16-17% of them; each side's own
    spread (Welch) keeps H1's raw one-sided p below 0.05 in 5% or fewer."""
    rng = np.random.default_rng(8)
    sets = 300
    spread = {"cooperative": 0.15, "competitive": 0.15}
    false = 0
    for _ in range(sets):
        trials = dilemma_trials(rng, 30, None, 0.02, base=0.5, group_sd=spread)
        h1 = {f.name: f for f in hypotheses(trials)}["H1"]
        false += h1.p < 0.05
    assert false / sets <= _bound(0.05, sets)
    assert h1.test.startswith("Welch t on persona means (3 vs 3 personas")


def test_a_lost_cell_does_not_move_its_persona():
    """A persona that never met the hardest partner is not lifted to the group's top: its mean is read from
    the additive fit persona + partner, as if it had met every partner."""
    partners = {"always_defect": 0.1, "always_cooperate": 0.9, "tit_for_tat_c": 0.6, "tit_for_tat_d": 0.4}
    level = {0: 0.0, 1: 0.05, 2: -0.05}
    by_persona = {w: {p: r + level[w] for p, r in partners.items()} for w in level}
    del by_persona[1]["always_defect"]
    adjusted = adjusted_means(by_persona)
    assert adjusted[1] == pytest.approx(0.5 + 0.05, abs=1e-9)        # the plain mean over three partners: 0.683
    assert adjusted[0] == pytest.approx(0.5) and adjusted[2] == pytest.approx(0.45)
    cells_ = {("cooperative", w): rates for w, rates in by_persona.items()}
    assert personas(cells_).means["cooperative"] == pytest.approx([0.5, 0.55, 0.45])


def test_cell_intervals_cover_the_group_s_rate():
    """150 data sets of 24 cells each (3,600 intervals, correlated within a set through the personas),
    personas off their group by sd 0.05 to 0.15 and reacting to partners by 0.05: each cell's interval
    holds the group's planted rate at least 93% of the time; intervals over trials held it 44-61%."""
    rng = np.random.default_rng(9)
    hit = total = 0
    for i in range(150):
        base = rng.uniform(0.3, 0.7)
        table = cells(dilemma_trials(rng, 30, None, (0.05, 0.1, 0.15)[i % 3], base=base, reaction_sd=0.05))
        for cell in table.values():
            est = cell["cooperation"]
            hit += est.low <= base <= est.high
            total += 1
    assert total == 3600 and hit / total >= 0.93
    assert est.n == 3 and cell["trials"] == 30                        # n: the personas; the trials beside it


@pytest.mark.parametrize("count", [2, 3, 5])
def test_action_shares_cover_the_group_s_share_with_few_games(count):
    """1,000 sets of 2, 3 or 5 games, each game's share off the group's by sd 0.1: the interval over games
    holds the group's share at least 93% of the time (a z interval covered 70-86%)."""
    rng = np.random.default_rng(count)
    sets, hit = 1000, 0
    for _ in range(sets):
        share = rng.uniform(0.25, 0.65)
        est = game_share(action_shares(rng, count, share))
        hit += est.low <= share <= est.high
    assert hit / sets >= 0.93 and est.n == count


def test_interview_agreement_intervals_are_over_characters():
    """400 sets of 6 characters x 3 runs, each character hitting its target at a rate of its own (sd 0.15
    about 0.6): the interval of Acc Dim holds 0.6 at least 93% of the time, where counting every run and
    dimension as independent held it 80-92%."""
    from studio.lab.interview_kind import agreement

    rng = np.random.default_rng(13)
    targets = {f"C{c}": dict.fromkeys(("openness", "conscientiousness", "extraversion", "agreeableness",
                                       "neuroticism"), 5.0) for c in range(6)}
    sets, hit = 400, 0
    for _ in range(sets):
        cell = agreement(targets, "doc", interviews(rng, 6, 3, 0.6))["acc_dim"]
        hit += cell.low <= 60.0 <= cell.high
    assert hit / sets >= 0.93 and cell.n == 6


def test_placement_verdict_holds_five_percent_and_finds_a_planted_group():
    """400 games-sets of 5 games of eight (two players of each architecture, one voted out first) with no
    group effect: the permutation within games calls a difference in 5% or fewer (the ANOVA on the pooled
    places, 9% in a like run); 60 sets of 10 games where one group's players are stronger by one sd: found
    in most."""
    from studio.lab.game_analysis import permutation_within_games

    rng = np.random.default_rng(2)
    seats = {"A": 2, "B": 2, "C": 2, "D": 2}
    sets = 400
    false = sum(permutation_within_games(games(rng, 5, seats), draws=999) < 0.05 for _ in range(sets))
    assert false / sets <= _bound(0.05, sets)
    found = sum(permutation_within_games(games(rng, 10, seats, {"A": 1.0}), draws=999) < 0.05 for _ in range(60))
    assert found / 60 >= 0.7


def test_the_placement_table_s_verdict_reads_the_permutation():
    from studio.lab.game_analysis import compare_placements, table

    played = games(np.random.default_rng(3), 10, {"A": 2, "B": 2, "C": 2, "D": 2}, {"A": 2.0})
    pooled: dict[str, list[float]] = {}
    for game in played:
        for group, place in game:
            pooled.setdefault(group, []).append(place)
    result = compare_placements(pooled, played)
    assert result.permutation_p is not None and result.differs is True and result.permutations == 9999
    assert "labels shuffled within games (9999 draws)" in table(result)
    assert compare_placements(pooled).permutation_p is None           # no games given: no verdict to read


def test_the_critic_s_order_is_balanced_exactly():
    from studio.lab.compare import balanced_first

    for seed in range(20):
        for reps in (2, 3, 4, 9, 10):
            first = [balanced_first(seed, rep, "with") for rep in range(reps)]
            assert abs(sum(first) - reps / 2) <= 0.5, (seed, reps, first)


def test_a_critic_that_prefers_the_second_script_moves_neither_adjusted_mean():
    """400 experiments of 3 repetitions, no inner-voice effect, the Critic adding 1.5 to whatever it reads
    second, the order balanced: the position-adjusted means the paper's figures are set beside differ by what
    the same experiments show with no position bias at all (the mean gap within 0.1 of it), and the fitted
    effect is called in at most 5% of them. With the order drawn by a coin, a quarter of such experiments
    saw one order only."""
    from studio.lab import compare as experiment
    from studio.lab.compare import balanced_first, position_adjusted

    def gaps(position: float, seed: int, coin: bool = False) -> tuple[list[float], int, int]:
        rng = np.random.default_rng(seed)
        out, called, one_order = [], 0, 0
        for s in range(400):
            first = (lambda rep: rng.random() < 0.5) if coin else (lambda rep, s=s: balanced_first(s, rep, "with"))
            results = critic_readings(rng, 3, first, effect=0.0, position=position)
            means = {c: position_adjusted([(r["scores"]["introspection"], r["shown"]) for r in results
                                           if r["condition"] == c]).mean for c in ("without", "with")}
            out.append(abs(means["with"] - means["without"]))
            diffs, order = experiment._paired_scores(results, "without", "with", "introspection")
            found = experiment.effects(diffs, order)["effect"]
            called += found.p is not None and found.p < 0.05
            one_order += len(set(order)) < 2
        return out, called, one_order

    biased, called, one_order = gaps(1.5, 17)
    fair, _, _ = gaps(0.0, 17)
    assert abs(float(np.mean(biased)) - float(np.mean(fair))) < 0.1 and one_order == 0
    assert called / 400 <= _bound(0.05, 400)
    _, _, by_coin = gaps(1.5, 17, coin=True)
    assert by_coin / 400 > 0.15


def test_paired_t_over_personas_agrees_with_scipy():
    from scipy import stats

    trials = dilemma_trials(np.random.default_rng(6), 30, None, 0.05, reaction_sd=0.1)
    part = {f.name: f for f in hypotheses(trials)}["H8"].parts[0]
    by = persona_cells(trials)
    high = [by[("cooperative", w)]["tit_for_tat_c"] for w in range(3)]
    low = [by[("cooperative", w)]["tit_for_tat_d"] for w in range(3)]
    assert part.p == pytest.approx(stats.ttest_rel(high, low, alternative="greater").pvalue)


def test_welch_agrees_with_scipy():
    from scipy import stats

    trials = dilemma_trials(np.random.default_rng(7), 30, None, 0.08)
    h1 = {f.name: f for f in hypotheses(trials)}["H1"]
    means = personas(persona_cells(trials)).means
    expected = stats.ttest_ind(means["cooperative"], means["competitive"], equal_var=False, alternative="greater")
    assert h1.p == pytest.approx(expected.pvalue)


def test_trials_without_a_persona_count_still_make_cells():
    trials = [Trial("cooperative", "always_defect", r, 0, 0) for r in (0.5, 0.6)]
    [cell] = cells(trials).values()
    assert cell["cooperation"].n == 1 and cell["trials"] == 2


def test_item_consistency_is_incharacter_s_std_item_and_std_dim():
    """Two runs of one character on four items of two dimensions: an item that moves 2 points between runs
    has a spread of 1 (25% of the 1-5 range); items of a dimension 2 apart within a run, likewise."""
    from studio.lab.personality import consistency

    dimension_of = {"0": "openness", "1": "openness", "2": "neuroticism", "3": "neuroticism"}
    runs = {"Mara": {0: {"0": 5.0, "1": 3.0, "2": 2.0, "3": 2.0}, 1: {"0": 3.0, "1": 3.0, "2": 2.0, "3": 2.0}}}
    found = consistency(runs.values(), dimension_of)
    assert found["std_item"] == pytest.approx(100 * (1 + 0 + 0 + 0) / 4 / 4)     # item 0 moves by 2: sd 1
    assert found["std_dim"] == pytest.approx(100 * (1 + 0 + 0 + 0) / 4 / 4)      # openness in run 0: 5 and 3
    one = consistency([{0: {"0": 4.0}}], dimension_of)
    assert one == {"std_item": None, "std_dim": None}                              # nothing to spread over


def test_the_interview_report_sets_std_item_and_std_dim_beside_the_paper_s():
    from studio.lab.interview_kind import profile_report, reproduction

    target = dict.fromkeys(("openness", "conscientiousness", "extraversion", "agreeableness", "neuroticism"), 5.0)
    items = {str(i): 4.0 for i in range(20)}
    moved = {**items, "0": 2.0}
    results = [{"character": "Mara", "rep": rep, "measured": {"doc": dict.fromkeys(target, 4.0)},
                "items": {"doc": scored}} for rep, scored in enumerate((items, moved, items))]
    report = profile_report({"Mara": target}, ["doc"], results, title="t", scale="mini")
    agreement = report.tables[1]
    row = dict(zip(agreement.columns, agreement.rows[0]))
    assert row["Std Item"].value > 0 and row["Std Dim"].value > 0
    figures = {f.label: f for f in reproduction(report, results).figures}
    assert figures["d-OC: Std Item (%)"].paper.value == 3.8 and figures["d-OC: Std Item (%)"].studio.n == 3
    assert figures["d-OC: Std Dim (%)"].paper.value == 19.6
    assert figures["ER (all): MAE (%)"].studio is None


def test_a_compare_experiment_gives_a_role_its_own_model_and_says_so(tmp_path):
    from conftest import PLAYS
    from studio.lab import compare as experiment
    from studio.lab.papers import experiment_models
    from studio.model import InputError

    spec = {"name": "c", "model": "scripted", "reps": 1,
            "compare": {"play": str(PLAYS / "interview.toml"), "turns": 1, "roles": {"superego": "openai/gpt-4o"}}}
    checked = experiment.KIND.check(spec, "c.toml")
    assert "openai/gpt-4o" in experiment_models(checked)
    card = " ".join(experiment.protocol(checked["compare"]))
    assert "superego openai/gpt-4o" in card and "Llama 3" in card and "Claude 3.5 Sonnet" in card
    with pytest.raises(InputError) as bad:
        experiment.KIND.check({**spec, "compare": {**spec["compare"], "roles": {"dramaturg": "scripted"}}}, "c.toml")
    assert bad.value.where == "c.toml" and bad.value.field == "compare.roles"
    with pytest.raises(InputError):
        experiment.KIND.check({**spec, "compare": {**spec["compare"], "roles": {"ego": "human"}}}, "c.toml")


def test_an_experiment_on_a_model_nothing_sizes_is_refused_before_any_trial(tmp_path, capsys):
    from studio.cli import main

    path = tmp_path / "gpt2.toml"
    path.write_text('kind = "pd"\nmodel = "openai/gpt2"\nreps = 1\n[pd]\ngroups = ["cooperative"]\n'
                    'partners = ["always_defect"]\n', encoding="utf-8")
    assert main(["lab", "run", str(path), "--db", str(tmp_path / "s.db")]) == 2
    err = capsys.readouterr().err
    assert "gpt2.toml" in err and "'small'" in err and "add small = false" in err and "Traceback" not in err
    assert not (tmp_path / "s.db").exists()                           # refused before the store was opened


def test_win_rates_against_chance_hold_five_percent_on_games_no_group_wins_more():
    """400 sets of 17 games of eight, two seats a group and the winner any player alike: the exact binomial
    test against 2/8 calls a group lucky in 5% or fewer; a group that wins half its games is found in most."""
    from studio.lab.game_analysis import win_rate

    rng = np.random.default_rng(23)
    sets = 400
    false = sum(win_rate("A", int(rng.binomial(17, 0.25)), 17, 2, 8).p < 0.05 for _ in range(sets))
    assert false / sets <= _bound(0.05, sets)
    found = sum(win_rate("A", int(rng.binomial(17, 0.6)), 17, 2, 8).p < 0.05 for _ in range(100))
    assert found / 100 >= 0.7
