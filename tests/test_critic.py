"""The Critic and the with/without-superego experiment, on the scripted model: no network, no weights.

What a user would notice: scores appear only when the critic's reply really is the four criteria
with whole-number scores; an invalid reply is asked again and, if still invalid, reported (and
stored) as invalid; critiques are kept with the run; `compare` leaves two comparable runs behind.
"""

from __future__ import annotations

import json

import pytest

from conftest import PLAYS, make_cast
from studio.cli import main
from studio.critic import (
    CRITERIA,
    CriticError,
    critic_budget,
    critique_run,
    messages_for,
    parse_verdict,
    stored_critiques,
    transcript,
)
from studio.engine.forms.review import _SHAPE
from studio.export.script import build_script
from studio.llm import scripted
from studio.model import InputError
from studio.store import Store
from studio.store import events as ev


def reply(**overrides) -> str:
    body = {key: {"score": 5, "interpretation": f"{label} is middling."} for key, (label, _) in CRITERIA.items()}
    body["summary"] = "A fair run."
    body.update(overrides)
    return json.dumps(body)


# -- reading a reply ------------------------------------------------------------------------------


def test_a_plain_reply_is_read_as_scores():
    verdict, error = parse_verdict(reply())
    assert error is None
    assert verdict.criteria()["introspection"] == {"score": 5, "interpretation": "Introspection is middling."}
    assert verdict.summary == "A fair run."


def test_the_wrapping_of_a_reply_is_forgiven():
    body = {
        "Behavioral Change": {"Score": "7/10", "Comment": "More open by the end."},
        "Introspection": {"score": 8.0, "explanation": "She looks inward."},
        "narrative-divergence": {"rating": " 6 ", "reason": "Not the tidy arc."},
        "Successful Adaptation": {"score": 4, "interpretation": "She copes, barely."},
    }
    text = f"Here is my review!\n```json\n{json.dumps({'scores': body, 'summary': 'Tense.'})}\n```\nThanks."
    verdict, error = parse_verdict(text)
    assert error is None, error
    assert [verdict.criteria()[k]["score"] for k in CRITERIA] == [7, 8, 6, 4]
    assert verdict.summary == "Tense."


@pytest.mark.parametrize(
    "text, problem",
    [
        ("I'd give it a seven.", "no JSON object"),
        (reply(introspection={"score": 11, "interpretation": "x"}), "introspection.score"),
        (reply(introspection={"score": 7.5, "interpretation": "x"}), "introspection.score"),
        (reply(introspection={"score": True, "interpretation": "x"}), "introspection.score"),
        (reply(introspection={"score": -1, "interpretation": "x"}), "introspection.score"),
        (reply(introspection={"score": 7}), "introspection.interpretation"),
        (reply(introspection={"score": 7, "interpretation": "  "}), "introspection.interpretation"),
        (reply(introspection=7), "introspection.interpretation"),
        (json.dumps({k: {"score": 5, "interpretation": "x"} for k in list(CRITERIA)[:3]}), "successful_adaptation"),
        ('{"behavioural_change": {"score": 5, "interpretation": "x"', "no JSON object"),
        # A small model that hands the example back is not scored for it.
        (_SHAPE, "no JSON object"),
        (_SHAPE.replace("<0-10>", "6"), "placeholder"),
        (reply(introspection={"score": 6, "interpretation": "..."}), "introspection.interpretation"),
    ],
)
def test_an_invalid_reply_is_never_scored(text, problem):
    verdict, error = parse_verdict(text)
    assert verdict is None
    assert problem in error


# -- critiquing a run -----------------------------------------------------------------------------


async def finished_run(engine_for, play="interview.toml", **kwargs):
    kwargs.setdefault("turns", 2)
    engine = engine_for(play, **kwargs)
    await engine.play_to_end()
    return engine


async def test_a_valid_critique_is_scored_and_stored(engine_for, store, gateway):
    engine = await finished_run(engine_for)
    critique = await critique_run(store, engine.run_id, model="scripted", gateway=gateway)
    assert critique.valid and critique.attempts == 1 and critique.error is None
    assert critique.label == "Jenny (+SE)"
    assert set(critique.criteria) == set(CRITERIA)
    assert all(0 <= critique.score(k) <= 10 for k in CRITERIA)
    assert critique.head == engine.head
    stored = stored_critiques(store, engine.run_id)
    assert [(c.id, c.valid, c.criteria) for c in stored] == [(critique.id, True, critique.criteria)]
    assert stored[0].model == "scripted" and stored[0].created
    assert gateway.tasks()[-1] == ("critic", "critic")


async def test_the_critic_reads_the_stage_and_the_epilogue_not_the_backstage(engine_for, store, gateway):
    engine = await finished_run(engine_for)
    await critique_run(store, engine.run_id, model="scripted", gateway=gateway)
    shown = gateway.shown(role="critic")[-1]
    for event in engine.path:
        if event.kind in (ev.STAGE, ev.DIRECTION, ev.EPILOGUE):
            assert event.text in shown
        elif event.is_backstage:
            assert event.text not in shown
    for _, (label, _) in CRITERIA.items():
        assert label in shown


