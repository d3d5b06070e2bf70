"""What makes an answer unusable as its line and what a turn does then (studio/engine/guard.py), and a
card's greeting as the opening line (studio/engine/greeting.py)."""

from __future__ import annotations

from studio.engine.forms.base import Step
from studio.engine.greeting import opens, unused
from studio.engine.guard import (
    add_usage,
    anew,
    asked_again,
    guard_answer,
    recent_sentences,
    said_before,
    warmer,
    why_dropped,
)
from studio.engine.lines import Guarded
from studio.llm import CallSettings
from studio.store import events as ev
from studio.store.events import Event

CAST = ["Jenny", "Sasha"]


def _line(id_: int, text: str, kind: str = ev.STAGE, role: str = "other", origin: str = "model",
          data: dict | None = None) -> Event:
    return Event(id=id_, run_id=1, parent=id_ - 1 or None, kind=kind, text=text, role=role, character="Sasha",
                 scene=1, turn=id_, origin=origin, data=data or {})


class Role:
    """A seat as the greeting reads it: by its key."""

    key = "other"


SPEAK = Step(ev.STAGE, "speak", "ego", 1, 2)
REWRITE = Step(ev.REWRITE_SPEECH, "rewrite_speech", "superego", 1, 2)


def test_only_the_last_stage_lines_count_as_said_and_each_is_split_once():
    path = [_line(i, f"Line number {i} is here.") for i in range(1, 41)]
    path.insert(20, _line(100, "A draft is not said.", kind=ev.DRAFT))
    cache: dict = {}
    said = recent_sentences(path, cache, lines=30)
    assert said[0] == recent_sentences([path[-1]], {})[0]  # newest first
    assert len(cache) == 30 and 100 not in cache and 1 not in cache
    cache[40] = [("planted",)]
    assert recent_sentences(path, cache, lines=1) == [("planted",)]  # read from the cache, not split again


def test_a_rewrite_may_repeat_the_stage_and_a_continuation_may_not_repeat_itself():
    path = [_line(1, "Where did you grow up?")]
    assert said_before(SPEAK, path, {}, None)
    assert said_before(REWRITE, path, {}, None) == []
    so_far = _line(2, "I grew up by the river.", role="ego")
    assert said_before(REWRITE, path, {}, so_far) != []


def test_an_answer_that_says_the_stage_again_or_speaks_for_another_is_cut():
    said = said_before(SPEAK, [_line(1, "Where did you grow up, Jenny?")], {}, None)
    assert guard_answer("Where did you grow up, Jenny?", SPEAK, "Jenny", CAST, said).text == ""
    cut = guard_answer("By the river.\nSasha: And then?", SPEAK, "Jenny", CAST, said)
    assert cut.text == "By the river." and "cue" in cut.cuts


def test_prose_run_out_of_tokens_ends_at_its_last_whole_sentence():
    """A critique, a direction, a rewritten character, a summary and the epilogue are prose: one the token
    limit broke off mid-sentence ends at its last whole sentence. The epilogue is the script's last page,
    and nothing can go on from it ('C' continues spoken lines only): "Jenny felt this way after" stood
    there as the play's last words."""
    for kind, task, role in ((ev.CRITIQUE, "critique", "superego"), (ev.DIRECTION, "direct", "director"),
                             (ev.REWRITE_PROMPT, "rewrite_prompt", "superego"), (ev.EPILOGUE, "epilogue", "ego"),
                             (ev.SUMMARY, "summarize", "ego")):
        step = Step(kind, task, role, 1, 2)
        cut = guard_answer("I learned to wait. Jenny felt this way after", step, "Cleo", CAST, [])
        assert (cut.text, cut.cuts) == ("I learned to wait.", ["unfinished"]), task
        alone = guard_answer("Say what you want from her, and", step, "Cleo", CAST, [])
        assert alone.text == "Say what you want from her, and"  # nothing whole to end at: kept as written
        whole = guard_answer("I learned to wait. And then I stopped waiting.", step, "Cleo", CAST, [])
        assert whole.cuts == [] and whole.text.endswith("stopped waiting.")
    # a structured answer is not prose: a choice or a pick is read whole by its own parser
    move = Step(ev.CHOICE, "move", "ego", 1, 2)
    assert guard_answer('I cooperate. {"move": "C", "why": "she', move, "Jenny", CAST, []).text.endswith("she")


