"""The pen in the app, driven through Textual's Pilot on the scripted model: a line of the playwright's own
added, cut and moved, undo and redo, the role model's draft in the line's box, and nothing typed lost."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from textual import events

from studio.llm import scripted
from studio.store import events as ev
from studio.tui.screens.main import MainScreen
from studio.tui.widgets.stage import entry_for, palette
from test_tui import dialog, idle, notifications, opened, screen_text, stage, step, studio, wait_for, workshop  # noqa: F401

SIZE = (100, 30)


def _rows(event, tag: str = "", width: int = 60) -> list[str]:
    entry = entry_for(event, tag)
    return ["".join(text for text, _ in line) for line in entry.layout(width, palette(["Jenny", "Sasha"]))]


def _event(kind, text, character=None, role=None, data=None):
    return SimpleNamespace(id=7, kind=kind, text=text, role=role, character=character, data=data or {},
                           origin="model", parent=None, scene=1, turn=1)


# -- how the stage sets a line ------------------------------------------------------------------


def test_a_parenthetical_sits_under_the_cue_and_an_extension_after_the_name():
    rows = _rows(_event(ev.STAGE, "I was never here.", "Jenny", "ego",
                        {"parenthetical": "quietly", "extension": "V.O."}))
    assert rows[0].strip() == "JENNY (V.O.)"
    assert rows[1].strip() == "(quietly)"
    assert rows[2].strip() == "I was never here."
    plain = _rows(_event(ev.STAGE, "Hello.", "Jenny", "ego"))
    assert plain == ["JENNY  Hello."]


def test_a_transition_sits_to_the_right_and_a_centred_direction_in_the_middle():
    transition = _rows(_event(ev.DIRECTION, "Cut to:", data={"shape": "transition"}), width=40)
    assert transition[0].endswith("CUT TO:") and transition[0].startswith(" " * 30)
    centred = _rows(_event(ev.DIRECTION, "The lights fade.", data={"shape": "centered"}), width=40)
    row = centred[0]
    left = len(row) - len(row.lstrip())
    assert row.strip() == "> The lights fade. <" and abs(left - (40 - len(row.strip())) // 2) <= 1
    lyric = _rows(_event(ev.DIRECTION, "Row, row, row your boat", data={"shape": "lyric"}))
    assert lyric[0].startswith("♪ Row, row")
    action = _rows(_event(ev.DIRECTION, "She sits.", data={"shape": "bogus"}))
    assert action == ["She sits."]


def test_a_kept_line_is_marked_kept():
    from studio.present.stage import tag

    kept = _event(ev.STAGE, "Again.", "Jenny", "ego", {"kept": 3})
    assert "kept" in tag(kept, {})
    assert "kept" not in tag(_event(ev.STAGE, "Again.", "Jenny", "ego"), {})


# -- the pen's keys ---------------------------------------------------------------------------------


async def test_a_adds_a_speech_with_a_parenthetical_after_the_selected_line(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot, 2)
        engine = screen.engine
        first = engine.stage()[1]
        after = [e.text for e in engine.stage()[2:]]
        stage(app).select_event(first.id)
        editor = await dialog(pilot, "a", screen="InsertLineScreen")
        editor.query_one("#insert-character").value = "Sasha"
        editor.query_one("#insert-parenthetical").value = "leaning in"
        await pilot.press(*"And then?")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any(e.text == "And then?" for e in engine.stage()), "the line")
        await idle(pilot)
        lines = engine.stage()
        added = next(e for e in lines if e.text == "And then?")
        assert lines.index(added) == 2 and added.origin == "human" and added.character == "Sasha"
        assert added.data.get("parenthetical") == "leaning in"
        assert [e.text for e in lines[3:]] == after  # kept as written, not played again
        text = screen_text(app)
        assert "(leaning in)" in text and "kept" in text


async def test_i_adds_a_centred_direction_before_the_selected_line(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        line = engine.stage()[-1]
        stage(app).select_event(line.id)
        editor = await dialog(pilot, "i", screen="InsertLineScreen")
        editor.query_one("#insert-direction").value = True
        editor.query_one("#shape-centered").value = True
        editor.query_one("#insert-text").focus()
        await pilot.press(*"The lights dim.")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any(e.text == "The lights dim." for e in engine.stage()), "the direction")
        await idle(pilot)
        lines = engine.stage()
        added = next(e for e in lines if e.text == "The lights dim.")
        assert added.kind == ev.DIRECTION and added.data.get("shape") == "centered"
        assert lines[lines.index(added) + 1].text == line.text
        assert "> The lights dim. <" in screen_text(app)


async def test_cut_move_undo_and_redo_from_the_stage(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot, 2)
        engine = screen.engine
        texts = [e.text for e in engine.stage()]
        victim = engine.stage()[2]
        stage(app).select_event(victim.id)
        await pilot.press("X")
        await wait_for(pilot, lambda: victim.text not in [e.text for e in engine.stage()], "the cut")
        await idle(pilot)
        assert [e.text for e in engine.stage()] == texts[:2] + texts[3:]
        await pilot.press("u")
        await wait_for(pilot, lambda: [e.text for e in engine.stage()] == texts, "the undo")
        assert victim.text in screen_text(app) or victim.text[:30] in screen_text(app).replace("\n", " ")
        await pilot.press("U")
        await wait_for(pilot, lambda: [e.text for e in engine.stage()] == texts[:2] + texts[3:], "the redo")
        await pilot.press("ctrl+z")
        await wait_for(pilot, lambda: [e.text for e in engine.stage()] == texts, "ctrl+z")
        # alt+down moves the selected line down past the next one, alt+up back up
        moving = engine.stage()[1]
        stage(app).select_event(moving.id)
        await pilot.press("alt+down")
        await wait_for(pilot, lambda: [e.text for e in engine.stage()][2] == moving.text, "the move down")
        await idle(pilot)
        assert [e.text for e in engine.stage()][1] == texts[2]
        assert stage(app).selected is not None and stage(app).selected.text == moving.text
        await pilot.press("alt+up")
        await wait_for(pilot, lambda: [e.text for e in engine.stage()] == texts, "the move up")
        await idle(pilot)
        # a scene heading and the line under it: the engine says why not, plainly, and nothing moves
        head = engine.head
        stage(app).select_event(engine.stage()[0].id)
        await pilot.press("alt+up")
        await pilot.pause()
        assert "already the first" in notifications(app) and engine.head == head


async def test_ctrl_z_in_the_note_box_leaves_the_run_alone(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        stage(app).select_event(engine.stage()[-1].id)
        await pilot.press("X")
        await idle(pilot)
        head = engine.head
        await pilot.press("n")
        await pilot.press(*"abc", "ctrl+z")
        await pilot.pause()
        assert engine.head == head


async def test_undo_with_nothing_to_undo_says_so(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        head = screen.engine.head
        await pilot.press("u")
        await pilot.pause()
        assert "Nothing of yours to undo" in notifications(app)
        assert screen.engine.head == head


async def test_the_pen_keys_are_in_the_help_and_the_palette(studio):
    from studio.tui.commands import ControlsProvider
    from studio.tui.controls import by_id

    app = studio()
    async with app.run_test(size=(150, 130)) as pilot:
        screen = await opened(pilot)
        provider = ControlsProvider(screen)
        names = [hit.text async for hit in provider.discover()]
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
        for control_id in ("insert-after", "insert-before", "cut-line", "move-up", "move-down", "undo", "redo",
                           "impersonate", "select-all"):
            control = by_id(control_id)
            assert control_id in text
            assert f"{control.label} ({control.keys})" in names


async def test_the_wide_footer_offers_add_line_and_undo(studio):
    app = studio()
    async with app.run_test(size=(250, 30)) as pilot:
        await opened(pilot)
        await step(pilot)
        await pilot.pause(0.2)
        footer = screen_text(app).splitlines()[-1]
        assert "Add line" in footer and "Undo" in footer


# -- the role model's draft in the line's box ------------------------------------------------------


async def _my_turn(pilot):
    screen = await opened(pilot)
    await pilot.press("s")
    await wait_for(pilot, lambda: screen.query_one("#human").display, "the input box")
    await pilot.pause()
    return screen


async def test_ctrl_g_drafts_the_line_into_the_box_and_nothing_is_said_until_enter(studio, monkeypatch):
    app = studio(roles={"ego": "human"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await _my_turn(pilot)
        engine = screen.engine
        events_before = len(engine.store.events(engine.run_id))
        box = screen.query_one("#human-line")
        await pilot.press(*"my own words")
        draft = "I would rather talk about the sea."
        scripted.queue(draft, role="ego")
        monkeypatch.setenv("STUDIO_SCRIPTED_DELAY", "0.02")  # a word at a time
        shown: list[str] = []
        screen.watch(box, "value", lambda value: shown.append(value), init=False)
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: box.value == draft, "the draft")
        assert any(v and v != draft and draft.startswith(v) for v in shown), shown  # its first words came first
        await pilot.pause(0.2)
        assert len(engine.store.events(engine.run_id)) == events_before  # drafted, not said
        assert engine.pending().human
        await pilot.press(*" Truly.")
        await pilot.press("enter")
        await idle(pilot)
        said = [e for e in engine.stage() if e.role == "ego"][-1]
        assert (said.text, said.origin) == ("I would rather talk about the sea. Truly.", "human")


async def test_the_draft_is_asked_exactly_as_the_models_own_line(studio):
    """The messages of the draft are those the model is sent for the same line when it plays the role."""
    from conftest import RecordingGateway

    seen = []
    gateway = RecordingGateway()
    app = studio(roles={"other": "human"}, gateway=gateway)
    async with app.run_test(size=SIZE) as pilot:
        screen = await _my_turn(pilot)  # Sasha's first question
        engine = screen.engine
        box = screen.query_one("#human-line")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: box.value != "", "the draft")
        await pilot.pause(0.2)
        seen.append(gateway.calls[-1])
        drafted = box.value
        await pilot.press("escape")  # the draft goes
        await pilot.press("escape")  # and the turn pauses
        await idle(pilot)
        engine.release("other")
        await engine.step()
        asked = gateway.calls[-1]
        assert asked[1] == seen[0][1]  # the same messages
        assert engine.path[-1].text == drafted


async def test_esc_drops_the_draft_and_gives_back_what_the_box_held(studio):
    app = studio(roles={"ego": "human"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await _my_turn(pilot)
        engine = screen.engine
        box = screen.query_one("#human-line")
        await pilot.press(*"my own words")
        scripted.queue("A draft I do not want.", role="ego")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: box.value == "A draft I do not want.", "the draft")
        await pilot.press("escape")
        await pilot.pause()
        assert box.value == "my own words"
        scripted.queue("Another draft.", role="ego")
        await pilot.press("ctrl+g")
        await wait_for(pilot, lambda: box.value == "Another draft.", "the second draft")
        await pilot.press("ctrl+z")  # the box's own undo gives back the text too
        await pilot.pause()
        assert box.value == "my own words"
        assert screen.query_one("#human").display and engine.pending().human  # the box still waits
        await pilot.press("escape")  # the next Esc pauses, as it always did
        await idle(pilot)
        assert not screen.query_one("#human").display
        assert not any(e.origin == "human" for e in engine.stage())


async def test_ctrl_g_outside_a_turn_says_how_to_get_one(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("ctrl+g")
        await pilot.pause()
        assert "ctrl+g drafts your line once it is your turn" in notifications(app)


# -- nothing typed is lost ----------------------------------------------------------------------------


async def _asks_before_discarding(pilot, keys: tuple[str, ...], name: str, change) -> object:
    """Unchanged, the editor closes at Esc at once; changed, Esc asks, n goes back to the text as typed, and
    Esc then y closes it. The editor is returned."""
    app = pilot.app
    at_run = lambda: isinstance(app.screen, MainScreen)  # noqa: E731
    await dialog(pilot, *keys, screen=name)
    await pilot.pause()
    await pilot.press("escape")
    await wait_for(pilot, at_run, "the unchanged editor to close")
    editor = await dialog(pilot, *keys, screen=name)
    await pilot.pause()
    change(editor)
    await pilot.pause()
    await pilot.press("escape")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "DiscardScreen", "the question")
    assert "Discard changes?" in screen_text(app)
    await pilot.press("n")
    await wait_for(pilot, lambda: app.screen is editor, "the editor again")
    assert editor.unsaved()
    await pilot.press("escape")
    await wait_for(pilot, lambda: type(app.screen).__name__ == "DiscardScreen", "the question again")
    await pilot.press("y")
    await wait_for(pilot, at_run, "the changed editor to close")
    return editor


async def test_the_line_editor_asks_before_discarding(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        head = screen.engine.head
        await _asks_before_discarding(pilot, ("e",), "EditLineScreen",
                                      lambda editor: editor.query_one("#edit-line-input").insert(" More."))
        assert screen.engine.head == head


async def test_the_play_editor_asks_before_discarding(studio, workshop):
    play = workshop / "plays" / "interview.toml"
    original = play.read_text()
    app = studio(play_path=play)
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await _asks_before_discarding(pilot, ("P",), "PlayScreen",
                                      lambda editor: setattr(editor.query_one("#play-title"), "value", "Another"))
        assert play.read_text() == original


def _describe(editor) -> None:
    editor.query_one("#field-description").value = "Someone else entirely."


async def test_the_sheet_editor_asks_before_discarding_and_so_does_quitting(studio, workshop):
    sheet = workshop / "characters" / "jenny.toml"
    original = sheet.read_text()
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await _asks_before_discarding(pilot, ("c", "enter"), "CharacterScreen", _describe)
        assert sheet.read_text() == original
        editor = await dialog(pilot, "c", "enter", screen="CharacterScreen")
        await pilot.pause()
        _describe(editor)
        await pilot.press("ctrl+q")
        await wait_for(pilot, lambda: type(app.screen).__name__ == "DiscardScreen", "the question on quitting")
        await pilot.press("escape")
        await wait_for(pilot, lambda: app.screen is editor, "back to the sheet")
        assert editor.query_one("#field-description").value == "Someone else entirely."
        assert app.is_running


async def test_the_lorebook_editor_asks_before_discarding(studio):
    app = studio()
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await _asks_before_discarding(pilot, ("b",), "LorebookScreen",
                                      lambda editor: setattr(editor.query_one("#lore-keys"), "value", "lighthouse"))


async def test_the_new_line_dialog_asks_before_discarding(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await step(pilot)
        await _asks_before_discarding(pilot, ("a",), "InsertLineScreen",
                                      lambda editor: editor.query_one("#insert-text").insert("Half a thought"))


@pytest.mark.parametrize("box_id", ["note-input", "human-line"])
async def test_ctrl_a_in_a_one_line_box_selects_all_so_typing_replaces_it(studio, box_id):
    """In the note box, and in the line's box after ↑ brought back an earlier line: replaced, not glued to."""
    mine = box_id == "human-line"
    app = studio(roles={"ego": "human"} if mine else None)
    async with app.run_test(size=SIZE) as pilot:
        if mine:
            screen = await _my_turn(pilot)
            screen.human.history = ["An old line."]
            await pilot.press("up")
        else:
            screen = await opened(pilot)
            await pilot.press("n", *"a first note")
        box = screen.query_one(f"#{box_id}")
        assert box.value == ("An old line." if mine else "a first note")
        await pilot.press("ctrl+a", *"New.")
        await pilot.pause()
        assert box.value == "New."


async def test_ctrl_e_right_after_typing_keeps_every_letter(studio):
    app = studio(roles={"ego": "human"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await _my_turn(pilot)
        handed: list[str] = []
        app.edit_text = lambda text, done, suffix=".txt": handed.append(text)
        # typed in one breath: the letters are still on their way to the box when ctrl+e arrives
        for letter in "quickly":
            app.post_message(events.Key(letter, letter))
        app.post_message(events.Key("ctrl+e", None))
        await wait_for(pilot, lambda: handed, "the editor")
        assert handed == ["quickly"]
        assert screen.query_one("#human-line").value == "quickly"
