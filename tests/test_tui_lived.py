"""What stood in a playwright's way when living in the app: focus, keys, layout and the game view.

Each test drives the app as a person would (keys, clicks, a resized terminal) and checks what they see.
"""

from __future__ import annotations

import os
import stat

import pytest
from textual import events

from test_tui import _plain, dialog, idle, notifications, opened, screen_text, stage, step, studio, wait_for, workshop  # noqa: F401


from studio.store import Store  # noqa: E402
from studio.tui.screens.main import MainScreen  # noqa: E402


@pytest.mark.parametrize("key,editor_screen,first,after", [
    (("c", "enter"), "CharacterScreen", "#field-name", "#field-description"),  # c asks whose sheet first
    (("P",), "PlayScreen", "#play-title", "#play-turns"),  # the field beside the title
], ids=["sheet", "play"])
async def test_an_editor_takes_keys_typed_at_once_and_tab_moves_on(studio, workshop, key, editor_screen, first, after):
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        editor = await dialog(pilot, *key, screen=editor_screen)
        before, next_before = editor.query_one(first).value, editor.query_one(after).value
        await pilot.press("x", "tab", "y")
        assert editor.query_one(first).value == before + "x"
        typed = editor.query_one(after).value
        assert typed != next_before and "y" in typed  # the second key went to the next field


async def test_a_new_character_is_written_readable_like_the_shipped_ones(studio, tmp_path):
    (tmp_path / "plays").mkdir()
    old = os.umask(0o022)
    try:
        app = studio(None, plays_dir=tmp_path / "plays")
        async with app.run_test(size=(120, 40)) as pilot:
            await pilot.pause()
            await dialog(pilot, "c", screen="NewCharacterScreen")
            await dialog(pilot, *"Marlowe", "enter", screen="CharacterScreen")
    finally:
        os.umask(old)
    written = tmp_path / "characters" / "marlowe.toml"
    assert stat.S_IMODE(written.stat().st_mode) == 0o644


async def test_the_ensemble_status_puts_nobody_on_stage_before_the_scene_opens(studio):
    app = studio("last_crossing.toml")
    async with app.run_test(size=(200, 40)) as pilot:
        screen = await opened(pilot)
        status = screen.query_one("#status").render().plain
        shown = status.split("on stage: ")[1].split(" · ")[0]
        assert not any(role.name in shown for role in screen.engine.cast.roles), status
        await step(pilot)
        status = screen.query_one("#status").render().plain
        shown = status.split("on stage: ")[1].split(" · ")[0]
        present = [screen.engine.cast.role(k).name for k in screen.engine.on_stage()]
        assert present and all(name in shown for name in present), status


def _contrast(fg, bg) -> float:
    def lum(colour):
        def channel(c):
            c = c / 255
            return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4
        r, g, b = colour
        return 0.2126 * channel(r) + 0.7152 * channel(g) + 0.0722 * channel(b)
    a, b = sorted((lum(fg), lum(bg)), reverse=True)
    return (a + 0.05) / (b + 0.05)


@pytest.mark.parametrize("theme", ["textual-light", "solarized-light", "textual-dark"])
async def test_scene_headings_read_clearly_in_every_theme(studio, theme):
    app = studio()
    async with app.run_test(size=(100, 30)) as pilot:
        app.theme = theme
        await opened(pilot)
        await step(pilot)
        view = stage(app)
        row = next(y for y in range(view.size.height) if "━━ SCENE" in view.render_line(y).text)
        strip = view.render_line(row)
        heading = next(s for s in strip if "SCENE" in s.text)
        style = heading.style
        fg = style.color.get_truecolor()
        bg = style.bgcolor.get_truecolor() if style.bgcolor else app.current_theme.to_color_system().background
        assert _contrast(tuple(fg), tuple(bg)) >= 4.5, (theme, fg, bg)


async def test_keys_typed_quickly_after_esc_reach_the_screen_not_the_closing_dialog(studio):
    app = studio()
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        await step(pilot, 2)
        # as a quick typist sends them: all queued before the app has had a moment to close anything
        for key, char in (("colon", ":"), ("s", "s"), ("9", "9"), ("escape", None), ("colon", ":"), ("f", "f"),
                          ("o", "o"), ("o", "o")):
            app.post_message(events.Key(key, char))
        await pilot.pause(0.3)
        await pilot.pause()
        assert app.screen.__class__.__name__ == "JumpScreen", app.screen_stack
        assert app.screen.query_one("#jump-input").value == "foo", [
            (s, [i.value for i in s.query("Input")]) for s in app.screen_stack]