async def test_an_invalid_reply_is_asked_again(engine_for, store, gateway):
    engine = await finished_run(engine_for)
    scripted.queue("The protagonist grows, I would say 7 out of 10.", task="critic")
    critique = await critique_run(store, engine.run_id, model="scripted", gateway=gateway)
    assert critique.valid and critique.attempts == 2
    assert critique.replies[0].startswith("The protagonist grows")
    # The second request shows the critic its own reply and what was wrong with it.
    _, messages = gateway.calls[-1]
    assert messages[-2] == {"role": "assistant", "content": critique.replies[0]}
    assert "no JSON object" in messages[-1]["content"] and "behavioural_change" in messages[-1]["content"]
    assert stored_critiques(store, engine.run_id)[0].valid


async def test_an_always_invalid_critic_is_reported_as_invalid(engine_for, store, gateway):
    engine = await finished_run(engine_for)
    scripted.queue("Lovely play!", task="critic")
    scripted.queue(reply(introspection={"score": 12, "interpretation": "Off the scale."}), task="critic")
    critique = await critique_run(store, engine.run_id, model="scripted", gateway=gateway)
    assert not critique.valid and critique.attempts == 2
    assert critique.criteria is None and all(critique.score(k) is None for k in CRITERIA)
    assert "introspection.score" in critique.error and "12" in critique.error
    assert critique.replies[0] == "Lovely play!"
    [stored] = stored_critiques(store, engine.run_id)
    assert not stored.valid and stored.criteria is None and stored.replies == critique.replies


async def test_nothing_on_stage_is_nothing_to_judge(engine_for, store):
    engine = engine_for("interview.toml", turns=1)
    await engine.step()  # the scene heading only
    with pytest.raises(CriticError, match="no lines on stage"):
        await critique_run(store, engine.run_id, model="scripted")
    assert store.critiques(engine.run_id) == []


async def test_a_long_script_keeps_its_beginning_end_and_epilogue(engine_for, store):
    engine = await finished_run(engine_for, turns=12, superego=False)
    script = build_script(store, engine.run_id)
    full = transcript(script)
    short = transcript(script, budget=1500)
    assert len(short) <= 1500 < len(full)
    epilogue = next(e for e in engine.path if e.kind == ev.EPILOGUE).text
    stage = [e.text for e in engine.path if e.kind == ev.STAGE]
    assert epilogue in short and stage[0] in short and stage[-1] in short
    assert "lines omitted" in short
    # The embedded model gets a budget its 4096-token window can hold.
    assert len(messages_for(script, critic_budget("local/smollm2"))[1]["content"]) < 9000


# -- the experiment ---------------------------------------------------------------------------------


async def test_compare_runs_both_conditions_on_the_same_settings(store, gateway):
    from studio.lab.compare import compare_once

    result = await compare_once(store, PLAYS / "interview.toml", turns=2, seed=5, model="scripted", gateway=gateway)
    without, with_ = (store.run(r) for r in result.runs)
    assert without.options["seed"] == with_.options["seed"] == 5
    assert without.options["experiment"] == with_.options["experiment"]
    assert without.options["no_superego"] and not with_.options["no_superego"]
    takes = [store.take(r) for r in result.runs]
    assert not any(e.is_backstage for e in takes[0])
    assert any(e.is_backstage for e in takes[1])
    # Same play, same number of turns on stage, both with their epilogue.
    for take in takes:
        assert sum(e.kind == ev.STAGE for e in take) == 4
        assert take[-1].kind == ev.EPILOGUE
    assert [c.label for c in result.critiques] == ["Jenny (-SE)", "Jenny (+SE)"]
    assert all(c.valid for c in result.critiques)
    assert [c.id for r in result.runs for c in stored_critiques(store, r)] == [c.id for c in result.critiques]


def test_compare_needs_a_superego_and_no_human(tmp_path):
    (tmp_path / "plays").mkdir()
    text = (PLAYS / "interview.toml").read_text()
    lone = tmp_path / "plays" / "lone.toml"
    lone.write_text(text.split("[cast.superego]")[0] + '[[cast.others]]\ncharacter = "sasha_interviewer"\n')
    with pytest.raises(InputError) as err:
        from studio.critic import experiment_casts

        experiment_casts(lone)
    assert err.value.field == "cast.superego"
    human = tmp_path / "plays" / "human.toml"
    human.write_text(text.replace('character = "jenny"', 'character = "jenny"\nhuman = true'))
    with pytest.raises(InputError) as err:
        experiment_casts(human)
    assert err.value.field == "cast.ego.human"


# -- the commands -------------------------------------------------------------------------------------


