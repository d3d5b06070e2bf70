"""What a playwright met driving the app in a real terminal at 80x24 to 200x50, each reproduced in Pilot:
keys typed in one breath, boxes whose help line or label a notification or the screen's edge hid, and keys
offered that do nothing."""

from __future__ import annotations

import time

import pytest
from textual import events

from test_tui import dialog, idle, notifications, opened, screen_text, stage, step, studio, wait_for  # noqa: F401


def burst(app, keys: str) -> None:
    """Keys as a quick typist sends them: all queued before the app has handled the first."""
    names = {"/": "slash", ":": "colon", " ": "space"}
    for char in keys:
        app.post_message(events.Key(names.get(char, char), char))


async def test_the_picker_filter_takes_every_key_typed_in_one_breath(studio):
    app = studio(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen.query("#picker-list"), "the picker")
        await pilot.pause()
        burst(app, "/island")
        await pilot.pause(0.5)
        await pilot.pause()
        box = app.screen.query_one("#picker-filter")
        assert box.value == "island", box.value
        assert app.screen.focused is box
        text = screen_text(app)
        assert "Eight on an Island" in text and "The Interview" not in text


async def test_a_notification_never_covers_the_help_line_of_a_dialog_or_the_label_of_your_line(studio):
    app = studio()
    async with app.run_test(size=(80, 24), notifications=True) as pilot:  # Pilot hides toasts unless asked
        screen = await opened(pilot)
        await step(pilot)
        await pilot.press("n", *"slower", "enter")
        await wait_for(pilot, lambda: "Noted" in notifications(app), "the note's notification")
        app.notify("Something went wrong: the model is gone.", severity="error")
        await dialog(pilot, "t", screen="RolesScreen")
        await pilot.pause(0.2)
        text = screen_text(app)
        # the bottom-right corner is where both the toasts and the dialog's help line sit at 80x24
        assert "Enter toggles the highlighted role; Esc closes." in text, text
        assert "model is gone" in notifications(app)  # an error stays until it is read
        app.clear_notifications()  # read
        await pilot.press("enter")  # take Jenny over: "You play Jenny (ego) now" is said in a toast
        await wait_for(pilot, lambda: "You play Jenny" in notifications(app), "the take-over's notification")
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.query_one("#human").display, "your line's box")
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "JENNY (ego) · speaks · your line" in text and "Jenny's line (Enter sends, Esc pauses)" in text, text


async def test_the_search_dialog_shows_its_matches_and_its_help_line_at_80x24(studio):
    app = studio()
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await step(pilot, 4)
        await pilot.press("slash")
        await wait_for(pilot, lambda: app.screen.query("#search-input"), "the search box")
        await pilot.press(*"scene 1")
        await pilot.pause(0.2)
        text = screen_text(app)
        assert "lines in this take" in text
        assert "Enter goes to the match; then n and N move" in text, text  # the help line, under the matches
        assert text.count("s1 t") >= 3, text  # and several matches in view, not one


async def test_the_picker_offers_esc_only_when_it_does_something(studio):
    app = studio(None)
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.screen.query("#picker-list"), "the picker")
        await pilot.pause(0.2)
        footer = screen_text(app).splitlines()[-1]
        assert "esc" not in footer.lower() and "n New play" in footer, footer  # no run to go back to
        await pilot.press("slash", *"isl")
        await pilot.pause(0.2)
        assert "esc Back" in screen_text(app).splitlines()[-1]  # now it clears the filter
        await pilot.press("escape")
        await pilot.pause(0.2)
        assert not app.screen.query_one("#picker-filter").has_class("-open")
        assert "esc" not in screen_text(app).splitlines()[-1].lower()


async def test_a_play_without_a_superego_has_no_rewrites_or_drafts_to_deny_in_its_backstage(studio):
    from test_tui import _plain

    app = studio("keepers_log.toml")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        mara = [e for e in screen.engine.stage() if e.role == "ego"][-1]
        stage(app).select_event(mara.id)
        await pilot.pause()
        pane = _plain(screen.query_one("#backstage").content)
        assert "Sasha said" in pane and "Prompt" in pane, pane
        assert "rewrite" not in pane and "no draft" not in pane, pane
        sasha = [e for e in screen.engine.stage() if e.role != "ego" and e.character == "Sasha"][-1]
        stage(app).select_event(sasha.id)
        await pilot.pause()
        pane = _plain(screen.query_one("#backstage").content)
        assert "Sasha said" in pane and "rewrite" not in pane, pane


async def test_the_game_s_backstage_speaks_of_rounds_as_its_stage_does(studio):
    from test_tui import _plain

    app = studio("island.toml")
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await opened(pilot)
        await step(pilot, 2)
        heading = screen.engine.stage()[0]
        stage(app).select_event(heading.id)
        await pilot.pause()
        pane = _plain(screen.query_one("#backstage").content)
        assert "round 1" in pane and "Round 1" in pane, pane
        assert "scene" not in pane.lower(), pane
        line = screen.engine.stage()[-1]
        stage(app).select_event(line.id)
        await pilot.pause()
        pane = _plain(screen.query_one("#backstage").content)
        assert "· round 1 ·" in pane and "scene" not in pane.lower(), pane


