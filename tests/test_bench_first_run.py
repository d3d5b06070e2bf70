"""The first-run bench's measures (bench/bench_first_run.py) read a scene as a reader would: a turn in
which nothing is said aloud is silent, and a question mark the line's shape forced is not a question."""

from __future__ import annotations

from pathlib import Path


BENCH = Path(__file__).resolve().parents[1] / "bench" / "bench_first_run.py"



def test_a_turn_of_stage_business_alone_is_silent(bench):
    """Six of one run's ten turns of Jenny were "*sigh with a raised eyebrow as the interviewers look
    on*" and the like, and the bench called the run 0% silent: nothing was said aloud in them."""
    for business in ("*sigh with a raised eyebrow as the interviewers look at her*.", "(nods)", "[pause]",
                     "*sighs* *looks away*", "Jenny says nothing.", "..."):
        assert bench.is_placeholder(business), business
    for said in ("*sighs* I never liked that house.", "(quietly) We had a dog.", "I *never* said that.",
                 "*Really*?"):
        assert not bench.is_placeholder(said), said
    run = bench.measure_run([("Sasha", "Where did you grow up?"), ("Jenny", "*sighs and looks away*"),
                             ("Sasha", "And your mother?"), ("Jenny", "She sang.")], "Sasha")
    assert run["silent"] == 0.25 and run["lines"] == 3


def test_a_question_is_a_mark_that_closes_a_word_on_a_line_not_run_to_its_limit(bench):
    assert bench.asks("What did your father do?") and bench.asks("Was it 'home'?")
    assert not bench.asks("Tell me about the house or ?") and not bench.asks("What was in her mind:?")
    ran_on = ("I'd love it if we could meet up soon " * 5)[:157] + " we?"
    assert len(ran_on) == 161 and not bench.asks(ran_on)  # the old shape's line run to its 160 characters
    # opened as a question to the one who answers, a line the model closed may be longer than that
    closed = "How long have you " + "kept the boats your father built down by the river " * 3
    closed = closed[:168].rstrip() + "?"
    assert len(closed) > 161 and bench.asks(closed)
    assert not bench.asks("I'm so glad to meet you today.")


def test_the_report_shows_each_run_beside_the_figure_over_all_of_them(bench, capsys):
    """Asking 50% over two runs may be two runs that ask half the time or one that always asks and one
    that never does: the report gives each run's figure after the whole one, in the order of its seeds."""
    def run(seed: int, question: bool, seconds: float) -> dict:
        sasha = "Where did you grow up?" if question else "I am so glad to meet you today."
        stage = [["Sasha", sasha], ["Jenny", f"By the canal, in a house number {seed}."]] * 2
        return {"seed": seed, "turns": 2, "stage": stage, "seconds_per_turn": seconds,
                "cpu_seconds_per_turn": seconds, "read_per_turn": 100, "written_per_turn": 20, "load": 0.5}

    got = {"code": "here", "model": "scripted", "turns": 2, "seeds": [3, 8],
           "plays": {"interview": {"runs": [run(3, True, 4.0), run(8, False, 12.0)]}}}
    bench.report(got, None)
    table = capsys.readouterr().out.splitlines()
    assert any("by run (seeds 3, 8)" in row for row in table)
    asking = next(row for row in table if row.strip().startswith("asking"))
    assert asking.split()[1:] == ["50%", ">=", "60%", "100%", "0%"], asking
    seconds = next(row for row in table if row.strip().startswith("seconds_per_turn"))
    assert seconds.split()[-2:] == ["4.00", "12.00"], seconds


