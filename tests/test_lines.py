"""The line guard, on the kinds of output a 135M model really writes, crafted and fed through the
scripted model (or straight to the guard): loops, echoes of the stage, other characters' parts."""

from __future__ import annotations

from studio.engine.lines import Heard, guard_line, sentence_keys
from studio.llm import scripted
from studio.store import events as ev

CAST = ["Jenny", "Sasha", "Cleo"]


def test_a_line_looping_on_one_sentence_is_cut_at_the_repeat():
    looped = "I'm so glad I could talk to you. " * 12
    kept = guard_line(looped, "Sasha", CAST)
    assert kept.text == "I'm so glad I could talk to you."
    assert "repeat" in kept.cuts


def test_a_loop_reworded_a_little_or_without_full_stops_is_cut_too():
    reworded = "It was a small house with a big garden. It was a small house with a very big garden, you know."
    assert guard_line(reworded, "Jenny", CAST).text == "It was a small house with a big garden."
    unpunctuated = "my father used to say keep your head down my father used to say keep your head down my father"
    assert guard_line(unpunctuated, "Jenny", CAST).text == "my father used to say keep your head down"


def test_short_repetition_is_rhetoric_and_stays():
    assert guard_line("No. No. No. Not that house.", "Jenny", CAST).text == "No. No. No. Not that house."


def test_a_line_is_cut_where_another_characters_cue_begins():
    overrun = "We had a dog called Biscuit.\nSasha: What happened to him?\nJenny: He ran off, like everyone."
    kept = guard_line(overrun, "Jenny", CAST)
    assert kept.text == "We had a dog called Biscuit."
    assert "cue" in kept.cuts
    # a bold or capitalised cue, after a blank line, with a parenthetical: all cues
    for cue in ("**Sasha:** Go on.", "SASHA: Go on.", "Sasha (leaning in): Go on.", "(Sasha: leans in.)",
                "[Sasha: Go on.]", "— Sasha: Go on."):
        assert guard_line(f"We had a dog.\n\n{cue}", "Jenny", CAST).text == "We had a dog."
        assert guard_line(f"We had a dog.\n{cue}", "Jenny", CAST).text == "We had a dog."


def test_a_reply_that_starts_with_someone_elses_cue_holds_nothing_of_the_speakers():
    assert guard_line("Sasha: And your mother?\nJenny: She left.", "Jenny", CAST).text == ""
    # the embedded model's habit: the other's part slipped in as a bracketed aside
    for reply in ("(Sasha: The interviewer leans back against a counter-chair.)", "[Sasha: Go on.]"):
        kept = guard_line(reply, "Jenny", CAST)
        assert (kept.text, kept.cuts) == ("", ["cue"])
    # a bracket that only mentions someone is the speaker's own business
    aside = "(to Sasha: quietly) We never spoke of it."
    assert guard_line(aside, "Jenny", CAST).text == aside
    # the speaker's own cue in front is only taken off
    assert guard_line("Jenny: She left in the spring.", "Jenny", CAST).text == "She left in the spring."


def test_a_transcripts_speaker_label_is_someone_elses_cue():
    """The embedded model, asked for Jenny's answer, wrote the interview as a transcript: "The Interviewer:
    I'm so glad to meet you today!", Sasha's greeting again under a label no one typed, and the stage
    printed it as Jenny's line. A label of a transcript's roles is a cue like a cast name's."""
    for reply in ("The Interviewer: I'm so glad to meet you today!", "The Interviewing: How's life been?",
                  "Interviewer: And your mother?", "**Narrator:** The kitchen is quiet.", "The interviewee (smiling): Fine."):
        kept = guard_line(reply, "Jenny", CAST)
        assert (kept.text, kept.cuts) == ("", ["cue"]), reply
    kept = guard_line("We had a dog. The Interviewer: What was his name?", "Jenny", CAST)
    assert (kept.text, kept.cuts) == ("We had a dog.", ["cue"])
    # speech that only opens with a word and a colon is speech
    for said in ("The truth: I hated him.", "Listen: we never spoke of it.", "My host family: strict people.",
                 "I told the interviewer: no more."):
        assert guard_line(said, "Jenny", CAST).text == said


