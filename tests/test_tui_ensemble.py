"""An ensemble's controls in the app: who speaks next, entrances and exits, view as, and the
panes with four characters and two inner voices. The Last Crossing on the scripted model."""

from __future__ import annotations

from test_tui import _plain, idle, notifications, opened, screen_text, stage, step, studio, wait_for  # noqa: F401
from studio.store import events as ev


from studio.tui.screens.dialogs import RolesScreen  # noqa: E402
from studio.tui.screens.ensemble import CharacterChoiceScreen, VoicesScreen, WhoNextScreen  # noqa: E402
from studio.tui.screens.main import MainScreen  # noqa: E402

SIZE = (120, 36)
PLAY = "last_crossing.toml"


def _lines(engine) -> list:
    return [e for e in engine.stage() if e.kind == ev.STAGE]


async def _choose(pilot, screen_type, option_id: str) -> None:
    """Highlight one option of the open dialog's list and press Enter, as the playwright would."""
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, screen_type), screen_type.__name__)
    options = pilot.app.screen.query_one("OptionList")
    index = next(i for i in range(options.option_count) if options.get_option_at_index(i).id == option_id)
    options.highlighted = index
    await pilot.pause()
    await pilot.press("enter")
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, MainScreen), "the dialog to close")


def _who_options(app) -> list[str]:
    options = app.screen.query_one("#who-list")
    return [options.get_option_at_index(i).id or "" for i in range(options.option_count)]


async def test_w_lists_who_is_on_stage_with_the_suggestion_first_and_the_pick_speaks(studio):
    app = studio(PLAY)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        suggestion = engine.suggestion()
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WhoNextScreen), "who speaks next")
        picks = [o for o in _who_options(app) if o.startswith("pick:")]
        assert picks[0] == f"pick:{suggestion}"
        assert sorted(p[5:] for p in picks) == ["Ines", "Marit", "Tomas"]  # Oskar is not on stage yet
        assert "suggested: next in the rotation" in screen_text(app)
        chosen = next(p[5:] for p in picks if p[5:] != suggestion)
        await _choose(pilot, WhoNextScreen, f"pick:{chosen}")
        await wait_for(pilot, lambda: screen.job is not None, "the turn")
        await idle(pilot)
        line = _lines(engine)[-1]
        assert line.character == chosen
        pick = engine.by_id[line.shaped_by[0]]
        assert pick.kind == ev.PICK and pick.origin == "human"  # an event, not a screen state
        await pilot.pause(0.3)
        assert f"{chosen}: your pick" in _plain(screen.query_one("#backstage").content)


async def test_a_human_policy_opens_the_dialog_by_itself_and_esc_pauses(studio):
    app = studio(PLAY)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        await step(pilot)
        await pilot.press("w")
        await _choose(pilot, WhoNextScreen, "policy:human")
        assert engine.state.policy == "human"
        assert [e.data for e in engine.path if e.kind == ev.CONTROL][-1] == {"policy": "human"}
        assert "next: human" in screen_text(app).splitlines()[0]
        assert "Next: you pick who speaks next · w or s opens the choice" in screen.query_one("#activity").render().plain
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, WhoNextScreen), "the dialog to open by itself")
        assert "It is your pick" in screen_text(app)
        await _choose(pilot, WhoNextScreen, "pick:Marit")
        await idle(pilot)
        assert _lines(engine)[-1].character == "Marit"
        before = len(engine.path)
        await pilot.press("s")
        await wait_for(pilot, lambda: isinstance(app.screen, WhoNextScreen), "the dialog to open by itself")
        await pilot.press("escape")
        await idle(pilot)
        assert len(engine.path) == before  # nothing half-done was written
        assert "Paused" in screen.query_one("#activity").render().plain
        assert "Could not" not in notifications(app) and "Error" not in notifications(app)
        # switching the policy in the waiting dialog ends the turn; s then goes on under the new policy
        await pilot.press("s")
        await _choose(pilot, WhoNextScreen, "policy:round_robin")
        await idle(pilot)
        assert engine.state.policy == "round_robin"
        await step(pilot)
        assert len(_lines(engine)) == 3 and not isinstance(app.screen, WhoNextScreen)