def test_a_scene_that_loops_on_one_opening_is_counted_though_no_line_repeats(bench):
    """Seed 7's interview scored 100% asking and nothing repeated while seven of Sasha's ten questions
    opened "How do you say" and Jenny answered "I'll try again" in turn after turn."""
    loop = [("Sasha", "How do you say it?"), ("Jenny", "I'm just trying to be clear - I'll try again!"),
            ("Sasha", "How do you say that?"), ("Jenny", "I'm just trying to explain it in one sentence."),
            ("Sasha", "How do you say this one?"), ("Jenny", "I'll try again, Sasha."),
            ("Sasha", "What was your father like?"), ("Jenny", "I'll try again with my father.")]
    run = bench.measure_run(loop, "Sasha")
    assert run["repeating"] == 0 and run["asking"] == 1.0
    assert run["opening_alike"] == 3 / 8  # two of Sasha's "How do you say", Jenny's second "I'm just trying to"
    # another speaker's opening, or a line of fewer than four words, is not the speaker's loop
    assert bench.opens_alike([("Sasha", "How do you say it?"), ("Jenny", "How do you say it?"),
                              ("Jenny", "I'll try again."), ("Jenny", "I'll try again!")]) == 0
    figures = bench.summarise([{"stage": loop, "seconds_per_turn": 1.0, "cpu_seconds_per_turn": 1.0},
                               {"stage": loop[:2], "seconds_per_turn": 1.0, "cpu_seconds_per_turn": 1.0}], "Sasha")
    assert figures["opening_alike"] == 3 / 10  # each run's lines against their own run's: none in the second


def test_any_play_file_is_measured_alike_its_interviewer_found_by_the_studios_rule(tmp_path):
    """Whether the inner voice is what keeps the interview's answers off their questions is measured by
    playing the interview with the voice off: a copy of the play, given by its path, is played and
    measured as the named plays are, its interviewer the one its cast says asks; a name that is neither
    is refused, and figures the scripted model made say so."""
    import json
    import subprocess
    import sys

    root = BENCH.parents[1]
    play = tmp_path / "interview_without_the_voice.toml"
    play.write_text((root / "plays" / "interview.toml").read_text().replace("enabled = true", "enabled = false", 1))
    out = tmp_path / "figures.json"
    ran = subprocess.run([sys.executable, str(BENCH), "--plays", str(play), "--model", "scripted", "--seeds", "1",
                          "--turns", "2", "--json", str(out)], cwd=root, capture_output=True, text=True, timeout=300)
    assert ran.returncode == 0, ran.stderr
    assert "the scripted model's lines" in ran.stdout and "not a scene" in ran.stdout
    figures = json.loads(out.read_text())["plays"][str(play)]
    stage = figures["runs"][0]["stage"]
    assert figures["runs"][0]["asker"] == "Sasha"
    assert {who for who, _ in stage} == {"Sasha", "Jenny"} and len(stage) == 4  # two turns, no inner voice on stage
    asking = next(row for row in ran.stdout.splitlines() if row.strip().startswith("asking"))
    assert asking.split()[1] != "-", asking  # the interviewer's lines were counted
    wrong = subprocess.run([sys.executable, str(BENCH), "--plays", "interviw"], cwd=root, capture_output=True,
                           text=True, timeout=120)
    assert wrong.returncode == 2 and "'interviw' is not interview, ensemble, new nor a play file" in wrong.stderr
    broken = tmp_path / "broken.toml"
    broken.write_text('title = "The Visit"\nturns = "many"\n')
    wrong = subprocess.run([sys.executable, str(BENCH), "--plays", str(broken)], cwd=root, capture_output=True,
                           text=True, timeout=120)
    assert wrong.returncode == 2 and "broken.toml" in wrong.stderr and "turns" in wrong.stderr, wrong.stderr
    assert "Traceback" not in wrong.stderr


def test_a_named_play_keeps_the_benchs_own_interviewer(bench, capsys):
    """The ensemble's Marit is asked for questions by her beat, so the studio's rule finds her; the goal of
    asking is the interview's, and the ensemble's table shows no figure for it."""
    stage = [["Marit", "Who keeps the lamp?"], ["Oskar", "I do, since the winter."]] * 2
    run = {"seed": 1, "turns": 2, "stage": stage, "seconds_per_turn": 1.0, "cpu_seconds_per_turn": 1.0,
           "read_per_turn": 10, "written_per_turn": 5, "load": 0.1, "asker": "Marit"}
    bench.report({"code": "here", "model": "local/smollm2", "turns": 2, "seeds": [1],
                  "plays": {"ensemble": {"runs": [run]}, "copy.toml": {"runs": [run]}}}, None)
    rows = [row.split() for row in capsys.readouterr().out.splitlines() if row.strip().startswith("asking")]
    assert rows[0][1] == "-" and rows[1][1] == "100%", rows
