"""Does the inner voice help? `studio compare --reps N` as a repeated, resumable experiment (table 2)."""

from __future__ import annotations

import json

import pytest

from pathlib import Path

from conftest import PLAYS, RecordingGateway
from studio.cli import main
from studio.lab import compare as experiment


async def run_spec(store, spec, gateway=None):
    """A checked spec through the lab's runner, one trial after another as the commands run these kinds:
    (report, finished, failed)."""
    from studio.lab.experiment import Experiment, load_kinds
    from studio.lab.runner import run_experiment

    kind = load_kinds()[spec.get("kind") or next(k for k in ("compare", "interview") if k in spec)]
    outcome = await run_experiment(store, Experiment(Path(spec["name"]), kind, {"concurrency": 1, **spec}, "test.toml"),
                                   gateway=gateway)
    return outcome.report, outcome.finished, outcome.failed


def _spec(reps=2, turns=1, name="compare:test"):
    spec = {"name": name, "model": "scripted", "reps": reps,
            "compare": {"play": str(PLAYS / "interview.toml"), "turns": turns, "seed": 3}}
    return experiment.KIND.check(spec, "test.toml")


def _result(condition, rep, score, valid=True):
    keys = ("behavioural_change", "introspection", "narrative_divergence", "successful_adaptation")
    return {"condition": condition, "rep": rep, "valid": valid, "scores": {k: score for k in keys} if valid else {}}


def test_the_table_shows_each_conditions_mean_the_difference_pair_by_pair_and_its_paired_test():
    results = ([_result("without", i, s) for i, s in enumerate([2, 3, 4, 3])]
               + [_result("with", i, s) for i, s in enumerate([7, 8, 6, 7])]
               + [_result("with", 9, 0, valid=False)])   # an invalid critique is no score, never a 0
    report = experiment.table_two(_spec(), results)
    table, position, _ = report.tables
    row = table.rows[0]
    assert row[0] == "Behavioural Change"
    assert (row[1].value, row[1].n, row[2].value, row[2].n) == (3.0, 4, 7.0, 4)
    from scipy import stats as sp

    assert row[3].value == 4.0 and row[3].n == 4 and row[3].low < 4.0 < row[3].high
    p = float(sp.ttest_rel([7, 8, 6, 7], [2, 3, 4, 3]).pvalue)
    assert row[4] == pytest.approx(p) and row[5] == pytest.approx(4 * p) and row[6] == "yes"
    assert table.columns[-3:] == ["p", "p (Holm)", "differs at 5%"]
    assert "with = with the superego: 4 scored, 1 invalid" in table.note
    # readings from before the order was drawn all showed the run without the inner voice first
    assert position.rows[0][1].value is None and position.rows[0][-1] == "one order only"
    same = [_result("without", i, s) for i, s in enumerate([3, 5, 4])] + [_result("with", i, s) for i, s in enumerate([4, 3, 5])]
    assert experiment.table_two(_spec(), same).tables[0].rows[0][6] == "no"
    # the repetition whose "with" critique was invalid pairs with nothing: only whole pairs are tested
    lonely = [_result("without", 0, 3), _result("with", 1, 9)]
    assert experiment.table_two(_spec(), lonely).tables[0].rows[0][6] == "too few data"
    # the interview play is Jenny's scenario: only her rows of the paper's Table 2 are listed
    figures = {f.label: f for f in report.paper.figures}
    assert figures["Jenny (+SE): Narrative Divergence"].paper.value == 7
    assert figures["Jenny (-SE): Behavioural Change"].studio.value == 3.0
    assert not [label for label in figures if label.startswith("Timothy")]
    assert any("Script A" in line and "never told" in line for line in report.protocol)


def _shown(condition, rep, score, shown, key_scores=None):
    return {**_result(condition, rep, score), "scores": key_scores or _result(condition, rep, score)["scores"],
            "shown": shown}


