"""One step as a pipeline (studio/engine/turn.py), stage by stage, on the scripted model: each stage is
driven on its own against a real run, and what it leaves in the log is what a playwright would see."""

from __future__ import annotations

from dataclasses import replace

import pytest

from studio.engine import EngineError, NeedsHuman, RunFinished
from studio.engine.budget import estimate_tokens
from studio.engine.steer import Direction
from studio.engine.turn import (
    Turn,
    answer_without_model,
    ask_model,
    build_messages,
    call,
    call_settings,
    commit_line,
    joined,
    line_text,
    open_scene,
    take_step,
)
from studio.llm import scripted
from studio.store import events as ev


async def _at_ego(engine):
    """Step until the ego's spoken line is next; the turn for it."""
    while True:
        step = engine.form.next_step(engine.state)
        if step.role == "ego" and step.kind == ev.STAGE:
            return Turn(step, engine.cast.role("ego"))
        await engine.step()


async def test_a_finished_run_takes_no_step(engine_for):
    engine = engine_for(turns=1, strategies=[], epilogue=False)
    await engine.play_to_end()
    with pytest.raises(RunFinished):
        await take_step(engine)


async def test_a_scene_opens_with_its_heading_and_brief(engine_for):
    engine = engine_for(turns=1, strategies=[])
    step = engine.form.next_step(engine.state)
    heading = await open_scene(engine, step)
    brief = engine.cast.play.brief(1)
    assert (heading.kind, heading.origin) == (ev.SCENE, "studio")
    assert heading.text == "Scene 1" + (f": {brief}" if brief else "")
    assert engine.path[-1].id == heading.id


async def test_a_humans_line_is_committed_without_a_call_and_a_missing_one_is_awaited(engine_for, gateway):
    engine = engine_for(turns=1, strategies=[], roles={"ego": "human"})
    turn = await _at_ego(engine)
    calls, head = len(gateway.calls), engine.head
    with pytest.raises(NeedsHuman):
        answer_without_model(engine, turn, None)
    assert engine.head == head  # nothing committed while waiting
    line = answer_without_model(engine, turn, "  I grew up by the river.  ")
    assert (line.origin, line.text, line.character) == ("human", "I grew up by the river.", "Jenny")
    assert len(gateway.calls) == calls


async def test_a_models_seat_is_left_to_the_model(engine_for):
    engine = engine_for(turns=1, strategies=[])
    turn = await _at_ego(engine)
    assert answer_without_model(engine, turn, None) is None


async def test_a_continued_lines_words_leave_less_room_for_the_history(engine_for):
    engine = engine_for(turns=6, strategies=[], epilogue=False)
    for _ in range(5):
        await engine.play_turn()
    turn = await _at_ego(engine)
    role = turn.role.model_copy(update={"context_tokens": 700, "max_tokens": 100})
    plain = build_messages(engine, Turn(turn.step, role))
    so_far = replace(engine.stage()[-1], text="I remember the house. " * 40)
    continuing = build_messages(engine, Turn(turn.step, role, continuing=so_far))
    size = lambda ms: sum(estimate_tokens(m["content"]) for m in ms)  # noqa: E731
    assert size(continuing) < size(plain)
    assert size(plain) <= role.context_tokens - role.max_tokens


async def test_the_settings_ask_the_roles_model_and_a_direction_steers_only_its_take(engine_for):
    engine = engine_for(turns=1, strategies=[])
    turn = await _at_ego(engine)
    settings = call_settings(engine, turn)
    assert settings.model == turn.role.model
    assert settings.max_tokens == turn.role.max_tokens and settings.schema is None
    steered = Direction("quieter", 0.2)
    line = await ask_model(engine, Turn(turn.step, turn.role, direction=steered))
    assert line.data["direction"] == {"note": "quieter", "temperature": 0.2}
    assert line.settings["temperature"] == 0.2
    nxt = await engine.step()
    assert "direction" not in nxt.data  # the next step is asked as the play asks it


async def test_the_embedded_model_is_held_off_repeating_a_spoken_line_as_it_writes_it(engine_for):
    engine = engine_for(turns=2, strategies=[], epilogue=False)
    await engine.play_turn()
    turn = await _at_ego(engine)
    sasha = engine.stage()[-1]
    embedded = Turn(turn.step, turn.role.model_copy(update={"model": "local/smollm2"}))
    settings = call_settings(engine, embedded)
    assert settings.public()["unsaid"] is True  # the take records that the line was held
    words = sasha.text.rstrip(".?!").split()
    partial, here, after = settings.unsaid(" ".join(words[:-1]) + " ")
    assert words[-1].lower().strip(",") in here  # Sasha's last sentence, word for word, is not written again
    assert call_settings(engine, turn).unsaid is None  # only the embedded model samples under it


