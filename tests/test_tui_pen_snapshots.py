"""The playwright's own lines on the stage at 100x30, as SVG snapshots: a centred direction written between
two lines, and a speech written with a parenthetical under its cue, the lines after each marked kept.

Deterministic as the other snapshots are (the scripted model, a fresh database, no clocks, no blinking
cursors); `pytest --snapshot-update` re-records them after a deliberate change to the look.
"""

from __future__ import annotations

from test_tui import idle, opened, steady, step, studio  # noqa: F401  (studio is a fixture)

SIZE = (100, 30)


def _written(**line):
    async def run_before(pilot):
        screen = await opened(pilot)
        await step(pilot, 2)
        engine = screen.engine
        anchor = [e for e in engine.stage() if e.role == "other"][0]
        text = line.pop("text")
        new = engine.insert(anchor.id, text, **line)
        screen.recount_takes()
        screen.resync(select=new.id)
        await idle(pilot)
        steady(pilot.app)

    return run_before


def test_a_centred_direction_written_between_two_lines(snap_compare, studio):
    assert snap_compare(studio(), terminal_size=SIZE,
                        run_before=_written(text="A kettle whistles, then stops.", direction=True, shape="centered"))


def test_a_speech_written_with_a_parenthetical(snap_compare, studio):
    assert snap_compare(studio(), terminal_size=SIZE,
                        run_before=_written(text="You never asked me that before.", character="Jenny",
                                            parenthetical="barely audible"))