def test_a_small_models_line_of_business_alone_says_nothing():
    """Jenny, on the embedded model, "answered" six of ten questions with "*sigh with a raised eyebrow as
    the interviewers look at her*": the studio printed business as her line. A small model's new line
    (read against what was heard) wholly in italics holds nothing said; a line with speech in it keeps
    its business, and a real model's line of business alone stands, as a direction."""
    heard = Heard(["Where did you grow up?"], [])
    for business in ("*sigh with a raised eyebrow as the interviewers look at her*.", "*sighs* *looks away*"):
        kept = guard_line(business, "Jenny", CAST, heard=heard)
        assert (kept.text, kept.cuts) == ("", ["business"]), business
    spoken = "*sighs* By the river, in a house with a green door."
    assert guard_line(spoken, "Jenny", CAST, heard=heard).text == spoken
    assert guard_line("*She turns to the window.*", "Jenny", CAST).text == "*She turns to the window.*"
    # an emphasised word with a question or exclamation mark after it is said
    for said in ("*Really*?", "*No*!"):
        assert guard_line(said, "Jenny", CAST, heard=heard).text == said


def test_an_aside_in_brackets_about_the_speaker_is_not_said_aloud():
    """Jenny, on the embedded model, copied the shape of the studio's note to her into her line: "The lines
    echoed again in the night... (Jenny now continues with one sentence.) You know how did that happen?",
    and the stage printed the note as hers. An aside naming its own speaker is taken out, a colon after it
    too; one naming no one, or someone else, is the playwright's kind of parenthetical and stays."""
    kept = guard_line("The lines echoed in the night... (Jenny now continues with one sentence.) You know why?",
                      "Jenny", CAST)
    assert (kept.text, kept.cuts) == ("The lines echoed in the night... You know why?", ["narration"])
    kept = guard_line('(Jenny now responds to the question): "My father never sang."', "Jenny", CAST)
    assert kept.text == '"My father never sang."' and "narration" in kept.cuts
    kept = guard_line("[jenny smiles]", "Jenny", CAST)
    assert (kept.text, kept.cuts) == ("", ["narration"])
    for stays in ("(smiling) We had a dog.", "(to Sasha) You would have liked him.", "Jenny? Nobody calls me that.",
                  "My mother (Jennifer, like me) sang."):
        assert guard_line(stays, "Jenny", CAST).text == stays, stays


def test_a_sentence_already_said_on_stage_ends_the_line():
    said = sentence_keys("Tell me about the house you grew up in. Take your time.")
    kept = guard_line("Well. Tell me about the house you grew up in! I would rather not.", "Jenny", CAST, said)
    assert kept.text == "Well."
    assert "echo" in kept.cuts
    # not a rewrite of a line, which may quote it
    assert guard_line("Tell me about the house you grew up in.", "Sasha", CAST, said, speech=False).text


def test_a_last_sentence_broken_off_by_the_token_limit_is_dropped():
    kept = guard_line("The kitchen was always cold. My father kept the thermostat at", "Jenny", CAST)
    assert kept.text == "The kitchen was always cold."
    assert kept.cuts == ["unfinished"]
    # a single unfinished sentence is all there is: it stays
    assert guard_line("The kitchen was always", "Jenny", CAST).text == "The kitchen was always"
    # but a line that only leads up to words never written says nothing
    assert guard_line("Jenny,", "Sasha", CAST).text == ""
    assert guard_line("What I mean is this:", "Sasha", CAST).text == ""


# -- through the engine, on the scripted model ------------------------------------------------------


