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
    assert not bench.asks("I'd love it if we could meet up soon " * 5 + "after we?")  # run to the limit
    assert not bench.asks("I'm so glad to meet you today.")