async def test_the_activity_line_names_the_role_you_play_in_a_sentence_that_reads(studio):
    app = studio(roles={"ego": "human"})
    async with app.run_test(size=(120, 30)) as pilot:
        await opened(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: app.screen.query_one("#human").display, "your line's box")
        await pilot.press("escape")  # pause: the activity line says what comes next
        await wait_for(pilot, lambda: "Paused" in screen_text(app), "the pause")
        text = screen_text(app)
        assert "Next: Jenny (you) speaks" in text, text


@pytest.mark.parametrize("play, mind", [("keepers_log.toml", True), ("last_crossing.toml", False),
                                         ("interview.toml", False)])
async def test_the_footer_offers_m_only_where_a_character_has_an_inner_life(studio, play, mind):
    app = studio(play)
    async with app.run_test(size=(200, 40)) as pilot:
        await opened(pilot)
        await pilot.pause(0.2)
        footer = screen_text(app).splitlines()[-1]
        assert ("m Mind" in footer) is mind, footer
        assert footer.rstrip().endswith("▏^p palette") and "? Help" in footer, footer


async def test_a_model_line_with_markup_and_escape_sequences_is_shown_as_its_words_everywhere(studio):
    from studio.llm import scripted

    line = "[bold]x[/] \x1b[31mred\x1b[0m \x1b]0;owned\x07[link=http://a]here[/link] \x1b[2Jend"
    scripted.queue(line, role="other")
    app = studio()
    async with app.run_test(size=(140, 40)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        sasha = next(e for e in screen.engine.stage() if e.character == "Sasha")
        stage(app).select_event(sasha.id)
        await pilot.pause()
        shown = "[bold]x[/] red [link=http://a]here[/link] end"
        text = screen_text(app)
        assert "\x1b" not in text and "owned" not in text
        assert text.count(shown) >= 2, text  # the stage and the backstage, as written
        await pilot.press("slash", *"here")
        await wait_for(pilot, lambda: app.screen.query("#search-input"), "the search box")
        await pilot.pause(0.2)
        assert "[link=http://a]here[/link]" in screen_text(app) and "\x1b" not in screen_text(app)


async def test_at_80_columns_your_answer_s_format_and_choices_are_shown_whole_above_the_box(studio):
    from test_tui import _plain

    app = studio("island.toml", roles={"Amara Osei": "human"})
    seen: dict[str, str] = {}
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        human = screen.query_one("#human")
        for _ in range(400):
            if {"goals", "act"} <= set(seen):
                break
            if human.display:
                await pilot.pause(0.1)
                task = engine.state.queue[0][0]
                hint = screen.query_one("#human-hint")
                choices = engine.form.choices(engine.state, engine.pending().step, engine.pending().role)
                words = _plain(hint.render()) if hint.display else ""
                seen[task] = words
                assert "Enter sends" not in words, words  # said once, by the box under the hint
                if task == "goals":
                    assert "(e.g. Win Bruno over; find the idol)" in words, words
                if task == "act":
                    assert all(choice in words for choice in choices), (choices, words)
                # shown whole: every row of the hint is on the screen, not cut by the stage's edge
                assert hint.region.height == len(hint.render_lines(hint.region.reset_offset)), hint.region
                assert "find the idol" in screen_text(app) or task != "goals"
                label = screen.query_one("#human-label").render().plain
                row = next(r for r in screen_text(app).splitlines() if "AMARA OSEI (c1)" in r)
                assert label in row or "…" in row, row  # whole, or cut with an ellipsis
                screen.query_one("#human-line").value = {"goals": "find the idol", "act": "wait"}.get(task, "ok")
                await pilot.press("enter")
                await wait_for(pilot, lambda task=task: not human.display or engine.state.queue[0][0] != task,
                               "the answer to be taken")
            elif not screen.busy:
                await pilot.press("s")
            await pilot.pause(0.02)
        assert {"goals", "act"} <= set(seen), seen


async def test_the_mind_dialog_at_80x24_keeps_its_help_line_in_view_and_scrolls_to_each_part(studio):
    from conftest import PLAYS

    app = studio(play_path=PLAYS / "keepers_log.toml")
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await step(pilot)
        await dialog(pilot, "m", screen="MindScreen")
        await pilot.pause(0.2)
        assert "Tab moves between the parts" in screen_text(app), screen_text(app)  # its help line
        await pilot.press("tab", "tab")  # the goals, then the fact's box: it is brought into view
        await pilot.pause(0.2)
        fact = app.screen.query_one("#mind-fact")
        assert app.screen.focused is fact
        assert "storm=rising" in screen_text(app), screen_text(app)


def test_an_esc_whose_wait_is_over_is_the_escape_key_whatever_comes_next(studio, monkeypatch):
    import time

    from textual._xterm_parser import XTermParser

    monkeypatch.delenv("ESCDELAY", raising=False)
    studio(None)  # the app settles how its terminal's input is read
    parser = XTermParser()
    assert list(parser.feed("\x1b")) == []  # perhaps the start of a sequence: it waits
    time.sleep(0.06)
    keys = [event.key for event in parser.feed(":")]
    assert keys == ["escape", "colon"], keys  # not alt+: nor '^:'
    keys = [event.key for event in parser.feed("\x1b[A")]  # a terminal's sequence comes in one write
    assert keys == ["up"], keys


def test_the_installed_textual_still_reads_keys_the_way_the_esc_settling_expects():
    """Fails on a Textual whose input parser changed shape: Esc would then wait as Textual makes it wait,
    and the studio's way (studio/tui/app.py, docs/app.md) needs looking at again."""
    from textual._xterm_parser import XTermParser

    from studio.tui.escapes import settle_escapes

    assert settle_escapes() is None
    assert XTermParser.feed.__qualname__.startswith("settle_escapes."), XTermParser.feed.__qualname__


def test_esc_then_punctuation_in_one_burst_is_escape_and_the_key():
    """`:` `s9` Esc `:` `foo` typed in one breath: Esc and `:foo` reach the app in one write, and Textual read
    them as alt+colon with the alt dropped, so Esc never closed the jump box and it read `s9:foo`."""
    from textual._xterm_parser import XTermParser

    from studio.tui.escapes import ESCAPE_DELAY, settle_escapes

    assert settle_escapes() is None
    parser = XTermParser()

    def read(data: str) -> list[str]:
        keys = [event.key for event in parser.feed(data)]
        time.sleep(ESCAPE_DELAY + 0.02)
        return keys + [event.key for event in parser.tick()]

    assert read("\x1b:foo") == ["escape", "colon", "f", "o", "o"]
    assert read("\x1b/") == ["escape", "slash"]
    assert read("\x1bx") == ["alt+x"]  # a letter keeps Textual's reading
    assert read("\x1b[A") == ["up"]


def test_a_textual_whose_parser_changed_shape_keeps_its_own_esc_and_the_log_says_so(studio, monkeypatch, tmp_path):
    import textual.constants
    from textual._xterm_parser import XTermParser

    def feed(self, data, *, final=False):  # a later Textual's parser, read another way
        return iter(())

    log = tmp_path / "textual.log"
    monkeypatch.setattr(XTermParser, "feed", feed)
    monkeypatch.setattr(textual.constants, "LOG_FILE", str(log))
    studio(None)  # starts all the same
    assert XTermParser.feed is feed  # left as Textual made it
    said = [line for line in log.read_text().splitlines() if "Esc" in line]
    assert len(said) == 1 and "Esc waits as Textual makes it wait" in said[0], said


async def test_a_contestant_s_own_answers_are_listed_as_answers_not_as_changes_from_outside(studio):
    from test_tui import _plain

    app = studio("island.toml", roles={"Amara Osei": "human"})
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        human = screen.query_one("#human")
        for _ in range(400):
            if human.display and engine.state.queue[0][0] == "goals":
                break
            if not screen.busy:
                await pilot.press("s")
            await pilot.pause(0.02)
        screen.query_one("#human-line").value = "Win Bruno over; find the idol"
        await pilot.press("enter")
        await wait_for(pilot, lambda: any(e.origin == "human" for e in engine.path), "the goals")
        await pilot.pause(0.2)
        notes = _plain(screen.query_one("#notes").content)
        assert "Amara Osei (you) sets goals:" in notes and "Win Bruno over" in notes, notes
        assert "Your change" not in notes, notes


async def test_two_hundred_keys_typed_in_one_burst_into_the_new_play_form_all_arrive_in_order_on_a_busy_cpu(studio):
    import threading

    from textual.widgets import Input

    words = ("the", "visit", "at", "dusk", "by", "9", "quiet", "rooms,", "and", "a", "door.", "Kept", "0", "late")
    typed = ""
    while len(typed) < 200:
        typed += words[len(typed) % len(words)] + " "
    typed = typed[:200]
    names = {" ": "space", ",": "comma", ".": "full_stop"}
    app = studio(None)
    busy = threading.Event()

    def spin() -> None:  # another thread wanting the interpreter all the while, as a model's import does
        while not busy.is_set():
            sum(range(1000))

    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(pilot, lambda: app.screen.query("#picker-list"), "the picker")
        await dialog(pilot, "n", screen="NewPlayScreen")
        await pilot.pause(0.2)
        spinner = threading.Thread(target=spin, daemon=True)
        spinner.start()
        try:
            for character in typed:  # as the terminal's reader hands them over: all at once, none awaited
                app.post_message(events.Key(names.get(character, character), character))
            title = app.screen.query_one("#new-title", Input)
            await wait_for(pilot, lambda: len(title.value) >= len(typed), "every key", timeout=60)
            await pilot.pause(0.3)
        finally:
            busy.set()
            spinner.join()
        assert title.value == typed, (title.value, typed)
