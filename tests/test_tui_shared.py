"""Two playwrights on one run: a key that changes the stage asks first when another window is here, a
sentence typed while the box is closed never becomes commands, each window is a person with a name, and
what one window does reaches the other as a notice naming who did it."""

from __future__ import annotations

import random
from contextlib import asynccontextmanager


from test_tui import idle, notifications, opened, screen_text, step, studio, wait_for  # noqa: F401


from studio.store.leases import holder_name  # noqa: E402

SIZE = (120, 32)


def named(app, name: str):
    """The window as `studio open --name NAME` starts it."""
    app._holder = holder_name(name)
    return app


@asynccontextmanager
async def ana_and_ben(studio, steps: int = 1):
    """Ana's window on a new run, `steps` turns in, and Ben's window on the same run."""
    first = named(studio(), "Ana")
    async with first.run_test(size=SIZE) as one:
        mine = await opened(one)
        await step(one, steps)
        second = named(studio(run_id=mine.engine.run_id), "Ben")
        async with second.run_test(size=SIZE) as two:
            theirs = await opened(two)
            yield first, one, mine, second, two, theirs


def run_state(engine) -> tuple:
    """What a playwright would notice changed on the run: its head, its lines and its controls."""
    store, run = engine.store, engine.run_id
    return store.head(run), len(store.events(run)), len(store.controls(run))


async def test_alone_a_key_acts_at_once(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot, 2)
        lines = len(screen.engine.stage())
        await pilot.press("r")
        await wait_for(pilot, lambda: len(screen.engine.stage()) < lines, "the rewind")
        assert not screen.query_one("#ask").display


async def test_a_sentence_typed_in_a_closed_box_of_a_shared_run_changes_nothing(studio):
    async with ana_and_ben(studio, 2) as (first, one, mine, second, two, theirs):
        before = run_state(theirs.engine)
        # Ben types a line while his box is closed (his turn has not come), and sends it with Enter
        await two.press(*"g. The voice is mine.", "enter")
        await two.pause(0.3)
        await idle(two)
        assert run_state(theirs.engine) == before, "a typed sentence changed the run"
        assert "Kept what you typed" in notifications(second)
        assert theirs.shared.draft == "g. The voice is mine."
        assert not theirs.query_one("#ask").display
        # in the first window nothing happened either
        assert run_state(mine.engine) == before


async def test_a_rewind_in_a_shared_run_asks_naming_the_line_and_the_other_hears_who(studio):
    async with ana_and_ben(studio, 2) as (first, one, mine, second, two, theirs):
        last = mine.engine.stage()[-1]
        await wait_for(one, lambda: mine.shared.others() == ["Ben"], "Ben seen on the run")
        before = run_state(mine.engine)
        await one.press("r")
        ask = screen_text(first)
        assert "r rewinds one turn" in ask and f"{last.character}'s line" in ask
        assert "Ben is on this run too" in ask and "Enter does it" in ask
        assert run_state(mine.engine) == before, "the rewind did not wait for Enter"
        await one.press("escape")  # left as it was
        assert run_state(mine.engine) == before
        await one.press("r", "enter")
        await wait_for(one, lambda: mine.engine.head != before[0], "the rewind, once asked")
        await wait_for(two, lambda: "Ana rewound to turn" in notifications(second), "the rewind, told by name")


async def test_another_windows_rewind_neither_opens_my_box_nor_takes_my_key(studio):
    from test_tui_room import take

    async with ana_and_ben(studio, 1) as (first, one, mine, second, two, theirs):
        await take(two, "ego")
        await wait_for(one, lambda: "Ben plays Jenny" in screen_text(first), "Ben's name for his window")
        await one.press("r", "enter")
        await wait_for(two, lambda: "Ana rewound" in notifications(second), "the rewind, told")
        await two.pause(0.5)
        assert not theirs.query_one("#human").display, "another's rewind opened Ben's box"
        assert theirs.focused is not None and theirs.focused.id == "stage"


async def test_a_thousand_random_keys_into_a_closed_box_change_nothing_unseen(studio):
    """Every change to the run must follow an ask that was answered with Enter (and so was read)."""
    async with ana_and_ben(studio, 2) as (first, one, mine, second, two, theirs):
        rng = random.Random(7)
        # typing, with Enter, Esc and Backspace among it; not q, o and R, which leave the run for another
        letters = [c for c in "abcdefghijklmnprstuvwxyzABCDEFGHIJKLMNPSTUVWXYZ0123456789 .,;'!?-[]<>:/"]
        keys = letters + ["enter"] * 3 + ["escape"] * 2 + ["backspace"]
        names = {"[": "left_square_bracket", "]": "right_square_bracket", "<": "less_than_sign",
                 ">": "greater_than_sign", ":": "colon", "/": "slash", " ": "space", ".": "full_stop",
                 ",": "comma", ";": "semicolon", "'": "apostrophe", "!": "exclamation_mark",
                 "?": "question_mark", "-": "minus"}
        state, asked = run_state(theirs.engine), 0
        for _ in range(1000):
            key = rng.choice(keys)
            await two.press(names.get(key, key))
            while second.screen is not theirs:  # a dialog opened: its playwright sees it, and closes it
                await two.press("escape")
                await two.pause()
            if len(theirs.shared.asked) > asked:  # asked, read, and answered with Enter: let it happen
                asked = len(theirs.shared.asked)
                await wait_for(two, lambda: theirs.shared.acting.is_finished, "what was asked")
                await idle(two)
                while second.screen is not theirs or getattr(theirs.focused, "id", None) == "note-input":
                    await two.press("escape")  # what it opened is seen, and left
                    await two.pause()
                state = run_state(theirs.engine)
                continue
            now = run_state(theirs.engine)
            assert now == state, f"the run changed unasked after {key!r}: {state} -> {now}"
        await idle(two)
        assert run_state(theirs.engine) == state
        assert run_state(mine.engine) == state