async def test_enter_and_exit_show_the_direction_and_change_who_can_be_picked(studio):
    app = studio(PLAY)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        await step(pilot)
        await pilot.press("E")
        await _choose(pilot, CharacterChoiceScreen, "Oskar")
        await pilot.press("E")
        await _choose(pilot, CharacterChoiceScreen, "Tomas")
        await pilot.pause(0.2)
        directions = [e.text for e in engine.stage() if e.kind == ev.DIRECTION]
        assert directions[-2:] == ["Oskar enters.", "Tomas leaves."]
        text = screen_text(app)
        assert "Oskar enters." in text and "Tomas leaves." in text
        assert "on stage: Ines Marit Oskar" in text.splitlines()[0]
        await pilot.press("w")
        await wait_for(pilot, lambda: isinstance(app.screen, WhoNextScreen), "who speaks next")
        picks = sorted(o[5:] for o in _who_options(app) if o.startswith("pick:"))
        assert picks == ["Ines", "Marit", "Oskar"]
        await _choose(pilot, WhoNextScreen, "pick:Oskar")
        await idle(pilot)
        oskar = _lines(engine)[-1]
        assert oskar.character == "Oskar" and "c2" not in oskar.present  # Tomas was not there


async def test_the_last_exit_is_refused_in_the_app_with_a_notice_and_nothing_saved(studio):
    app = studio(PLAY)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        await step(pilot)
        for name in ("Ines", "Tomas"):
            await pilot.press("E")
            await _choose(pilot, CharacterChoiceScreen, name)
        before = len(engine.stage())
        await pilot.press("E")
        await _choose(pilot, CharacterChoiceScreen, "Marit")
        await pilot.pause(0.2)
        assert "Marit is the last one on stage" in notifications(app)
        assert len(engine.stage()) == before and len(engine.on_stage()) == 1
        assert "Marit leaves." not in screen_text(app)


async def test_view_as_hides_what_the_character_did_not_witness_and_toggles_back(studio):
    app = studio(PLAY)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        await step(pilot, 2)
        engine.stage_move("Tomas", False)
        await step(pilot, 2)
        unseen = [e for e in _lines(engine) if not e.witnessed_by("c2")]
        seen = [e for e in _lines(engine) if e.witnessed_by("c2")]
        assert unseen and seen
        everyone = len(stage(app).entries)
        await pilot.press("V")
        await _choose(pilot, CharacterChoiceScreen, "Tomas")
        await pilot.pause(0.2)
        assert "VIEW AS TOMAS" in screen_text(app).splitlines()[0]
        shown = {entry.event_id for entry in stage(app).entries}
        assert not shown & {e.id for e in unseen}
        assert {e.id for e in seen} <= shown
        assert len(stage(app).entries) < everyone
        # a new line Tomas cannot witness does not appear while viewing as him
        await step(pilot)
        assert not {entry.event_id for entry in stage(app).entries} & {e.id for e in _lines(engine)[-1:]}
        # searching this take while viewing as Tomas finds only what he witnessed
        said_later = unseen[0].text.split(":", 1)[0]  # its speaker, scene and turn: this line alone
        assert not screen.desk.run_search(said_later, False)
        await pilot.press("V")
        await pilot.pause(0.2)
        assert [e.id for e in screen.desk.run_search(said_later, False)] == [unseen[0].id]
        assert "VIEW AS" not in screen_text(app)
        assert {e.id for e in engine.stage()} == {entry.event_id for entry in stage(app).entries}


async def test_rewind_keeps_the_policy_switch_and_the_take_over_made_in_the_app(studio):
    app = studio(PLAY)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        await step(pilot, 2)
        await pilot.press("w")
        await _choose(pilot, WhoNextScreen, "policy:round_robin")
        await pilot.press("t")
        await _choose(pilot, RolesScreen, "c3")  # Marit
        await step(pilot)  # whoever speaks, the run goes on a turn past the switches
        await pilot.press("r")
        await pilot.press("r")
        await idle(pilot)
        assert engine.state.turn <= 1
        assert engine.state.policy == "round_robin"
        assert "c3" in engine.state.humans
        first = screen_text(app).splitlines()[0]
        assert "next: round_robin" in first and "you play Marit" in first