async def test_a_looping_line_goes_on_stage_cut_and_says_what_was_cut(engine_for):
    engine = engine_for(turns=1, strategies=[])
    scripted.queue("How did you feel about that? " * 8 + "How did", task="speak", role="other")
    await engine.play_turn()
    line = next(e for e in engine.path if e.role == "other" and e.kind == ev.STAGE)
    assert line.text == "How did you feel about that?"
    assert "repeat" in line.data["guard"]


async def test_a_line_left_empty_is_asked_again_once_and_both_calls_are_counted(engine_for, gateway):
    engine = engine_for(turns=1, strategies=[])
    retries = []
    engine.retry_listeners.append(lambda step, attempt, reason: retries.append((step.task, attempt)))
    scripted.queue("Sasha: And then?\nJenny: Nothing.", task="speak", role="ego")
    scripted.queue("The summer my father sold the car.", task="speak", role="ego")
    await engine.play_turn()
    line = engine.path[-1]
    assert (line.role, line.kind, line.text) == ("ego", ev.STAGE, "The summer my father sold the car.")
    assert line.data["guard"] == ["cue", "asked again"]
    assert line.usage["calls"] == 2
    assert [t for r, t in gateway.tasks() if r == "ego"] == ["speak", "speak"]
    assert retries == [("speak", 2)]
    assert engine.usage()["calls"] == 3  # the other's line and the ego's two


async def test_a_line_empty_at_every_ask_becomes_silence_not_an_empty_line(engine_for):
    engine = engine_for(turns=1, strategies=[])
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="other")
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="ego")
    scripted.queue("Sasha: Where did you grow up?", task="speak", role="ego")
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="ego")
    await engine.play_turn()
    last = engine.path[-1]
    assert (last.kind, last.text) == (ev.DIRECTION, "Jenny says nothing.")
    assert last.data["guard"][0] == "echo" and last.data["guard"].count("asked again") == 2
    assert last.usage["calls"] == 3


async def test_when_every_ask_repeats_a_sentence_the_fullest_answer_without_it_is_the_line(engine_for):
    engine = engine_for(turns=1, strategies=[])
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="other")
    scripted.queue("Where did you grow up, Jenny? By the sea.", task="speak", role="ego")
    scripted.queue("Where did you grow up, Jenny? In a house with too many clocks, by the sea.", task="speak",
                   role="ego")
    scripted.queue("Sasha: Where did you grow up?", task="speak", role="ego")
    await engine.play_turn()
    last = engine.path[-1]
    assert (last.kind, last.text) == (ev.STAGE, "In a house with too many clocks, by the sea.")
    assert last.data["guard"][-1] == "kept what was new"


async def test_a_humans_line_is_theirs_word_for_word(engine_for):
    engine = engine_for(turns=1, strategies=[], roles={"ego": "human"})
    await engine.step()  # the other's line
    said = engine.path[-1].text
    line = await engine.step(text=f"{said} {said}\nSasha: no.")
    assert line.text == f"{said} {said}\nSasha: no."
    assert "guard" not in line.data


def _printed(engine, live: bool):
    """The terminal's printer on an engine, and where to read what it printed: a terminal that can erase
    (`live`), or a pipe."""
    import io

    from rich.console import Console

    from studio.present.terminal import StagePrinter

    out = io.StringIO()
    console = Console(file=out, width=200, force_terminal=live, color_system="standard" if live else None)
    printer = StagePrinter(console, engine.cast)
    engine.token_listeners.append(printer.token)
    engine.event_listeners.append(printer.event)
    engine.retry_listeners.append(printer.retry)
    return out


async def test_a_pipe_shows_the_line_as_kept_never_the_raw_words_the_guard_cut(engine_for):
    engine = engine_for(turns=1, strategies=[])
    out = _printed(engine, live=False)
    scripted.queue("Why did you leave? Why did you leave? Why did", task="speak", role="other")
    scripted.queue("Because the house was too quiet.", task="speak", role="ego")
    await engine.play_turn()
    shown = out.getvalue()
    assert "SASHA  Why did you leave?\n" in shown and shown.count("Why did you leave?") == 1
    assert "JENNY  Because the house was too quiet." in shown


