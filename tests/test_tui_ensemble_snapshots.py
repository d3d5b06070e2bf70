"""An ensemble scene as the playwright sees it, as SVG snapshots: four characters, two inner
voices and a moderator, with the backstage of a line open; and the same run viewed as one character.

The scripted model and a fresh database per test keep them deterministic; `--snapshot-update`
re-records them after a deliberate change to the look (then look at the SVG).
"""

from __future__ import annotations

from test_tui import dialog, idle, opened, steady, step, studio, wait_for  # noqa: F401  (studio is a fixture)

SIZE = (120, 34)
PLAY = "last_crossing.toml"


def test_an_ensemble_scene_with_the_backstage_open(snap_compare, studio):
    """Four turns of The Last Crossing; Ines's revised line selected: the moderator's pick and its reason,
    her draft, Pride's critique, the verdict, who witnessed it and who was not there."""

    async def run_before(pilot):
        screen = await opened(pilot)
        await step(pilot, 4)
        line = [e for e in screen.engine.stage() if e.character == "Ines"][-1]
        screen.query_one("#stage").select_event(line.id)
        await idle(pilot)
        await pilot.pause(0.3)
        steady(pilot.app)

    assert snap_compare(studio(PLAY), terminal_size=SIZE, run_before=run_before)


def test_the_run_viewed_as_one_character(snap_compare, studio):
    """Tomas left after two turns, two more were played: viewed as Tomas, the stage holds only what he
    witnessed, the line he heard through Doubt's rewrite is tagged, and the status line says so."""

    async def run_before(pilot):
        screen = await opened(pilot)
        await step(pilot, 3)
        screen.engine.stage_move("Tomas", False)
        await step(pilot, 2)
        screen.ensemble.set_lens("Tomas")
        await wait_for(pilot, lambda: "VIEW AS" in str(screen.query_one("#status").content), "the lens")
        await idle(pilot)
        await pilot.pause(0.3)
        pilot.app.clear_notifications()
        await pilot.pause()
        steady(pilot.app)

    assert snap_compare(studio(PLAY), terminal_size=SIZE, run_before=run_before)


def test_who_speaks_next(snap_compare, studio):
    """One turn in, w: the three on stage with the suggestion first and marked (no line names anyone and three
    are on stage, so the moderator's chain leaves it to the rotation), then the
    policies with the play's own (moderator) marked."""

    async def run_before(pilot):
        await opened(pilot)
        await step(pilot)
        await dialog(pilot, "w", screen="WhoNextScreen")
        await pilot.pause(0.3)
        steady(pilot.app)

    assert snap_compare(studio(PLAY), terminal_size=SIZE, run_before=run_before)