async def test_an_answer_with_nothing_of_its_own_is_asked_again_warmer(engine_for, gateway):
    from conftest import settings_seen

    engine = engine_for(turns=1, strategies=[])
    seen = settings_seen(gateway)
    turn = await _at_ego(engine)
    scripted.queue("Sasha: And then?", task="speak", role="ego")
    scripted.queue("The summer my father sold the car.", task="speak", role="ego")
    settings = call_settings(engine, turn)
    answer = await call(engine, turn, settings, [{"role": "user", "content": "Tell me."}])
    assert answer.guarded.text == "The summer my father sold the car."
    assert answer.guarded.cuts == ["cue", "asked again"]
    assert answer.usage["calls"] == 2
    assert seen[-1].temperature == round(min(1.0, seen[-2].temperature + 0.3), 3)


async def test_a_model_that_gives_up_leaves_an_error_in_the_log(engine_for):
    engine = engine_for(turns=1, strategies=[])
    turn = await _at_ego(engine)
    scripted.queue("!error:400", task="speak", role="ego")
    with pytest.raises(EngineError) as raised:
        await call(engine, turn, call_settings(engine, turn), [{"role": "user", "content": "Tell me."}])
    assert engine.path[-1].kind == ev.ERROR and engine.path[-1].id == raised.value.event.id
    assert engine.path[-1].role == "ego"


async def test_a_line_left_empty_is_the_characters_silence_and_a_continuation_joins_the_line(engine_for):
    engine = engine_for(turns=1, strategies=[])
    turn = await _at_ego(engine)
    empty = _answer("", "")
    assert line_text(engine, turn, empty) == ("*Jenny says nothing.*", {})
    said = await engine.step()
    going_on = Turn(turn.step, turn.role, continuing=said)
    text, extra = line_text(engine, going_on, _answer(" And the door stays shut.", "And the door stays shut."))
    assert text == said.text.rstrip() + " And the door stays shut." and extra == {"continues": said.id}
    with pytest.raises(EngineError, match="not continued"):
        line_text(engine, going_on, _answer("", ""))
    assert engine.path[-1].kind == ev.ERROR and engine.path[-1].data["continues"] == said.id


def test_a_continuation_is_joined_as_the_model_went_on():
    assert joined("I was there", "!", "!") == "I was there!"
    assert joined("I was there. ", " Then I left.", "Then I left.") == "I was there. Then I left."


async def test_a_line_in_stars_goes_on_stage_as_a_direction(engine_for):
    engine = engine_for(turns=1, strategies=[])
    turn = await _at_ego(engine)
    line = commit_line(engine, turn, "*Jenny looks out of the window.*", origin="human")
    assert (line.kind, line.text) == (ev.DIRECTION, "Jenny looks out of the window.")
    assert line.data["task"] == "speak"


def _answer(raw: str, kept: str):
    from studio.engine.lines import Guarded
    from studio.engine.turn import Answer
    from studio.llm import CallSettings

    class Completion:
        text, model, structured, notices, usage = raw, "scripted", None, [], {}

    return Answer(Completion(), Guarded(kept, []), {}, CallSettings(model="scripted", temperature=0.7, max_tokens=100))


async def test_the_line_for_left_out_history_counts_the_take_it_is_in_after_a_rewind(engine_for):
    """The counts behind "(Earlier, N lines not shown here ...)" are slid on from call to call; what they
    say must be what counting the take afresh says, at every budget, after a rewind behind them too."""
    from studio.engine.forms.drama.prompts import PromptBook

    engine = engine_for(turns=80, epilogue=False)  # every strategy: five events a turn, past the reach

    def both(seat, budget):
        kept = PromptBook(engine.state, engine.path, engine.by_id, windows=engine.form.windows)
        fresh = PromptBook(engine.state, engine.path, engine.by_id)
        return kept.omitted(kept.view(seat, budget)), fresh.omitted(fresh.view(seat, budget))

    said = []
    for turn in range(70):
        await engine.play_turn()
        if turn >= 55:
            for seat, budget in (("ego", 2000), ("other", 3000), ("ego", 1200)):
                kept, fresh = both(seat, budget)
                assert kept == fresh
                said.append(kept)
    engine.rewind(30)
    assert both("ego", 2000)[0] == both("ego", 2000)[1]
    await engine.play_turn()
    kept, fresh = both("ego", 2000)
    assert kept == fresh and "not shown here" in kept
    assert any(s.startswith("(Earlier in scene 1, more than ") for s in said)