async def test_a_dropped_attempt_is_shown_struck_with_why_never_as_said(engine_for):
    engine = engine_for(turns=1, strategies=[])
    out = _printed(engine, live=False)
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="other")
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="ego")
    scripted.queue("In a house with too many clocks.", task="speak", role="ego")
    await engine.play_turn()
    rows = out.getvalue().splitlines()
    assert [r for r in rows if r.startswith("JENNY")] == ["JENNY  In a house with too many clocks."]
    dropped = [r for r in rows if "Where did you grow up" in r and "JENNY" in r]
    assert dropped == ["  ✗ JENNY Where did you grow up, Jenny? (dropped: it said again what was already said; "
                       "asking again)"]


async def test_a_terminal_erases_a_dropped_attempt_and_strikes_it_through(engine_for):
    engine = engine_for(turns=1, strategies=[])
    out = _printed(engine, live=True)
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="other")
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="ego")
    scripted.queue("In a house with too many clocks.", task="speak", role="ego")
    await engine.play_turn()
    shown = out.getvalue()
    after = shown.split("Jenny?", 2)[2]  # what came once the answer had streamed
    assert after.startswith("\x1b[1G\x1b[2K")  # its row is cleared in place
    assert "9mWhere did you grow up, Jenny?" in after  # and it is printed again struck through
    assert "dropped: it said again" in after and "too many clocks." in after
async def test_the_second_ask_is_a_little_warmer_and_its_settings_are_recorded(engine_for):
    engine = engine_for(turns=1, strategies=[])
    scripted.queue("Jenny: Hello.", task="speak", role="other")
    scripted.queue("Where were you born?", task="speak", role="other")
    await engine.step()  # the scene heading
    line = await engine.step()
    assert line.text == "Where were you born?"
    assert line.settings["temperature"] == 0.7  # the other's 0.4, warmed for the second ask


def test_a_line_in_chinese_ends_its_sentences_at_full_width_stops():
    from studio.engine.lines import drop_unfinished, sentence_spans

    assert drop_unfinished("我回来了。门没锁！你在哪里") == ("我回来了。门没锁！", True)
    assert drop_unfinished("我回来了。你在哪里？") == ("我回来了。你在哪里？", False)
    assert len(sentence_spans("「走吧。」她说。")) == 2


async def test_the_second_ask_is_another_beat_not_the_dropped_answer_quoted(engine_for, gateway):
    engine = engine_for(turns=1, strategies=[])
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="other")
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="ego")
    scripted.queue("In a house with too many clocks.", task="speak", role="ego")
    await engine.play_turn()
    first, second = [m for c, m in gateway.calls if c.role == "ego"]
    assert second[:-1] == first[:-1]
    assert second[-1]["content"].startswith(first[-1]["content"])
    added = second[-1]["content"][len(first[-1]["content"]):]
    assert "ask one short question" in added and "Where did you grow up" not in added


async def test_a_small_models_interviewer_is_asked_for_a_question_and_the_other_for_an_answer(engine_for):
    from studio.engine.forms.drama.prompts import beat
    from studio.engine.lens import View

    engine = engine_for(turns=1, strategies=[])
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="other")
    scripted.queue("In a house with too many clocks.", task="speak", role="ego")
    await engine.play_turn()
    stage = [e for e in engine.path if e.kind == ev.STAGE]
    sasha, jenny = engine.cast.role("other"), engine.cast.ego
    assert "Sasha now asks Jenny one short question" in beat(sasha, View([(e, e.text) for e in stage], False))
    assert "Jenny now answers Sasha's question" in beat(jenny, View([(stage[0], stage[0].text)], False))