def test_the_position_effect_is_told_from_the_inner_voices_when_both_orders_were_shown():
    # the inner voice adds 2 to every criterion; being shown second adds 3 more, whatever the script
    results = []
    for rep, (base, with_second) in enumerate([(3, True), (4, False), (2, True), (5, False), (3, True), (4, False)]):
        noise = (rep % 3 - 1) * 0.5
        without = base + (0 if with_second else 3)
        with_ = base + 2 + noise + (3 if with_second else 0)
        results += [_shown("without", rep, without, 1 if with_second else 2),
                    _shown("with", rep, with_, 2 if with_second else 1)]
    table, position, _ = experiment.table_two(_spec(), results).tables
    effect, moved = table.rows[0][3], position.rows[0][1]
    assert effect.value == pytest.approx(2.0, abs=0.3) and moved.value == pytest.approx(3.0, abs=0.3)
    assert table.rows[0][6] == "yes" and position.rows[0][4] == "yes"
    assert position.columns[1] == "with - without read: second - first"
    # the naive paired mean would have read the inner voice's effect as 2, by luck of a balanced order; an
    # unbalanced one shifts it, and the fit does not follow
    lopsided = [r for r in results if r["rep"] != 1 and r["rep"] != 3]
    assert experiment.table_two(_spec(), lopsided).tables[0].rows[0][3].value == pytest.approx(2.0, abs=0.5)


def test_holm_keeps_planted_null_sets_from_showing_a_difference_more_than_one_time_in_twenty():
    """Four criteria tested apart show a "differs" in about one null set in five; corrected together, at
    most one in twenty, within what 400 sets can tell (two standard errors: 0.05 + 0.022; a simulation of
    4,000 such sets gives 5.2% corrected, 18.5% apart)."""
    import random

    from studio.critic import CRITERIA

    rng = random.Random(7)
    sets = 400
    family = uncorrected = 0
    for _ in range(sets):
        results = []
        for rep in range(8):
            with_second = rng.random() < 0.5
            level = rng.randint(2, 7)  # what a seed does to both runs
            for condition, second in (("without", not with_second), ("with", with_second)):
                scores = {k: min(10, max(0, level + rng.randint(-2, 2))) for k in CRITERIA}
                results.append(_shown(condition, rep, 0, 2 if second else 1, scores))
        [table, *_] = experiment.table_two(_spec(), results).tables
        family += any(row[6] == "yes" for row in table.rows)
        uncorrected += any(row[4] is not None and row[4] < 0.05 for row in table.rows)
    assert family / sets <= 0.05 + 2 * (0.05 * 0.95 / sets) ** 0.5
    assert uncorrected / sets > 0.12          # the same sets, read criterion by criterion


async def test_the_critic_reads_both_scripts_of_a_repetition_together_blind_to_which_is_which(store):
    gateway = RecordingGateway()
    spec = _spec(reps=4)
    report, finished, failed = await run_spec(store, spec, gateway=gateway)
    assert failed == {} and sorted(finished) == [f"pair/{r}" for r in range(4)]
    asked = [m for c, m in gateway.calls if c.task == "critic_pair"]
    assert len(asked) == 4 and not [c for c, _ in gateway.calls if c.task == "critic"]
    from studio.critic import stored_critiques
    from studio.lab.compare import balanced_first

    orders = []
    for rep, messages in enumerate(asked):
        pair = finished[f"pair/{rep}"]
        without, with_ = pair["runs"]["without"], pair["runs"]["with"]
        text = messages[-1]["content"]
        assert "inner voice" not in text.lower() and "superego" not in text.lower()
        assert "Script 1" not in text and "SCRIPT A" in text and "SCRIPT B" in text
        first = [e.text for e in store.take(without) if e.kind == "stage" and e.role == "ego"][0]
        second = [e.text for e in store.take(with_) if e.kind == "stage" and e.role == "ego"][0]
        assert first[:40] != second[:40]
        shown_first = balanced_first(spec["compare"]["seed"], rep, "with")
        a, b = (second, first) if shown_first else (first, second)
        assert text.index("SCRIPT A") < text.index(a[:40]) < text.index("SCRIPT B") < text.index(b[:40])
        [kept_without], [kept_with] = stored_critiques(store, without), stored_critiques(store, with_)
        assert kept_without.paired_with == with_ and kept_with.paired_with == without
        assert (kept_with.shown, kept_without.shown) == ((1, 2) if shown_first else (2, 1))
        assert pair["readings"]["with"]["shown"] == kept_with.shown
        assert kept_without.label.endswith("(-SE)") and kept_with.label.endswith("(+SE)")
        assert pair["readings"]["with"]["scores"] == {k: v["score"] for k, v in kept_with.criteria.items()}
        orders.append(shown_first)
    assert sorted(orders) == [False, False, True, True]     # each order in exactly half the repetitions
    assert report.tables[0].rows[0][1].n == 4
    # asked again, the same reading is shown in the same order
    again = RecordingGateway()
    from studio.critic import critique_pair

    pair = finished["pair/0"]
    await critique_pair(store, pair["runs"]["without"], pair["runs"]["with"], model="scripted", gateway=again,
                        first="with" if orders[0] else "without")
    assert again.calls[0][1][-1]["content"] == asked[0][-1]["content"]


