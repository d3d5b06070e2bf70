"""A person playing an island contestant: an action or a vote the rules cannot use is refused with its
reason and asked again, until it is valid or they pass; their turn is never lost in silence, and a refused
answer is never recorded as what they chose."""

from __future__ import annotations

import asyncio

from conftest import ROOT
from test_tui import studio  # noqa: F401  (fixture)
from studio.store import events as ev


def _island(store):
    from studio.engine import Engine
    from studio.engine.forms import load_play, resolve_cast

    path = ROOT / "plays" / "island.toml"
    cast = resolve_cast(load_play(path), path, model="scripted", roles={"Amara Osei": "human"})
    return Engine.create(store, cast, {})


def _first_action(engine, answers):
    """Amara's answers to her first action taken from `answers` in turn; what she was told each time she
    was asked again, and her action events (refusals first)."""
    from studio.engine.forms.base import refusal

    given, told = iter(answers), []

    def human(pending):
        if pending.step.task == "act":
            told.append(refusal(engine.path, pending.role.key))
            return next(given)
        return {"talk": "I will stay here.", "summary": "Quiet.", "impressions": "{}",
                "goals": '{"goals": ["Last"]}', "reflect": "Quiet round.", "vote": "pass", "jury": "pass"}[pending.step.task]

    for _ in range(80):
        asyncio.run(engine.play_turn(human))
        acts = [e for e in engine.path if e.data.get("task") == "act" and e.character == "Amara Osei"]
        if any(e.kind == ev.DIRECTION for e in acts):
            return told, acts
    raise AssertionError("Amara never acted")


def test_a_persons_unusable_action_is_refused_with_its_reason_until_valid(store):
    engine = _island(store)
    told, acts = _first_action(engine, ["fly to the moon", "dance wildly", "search"])
    assert [e.kind for e in acts] == [ev.CHOICE, ev.CHOICE, ev.DIRECTION]  # a third answer, not a lost turn
    assert told[0] is None and told[1] and told[2]  # asked again, each time told why
    assert "pass" in told[1] and "say one action" in told[1]
    done = acts[-1]
    assert done.data["action"] == "search" and "forced" not in done.data and done.data["reply"] == "search"
    assert "loses the turn" not in done.text


def test_a_person_may_let_their_turn_go_by_saying_pass(store):
    engine = _island(store)
    _, acts = _first_action(engine, ["fly to the moon", "pass"])
    done = acts[-1]
    assert done.kind == ev.DIRECTION and done.data["action"] == "wait" and "forced" not in done.data


def test_a_refused_answer_is_never_recorded_as_the_choice(store):
    engine = _island(store)
    _, acts = _first_action(engine, ["fly to the moon", "fly to the sun", "fly to the stars", "search"])
    chosen = [e.data.get("reply") for e in acts if e.kind == ev.DIRECTION]
    assert chosen == ["search"]
    assert all(e.data.get("invalid") for e in acts if e.kind == ev.CHOICE)


def test_the_terminal_says_why_an_answer_was_refused(store):
    import io

    from rich.console import Console

    from studio.commands.run import _Prompt

    engine = _island(store)
    _first_action(engine, ["fly to the moon", "search"])
    # asked at the point of the refusal: rewind the view to just after the first refused action
    refused = next(e for e in engine.path if e.kind == ev.CHOICE and e.character == "Amara Osei")
    out = Console(file=io.StringIO(), width=200)
    out.input = lambda prompt: "search"  # type: ignore[method-assign]

    class Printer:
        def end_line(self):
            pass

    class Seen:
        path = engine.path[: engine.path.index(refused) + 1]

    class Pending:
        role = engine.cast.role(refused.role)
        step = type("S", (), {"task": "act"})()

    assert _Prompt(out, Printer(), Seen()).ask(Pending()) == "search"
    assert "could not be used" in out.file.getvalue() and "say one action" in out.file.getvalue()


async def test_the_app_says_why_an_answer_was_refused_and_asks_again(studio):
    from test_tui import opened, wait_for

    app = studio("island.toml", roles={"Amara Osei": "human"})
    answers = {"talk": "Stay close tonight.", "summary": "We talked.", "vote": "pass", "jury": "pass",
               "reflect": "A quiet round.", "goals": "Win Bruno over", "impressions": "I trust Bruno."}
    typed: list[str] = []
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        human = screen.query_one("#human")
        for _ in range(2000):
            if len(typed) == 2:
                break
            if human.display:
                task = engine.state.queue[0][0]
                if task == "act":
                    if typed:  # asked again: told why, in the box itself
                        assert "could not be used" in human.asked and "say one action" in human.asked, human.asked
                        assert "asked again" in screen.query_one("#human-label").render().plain
                    typed.append("search" if typed else "fly to the moon")
                    screen.query_one("#human-line").value = typed[-1]
                else:
                    screen.query_one("#human-line").value = answers.get(task, "pass")
                before = len(engine.path)
                await pilot.press("enter")
                await wait_for(pilot, lambda before=before: len(engine.path) > before, "the answer to be taken")
            elif not screen.busy:
                await pilot.press("s")
            await pilot.pause(0.02)
        assert typed == ["fly to the moon", "search"]
        acts = [e for e in engine.path if e.data.get("task") == "act" and e.character == "Amara Osei"]
        assert [e.kind for e in acts] == [ev.CHOICE, ev.DIRECTION] and acts[-1].data["action"] == "search"