async def test_a_small_model_answering_a_statement_reads_it_last_but_an_interview_keeps_its_beat_last(engine_for):
    from studio.engine.forms.base import Step
    from studio.engine.forms.drama.prompts import with_beat

    heard = "Stranger: The train left without us.\nStranger: I stayed on the platform."
    rows = with_beat(heard, "(Ana now answers Stranger.)", asking=False).split("\n")
    assert rows[-2:] == ["(Ana now answers Stranger.)", "Stranger: I stayed on the platform."]
    assert with_beat(heard + " Did you?", "(Ana now answers.)", asking=False).endswith("\n\n(Ana now answers.)")
    # the interview, whose interviewer asks: the beat stays last even after a statement
    engine = engine_for(turns=1, strategies=[])
    scripted.queue("I grew up by the sea myself.", task="speak", role="other")
    scripted.queue("In a house with too many clocks.", task="speak", role="ego")
    await engine.play_turn()
    engine.path = [e for e in engine.path if not (e.kind == ev.STAGE and e.role == "ego")]
    jenny = engine.cast.ego.model_copy(update={"small": True})
    last = engine.form.messages(engine.state, engine.path, engine.by_id, Step(ev.STAGE, "speak", "ego", 1, 1), jenny)[-1]
    assert last["content"].startswith("Sasha: I grew up by the sea myself.") and "\n\n(Jenny now answers" in last["content"]


def test_a_rewrite_that_lost_the_question_gets_it_back():
    from studio.engine.forms.drama import lost_question

    said = "That sounds hard. What did your father do?"
    assert lost_question(said, "The world is a cruel mistress.") == "What did your father do?"
    assert lost_question(said, "Why did your father leave?") == ""  # still asks
    assert lost_question("I see.", "The world is a cruel mistress.") == ""  # nothing was asked


def test_a_small_models_interviewer_is_held_to_a_question_and_no_one_else(engine_for):
    from studio.engine.forms.base import Step
    from studio.engine.forms.drama import QUESTION

    engine = engine_for(turns=1, strategies=[], model="local/smollm2")
    speak = Step(ev.STAGE, "speak", "other", 1, 1)
    assert engine.form.grammar(engine.state, speak, engine.cast.role("other")) == QUESTION
    assert engine.form.grammar(engine.state, Step(ev.STAGE, "speak", "ego", 1, 1), engine.cast.ego) is None
    served = engine_for(turns=1, strategies=[], model="openai/gpt-4o-mini")
    assert served.form.grammar(served.state, speak, served.cast.role("other")) is None


def test_a_cue_written_inline_after_a_sentence_ends_the_line():
    kept = guard_line("I'm so sorry for your loss today...Jenny: It's been an amazing week?", "Sasha", CAST)
    assert kept.text.startswith("I'm so sorry for your loss today.") and "Jenny" not in kept.text and "cue" in kept.cuts


def test_a_line_rewording_the_speakers_own_words_is_cut_but_anothers_words_may_be_taken_up():

    before = "I'm a man who's been watching the world from his window for years now."
    again = "You came late. I've been watching the world from my window all these months."
    kept = guard_line(again, "Tomas", ["Tomas"], heard=Heard([before], [before]))
    assert kept.text == "You came late." and kept.cuts == ["echo"]
    # the same words first said by another may be taken up, short of copying eight in a row
    assert guard_line(again, "Tomas", ["Tomas"], heard=Heard([before], [])).text == again
    copied = "You came late. I'm a man who's been watching the world from his window, like you."
    assert guard_line(copied, "Tomas", ["Tomas"], heard=Heard([before], [])).text == "You came late."