async def test_the_stage_keeps_following_the_newest_line_after_the_terminal_grows_and_shrinks(studio):
    app = studio()
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        await step(pilot, 8)
        for size in ((120, 40), (200, 50), (120, 40), (200, 50), (120, 40)):
            await pilot.resize_terminal(*size)
            await pilot.pause()
            await pilot.pause()
            view = stage(app)
            assert view.scroll_offset.y >= view.max_scroll_y - 1, (size, view.scroll_offset.y, view.max_scroll_y)
        await step(pilot, 2)
        await pilot.pause(0.1)
        view = stage(app)
        newest = screen.engine.stage()[-1]
        assert view.scroll_offset.y >= view.max_scroll_y - 1, (view.scroll_offset.y, view.max_scroll_y)
        assert newest.text.split()[-1] in screen_text(app)


async def test_a_human_contestant_is_told_how_each_answer_is_read_and_typed_impressions_reach_the_alliances(studio):
    app = studio("island.toml", roles={"Amara Osei": "human"})
    answers = {"act": "wait", "talk": "Stay close tonight.", "summary": "We talked.", "vote": "Hiro Tanaka",
               "reflect": "A quiet round.", "goals": "Win Bruno over; find the idol",
               "impressions": "I trust Bruno. I don't trust Hiro."}
    hints = {}
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        human = screen.query_one("#human")
        for _ in range(2000):
            if "impressions" in hints and "goals" in hints:
                break
            if human.display:
                task = engine.state.queue[0][0]
                hints[task] = (screen.query_one("#human-label").render().plain,
                               screen.query_one("#human").asked)
                screen.query_one("#human-line").value = answers.get(task, "wait")
                await pilot.press("enter")
                await wait_for(pilot, lambda task=task: not human.display or engine.state.queue[0][0] != task,
                               "the answer to be taken")
            elif not screen.busy:
                await pilot.press("s")
            await pilot.pause(0.02)
        await idle(pilot)
        label, hint = hints["impressions"]
        assert "your line" not in label and "I trust" in hint, hints["impressions"]
        assert "goals" in hints["goals"][1] and ";" in hints["goals"][1], hints["goals"]
        await pilot.pause()
        view = str(screen.query_one("#game").content)
        assert "Amara Osei → Bruno Keller" in view or "Amara Osei ⇄ Bruno Keller" in view, view
        assert "Amara Osei → Hiro Tanaka" not in view
        mind = engine.state.impressions[engine.cast.matching("Amara Osei")[0].key]
        assert mind["Hiro Tanaka"].startswith("trust -1"), mind


async def test_a_new_take_after_a_hand_back_shows_the_hand_back_in_its_notes(studio):
    app = studio()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        screen.engine.take_over("ego")
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.query_one("#human").display, "the input box")
        await pilot.press(*"I never said that.", "enter")
        await idle(pilot)
        screen.engine.release("ego")
        screen.refresh_panes()
        await pilot.pause()
        assert "goes back to the model" in _plain(screen.query_one("#notes").content)
        await dialog(pilot, "G", screen="DirectScreen")
        await pilot.press(*"colder", "enter")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the dialog to close")
        await idle(pilot)
        assert "you play" not in screen.query_one("#status").render().plain
        notes = _plain(screen.query_one("#notes").content)
        assert "takes over Jenny" in notes and "goes back to the model" in notes, notes


async def test_the_play_editor_at_140x45_shows_the_superego_timing_whole_and_in_sight(studio, workshop):
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot)
        editor = await dialog(pilot, "P", screen="PlayScreen")
        await pilot.pause(0.2)
        fields = editor.query_one("#play-fields").region
        labels = []
        for name in ("rewrite_prompt", "rewrite_speech", "critique"):
            box = editor.query_one(f"#play-{name}").region
            assert fields.contains_region(box), (name, box, fields)
            label = editor.query_one(f"#play-{name}-label")
            words = str(label.render()).split()
            # the whole label shows, on as many rows as it needs, apart from its neighbours
            assert label.region.width * label.region.height >= len(" ".join(words)), (name, label.region)
            assert all(not label.region.overlaps(other) for other in labels), name
            labels.append(label.region)


async def test_a_dilemma_trial_s_backstage_names_who_moved_and_no_inner_voice(studio, tmp_path):
    from studio.engine import Engine
    from studio.lab.kinds import TrialSpec
    from studio.lab.pd_kind import trial_cast

    spec = {"pd": {"temperature": 0.7, "max_tokens": 64}}
    trial = TrialSpec("competitive/0/always_defect/0", "competitive vs always_defect", 0,
                      {"group": "competitive", "wording": 0, "partner": "always_defect"})
    store = Store(tmp_path / "studio.db")
    engine = Engine.create(store, trial_cast(spec, trial, "scripted"), {})
    await engine.play_to_end()
    run_id = engine.run_id
    store.close()
    app = studio(None, run_id=run_id)
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await opened(pilot)
        view = stage(app)
        seen = []
        for index in range(len(view.entries)):
            view.select_index(index)
            await pilot.pause()
            seen.append(_plain(screen.query_one("#backstage").content))
        text = "\n".join(seen)
        assert "None said" not in text and "heard it" not in text and "rewrite" not in text, text
        assert "Simulacrum 1 (competitive)" in text and "Partner (unconditional defector)" in text, text