async def test_critique_command_prints_runs_side_by_side(engine_for, store, capsys):
    first = await finished_run(engine_for)
    second = await finished_run(engine_for, superego=False)
    code = await _main(["critique", str(first.run_id), str(second.run_id), "--model", "scripted", "--db", str(store.path)])
    out = capsys.readouterr().out
    assert code == 0
    assert "Jenny (+SE)" in out and "Jenny (-SE)" in out
    for label, _ in CRITERIA.values():
        assert label.split()[0] in out
    assert len(stored_critiques(store, first.run_id)) == len(stored_critiques(store, second.run_id)) == 1


async def test_critique_command_json_and_invalid(engine_for, store, capsys):
    engine = await finished_run(engine_for)
    scripted.queue("no", task="critic")
    scripted.queue("still no", task="critic")
    code = await _main(["critique", str(engine.run_id), "--model", "scripted", "--json", "--db", str(store.path)])
    [body] = json.loads(capsys.readouterr().out)
    assert code == 1
    assert body["valid"] is False and body["criteria"] is None and body["replies"] == ["no", "still no"]
    assert body["run"] == engine.run_id
    # What was stored can be read back without asking the critic again.
    code = await _main(["critique", str(engine.run_id), "--stored", "--json", "--db", str(store.path)])
    assert code == 0 and json.loads(capsys.readouterr().out) == [body]
    await _main(["critique", str(engine.run_id), "--stored", "--db", str(store.path)])
    out = capsys.readouterr().out
    assert "invalid" in out and "No scores are given" in out


async def test_critique_command_bad_input(store, capsys):
    assert await _main(["critique", "7", "--model", "scripted", "--db", str(store.path)]) == 2
    assert "no run 7" in capsys.readouterr().err
    assert await _main(["critique", "x", "--db", str(store.path)]) == 2
    assert await _main(["critique", "1", "--model", "local/nope", "--db", str(store.path)]) == 2
    assert "local/smollm2" in capsys.readouterr().err


async def test_compare_command_prints_the_table(tmp_path, capsys):
    db = tmp_path / "s.db"
    code = await _main(["compare", str(PLAYS / "detective.toml"), "--turns", "1", "--model", "scripted", "--db", str(db)])
    out = capsys.readouterr().out
    assert code == 0, out
    assert "Timothy (-SE)" in out and "Timothy (+SE)" in out and "Character development scores" in out
    store = Store(db)
    try:
        assert [r.title for r in store.runs()] == ["Last Call", "Last Call"]
        assert all(store.critiques(r.id) for r in store.runs())
    finally:
        store.close()
    assert await _main(["compare", str(PLAYS / "detective.toml"), "--turns", "0", "--db", str(db)]) == 2


async def _main(argv: list[str]) -> int:
    """The CLI in a thread: its commands call asyncio.run, which needs a thread without a loop."""
    import asyncio

    return await asyncio.to_thread(main, argv)


# -- the app's critique view --------------------------------------------------------------------------


async def test_critique_view_lists_and_runs_critiques(engine_for, store, gateway):
    from textual.app import App
    from textual.widgets import DataTable, Static

    from studio.tui.critique import CritiqueScreen

    engine = await finished_run(engine_for)
    scripted.queue("not json", task="critic")
    scripted.queue("not json either", task="critic")
    await critique_run(store, engine.run_id, model="scripted", gateway=gateway)

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(CritiqueScreen(engine))  # the engine's store, run and gateway

    app = Host()
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, CritiqueScreen)
        table = screen.query_one("#critique-table", DataTable)
        assert table.row_count == 1
        detail = str(screen.query_one("#critique-detail", Static).render())
        assert "invalid" in detail and "not json either" in detail
        assert screen.query_one("#critique-model").value == "scripted"

        await pilot.press("c")
        for _ in range(400):
            if table.row_count == 2 and not screen.busy:
                break
            await pilot.pause(0.02)
        assert table.row_count == 2
        detail = str(screen.query_one("#critique-detail", Static).render())
        assert "Behavioural Change" in detail and "/10" in detail
        assert [c["valid"] for c in store.critiques(engine.run_id)] == [False, True]

        await pilot.press("escape")
        await pilot.pause()
        assert not isinstance(app.screen, CritiqueScreen)


async def test_critique_view_from_a_store_and_run(store):
    from textual.app import App
    from textual.widgets import DataTable, Static

    from studio.tui.critique import CritiqueScreen

    cast = make_cast("interview.toml")
    run_id = store.create_run(cast.play.title, cast.play_path, cast.model_dump_json(), {})

    class Host(App):
        def on_mount(self) -> None:
            self.push_screen(CritiqueScreen(store, run_id, model="scripted"))

    async with Host().run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        screen = pilot.app.screen
        assert screen.query_one("#critique-table", DataTable).row_count == 0
        assert "No critiques yet" in str(screen.query_one("#critique-detail", Static).render())
        await pilot.press("c")
        for _ in range(200):
            if not screen.busy:
                break
            await pilot.pause(0.02)
        # An empty run has nothing to judge: the view says so and stores nothing.
        assert "no lines on stage" in str(screen.query_one("#critique-status").render())
        assert store.critiques(run_id) == []