def test_what_the_guard_keeps_never_counts_as_said_again_by_the_rule_it_cuts_by():
    from studio.engine.lines import Heard, repeats

    stage = ["Tell me about the house you grew up in. Take your time.",
             "We lived by the river. My father kept the boats and my mother kept us."]
    own = [stage[1]]
    answers = ["Yes. We lived by the river. It flooded every spring.",
               "Well, my father kept the boats all year, and the river rose.",
               "It flooded. It flooded every spring again. It flooded every spring again.",
               "Oh...we lived by the river...and the boats."]
    for answer in answers:
        assert repeats(answer, stage, own)
        kept = guard_line(answer, "Jenny", CAST, heard=Heard(stage, own))
        assert not repeats(kept.text, stage, own) and {"echo", "repeat"} & set(kept.cuts), kept.text
        dropped = guard_line(answer, "Jenny", CAST, heard=Heard(stage, own), drop=True)
        assert not repeats(dropped.text, stage, own), dropped.text
    assert guard_line(answers[0], "Jenny", CAST, heard=Heard(stage, own)).text == "Yes."
    assert guard_line(answers[0], "Jenny", CAST, heard=Heard(stage, own), drop=True).text == "Yes. It flooded every spring."



def test_a_short_question_its_speaker_already_asked_is_said_again_and_anothers_is_not():
    from studio.engine.lines import Heard, repeats

    own = ["What is it?", "How do you know that, Jenny?"]
    stage = ["I kept the ledger.", own[0], "The ledger, always.", own[1], "Nobody asked me."]
    assert repeats("What is it?", stage, own)
    assert repeats("Oh. How do you know that, Jenny?", stage, own)
    kept = guard_line("And why? What is it?", "Sasha", CAST, heard=Heard(stage, own))
    assert kept.text == "And why?" and kept.cuts == ["echo"]
    # another's short sentence may be asked back, and a longer question is not the short one again
    assert not repeats("Nobody asked me?", stage, own)
    assert not repeats("What is it like, the ledger?", stage, own)
    assert not repeats("Is it?", stage, ["Is it?"])  # two words: "Yes." and "Is it?" come back in any talk

async def test_a_revision_left_empty_is_asked_again_once_then_the_draft_stands(engine_for, gateway):
    engine = engine_for(turns=1, epilogue=False, strategies=["critique"])
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="other")
    scripted.queue("In a house with too many clocks.", task="draft", role="ego")
    scripted.queue("Sasha: And then?", task="revise", role="ego")
    scripted.queue("Sasha: And then?", task="revise", role="ego")
    await engine.play_turn()
    line = next(e for e in reversed(engine.path) if e.kind == ev.STAGE and e.role == "ego")
    assert line.text == "In a house with too many clocks."
    assert [t for r, t in gateway.tasks() if r == "ego"].count("revise") == 2


async def test_a_small_models_line_asked_again_after_a_repeat_is_kept_off_the_words_it_repeated(store, gateway):
    from conftest import make_cast, settings_seen

    from studio.engine import Engine

    cast = make_cast(turns=1, strategies=[])
    cast = cast.model_copy(update={"roles": [r.model_copy(update={"small": True}) for r in cast.roles]})
    engine = Engine.create(store, cast, {}, gateway=gateway)
    seen = settings_seen(gateway)
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="other")
    scripted.queue("Where did you grow up, Jenny?", task="speak", role="ego")
    scripted.queue("Where did you grow up, Jenny? Sasha asked.", task="speak", role="ego")
    scripted.queue("By the sea, in a house of clocks.", task="speak", role="ego")
    await engine.play_turn()
    asks = [settings for settings, (ctx, _) in zip(seen, gateway.calls) if ctx.role == "ego"]
    # the first ask is free; each ask after a repeat carries every answer dropped so far, to be penalised
    assert [a.avoid for a in asks] == [None, "Where did you grow up, Jenny?",
                                       "Where did you grow up, Jenny?\nWhere did you grow up, Jenny? Sasha asked."]
    line = engine.path[-1]
    assert line.text == "By the sea, in a house of clocks." and line.settings["avoid"] == asks[-1].avoid