async def test_the_backstage_of_an_ensemble_line_says_whose_voice_shaped_it_and_who_picked(studio):
    app = studio(PLAY)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        await step(pilot, 4)
        revised = next(e for e in _lines(engine) if any(engine.by_id[i].kind == ev.CRITIQUE for i in e.shaped_by))
        screen.query_one("#stage").select_event(revised.id)
        await pilot.pause(0.3)
        text = _plain(screen.query_one("#backstage").content)
        voice = engine.cast.role(f"{revised.role}.voice").name
        assert f"The Chart picked {revised.character}" in text
        assert f"{voice}'s critique ({revised.character}'s inner voice)" in text
        assert "Witnessed by Ines, Tomas, Marit" in text and "not there: Oskar" in text

        reheard = next(e for e in _lines(engine) if engine.lens().rewrite("c1", e) is not None)
        screen.query_one("#stage").select_event(reheard.id)
        await pilot.pause(0.3)
        assert "Ines heard it as (Pride, Ines's inner voice, rewrote it)" in _plain(screen.query_one("#backstage").content)
        pane = screen.query_one("#cast-pane")
        cards = {pane.get_option_at_index(i).id: _plain(pane.get_option_at_index(i).prompt)
                 for i in range(pane.option_count) if pane.get_option_at_index(i).id}
        assert "inner voice of Ines" in cards["c1.voice"]
        assert "on stage · inner voice: Pride" in cards["c1"] and "off stage" in cards["c4"]


async def test_the_controls_say_so_on_a_play_that_is_not_an_ensemble(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        for key in ("w", "E", "V"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, MainScreen)
        assert notifications(app).count("needs an ensemble play") == 3


async def test_every_line_of_a_whole_ensemble_play_explains_itself(engine_for):
    """Three scenes with an exit and an entrance from the play, the epilogue: each line's backstage and the
    status line render, and the scheduled moves say the play sent them."""
    from studio.tui import views

    engine = engine_for(PLAY)
    await engine.play_to_end()
    said = {}
    for event in engine.stage():
        said[event.id] = _plain(views.backstage(engine, event.id))
        assert said[event.id].startswith(event.character or "The stage"), said[event.id]
    moves = [e for e in engine.stage() if e.data.get("task") == "stage_move"]
    assert [e.text for e in moves] == ["Tomas leaves.", "Oskar enters."]
    assert all("Sent by the scene's plan in the play" in said[e.id] for e in moves)
    oskar_first = next(e for e in engine.stage() if e.character == "Oskar")
    assert "Oskar" in said[oskar_first.id].split("Witnessed by", 1)[1]
    assert "finished" in _plain(views.status(engine))


async def test_v_switches_one_inner_voice_and_the_status_line_says_which_is_off(studio):
    app = studio(PLAY)
    async with app.run_test(size=(200, 30)) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        await step(pilot)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, VoicesScreen), "the switches")
        options = app.screen.query_one("#voices-list")
        ids = [options.get_option_at_index(i).id for i in range(options.option_count)]
        assert ids == [f"{v}|{s}" for v in ("c1.voice", "c2.voice") for s in ("*", "rewrite_prompt", "rewrite_speech",
                                                                             "critique")]
        options.highlighted = ids.index("c1.voice|critique")
        await pilot.press("enter")
        await pilot.pause()
        assert "○ off  Pride (Ines) · critique" in screen_text(app)
        await pilot.press("escape")
        assert engine.state.strategy_switch == {"c1.voice:critique": False}
        assert "(Pride: critique off)" in screen_text(app).splitlines()[0]
        mark = len(engine.path)
        await step(pilot, 8)
        later = engine.path[mark:]
        assert any(e.character == "Ines" and e.kind == ev.STAGE for e in later)
        assert not [e for e in later if e.kind == ev.CRITIQUE and e.role == "c1.voice"]


async def test_before_a_scene_opens_w_and_e_wait_for_its_heading(studio):
    """A pick made before the heading could name someone the scene does not have on stage."""
    app = studio(PLAY)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        for key in ("w", "E"):
            await pilot.press(key)
            await pilot.pause()
            assert isinstance(app.screen, MainScreen)
        assert notifications(app).count("Scene 1 sets who is on stage") == 2
        assert screen.engine.path == []


async def test_the_palette_switches_one_inner_voice(studio):
    from studio.tui.commands import ControlsProvider

    app = studio(PLAY)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        hits = {hit.text: hit async for hit in ControlsProvider(screen).discover()}
        assert "Who next (w)" in hits and "Pride: switch critique off" in hits
        hits["Doubt: switch rewrite speech off"].command()
        assert screen.engine.state.strategy_switch == {"c2.voice:rewrite_speech": False}