async def test_a_click_on_a_footer_key_does_what_the_key_does(studio):
    app = studio()
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await opened(pilot)
        footer = screen_text(app).splitlines()[-1]
        await pilot.click(offset=(footer.index("s Step") + 3, 29))
        await wait_for(pilot, lambda: screen.engine.stage(), "the click to step")
        await idle(pilot)
        footer = screen_text(app).splitlines()[-1]
        await pilot.click(offset=(footer.index("? Help") + 1, 29))
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "HelpScreen", "the help screen")


async def test_a_footer_key_under_the_mouse_is_lit_and_says_what_it_does(studio):
    app = studio()
    async with app.run_test(size=(100, 30), tooltips=True) as pilot:
        await opened(pilot)
        footer = screen_text(app).splitlines()[-1]
        step_at, play_at = footer.index("s Step"), footer.index("p Play")

        def lit(x: int) -> bool:
            cell = app.screen.get_style_at(x, 29)
            return cell.bgcolor != app.screen.get_style_at(footer.index("? Help") + 8, 29).bgcolor

        def tip() -> str:
            shown = [t for t in app.screen.query("Tooltip") if t.display]
            return str(shown[0].render()) if shown else ""

        assert not lit(step_at)
        await pilot.hover(offset=(step_at + 2, 29))
        await wait_for(pilot, lambda: tip() == "Step", "the tooltip of s")
        assert lit(step_at) and lit(step_at + 5) and not lit(play_at)
        await pilot.hover(offset=(play_at + 2, 29))  # straight on to the next key: its own tooltip
        await wait_for(pilot, lambda: tip() == "Play", "the tooltip of p")
        assert lit(play_at) and not lit(step_at)


@pytest.mark.parametrize("play", ["interview.toml", "last_crossing.toml"])
async def test_the_footer_fits_80_columns_and_names_an_ensemble_s_own_keys(studio, play):
    app = studio(play)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await pilot.pause(0.2)
        footer = screen_text(app).splitlines()[-1]
        assert footer.rstrip().endswith("▏^p palette") and "? Help" in footer, footer
        assert "s Step" in footer
        if play == "last_crossing.toml":
            assert "w Who next" in footer and "E Enter/exit" in footer, footer
        await pilot.resize_terminal(200, 40)
        await pilot.pause(0.3)
        footer = screen_text(app).splitlines()[-1]
        if play == "last_crossing.toml":
            for key in ("w Who next", "E Enter/exit", "V View as"):
                assert key in footer, footer
        assert "t Take over" in footer and footer.rstrip().endswith("▏^p palette"), footer


@pytest.mark.parametrize("play", ["interview.toml", "last_crossing.toml"])
async def test_the_cast_pane_shows_prompts_with_names_not_templates(studio, play):
    app = studio(play)
    async with app.run_test(size=(200, 50)) as pilot:
        screen = await opened(pilot)
        await pilot.pause(0.2)
        cast = screen.query_one("#cast-pane")
        text = " ".join(_plain(cast.get_option_at_index(i).prompt) for i in range(cast.option_count)
                        if cast.get_option_at_index(i).prompt is not None)
        assert "{ego}" not in text and "{other}" not in text, text
        if play == "interview.toml":
            assert "inner voice of Jenny" in text, text


async def test_the_jump_preview_uses_the_width_it_has_and_marks_a_cut(studio):
    app = studio()
    async with app.run_test(size=(200, 30)) as pilot:
        screen = await opened(pilot)
        await step(pilot, 2)
        await dialog(pilot, "colon", "2", screen="JumpScreen")
        await pilot.pause(0.2)
        line = next(e for e in screen.engine.stage() if e.turn == 2 and e.kind == "stage")
        row = next(r for r in screen_text(app).splitlines() if "→ scene 1, turn 2" in r)
        assert " ".join(line.text.split()) in " ".join(row.split()), row
    narrow = studio(run_id=screen.engine.run_id)
    async with narrow.run_test(size=(60, 30)) as pilot:
        app = pilot.app
        await opened(pilot)
        await dialog(pilot, "colon", "2", screen="JumpScreen")
        await pilot.pause(0.2)
        row = next(r for r in screen_text(app).splitlines() if "→ scene 1, turn 2" in r)
        assert "…" in row, row