def test_the_guard_and_its_repeat_rule_read_sentences_and_words_as_a_reader_does():
    from studio.engine.lines import drop_unfinished, repeats

    # a stop without a space after it does not end a sentence: a figure is not broken off at its point
    assert sentence_keys("It was 3.5 miles. We walked.") == [("it", "was", "3", "5", "miles"), ("we", "walked")]
    assert drop_unfinished("We walked 3.5 miles and then") == ("We walked 3.5 miles and then", False)
    # a curled apostrophe is an apostrophe: the same sentence typed two ways is said again
    assert repeats("I’m so glad you came today.", ["I'm so glad you came today."])
    assert not repeats("I’m so glad you stayed.", ["I'm so glad you came today."])


def _as_scripted(gateway):
    """The recording gateway for an engine whose roles are the embedded model: the studio shapes each
    call as for that model (its grammar, its beats), and the scripted model answers it."""
    from dataclasses import replace

    shapes = []
    inner = gateway.complete

    async def complete(settings, messages, ctx, on_token=None, on_retry=None):
        shapes.append((ctx.role, settings.grammar))
        plain = replace(settings, model="scripted", grammar=None, unsaid=None, seed=None)
        return await inner(plain, messages, ctx, on_token=on_token, on_retry=on_retry)

    gateway.complete = complete
    return shapes


# an interviewer's line of the question's shape ("Was your " and 154 characters) that never ended its
# sentence
RAN_ON = ("Was your day not a fine one to come here today! How has it been for the people around us lately that "
          "I've asked about in front of everyone here and back at the office, and what they all")[:163]


async def test_an_interviewers_question_closed_by_its_shape_at_the_limit_is_asked_again(engine_for, gateway):
    """On the embedded model the interviewer's line is held to end with a question mark; the mark the
    shape puts at its length limit closes a sentence the model never ended, so that line is dropped as
    such (struck, with why) and asked again for fewer words, and the question the model closes is said."""
    from studio.engine.forms.drama import QUESTION

    from studio.llm.line_shape import closed_at_limit

    assert closed_at_limit(QUESTION, RAN_ON + "?") and RAN_ON[-1].isalpha()
    engine = engine_for(turns=1, strategies=[], model="local/smollm2")
    shapes = _as_scripted(gateway)
    retries = []
    engine.retry_listeners.append(lambda step, attempt, reason: retries.append((step.role, reason)))
    scripted.queue(RAN_ON + "?", task="speak", role="other")
    scripted.queue("Where did you grow up?", task="speak", role="other")
    scripted.queue("By the sea, in a house of clocks.", task="speak", role="ego")
    await engine.play_turn()
    line = next(e for e in engine.path if e.role == "other" and e.kind == ev.STAGE)
    assert line.text == "Where did you grow up?"
    assert line.data["guard"] == ["limit", "asked again"] and line.usage["calls"] == 2
    assert retries == [("other", "it ran to its length limit without ending; asking again")]
    assert shapes[:2] == [("other", QUESTION), ("other", QUESTION)]
    second = [m for c, m in gateway.calls if c.role == "other"][1]
    assert second[-1]["content"].endswith("(That ran too long. Fewer words this time.)")


async def test_a_question_run_to_the_limit_at_every_ask_keeps_its_whole_sentences(engine_for, gateway):
    engine = engine_for(turns=1, strategies=[], model="local/smollm2")
    _as_scripted(gateway)
    for _ in range(3):
        scripted.queue(RAN_ON + "?", task="speak", role="other")
    scripted.queue("By the sea.", task="speak", role="ego")
    await engine.play_turn()
    line = next(e for e in engine.path if e.role == "other" and e.kind == ev.STAGE)
    assert line.text == "Was your day not a fine one to come here today!"  # not the broken question with the shape's mark
    assert line.data["guard"][0] == "limit" and line.data["guard"][-1] == "kept what was new"