def test_a_line_its_shape_closed_at_the_limit_is_asked_again_and_at_last_keeps_what_was_whole():
    """The interviewer's shape ends every line with a question mark; one put at the length limit closes a
    sentence the model never ended ("...in this little bit they don?"). It is not shown as a question:
    the line is asked for again, and as the last resort keeps its whole sentences or trails off."""
    broken = "I'm so glad you came today! How has it been for the people around us lately that I've asked her?"
    first = guard_answer(broken, SPEAK, "Sasha", CAST, [], at_limit=True)
    assert (first.text, first.cuts) == ("", ["limit"])
    assert "length limit" in why_dropped(first)
    again = anew([{"role": "user", "content": "Jenny: I grew up here."}], broken, first.cuts, SPEAK)
    assert again[-1]["content"].endswith("(That ran too long. Fewer words this time.)")
    assert "glad you came" not in again[-1]["content"]  # not quoted back
    last = guard_answer(broken, SPEAK, "Sasha", CAST, [], drop=True, at_limit=True)
    assert (last.text, last.cuts) == ("I'm so glad you came today!", ["limit"])
    for ran_on in ("How has it been for the people around us lately that I've asked her,?",
                   "That's great to hear from you - it means we're here no matter the news in-?"):
        trailing = guard_answer(ran_on, SPEAK, "Sasha", CAST, [], drop=True, at_limit=True)
        assert trailing.text == ran_on[:-1].rstrip(",-") + "…"  # one sentence, never ended: it trails off
    # a question the model closed itself is a question
    assert guard_answer("Where did you grow up?", SPEAK, "Sasha", CAST, []).text == "Where did you grow up?"


def test_the_second_ask_is_warmer_and_never_past_one():
    settings = CallSettings(model="scripted", temperature=0.5, max_tokens=50)
    assert warmer(settings).temperature == 0.8
    assert warmer(warmer(settings)).temperature == 1.0
    assert warmer(settings).model == "scripted"


def test_a_line_asked_twice_records_both_cuts_and_both_calls():
    again = asked_again(Guarded("", ["cue"]), Guarded("By the river.", ["unfinished"]))
    assert again == Guarded("By the river.", ["cue", "asked again", "unfinished"])
    total = add_usage({"prompt_tokens": 10, "completion_tokens": 3}, {"prompt_tokens": 12, "calls": 2})
    assert total == {"prompt_tokens": 22, "completion_tokens": 3, "calls": 3}


def test_a_greeting_opens_only_a_characters_first_spoken_line():
    assert opens(Step(ev.STAGE, "speak", "other", 1, 1), Role(), [])
    assert not opens(Step(ev.STAGE, "speak", "other", 1, 2), Role(), [_line(1, "Hello.")])
    assert not opens(Step(ev.DRAFT, "draft", "other", 1, 1), Role(), [])


def test_each_greeting_is_a_take_once_then_the_model_writes_one():
    takes = [_line(5, "Hello.", origin="card", data={"greeting": 0}), _line(6, "Hi.", origin="model")]
    assert unused(3, takes, Role()) == 1
    takes.append(_line(7, "Evening.", origin="card", data={"greeting": 1}))
    takes.append(_line(8, "Yes?", origin="card", data={"greeting": 2}))
    assert unused(3, takes, Role()) is None
    assert unused(3, [_line(9, "Hi.", role="ego", origin="card", data={"greeting": 0})], Role()) == 0