async def test_a_rerun_plays_only_what_is_missing_and_a_failed_trial_continues_its_runs(store):
    class FailsOnce(RecordingGateway):
        failed = False

        async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
            # the second reading (repetition 1) fails once, after both its runs have played
            if ctx.task == "critic_pair" and not self.failed and [c for c in self.calls if c[0].task == "critic_pair"]:
                self.failed = True
                raise RuntimeError("the critic's server went away")
            return await super().complete(settings, messages, ctx, on_token, on_retry)

    gateway = FailsOnce()
    spec = _spec(reps=2)
    report, finished, failed = await run_spec(store, spec, gateway=gateway)
    assert sorted(finished) == ["pair/0"] and list(failed) == ["pair/1"]
    assert "went away" in failed["pair/1"]
    runs_before = len(store.runs())
    assert runs_before == 4
    played = len(gateway.calls)
    report, finished, failed = await run_spec(store, spec, gateway=gateway)
    assert sorted(finished) == ["pair/0", "pair/1"] and failed == {}
    assert len(store.runs()) == runs_before          # the failed trial's runs were continued, not begun again
    assert [c[0].task for c in gateway.calls[played:]] == ["critic_pair"]   # and nothing finished was played again
    rows = report.tables[0].rows
    assert all(r[1].n == 2 and r[2].n == 2 for r in rows)