async def test_the_take_tree_counts_one_line_and_names_the_run_when_a_take_is_named(studio):
    app = studio()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(pilot)
        await step(pilot, 2)
        line = screen.engine.stage()[-1]
        stage(app).select_event(line.id)
        await pilot.press("g")
        await wait_for(pilot, lambda: len(screen.engine.takes(line.id)) == 2, "the new take")
        await idle(pilot)
        await pilot.press("T")
        await wait_for(pilot, lambda: app.screen.query("#take-tree"), "the take tree")
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "1 lines" not in text and "1 line ·" in text, text
        await pilot.press("m")
        await pilot.pause()
        await pilot.press(*"the cold one", "enter")
        await pilot.pause()
        said = notifications(app)
        assert f"studio show {screen.engine.run_id} --take" in said and "RUN" not in said, said


async def test_a_mood_set_by_hand_leaves_a_line_in_the_director_s_notes(studio):
    from conftest import PLAYS

    app = studio(play_path=PLAYS / "keepers_log.toml")
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        drawn = next(e for e in engine.path if e.kind == "mind.mood")
        names = [m.name for m in engine.cast.role("ego").sheet.moods]
        other = next(n for n in names if n != drawn.data["mood"])
        await dialog(pilot, "m", screen="MindScreen")
        await pilot.pause()
        choices = app.screen.query_one("#mind-choices")
        choices.highlighted = choices.get_option_index(f"mood:{names.index(other)}")
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the dialog to close")
        await pilot.pause(0.2)
        notes = _plain(screen.query_one("#notes").content)
        assert "Your change for Mara" in notes and engine.path[-1].text.split()[0] in notes, notes


async def test_the_game_view_has_room_and_the_island_speaks_of_rounds_not_scenes(studio):
    app = studio("island.toml")
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await opened(pilot)
        assert "Next: round 1 begins" in screen.query_one("#activity").render().plain
        assert "p plays the round" in screen.query_one("#activity").render().plain
        assert screen.query_one("#game-pane").display  # shown from the start, no 5 needed
        await step(pilot)
        await pilot.pause(0.3)
        text = screen_text(app)
        assert "ROUND 1" in text and "SCENE 1" not in text
        assert screen.query_one("#game-pane").region.height >= 14, screen.query_one("#game-pane").region
        assert "v Superego" not in text.splitlines()[-1]
        row = next(r for r in text.splitlines() if "Round 1 · tick" in r)
        assert "│ Round 1" in row, row  # the game view's text sits off the border, like the other panes


async def test_up_and_down_in_the_line_box_bring_back_what_was_typed(studio):
    app = studio(roles={"ego": "human"})
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        box = screen.query_one("#human-line")
        for line in ("I never said that.", "Ask my sister."):
            await pilot.press("s")
            await wait_for(pilot, lambda: screen.query_one("#human").display, "the input box")
            await pilot.press(*line, "enter")
            await idle(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.query_one("#human").display, "the input box")
        await pilot.press("up")
        assert box.value == "Ask my sister."
        await pilot.press("up")
        assert box.value == "I never said that."
        await pilot.press("down", "down")
        assert box.value == ""
        await pilot.press("up", "enter")
        await idle(pilot)
        assert [e.text for e in screen.engine.stage() if e.origin == "human"][-1] == "Ask my sister."


async def test_a_new_run_of_the_play_starts_from_inside_a_run_and_the_old_one_stays(studio, workshop):
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        first = screen.engine.run_id
        kept = len(screen.engine.path)
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen) and app.screen.engine is not None
                       and app.screen.engine.run_id != first, "the new run")
        assert app.screen.engine.path == [] and app.screen.engine.cast.play.title == "The Interview"
        assert len(app.store.take(first)) == kept


async def test_after_r_the_panes_open_before_stay_open(studio, workshop):
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await pilot.press("4", "3")  # the cast pane shown, the notes hidden
        await pilot.pause()
        await pilot.press("R")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen) and app.screen is not screen
                       and app.screen.engine is not None, "the new run")
        await pilot.pause()
        assert app.screen.query_one("#cast-pane").display
        assert not app.screen.query_one("#notes-pane").display


