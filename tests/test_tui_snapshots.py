"""The main screen at 100x30 in the states a playwright spends most time in, as SVG snapshots.

Deterministic by construction: the scripted model, a fresh database per test (so it is always run 1),
no clocks on screen, no blinking cursors. `pytest --snapshot-update` re-records them after a
deliberate change to the look.
"""

from __future__ import annotations

from test_tui import idle, opened, steady, step, studio, wait_for  # noqa: F401  (studio is a fixture)

SIZE = (100, 30)


def test_a_fresh_play(snap_compare, studio):
    """The interview just opened: an empty stage, the premise in the notes, nothing called yet."""

    async def run_before(pilot):
        await opened(pilot)
        steady(pilot.app)

    assert snap_compare(studio(), terminal_size=SIZE, run_before=run_before)


def test_mid_scene_with_the_backstage_open(snap_compare, studio):
    """Three turns in, Jenny's second reply selected: what she heard, her draft, the critique, the verdict."""

    async def run_before(pilot):
        screen = await opened(pilot)
        await step(pilot, 3)
        second = [e for e in screen.engine.stage() if e.role == "ego"][1]
        screen.query_one("#stage").select_event(second.id)
        await idle(pilot)
        steady(pilot.app)

    assert snap_compare(studio(), terminal_size=SIZE, run_before=run_before)


def test_a_human_roles_input_pending(snap_compare, studio):
    """Jenny is played by a human: after Sasha's first question the input box waits for her line."""

    async def run_before(pilot):
        screen = await opened(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.query_one("#human").display, "the input box")
        await pilot.pause()
        steady(pilot.app)

    assert snap_compare(studio(roles={"ego": "human"}), terminal_size=SIZE, run_before=run_before)


def test_the_smallest_terminal(snap_compare, studio):
    """80x24, one turn in: every pane still has room to say something."""

    async def run_before(pilot):
        await opened(pilot)
        await step(pilot)
        steady(pilot.app)

    assert snap_compare(studio(), terminal_size=(80, 24), run_before=run_before)