async def test_a_cut_in_a_shared_run_asks_and_the_other_hears_who_cut_and_who_undid(studio):
    async with ana_and_ben(studio, 2) as (first, one, mine, second, two, theirs):
        await wait_for(one, lambda: mine.shared.others() == ["Ben"], "Ben seen on the run")
        before = run_state(mine.engine)
        await one.press("up", "X")  # the pen's cut: a key that takes a line off the stage
        assert "X takes" in screen_text(first) and "off the stage" in screen_text(first)
        assert run_state(mine.engine) == before
        await one.press("enter")
        await wait_for(one, lambda: mine.engine.head != before[0], "the cut, once asked")
        await wait_for(two, lambda: "Ana cut a line." in notifications(second), "the cut, told by name")
        await idle(one)
        await one.press("u")  # undo asks too: it takes the new take off the stage
        assert "u undoes your cut" in screen_text(first)
        await one.press("enter")
        await wait_for(one, lambda: mine.engine.head == before[0], "the undo")
        await wait_for(two, lambda: "Ana undid their last change." in notifications(second), "the undo, told")


async def test_a_line_sent_as_its_cue_was_written_again_elsewhere_is_kept_in_the_box(studio):
    from test_tui_room import take

    async with ana_and_ben(studio, 1) as (first, one, mine, second, two, theirs):
        await take(two, "ego")
        await wait_for(one, lambda: "Ben plays Jenny" in screen_text(first), "Ben's hold, seen")
        await one.press("s", "enter")  # Ana steps: Sasha speaks, and Jenny's line is Ben's to write
        await wait_for(two, lambda: theirs.human.waiting and theirs.query_one("#human").display,
                       "Ben's box, opened by Ana's step")
        await two.press(*"I kept the letters.")
        # meanwhile Ana writes Sasha's line again: the cue Ben was answering is gone from the stage
        cue = [e for e in mine.engine.stage() if e.role == "other"][-1]
        await one.press("p")  # Ana stops waiting for Ben's line
        await wait_for(one, lambda: not mine.busy, "Ana's step waiting no more")
        mine.engine.reload()
        mine.resync(select=cue.id)
        await one.press("g", "enter")
        await wait_for(one, lambda: [e for e in mine.engine.stage() if e.role == "other"][-1].id != cue.id,
                       "the cue written again")
        await idle(one)
        await two.press("enter")  # Ben sends his line, answering a cue that is no longer on stage
        await wait_for(two, lambda: "Your line is kept" in notifications(second), "the line kept, told")
        await wait_for(two, lambda: theirs.query_one("#human-line").value == "I kept the letters.",
                       "the box open again with Ben's text in it")


def test_a_name_with_nothing_to_show_is_refused_with_exit_2(tmp_path):
    import subprocess
    import sys

    from conftest import ROOT

    done = subprocess.run([sys.executable, "-m", "studio", "open", "--name", ":\x1b:", "--db", str(tmp_path / "s.db")],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 2 and "--name" in done.stderr and "Traceback" not in done.stderr, done.stderr


async def test_a_take_over_handed_back_is_not_said_to_be_in_force_on_another_take(tmp_path):
    from rich.console import Console

    from conftest import make_cast
    from studio.engine import Engine
    from studio.store import Store
    from studio.tui import views

    store = Store(tmp_path / "studio.db")
    try:
        engine = Engine.create(store, make_cast())
        await engine.play_turn()
        first_take = engine.head
        engine.take_over("other")  # on one take: taken over, then handed back
        engine.release("other")
        engine.rewind_to(first_take)
        await engine.play_turn()  # another take, without either control on it
        engine.choose_take(first_take)
        engine.rewind_to(first_take)

        def said() -> str:
            console = Console(width=200, record=True)
            console.print(views.notes(engine))
            return console.export_text()

        notes = said()
        assert "takes over Sasha" not in notes, "a take-over since handed back was listed as in force"
        assert "Sasha (other) goes back to the model. (given on another take; in force here)" in notes
        engine.take_over("ego")  # taken over on a take, never handed back: in force on every take
        engine.rewind_to(first_take)
        assert "takes over Jenny (ego). (given on another take; in force here)" in said()
    finally:
        store.close()