async def test_the_new_play_form_and_its_note_name_every_file_written(studio, tmp_path):
    (tmp_path / "plays").mkdir()
    app = studio(None, plays_dir=tmp_path / "plays")
    async with app.run_test(size=(100, 30)) as pilot:
        await pilot.pause()
        await dialog(pilot, "n", screen="NewPlayScreen")
        await pilot.press(*"The Visit")
        app.screen.query_one("#new-superego").value = "Conscience"
        await pilot.pause()
        text = screen_text(app)
        for name in ("plays/the_visit.toml", "characters/protagonist.toml", "characters/stranger.toml",
                     "characters/conscience.toml"):
            assert name in text, (name, text)
        await pilot.press("enter")
        await opened(pilot)
        said = notifications(app)
        for name in ("the_visit.toml", "protagonist.toml", "stranger.toml", "conscience.toml"):
            assert name in said, (name, said)


async def test_tab_marks_the_pane_it_reaches_and_the_backstage_scrolls_from_the_keyboard(studio):
    app = studio()
    async with app.run_test(size=(100, 24)) as pilot:
        screen = await opened(pilot)
        await step(pilot, 3)
        second = [e for e in screen.engine.stage() if e.role == "ego"][1]
        stage(app).select_event(second.id)
        await pilot.pause(0.3)
        backstage = screen.query_one("#backstage-pane")
        assert backstage.max_scroll_y > 0  # the explanation is longer than the pane
        await pilot.press("ctrl+down")
        await pilot.pause()
        assert backstage.scroll_y > 0 and stage(app).has_focus
        await pilot.press("ctrl+up")
        await pilot.pause()
        assert backstage.scroll_y == 0
        await pilot.press("tab")
        await pilot.pause()
        notes = screen.query_one("#notes-pane")
        assert backstage.has_focus and backstage.styles.border_top[1] != notes.styles.border_top[1]  # marked
        await pilot.press("pagedown")
        await pilot.pause()
        assert backstage.scroll_y > 0
        await pilot.press("shift+tab")
        assert stage(app).has_focus


async def test_one_switch_turns_a_character_s_whole_inner_voice_off_and_on(studio):
    from studio.tui.screens.ensemble import VoicesScreen

    app = studio("last_crossing.toml")
    async with app.run_test(size=(200, 30)) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        await step(pilot)
        await pilot.press("v")
        await wait_for(pilot, lambda: isinstance(app.screen, VoicesScreen), "the switches")
        options = app.screen.query_one("#voices-list")
        options.highlighted = options.get_option_index("c1.voice|*")
        await pilot.press("enter")
        await pilot.pause()
        assert "○ off  Pride (Ines) · the whole inner voice" in screen_text(app)
        assert engine.state.strategy_switch == {f"c1.voice:{s}": False
                                                for s in ("rewrite_prompt", "rewrite_speech", "critique")}
        controls = [e for e in engine.path if e.kind == "control"]
        assert len(controls) == 3  # each switch is the playwright's event, as when flipped one by one
        await pilot.press("enter")
        await pilot.pause()
        assert "● on   Pride (Ines) · the whole inner voice" in screen_text(app)
        assert not any(engine.state.strategy_switch.get(f"c1.voice:{s}", True) is False
                       for s in ("rewrite_prompt", "rewrite_speech", "critique"))


async def test_a_switches_the_whole_superego_at_once(studio):
    app = studio()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await dialog(pilot, "v", screen="StrategiesScreen")
        await pilot.press("a")
        await pilot.pause()
        state = screen.engine.state
        assert not any(state.strategy_on(n) for n in ("rewrite_prompt", "rewrite_speech", "critique"))
        await pilot.press("a")
        await pilot.pause()
        assert all(state.strategy_on(n) for n in ("rewrite_prompt", "rewrite_speech", "critique"))


async def test_the_picker_lists_plays_by_title_filters_as_you_type_and_keeps_lab_trials_in_the_lab(studio, tmp_path):
    from studio.engine import Engine
    from studio.lab.trials import Trials
    from conftest import make_cast

    store = Store(tmp_path / "studio.db")
    mine = Engine.create(store, make_cast(), {})
    await mine.play_turn()
    trial = Engine.create(store, make_cast("interview.toml", turns=1), {})
    await trial.play_to_end()
    Trials(store).record("compare_interview:scripted", "with/0", "done", {"run": trial.run_id})
    store.close()
    app = studio(None)
    async with app.run_test(size=(120, 34)) as pilot:
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PickerScreen", "the picker")
        await wait_for(pilot, lambda: "q Quit" in screen_text(app).splitlines()[-1], "the picker's footer")
        text = screen_text(app)
        assert "The Interview  " in text and "Last Crossing" in text  # titles, the file beside each
        assert f"run {mine.run_id} " in text and f"run {trial.run_id} " not in text
        assert "1 run of lab trials: l opens the lab" in text
        assert "Esc back to the open run" not in text  # there is none
        assert "q Quit" in text.splitlines()[-1]
        await pilot.press("slash", *"crossing")
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "Last Crossing" in text and "The Interview  " not in text and f"run {mine.run_id} " not in text
        await pilot.press("escape")
        await pilot.pause(0.2)
        assert "The Interview  " in screen_text(app)