def test_compare_reps_on_the_command_line_prints_table_two_and_keeps_every_run(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    args = ["compare", str(PLAYS / "interview.toml"), "--model", "scripted", "--turns", "1", "--reps", "2",
            "--json", "--db", db]
    assert main(args) == 0
    out = json.loads(capsys.readouterr().out)
    assert len(out["trials"]) == 2 and out["failed"] == {}
    assert out["tables"][0]["columns"][-4:] == ["with - without_n", "p", "p (Holm)", "differs at 5%"]
    assert out["paper"]["reproduction"] is False and "not a reproduction" in out["paper"]["not_a_reproduction"]
    assert main(args) == 0                                          # again: nothing new is played
    again = json.loads(capsys.readouterr().out)
    assert sorted(r["run"] for r in again["trials"].values()) == sorted(r["run"] for r in out["trials"].values())
    assert main(["compare", str(PLAYS / "interview.toml"), "--reps", "0", "--db", db]) == 2
    assert "--reps" in capsys.readouterr().err


async def test_the_critic_talks_back_to_the_director_between_scenes(store):
    from studio.engine import Engine
    from studio.engine.forms import load_play, resolve_cast
    from studio.model.loading import with_overrides
    from studio.store import events as ev

    play = with_overrides(load_play(PLAYS / "detective.toml").model_copy(update={"critic_loop": True}), turns=1)
    gateway = RecordingGateway()
    engine = Engine.create(store, resolve_cast(play, PLAYS / "detective.toml", model="scripted"), {}, gateway=gateway)
    await engine.play_to_end()
    reviews = [e for e in engine.path if e.kind == ev.REVIEW]
    assert [e.scene for e in reviews] == [1, 2]              # as each scene but the last ends
    assert all(e.data["valid"] and len(e.data["scores"]) == 4 for e in reviews)
    openings = gateway.shown("director", "direct")
    assert reviews[0].text not in openings[0] and reviews[0].text in openings[1] and reviews[1].text in openings[2]
    others = [text for ctx, _ in gateway.calls if ctx.task not in ("direct", "critic")
              for text in gateway.shown(ctx.role, ctx.task)]
    assert not any(r.text in text for r in reviews for text in others)   # only the Director reads it
    assert store.critiques(engine.run_id) == []              # kept as the run's events, not as critiques
    # a rewind into scene 2 drops the review of scene 2 with the take, and playing on writes it again
    second = next(e for e in engine.path if e.kind == ev.SCENE and e.scene == 2)
    engine.rewind_to(second.id)
    assert [e.scene for e in engine.path if e.kind == ev.REVIEW] == [1]
    await engine.play_to_end()
    assert [e.scene for e in engine.path if e.kind == ev.REVIEW] == [1, 2]


async def test_the_ensemble_play_compares_its_protagonists_inner_voice(store, tmp_path, capsys):
    """The Last Crossing has no [cast.superego]: its inner voices belong to characters. Without them no
    voice is asked anything; with them the protagonist's own voice (Pride, Ines's) is at work, and the
    Critic's label says so."""
    gateway = RecordingGateway()
    spec = experiment.KIND.check({"name": "compare:lc", "model": "scripted", "reps": 1,
                                  "compare": {"play": str(PLAYS / "last_crossing.toml"), "turns": 1, "seed": 3}},
                                 "test.toml")
    report, finished, failed = await run_spec(store, spec, gateway=gateway)
    assert failed == {} and sorted(finished) == ["pair/0"]
    runs = finished["pair/0"]["runs"]
    voices = {c: [e for e in store.events(runs[c]) if (e.role or "").endswith(".voice")] for c in ("without", "with")}
    assert voices["without"] == [] and voices["with"]
    from studio.critic import stored_critiques

    labels = {c: [k.label for k in stored_critiques(store, runs[c])] for c in runs}
    assert labels == {"without": ["Ines (-SE)"], "with": ["Ines (+SE)"]}
    # an ensemble whose first character has no voice has nothing to compare
    text = (PLAYS / "last_crossing.toml").read_text()
    start = text.index("[cast.characters.voice]")
    play = text[:start] + text[text.index("[[cast.characters]]", start):]  # Ines without Pride
    bad = tmp_path / "plays" / "no_voice.toml"
    bad.parent.mkdir()
    bad.write_text(play)
    (tmp_path / "characters").symlink_to(PLAYS.parent / "characters")
    assert main(["compare", str(bad), "--model", "scripted", "--db", str(tmp_path / "x.db")]) == 2
    assert "cast.characters[0].voice" in capsys.readouterr().err


async def test_in_an_ensemble_with_a_director_the_critic_talks_back_as_the_next_scene_opens(store, tmp_path):
    from studio.engine import Engine
    from studio.engine.forms import load_play, resolve_cast

    text = (PLAYS / "last_crossing.toml").read_text()
    (tmp_path / "plays").mkdir()
    (tmp_path / "characters").symlink_to(PLAYS.parent / "characters")
    looped = tmp_path / "plays" / "looped.toml"
    looped.write_text("critic_loop = true\n" + text.replace(
        "[cast.moderator]", '[cast.director]\ncharacter = "chart_ferry"\n\n[cast.moderator]', 1).replace("turns = ", "turns = 1 #", 1))
    gateway = RecordingGateway()
    cast = resolve_cast(load_play(looped), looped, model="scripted")
    engine = Engine.create(store, cast, {}, gateway=gateway)
    while engine.state.scene < 2 or not [c for c, _ in gateway.calls if c.task == "direct" and c.scene == 2]:
        await engine.play_turn()
    [opening] = [m for c, m in gateway.calls if c.task == "direct" and c.scene == 2]
    review = [e for e in engine.path if e.kind == "backstage.review"]
    assert review and review[0].data.get("valid")
    assert "A critic has scored the play so far" in opening[-1]["content"]
    # without a director a critic loop has no reader: the play is refused, naming the field
    bad = tmp_path / "plays" / "no_reader.toml"
    bad.write_text("critic_loop = true\n" + text)
    assert main(["run", str(bad), "--model", "scripted", "--db", str(tmp_path / "x.db")]) == 2


def test_intervals_stay_within_the_scores_scale():
    """With two repetitions a t interval runs to -38..49 on a 0-10 score; the table and the chart show it
    cut to 0-10."""
    results = [_result("without", 0, 1), _result("without", 1, 10), _result("with", 0, 5), _result("with", 1, 6)]
    report = experiment.table_two(_spec(), results)
    row = report.tables[0].rows[0]
    assert (row[1].value, row[1].low, row[1].high, row[1].n) == (5.5, 0.0, 10.0, 2)
    for series in report.figures[0].series.values():
        assert all(0 <= low <= mean <= high <= 10 for mean, low, high in series)


def test_a_one_off_compare_whose_run_fails_names_the_run_to_resume_and_exits_1(tmp_path, capsys):
    """`studio compare` without --reps is one trial per condition through the lab's runner: a model error
    fails that trial alone, the other condition still plays, and the message names the run kept."""
    from studio.llm import scripted

    db = str(tmp_path / "s.db")
    scripted.queue("!error:400", role="ego")  # the first run's protagonist is refused for good
    assert main(["compare", str(PLAYS / "interview.toml"), "--model", "scripted", "--turns", "1", "--db", db]) == 1
    err = capsys.readouterr().err
    assert "model error in run 1 (without the superego)" in err and "studio resume 1" in err
    assert "Traceback" not in err
    from studio.store import Store

    store = Store(db)
    try:
        # the run with the superego still played; with its reference unfinished, neither is read
        assert [r.id for r in store.runs()] == [1, 2] and not store.critiques(2) and not store.critiques(1)
    finally:
        store.close()


def test_the_paired_test_sees_a_steady_difference_that_the_spread_between_seeds_hides_from_welch():
    from scipy import stats as sp

    from studio.lab.stats import paired_t

    without = [2.0, 6.0, 3.0, 8.0, 4.0]                  # seeds differ a lot from one another...
    with_ = [3.0, 7.5, 4.0, 9.0, 5.5]                    # ...and the inner voice adds one to each, give or take
    paired = paired_t(without, with_)
    assert paired.n == 5 and paired.diff == pytest.approx(1.2)
    assert paired.p == pytest.approx(float(sp.ttest_rel(with_, without).pvalue)) and paired.p < 0.01
    assert float(sp.ttest_ind(with_, without, equal_var=False).pvalue) > 0.4
    assert paired.low < 1.2 < paired.high
    assert paired_t([1.0, 2.0], [2.0, 3.0]).p is None    # the same difference every time: no spread, no test
    with pytest.raises(ValueError, match="pairs"):
        paired_t([1.0], [1.0, 2.0])


def test_the_paired_comparison_runs_against_an_openai_compatible_server(tmp_path, capsys):
    """A served Critic that only ever prefers the script it reads second: blind reading in a drawn order
    shows that leaning as the position's effect, and no effect of the inner voice."""
    from stub_server import Reply, StubServer

    def side(score):
        return {k: {"score": score, "interpretation": "Reads as plainly as it plays."}
                for k in ("behavioural_change", "introspection", "narrative_divergence", "successful_adaptation")}

    def reply(body):
        asked = body["messages"][-1]["content"]
        if "SCRIPT B" in asked:
            return Reply(json.dumps({"script_a": side(4), "script_b": side(7), "summary": "The second grows."}))
        return Reply("I hold the line and say what I mean.")

    # the server's model list gives its size (llama.cpp's n_params): 8B, so the figures may stand beside the paper's
    with StubServer(default=reply, max_requests=300, lifetime=120, meta={"n_params": 8_030_000_000}) as server:
        path = tmp_path / "compare.toml"
        path.write_text(f'kind = "compare"\nmodel = "openai/stub"\nendpoints = ["{server.url}"]\nreps = 4\n'
                        f'concurrency = 2\n[compare]\nplay = "{PLAYS / "interview.toml"}"\nturns = 1\n', encoding="utf-8")
        assert main(["lab", "run", str(path), "--json", "--db", str(tmp_path / "s.db")]) == 0
        out = json.loads(capsys.readouterr().out)
    assert out["done"] == 4 and out["failed"] == {}
    assert out["paper"]["reproduction"] is True
    table, position = out["tables"][:2]
    row = dict(zip(table["columns"], table["rows"][0]))
    assert (row["without: mean"], row["with: mean"]) == (5.5, 5.5) and row["with - without"] == pytest.approx(0.0)
    assert row["differs at 5%"] == "no spread"          # +3 for whichever came second, every time
    moved = dict(zip(position["columns"], position["rows"][0]))
    assert moved["with - without read: second - first"] == pytest.approx(3.0)
    figures = {f["label"]: f for f in out["paper"]["figures"]}
    assert figures["Jenny (+SE): Introspection"]["paper"]["value"] == 8
    assert figures["Jenny (+SE): Introspection"]["studio"]["value"] == 5.5
    assert out["paper"]["reproduction"] is True      # a served model of no known small size


async def test_the_critic_reads_with_the_researchers_own_request(store, tmp_path):
    own = tmp_path / "critic.toml"
    own.write_text('critic_pair = "Critic, compare {ego} here:\\n{script_a}\\nand here:\\n{script_b}"\n',
                   encoding="utf-8")
    spec = experiment.KIND.check({"name": "compare:own", "model": "scripted", "reps": 1,
                                  "compare": {"play": str(PLAYS / "interview.toml"), "turns": 1, "prompts": str(own)}},
                                 "test.toml")
    gateway = RecordingGateway()
    report, finished, failed = await run_spec(store, spec, gateway=gateway)
    assert failed == {}
    [asked] = [m for c, m in gateway.calls if c.task == "critic_pair"]
    assert asked[1]["content"].startswith("Critic, compare Jenny here:") and '"script_b"' in asked[1]["content"]
    assert any("own texts" in line for line in report.protocol)