async def test_a_view_shown_again_is_what_walking_the_take_afresh_shows_after_every_step_and_rewind(engine_for):
    """A seat shown the same budget with nothing new to see is shown the view it had (the ego's revision,
    its draft's); after every step, a new line, a rewrite heard and a rewind, that must be what walking the
    take afresh shows."""
    from studio.engine.forms.drama.prompts import PromptBook

    engine = engine_for(turns=60, epilogue=False)
    asked = [("ego", 2000), ("other", 3000), ("ego", 1200), (None, 1500)]

    def agree() -> int:
        kept = PromptBook(engine.state, engine.path, engine.by_id, views=engine.form.views)
        fresh = PromptBook(engine.state, engine.path, engine.by_id)
        again = 0
        for seat, budget in asked:
            before = engine.form.views.get((seat, budget))
            shown = kept.view(seat, budget)
            again += shown is getattr(before, "view", None)
            assert [(e.id, text) for e, text in shown.lines] == [(e.id, text) for e, text in fresh.view(seat, budget).lines]
            assert shown.trimmed == fresh.view(seat, budget).trimmed
        return again

    shown_again = 0
    for turn in range(50):
        for _ in range(5):
            await engine.step()
            shown_again += agree()
        if turn % 17 == 16:
            engine.rewind(3)
            shown_again += agree()
    assert shown_again > 0  # the views were kept, not walked afresh every time


async def test_a_character_is_named_once_where_another_is_told_who_is_there(engine_for, gateway):
    """A description that opens with the character's own name ("Sasha, a police detective ...") was given
    the name again in front ("With you: Sasha, Sasha, a police detective"), in every call of every play
    whose cast is described that way; the director's list wrapped it in brackets after the name again."""
    engine = engine_for("detective.toml", turns=1, epilogue=False)
    await engine.play_turn()
    shown = "\n".join(gateway.shown())
    assert "With you: Sasha, a police detective with tired eyes and a notebook full of small details." in shown
    assert "With you: Timothy, 24, who pours drinks" in shown
    assert "The characters:\n- Timothy, 24, who pours drinks" in shown and "\n- Sasha, a police detective" in shown
    assert "Sasha, Sasha" not in shown and "Timothy, Timothy" not in shown and "Timothy (Timothy" not in shown


async def test_an_ensemble_names_the_company_on_stage_once(engine_for, gateway):
    """An ensemble's characters are told who stands with them in the same words as a drama's."""
    engine = engine_for("last_crossing.toml", turns=2, epilogue=False)
    await engine.play_turn()
    await engine.play_turn()
    company = [line for text in gateway.shown() for line in text.splitlines() if line.startswith("On stage with you:")]
    assert company, "no character was told who is on stage"
    assert any("Ines, the ferry's captain, sixty" in line for line in company)


def test_a_description_opening_with_an_article_reads_on_after_the_name(engine_for):
    """"Tobias, The village baker" reads as a slip; "Tobias, the village baker" as the cast list it is. Any
    other first word is the author's and is left as typed."""
    from studio.engine.forms.drama.prompts import PromptBook

    engine = engine_for("detective.toml", turns=1)
    book = PromptBook(engine.state, engine.path, engine.by_id)
    sasha = next(r for r in engine.cast.roles if r.name == "Sasha")

    def described(text):
        return book.introduced(sasha.model_copy(update={"sheet": sasha.sheet.model_copy(update={"description": text})}))

    assert described("The village baker, up at three.") == "Sasha, the village baker, up at three"
    assert described("An inspector in a good coat") == "Sasha, an inspector in a good coat"
    assert described("Keeper of the north lighthouse") == "Sasha, Keeper of the north lighthouse"
    assert described("sasha, who asks") == "sasha, who asks"
    assert described("Sashaya's twin") == "Sasha, Sashaya's twin"
    assert described("") == "Sasha"


async def test_a_draft_of_a_played_roles_line_is_the_models_own_and_leaves_nothing_in_the_log(engine_for, gateway):
    from studio.llm import scripted

    engine = engine_for(turns=1, strategies=[], roles={"ego": "human"})
    await _at_ego(engine)
    events, head = len(engine.store.events(engine.run_id)), engine.head
    pieces: list[str | None] = []
    scripted.queue("I grew up by the river.", role="ego")
    drafted = await engine.draft(pieces.append)
    assert drafted == "I grew up by the river." and "".join(p for p in pieces if p) == drafted
    assert (engine.head, len(engine.store.events(engine.run_id))) == (head, events)  # asked, never said
    assert gateway.calls[-1][0].character == "Jenny"
    # a model that gives up on a draft leaves no error in the log either: the run stays exactly as it was
    scripted.queue("I grew" + scripted.ERROR_MARK + "auth", role="ego")
    with pytest.raises(EngineError):
        await engine.draft(pieces.append)
    assert (engine.head, len(engine.store.events(engine.run_id))) == (head, events)
    assert engine.pending().human