async def test_rename_says_which_run_it_renames_at_80x24(studio, tmp_path):
    from studio.engine import Engine
    from conftest import make_cast

    store = Store(tmp_path / "studio.db")
    for _ in range(6):
        Engine.create(store, make_cast(), {})
    store.close()
    app = studio(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PickerScreen", "the picker")
        picker = app.screen.query_one("#picker-list")
        picker.highlighted = next(i for i in range(picker.option_count) if picker.get_option_at_index(i).id == "run:1")
        await pilot.press("m")
        await pilot.pause(0.2)
        assert "Renaming run 1" in screen_text(app)


async def test_the_backstage_does_not_run_ahead_of_a_rewrite_still_to_come(studio):
    from studio.store import events as ev

    app = studio()
    async with app.run_test(size=(120, 40)) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        for _ in range(40):  # step by step until the next step is the superego's rewrite of a line
            pending = engine.pending()
            if pending is not None and pending.step.kind == ev.REWRITE_SPEECH and engine.state.other_line is not None:
                break
            await screen.engine.step()
        else:
            pytest.skip("no rewrite of what the protagonist hears in reach")
        screen.resync(select=engine.state.other_line.id)
        await pilot.pause(0.3)
        backstage = _plain(screen.query_one("#backstage").content)
        assert "as it was said" not in backstage and "rewrites it next" in backstage, backstage


async def test_the_play_editor_shows_a_staged_scene_s_brief_and_keeps_its_staging_on_save(studio, workshop):
    play_path = workshop / "plays" / "interview.toml"
    staged = ('[[scenes]]\nbrief = "The kitchen table, the recorder running."\n'
              'on_stage = ["Jenny", "Sasha"]\n\n')
    text = play_path.read_text().replace("scenes = 1\n", "")
    play_path.write_text(text.replace("[cast.ego]", staged + "[cast.ego]", 1))
    app = studio(play_path=play_path)
    async with app.run_test(size=(140, 45)) as pilot:
        await opened(pilot)
        editor = await dialog(pilot, "P", screen="PlayScreen")
        assert editor.query_one("#play-scenes").text == "The kitchen table, the recorder running."
        editor.query_one("#play-scenes").load_text("The kitchen table, the recorder switched off.")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the run screen")
    saved = play_path.read_text()
    assert "the recorder switched off" in saved
    assert 'on_stage = ["Jenny", "Sasha"]' in saved


async def test_c_chooses_whose_sheet_to_edit_and_the_palette_names_each_character(studio, workshop):
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        chooser = await dialog(pilot, "c", screen="CharactersScreen")
        text = screen_text(app)
        assert "Jenny (ego)" in text and "Cleo (superego)" in text and "Sasha (other)" in text
        assert "sasha_interviewer.toml" in text
        await pilot.press("down", "down", "enter")
        editor = await dialog(pilot, screen="CharacterScreen")
        assert chooser is not editor
        assert editor.query_one("#field-name").value == "Sasha"
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the run screen")
        # c again offers the character last edited first
        await dialog(pilot, "c", screen="CharactersScreen")
        await pilot.press("enter")
        editor = await dialog(pilot, screen="CharacterScreen")
        assert editor.query_one("#field-name").value == "Sasha"
        await pilot.press("escape")

        from studio.tui.commands import ControlsProvider

        provider = ControlsProvider(screen)
        names = [name for name, _, _ in provider._commands()]
        assert {"Edit Jenny's sheet (ego)", "Edit Cleo's sheet (superego)", "Edit Sasha's sheet (other)"} <= set(names)


async def test_c_opens_an_ensemble_character_s_sheet(studio):
    app = studio("last_crossing.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await dialog(pilot, "c", screen="CharactersScreen")
        assert "Marit (c3)" in screen_text(app)
        await pilot.press("down", "down", "down", "down", "down", "enter")
        editor = await dialog(pilot, screen="CharacterScreen")
        assert editor.query_one("#field-name").value == "Marit"


async def test_a_new_character_s_sheet_opens_with_hints_not_text_to_delete(studio, tmp_path):
    from studio.model import load_character
    from studio.model.starter import starter_prompt

    (tmp_path / "plays").mkdir()
    app = studio(None, plays_dir=tmp_path / "plays")
    async with app.run_test(size=(120, 40)) as pilot:
        await pilot.pause()
        await dialog(pilot, "c", screen="NewCharacterScreen")
        await pilot.press(*"Marlowe", "enter")
        editor = await dialog(pilot, screen="CharacterScreen")
        prompt = editor.query_one("#field-prompt")
        assert prompt.text == "" and str(prompt.placeholder) == starter_prompt("Marlowe")
        assert editor.query_one("#field-description").value == ""
        assert "ctrl+a selects all" in screen_text(app)
        await pilot.press("ctrl+s")  # left as hints, the file's own words are kept
        await wait_for(pilot, lambda: app.screen.__class__.__name__ != "CharacterScreen", "the editor to close")
        saved = load_character(tmp_path / "characters" / "marlowe.toml")
        assert saved.prompt.strip() == starter_prompt("Marlowe")
        assert saved.description == "Marlowe, as the others see them."


async def test_ctrl_a_selects_a_whole_text_box_and_ctrl_l_empties_it(studio, workshop):
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await dialog(pilot, "c", screen="CharactersScreen")
        editor = await dialog(pilot, "enter", screen="CharacterScreen")
        prompt = editor.query_one("#field-prompt")
        prompt.focus()
        await pilot.pause()
        prompt.move_cursor(prompt.document.end)
        await pilot.press("ctrl+a", *"Brief.")
        assert prompt.text == "Brief."
        await pilot.press("ctrl+l")
        assert prompt.text == ""
        await pilot.press("ctrl+z")
        assert prompt.text == "Brief."


async def test_the_picker_s_filter_lets_down_through_tab_lands_on_a_run_and_m_on_a_play_says_why(studio, tmp_path):
    from conftest import make_cast
    from studio.engine import Engine

    store = Store(tmp_path / "studio.db")
    engine = Engine.create(store, make_cast(), {})
    await engine.play_turn()
    run = engine.run_id
    store.close()
    app = studio(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PickerScreen", "the picker")
        await pilot.pause()
        picker = app.screen.query_one("#picker-list")
        await pilot.press("m")  # a play is highlighted
        assert "m renames a saved run; this row is a play: Tab goes to the runs." in notifications(app)
        await pilot.press("tab")
        assert picker.get_option_at_index(picker.highlighted).id == f"run:{run}"
        await pilot.press("tab")
        assert picker.get_option_at_index(picker.highlighted).id.startswith("play:")
        await pilot.press("slash", *"inter", "down")
        assert picker.has_focus
        assert picker.get_option_at_index(picker.highlighted).id.startswith("play:")
        await pilot.press("down")  # the list's own ↓ from here on: the interview's run under it
        assert picker.get_option_at_index(picker.highlighted).id == f"run:{run}"


@pytest.mark.parametrize("theme", ["textual-light", "solarized-light", "textual-dark"])
async def test_an_unfocused_pane_s_border_shows_on_every_theme(studio, theme):
    app = studio()
    async with app.run_test(size=(100, 30)) as pilot:
        app.theme = theme
        await opened(pilot)
        await pilot.pause()
        pane = app.screen.query_one("#backstage-pane")
        assert not pane.has_focus_within
        strip = app.screen._compositor.render_strips()[pane.region.y]
        corner = next(s for s in strip.crop(pane.region.x, pane.region.x + 1))
        assert corner.text == "╭"
        fg = corner.style.color.get_truecolor()
        bg = corner.style.bgcolor.get_truecolor() if corner.style.bgcolor else app.current_theme.to_color_system().background
        assert _contrast(tuple(fg), tuple(bg)) >= 2.0, (theme, fg, bg)


async def test_a_toast_in_a_dialog_leaves_its_help_line_in_sight_and_a_long_one_fits_the_screen(studio, workshop):
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await opened(pilot)
        await dialog(pilot, "c", screen="CharactersScreen")
        editor = await dialog(pilot, "enter", screen="CharacterScreen")
        editor.query_one("#field-temperature").value = "hot"
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: "Not saved" in notifications(app), "the refusal")
        await pilot.pause(0.3)
        text = screen_text(app)
        assert "Not saved" in text
        assert "new runs read the saved sheet." in text, text  # the help line's end, bottom right at 80 columns
        await pilot.press("escape")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the run screen")
        app.clear_notifications()
        app.notify("The provider said: " + "far too many words " * 60 + "THE END")
        await pilot.pause(0.3)
        text = screen_text(app)
        assert "The provider said:" in text and "…" in text, text


async def test_enter_twice_in_the_export_dialog_exports_once_and_closes_only_the_dialog(studio, monkeypatch, tmp_path):
    written = []

    def export_run(store, run_id, fmt, out=None, backstage=False):
        written.append(fmt)
        return tmp_path / f"run.{fmt}"

    monkeypatch.setattr("studio.export.export_run", export_run)
    app = studio()
    async with app.run_test(size=(100, 30)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        await dialog(pilot, "x", screen="ExportScreen")
        for _ in range(2):  # as a quick typist sends them: both queued before the dialog can close
            app.post_message(events.Key("enter", "\r"))
        await wait_for(pilot, lambda: "Exported to" in notifications(app), "the export")
        await pilot.pause(0.3)
        assert app.screen is screen
        assert len(written) == 1


async def test_a_wide_footer_names_the_desk_s_keys_and_none_act_on_lines_before_the_first(studio):
    app = studio()
    async with app.run_test(size=(200, 50)) as pilot:
        await opened(pilot)
        await pilot.pause(0.2)
        footer = screen_text(app).splitlines()[-1]
        for key in ("r Rewind", "g Regenerate", "[ Prev take", "] Next take"):
            assert key not in footer, footer
        assert "s Step" in footer and "n Note" in footer, footer
        await step(pilot)
        await pilot.pause(0.3)
        footer = screen_text(app).splitlines()[-1]
        for key in ("r Rewind", "g Regenerate", "C Continue", "G Direct", "T Takes", "d Diff takes", "/ Search",
                    ": Go to", "x Export"):
            assert key in footer, (key, footer)
        assert footer.rstrip().endswith("▏^p palette"), footer


def test_the_help_screen_s_key_column_stays_narrow_at_80_columns():
    from rich.console import Console

    from studio.tui.screens.help import help_table

    console = Console(width=76, record=True)
    console.print(help_table())
    rows = console.export_text().splitlines()
    row = next(r for r in rows if r.lstrip().startswith("s ") and "Play one turn" in r)
    assert row.index("Play one turn") <= 14, row  # the longest key, ctrl+down, and a gap


async def test_an_answer_read_as_data_streams_without_raw_json_on_the_activity_line(studio):
    from test_tui import screen_text as _text  # noqa: F401
    from studio.tui.widgets.lines import ActivityLine

    app = studio("island.toml")
    async with app.run_test(size=(120, 30)) as pilot:
        screen = await opened(pilot)
        line = screen.query_one(ActivityLine)
        step_ = type("Step", (), {"role": screen.engine.cast.roles[0].key, "task": "act"})()
        for token in ('{"action": ', '"search", ', '"target": null}'):
            line.token(screen.engine, step_, token)
        said = line.render().plain
        assert "chooses an action · 3 tokens" in said and "{" not in said and '"' not in said, said
        step_.task = "audit"
        line.token(screen.engine, step_, "x")
        assert " audit " not in line.render().plain and "goals scored" in line.render().plain


async def test_the_export_dialog_exports_the_format_the_arrows_reached_and_enter_never_toggles(studio, monkeypatch,
                                                                                             tmp_path):
    """↓ moves the tick with the highlight, so Enter exports what the playwright sees chosen; Enter on the
    backstage box exports, as the help line says, and leaves the box as it was."""
    from studio.export import FORMATS

    written = []

    def export_run(store, run_id, fmt, out=None, backstage=False):
        written.append((fmt, backstage))
        return tmp_path / f"run.{fmt}"

    monkeypatch.setattr("studio.export.export_run", export_run)
    app = studio()
    async with app.run_test(size=(100, 30)) as pilot:
        await opened(pilot)
        await step(pilot)
        await dialog(pilot, "x", screen="ExportScreen")
        await pilot.press("down", "down")
        await pilot.press("enter")
        await wait_for(pilot, lambda: written, "the export")
        assert written == [(list(FORMATS)[2], False)]
        await dialog(pilot, "x", screen="ExportScreen")
        await pilot.press("down")
        await pilot.press("tab")  # on to the backstage box
        assert app.focused.id == "export-backstage"
        await pilot.press("enter")
        await wait_for(pilot, lambda: len(written) == 2, "the second export")
        assert written[1] == (list(FORMATS)[1], False)


def test_help_below_120_columns_gives_the_width_to_the_words_not_the_ids():
    from rich.console import Console

    from studio.tui.screens.help import help_table

    def lines(ids: bool) -> list[str]:
        console = Console(width=76, record=True)
        console.print(help_table(ids=ids))
        return console.export_text().splitlines()

    narrow, wide = lines(False), lines(True)
    assert not any("play-or-pause" in r or "take-next" in r for r in narrow)
    assert any("take-next" in r for r in wide)
    assert len(narrow) < len(wide) * 0.8  # more keys a page


async def test_the_picker_s_footer_at_80_columns_names_filter_delete_and_quit(studio):
    app = studio(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PickerScreen", "the picker")
        await pilot.pause(0.2)
        footer = screen_text(app).splitlines()[-1]
        for key in ("n New play", "/ Filter", "d Delete", "q Quit", "? Help"):
            assert key in footer, (key, footer)
