"""The studio app, driven through Textual's Pilot on the scripted model: one test or more per control.

Every assertion is about what a playwright would notice: what is on screen, what is in the run store.
"""

from __future__ import annotations

import shutil
import sys
import time
import types
from pathlib import Path

import pytest

from conftest import PLAYS, ROOT, RecordingGateway, make_cast
from studio.llm import scripted
from studio.store import Store, events as ev


from studio.tui.app import StudioApp  # noqa: E402
from studio.tui.controls import ALL, GLOBAL, MAIN  # noqa: E402
from studio.tui.screens.main import MainScreen  # noqa: E402
from studio.tui.widgets.stage import StageView  # noqa: E402

SIZE = (100, 30)


# -- helpers ---------------------------------------------------------------------------------


def screen_text(app) -> str:
    """The terminal as the playwright sees it, as plain text."""
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


async def wait_for(pilot, predicate, what: str = "the app", timeout: float = 45.0) -> None:
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}\n{screen_text(pilot.app)}")
        await pilot.pause(0.02)


async def opened(pilot) -> MainScreen:
    await wait_for(pilot, lambda: isinstance(pilot.app.screen, MainScreen) and pilot.app.screen.engine is not None,
                   "the run to open")
    await pilot.pause()
    return pilot.app.screen


async def dialog(pilot, *keys: str, screen: str):
    """Press the keys that open a dialog and wait until it is the screen on top."""
    await pilot.press(*keys)
    await wait_for(pilot, lambda: pilot.app.screen.__class__.__name__ == screen, f"the {screen}")
    return pilot.app.screen


async def idle(pilot) -> None:
    await wait_for(pilot, lambda: not pilot.app.screen.busy, "the engine to finish")
    await pilot.pause()


async def step(pilot, times: int = 1) -> None:
    for _ in range(times):
        await pilot.press("s")
        await wait_for(pilot, lambda: pilot.app.screen.busy or pilot.app.screen.job is not None, "a step to start")
        await idle(pilot)


async def new_take(pilot, key: str, text: str):
    """Give the ego its next revision, press the key that asks for another take, and return the take written."""
    engine = pilot.app.screen.engine
    before = engine.stage()[-1].id
    scripted.queue(text, task="revise", role="ego")
    await pilot.press(key)
    await wait_for(pilot, lambda: engine.stage()[-1].id != before, "the new take")
    await idle(pilot)
    return engine.stage()[-1]


def steady(app) -> None:
    """No blinking cursor in the boxes on screen, so a snapshot is the same whenever it is taken."""
    for widget in app.screen.query("Input, TextArea"):
        widget.cursor_blink = False


def stage(app) -> StageView:
    return app.screen.query_one("#stage", StageView)


def notifications(app) -> str:
    return "\n".join(f"{n.title} {n.message}" for n in app._notifications)


@pytest.fixture
def studio(tmp_path, monkeypatch):
    """Builds an app on a fresh database in tmp_path; `play=None` opens the picker."""
    monkeypatch.setenv("STUDIO_TUI_NO_WARMUP", "1")
    stores: list[Store] = []

    def make(play: str | None = "interview.toml", *, run_id=None, roles=None, gateway=None, plays_dir=PLAYS,
             play_path: Path | None = None, **cast_options):
        store = Store(tmp_path / "studio.db")
        stores.append(store)
        if play is None or run_id is not None:
            return StudioApp(store, run_id=run_id, roles=roles, gateway=gateway, plays_dir=plays_dir, model="scripted")
        if play_path is not None:
            from studio.engine.forms import load_play, resolve_cast

            p = load_play(play_path)
            updates = {k: cast_options.pop(k) for k in ("turns", "scenes", "epilogue") if k in cast_options}
            cast = resolve_cast(p.model_copy(update=updates), play_path, model="scripted", roles=roles)
        else:
            cast = make_cast(play, roles=roles, **cast_options)
        return StudioApp(store, play=(Path(cast.play_path), cast, {}), gateway=gateway, model="scripted")

    yield make
    for store in stores:
        store.close()


def _plain(visual) -> str:
    """The text of a pane's content, unwrapped, for sentences longer than a narrow pane is wide."""
    from rich.console import Console

    console = Console(width=400, force_terminal=False)
    with console.capture() as capture:
        console.print(visual)
    return " ".join(capture.get().split())


def kinds(engine) -> list[str]:
    return [e.kind for e in engine.path]


# -- opening ---------------------------------------------------------------------------------


async def test_a_fresh_play_opens_on_its_four_panes(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        text = screen_text(app)
        assert "The Interview · run 1 · scene 1/1 · turn 0/10" in text
        for title in ("Stage", "Backstage", "Director's notes"):
            assert title in text
        assert "Nothing on stage yet" in text
        assert "Next: scene 1 opens" in text
        assert screen.engine.path == []  # opening never calls a model


async def test_the_app_is_usable_at_80x24(studio):
    app = studio()
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        await step(pilot)
        text = screen_text(app)
        lines = text.splitlines()
        assert len(lines) == 24 and all(len(line) <= 80 for line in lines)
        assert "SASHA" in text and "JENNY" in text
        assert "Backstage" in text and "Director's notes" in text
        assert "Step" in lines[-1]  # the footer


async def test_a_large_terminal_also_shows_the_cast(studio):
    app = studio()
    async with app.run_test(size=(180, 40)) as pilot:
        await opened(pilot)
        text = screen_text(app)
        assert "Cast" in text
        assert "JENNY  ego" in text and "CLEO  superego" in text
        stage_width = pilot.app.screen.query_one("#stage-pane").outer_size.width
        assert stage_width >= 0.45 * 180


# -- stepping, playing, pausing ----------------------------------------------------------------


async def test_step_plays_one_turn_onto_the_stage(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        assert kinds(screen.engine) == [ev.SCENE, ev.STAGE, ev.REWRITE_SPEECH, ev.DRAFT, ev.CRITIQUE, ev.STAGE]
        text = screen_text(app)
        assert "SCENE 1" in text
        assert "SASHA  (scripted) Sasha as other, scene 1 turn 1" in text
        assert "JENNY  (scripted) revision of Jenny's speech" in text
        assert "turn 1/10" in text
        assert "Next: Sasha speaks" in text


async def test_tokens_stream_onto_the_stage_before_the_line_is_committed(studio, monkeypatch):
    monkeypatch.setenv("STUDIO_SCRIPTED_DELAY", "0.05")
    words = " ".join(f"word{i}" for i in range(60))
    scripted.queue(words, task="speak", role="other")
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: stage(app).live is not None and "word2 " in stage(app).live.text,
                       "the first words on stage")
        await pilot.pause()
        assert "SASHA  word0 word1 word2" in screen_text(app)
        assert "● Sasha speaks" in screen_text(app)
        engine = screen.engine
        assert [e.kind for e in engine.store.events(engine.run_id)] == [ev.SCENE]  # not committed yet
        await pilot.press("p")  # pause
        await idle(pilot)


async def test_brackets_in_a_models_line_are_shown_as_written(studio):
    scripted.queue("[b]Not bold[/b], and [red] is just a word.", task="speak", role="other")
    scripted.queue("!error:400 [oops]", task="speak", role="other")
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await step(pilot)
        assert "[b]Not bold[/b], and [red] is just a word." in screen_text(app)
        await step(pilot)
        assert "Model error" in notifications(app)


async def test_play_runs_to_the_end_of_the_scene_and_stops(studio):
    app = studio(turns=3)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("p")
        await wait_for(pilot, lambda: screen.job is not None, "play to start")
        await idle(pilot)
        engine = screen.engine
        assert engine.state.turn == 3
        assert engine.pending().step.kind == ev.EPILOGUE  # the scene ended; the epilogue waits for a step
        assert "turn 3/3" in screen_text(app)
        await step(pilot)
        assert engine.finished and engine.path[-1].kind == ev.EPILOGUE
        assert "AFTERWARDS" in screen_text(app)


async def test_pause_cancels_the_line_being_written_and_keeps_the_run_consistent(studio, monkeypatch):
    monkeypatch.setenv("STUDIO_SCRIPTED_DELAY", "0.05")
    scripted.queue("a line that will never be finished " + "and on " * 40, task="speak", role="other")
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        await pilot.press("p")
        await wait_for(pilot, lambda: stage(app).live is not None and "never be" in stage(app).live.text,
                       "the line to stream")
        await pilot.press("p")
        await idle(pilot)
        assert kinds(engine) == [ev.SCENE]
        assert [e.kind for e in engine.store.events(engine.run_id)] == [ev.SCENE]
        assert "never be" not in screen_text(app)
        assert "Paused" in screen_text(app)
        monkeypatch.setenv("STUDIO_SCRIPTED_DELAY", "0")
        await step(pilot)
        assert kinds(engine)[1] == ev.STAGE and engine.state.turn == 1


# -- rewind, takes, edits -----------------------------------------------------------------------


async def test_rewind_goes_back_a_turn_and_keeps_the_lines_as_a_take(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot, 2)
        engine = screen.engine
        everything = len(engine.store.events(engine.run_id))
        assert "turn 2" in screen_text(app)
        await pilot.press("r")
        await pilot.pause()
        assert engine.state.turn == 1
        assert "scene 1 turn 2" not in screen_text(app)
        assert "turn 1/10" in screen_text(app)
        assert len(engine.store.events(engine.run_id)) == everything  # nothing deleted


async def test_regenerate_writes_a_new_take_and_brackets_move_between_takes(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        first = engine.stage()[-1]
        await new_take(pilot, "g", "A second take, entirely different.")
        assert "A second take, entirely different." in screen_text(app)
        assert "take 2/2" in screen_text(app)
        assert [t.id for t in engine.takes(first.id)] == [first.id, engine.stage()[-1].id]
        await pilot.press("left_square_bracket")
        await pilot.pause()
        assert engine.stage()[-1].id == first.id
        assert first.text in screen_text(app).replace("\n│▌   ", " ") or "take 1/2" in screen_text(app)
        assert "A second take" not in screen_text(app)
        await pilot.press("right_square_bracket")
        await pilot.pause()
        assert "A second take, entirely different." in screen_text(app)


async def test_editing_a_line_branches_the_run_and_the_old_future_stays_a_take(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot, 2)
        engine = screen.engine
        sasha_2 = [e for e in engine.stage() if e.role == "other"][1]
        stage(app).select_event(sasha_2.id)
        await dialog(pilot, "e", screen="EditLineScreen")
        app.screen.query_one("#edit-line-input").load_text("")
        await pilot.press(*"Tell me about your mother.")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: any(e.text == "Tell me about your mother." for e in engine.stage()), "the edit")
        await pilot.pause()
        edited = next(e for e in engine.stage() if e.text == "Tell me about your mother.")
        assert edited.origin == "override" and edited.data["override_of"] == sasha_2.id
        text = screen_text(app)
        assert "Tell me about your mother." in text and "edited" in text
        # Jenny's reply after it is kept as written in the new take, not asked again
        assert engine.stage()[-1].data.get("kept") and engine.stage()[-1].role == "ego"
        assert sasha_2.id in {e.id for e in engine.store.events(engine.run_id)}
        assert [t.id for t in engine.takes(edited.id)] == [sasha_2.id, edited.id]
        assert "Your edit, against the old line" in text


# -- roles, strategies, notes ------------------------------------------------------------------


async def test_taking_over_a_role_opens_an_input_box_marked_with_the_role(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        engine = screen.engine
        await dialog(pilot, "t", screen="RolesScreen")
        await pilot.press("enter")  # the first role: Jenny, the ego
        await pilot.pause()
        assert "ego" in engine.state.humans
        assert "you play Jenny" in screen_text(app)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.query_one("#human").display, "the input box")
        text = screen_text(app)
        assert "JENNY (ego) · speaks · your line" in text
        await pilot.press(*"I never said that.")
        await pilot.press("enter")
        await idle(pilot)
        line = engine.stage()[-1]
        assert (line.text, line.origin, line.role) == ("I never said that.", "human", "ego")
        assert "I never said that." in screen_text(app) and "yours" in screen_text(app)
        # and hand it back
        await dialog(pilot, "t", screen="RolesScreen")
        await pilot.press("enter")
        await pilot.pause()
        assert "ego" not in engine.state.humans
        assert "you play" not in screen_text(app)


async def test_escape_at_the_input_box_pauses_without_writing_anything(studio):
    app = studio(roles={"ego": "human"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: screen.query_one("#human").display, "the input box")
        before = len(screen.engine.path)
        await pilot.press("escape")
        await idle(pilot)
        assert not screen.query_one("#human").display
        assert len(screen.engine.path) == before
        assert screen.engine.pending().human


async def test_switching_a_strategy_off_mid_scene(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        await dialog(pilot, "v", screen="StrategiesScreen")
        app.screen.query_one("#strategy-critique").focus()
        await pilot.press("space")
        await pilot.press("escape")
        await pilot.pause()
        assert not engine.state.strategy_on("critique")
        control = [e for e in engine.path if e.kind == ev.CONTROL][-1]
        assert control.data == {"strategy": "critique", "enabled": False}
        await step(pilot)
        turn_2 = [e.kind for e in engine.path if e.turn == 2]
        assert ev.DRAFT not in turn_2 and ev.CRITIQUE not in turn_2 and ev.REWRITE_SPEECH in turn_2


async def test_a_note_is_heard_on_the_next_turn(studio):
    gateway = RecordingGateway()
    app = studio(gateway=gateway)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("n")
        assert screen.focused is screen.query_one("#note-input")
        await pilot.press(*"Ask about the garden.")
        await pilot.press("enter")
        await pilot.pause()
        assert [e.text for e in screen.engine.path if e.kind == ev.NOTE] == ["Ask about the garden."]
        notes = screen.query_one("#notes").content
        assert "Your note for turn 1: Ask about the garden. (not heard yet)" in _plain(notes)
        screen.query_one("#stage").focus()
        await step(pilot)
        assert any("Ask about the garden." in shown for shown in gateway.shown(role="other"))
        notes = screen.query_one("#notes").content
        assert "Ask about the garden." in _plain(notes) and "(not heard yet)" not in _plain(notes)


# -- the backstage -----------------------------------------------------------------------------


async def test_the_backstage_explains_the_selected_line(studio):
    scripted.queue("What did your father do?", task="speak", role="other")
    scripted.queue("She asks about the father to catch you out.", task="rewrite_speech")
    scripted.queue("He sold insurance, and silence.", task="draft")
    scripted.queue("Too neat: cut the joke.", task="critique")
    scripted.queue("He sold insurance.", task="revise")
    app = studio(turns=5)
    async with app.run_test(size=(140, 50)) as pilot:
        screen = await opened(pilot)
        await step(pilot, 5)  # the interview rewrites the prompt every 5 turns
        engine = screen.engine
        first_reply = [e for e in engine.stage() if e.role == "ego"][0]
        stage(app).select_event(first_reply.id)
        await pilot.pause()
        assert "Sasha said" in screen_text(app) and "What did your father do?" in screen_text(app)
        pane = _plain(screen.query_one("#backstage").content)
        assert "Jenny heard it as (Cleo's rewrite) She asks about the father to catch you out." in pane
        assert "Jenny's draft He sold insurance, and silence." in pane
        assert "Cleo's critique Too neat: cut the joke." in pane
        assert "Verdict: Jenny revised the draft He sold [-insurance, and silence.-] {+insurance.+} (3 words out, 1 in)" in pane
        fifth = [e for e in engine.stage() if e.role == "ego"][4]
        stage(app).select_event(fifth.id)
        await pilot.pause()
        pane = _plain(screen.query_one("#backstage").content)
        assert "After this line, Cleo rewrote Jenny's prompt" in pane
        rewrite = [e for e in engine.path if e.kind == ev.REWRITE_PROMPT][0]
        assert "{+" + rewrite.text.split()[0] in pane and "[-You are Jenny" in pane and "words out" in pane
        # the sheets pane shows the prompt in force now
        await pilot.press("4")
        await pilot.pause()
        assert "Cast" in screen_text(app)
        card = _plain(screen.query_one("#cast-pane").get_option("ego").prompt)
        assert f"prompt, as Cleo rewrote it after turn 5: {rewrite.text}" in card


async def test_arrow_keys_move_the_selection_and_end_follows_the_play(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await step(pilot, 2)
        view = stage(app)
        last = view.cursor
        await pilot.press("up")
        assert view.cursor == last - 1 and not view.follow
        assert "Sasha said" in screen_text(app)
        await pilot.press("home")
        assert view.cursor == 0 and "Premise" in screen_text(app)
        await pilot.press("end")
        assert view.cursor == last and view.follow


# -- character sheets --------------------------------------------------------------------------


@pytest.fixture
def workshop(tmp_path):
    """A private copy of the plays and characters, since saving a sheet writes the file."""
    shutil.copytree(ROOT / "plays", tmp_path / "plays")
    shutil.copytree(ROOT / "characters", tmp_path / "characters")
    return tmp_path


async def test_a_character_sheet_is_validated_as_you_type_and_never_saved_invalid(studio, workshop):
    from studio.model import load_character

    sheet_path = workshop / "characters" / "jenny.toml"
    original = sheet_path.read_text()
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        await opened(pilot)
        await dialog(pilot, "c", "enter", screen="CharacterScreen")
        editor = app.screen
        editor.query_one("#field-temperature").focus()
        editor.query_one("#field-temperature").value = ""
        await pilot.press(*"hot")
        await pilot.pause()
        assert "temperature: write it as a number" in screen_text(app)
        assert editor.query_one("#character-save").disabled
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert sheet_path.read_text() == original
        editor.query_one("#field-temperature").value = "3"
        await pilot.pause()
        assert "temperature: input should be less than or equal to 2" in screen_text(app)
        editor.query_one("#field-temperature").value = "0.7"
        editor.query_one("#field-description").value = "Jenny, fifty, who keeps receipts."
        await pilot.pause()
        assert "Valid." in screen_text(app)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the editor to close")
        saved = load_character(sheet_path)
        assert saved.temperature == 0.7 and saved.description == "Jenny, fifty, who keeps receipts."
        assert saved.prompt.strip() == load_character(ROOT / "characters" / "jenny.toml").prompt.strip()
        assert "Saved" in notifications(app)


# -- export, critiques, help, palette ----------------------------------------------------------


async def test_export_goes_through_the_exporter(studio, monkeypatch, tmp_path):
    calls = []

    def export_run(store, run_id, fmt, out=None, backstage=False):
        calls.append((run_id, fmt, out, backstage))
        return tmp_path / f"run-{run_id}.md"

    monkeypatch.setattr("studio.export.export_run", export_run)
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await step(pilot)
        await dialog(pilot, "x", screen="ExportScreen")
        await pilot.click("#format-markdown")
        await pilot.click("#export-backstage")
        await pilot.click("#export-go")
        await wait_for(pilot, lambda: "Exported to" in notifications(app), "the export")
        assert calls == [(1, "markdown", None, True)]
        assert str(tmp_path / "run-1.md") in notifications(app)


async def test_export_writes_the_take_through_the_real_exporter(studio, tmp_path):
    app = studio()
    out = tmp_path / "take.md"
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        await dialog(pilot, "x", screen="ExportScreen")
        await pilot.click("#format-markdown")
        app.screen.query_one("#export-path").value = str(out)
        await pilot.click("#export-go")
        await wait_for(pilot, lambda: "Exported to" in notifications(app), "the export")
        ego_line = screen.engine.stage()[-1].text
    assert out.exists() and ego_line in out.read_text()


async def test_export_says_so_when_the_exporters_are_missing(studio, monkeypatch):
    monkeypatch.setitem(sys.modules, "studio.export", None)
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        await pilot.press("x")
        await pilot.pause()
        assert "Export is not available yet." in notifications(app)
        assert isinstance(app.screen, MainScreen)


async def test_critiques_fall_back_to_a_plain_list_without_the_critique_view(studio, monkeypatch):
    monkeypatch.setitem(sys.modules, "studio.tui.critique", None)
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        screen.engine.store.add_critique(1, None, "scripted", {
            "introspection": {"score": 7, "interpretation": "the inner voice is heard and answered"},
            "summary": "The inner voice pulls harder than the spoken line.",
        })
        await pilot.press("K")
        await pilot.pause()
        text = screen_text(app)
        assert "Critiques of this run" in text
        assert "introspection: 7/10 the inner voice is heard and answered" in text
        assert "The inner voice pulls harder" in text


async def test_critiques_open_the_critique_view_when_there_is_one(studio, monkeypatch):
    opened_with = []

    from textual.screen import ModalScreen

    class CritiqueScreen(ModalScreen[None]):
        def __init__(self, engine):
            super().__init__()
            opened_with.append(engine)

    monkeypatch.setitem(sys.modules, "studio.tui.critique", types.SimpleNamespace(CritiqueScreen=CritiqueScreen))
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("K")
        await pilot.pause()
        assert isinstance(app.screen, CritiqueScreen) and opened_with == [screen.engine]


async def test_help_lists_every_control_with_its_key_and_id(studio):
    app = studio()
    async with app.run_test(size=(150, 170)) as pilot:
        await opened(pilot)
        await pilot.press("question_mark")
        await pilot.pause()
        text = screen_text(app)
        for control in ALL:
            assert control.id in text, control.id
        assert "Superego" in text or "superego" in text
        await pilot.press("escape")
        assert isinstance(app.screen, MainScreen)


async def test_every_control_is_a_binding_with_an_id_in_the_footer_and_the_palette(studio):
    from studio.tui.commands import ControlsProvider

    app = studio()
    async with app.run_test(size=(250, 30)) as pilot:
        screen = await opened(pilot)
        await step(pilot)  # before the first line the footer leaves out the keys that act on lines
        await pilot.pause(0.2)
        bound = {binding.id for _, binding, _, _ in screen.active_bindings.values() if binding.id}
        bound |= {b.id for b in StageView.BINDINGS if b.id}
        assert {c.id for c in ALL} <= bound
        footer = screen_text(app).splitlines()[-1]
        for control in MAIN + GLOBAL:
            if control.show:
                assert control.label in footer, control.label
        provider = ControlsProvider(screen)
        names = [hit.text async for hit in provider.discover()]
        for control in MAIN + GLOBAL:
            assert f"{control.label} ({control.keys})" in names
        assert "Take over Jenny (ego)" in names
        assert "Superego: switch critique off" in names


async def test_the_command_palette_runs_a_control(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await dialog(pilot, "ctrl+p", screen="CommandPalette")
        await pilot.press(*"Step (s)")
        await pilot.pause(0.3)
        await pilot.press("enter")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the palette to close")
        await wait_for(pilot, lambda: screen.job is not None, "the step")
        await idle(pilot)
        assert screen.engine.state.turn == 1


# -- panes -----------------------------------------------------------------------------------


async def test_panes_toggle_and_resize(studio):
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        # a key is handled before the next frame is drawn: each pane is looked for once the screen shows it
        await pilot.press("2")
        await wait_for(pilot, lambda: "Backstage" not in screen_text(app), "the backstage pane to close")
        await pilot.press("3")
        await wait_for(pilot, lambda: "Director's notes" not in screen_text(app), "the director's pane to close")
        assert not screen.query_one("#side").display
        await pilot.press("4")
        await wait_for(pilot, lambda: "Cast" in screen_text(app) and "JENNY  ego" in screen_text(app),
                       "the cast pane to open")
        await pilot.press("1")
        await pilot.press("4")
        assert screen.query_one("#cast-pane").display  # one pane always stays
        assert "One pane stays open." in notifications(app)
        await pilot.press("1", "2")
        before = screen.query_one("#side").size.width
        await pilot.press("less_than_sign")
        await pilot.pause()
        assert screen.query_one("#side").size.width > before
        await pilot.press("greater_than_sign", "greater_than_sign")
        await pilot.pause()
        assert screen.query_one("#side").size.width < before


# -- errors and quitting -----------------------------------------------------------------------


async def test_a_model_error_is_a_notification_and_the_run_stays_resumable(studio):
    scripted.queue("!error:auth", task="speak", role="other")
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine
        assert "Model error" in notifications(app) and "s tries again" in notifications(app)
        assert kinds(engine) == [ev.SCENE, ev.ERROR]
        assert "Model error at turn 1" in screen_text(app)
        await step(pilot)
        assert engine.state.turn == 1 and engine.stage()[-1].role == "ego"


async def test_a_retried_call_drops_what_the_broken_attempt_streamed(studio, monkeypatch):
    monkeypatch.setenv("STUDIO_SCRIPTED_DELAY", "0.02")
    scripted.queue("a half-finished thought that breaks off!error:503", task="speak", role="other")
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: "attempt 2 of" in str(screen.query_one("#activity").render()),
                       "the retry")
        assert stage(app).live is None or "half-finished" not in stage(app).live.text
        await idle(pilot)
        sasha = [e for e in screen.engine.stage() if e.role == "other"][0]
        assert "half-finished" not in sasha.text and "half-finished" not in screen_text(app)
        assert sasha.text.startswith("(scripted) Sasha as other")


async def test_quitting_mid_turn_keeps_everything_committed(studio, tmp_path, monkeypatch):
    from studio.engine import Engine

    monkeypatch.setenv("STUDIO_SCRIPTED_DELAY", "0.05")
    scripted.queue("a draft that is still being written when the playwright quits", task="draft")
    app = studio()
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        await pilot.press("s")
        await wait_for(pilot, lambda: "still being" in screen.query_one("#activity").render().plain,
                       "the draft to stream")
        committed = [e.id for e in screen.engine.path]
        await pilot.press("q")
    store = Store(tmp_path / "studio.db")
    try:
        engine = Engine(store, 1, gateway=object())
        assert [e.id for e in engine.path] == committed
        assert [e.kind for e in engine.path] == [ev.SCENE, ev.STAGE, ev.REWRITE_SPEECH]
        assert engine.pending().step.task == "draft"
    finally:
        store.close()


# -- the picker and resuming -------------------------------------------------------------------


async def test_the_picker_lists_plays_and_runs_and_resumes_a_run(studio, tmp_path):
    from studio.engine import Engine

    store = Store(tmp_path / "studio.db")
    engine = Engine.create(store, make_cast(), {})
    await engine.play_turn()
    store.close()
    app = studio(None)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.screen.__class__.__name__ == "PickerScreen", "the picker")
        await pilot.pause()
        text = screen_text(app)
        assert "interview.toml" in text and "detective.toml" in text
        assert "run 1  The Interview" in text
        picker = app.screen.query_one("#picker-list")
        picker.highlighted = next(i for i in range(picker.option_count) if picker.get_option_at_index(i).id == "run:1")
        await pilot.press("enter")
        screen = await opened(pilot)
        assert screen.engine.run_id == 1 and screen.engine.state.turn == 1
        assert "(scripted) revision of Jenny's speech" in screen_text(app)
        # o opens the picker again; a play starts a new run
        await dialog(pilot, "o", screen="PickerScreen")
        await pilot.pause()
        picker = app.screen.query_one("#picker-list")
        picker.highlighted = next(
            i for i in range(picker.option_count) if (picker.get_option_at_index(i).id or "").endswith("detective.toml")
        )
        await pilot.press("enter")
        screen = await opened(pilot)
        assert screen.engine.run_id == 2 and screen.engine.cast.play.title == "Last Call"


async def test_resuming_with_a_role_taken_over(studio, tmp_path):
    from studio.engine import Engine

    store = Store(tmp_path / "studio.db")
    engine = Engine.create(store, make_cast(), {})
    await engine.play_turn()
    store.close()
    app = studio(run_id=1, roles={"ego": "human"})
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        assert "ego" in screen.engine.state.humans
        assert "you play Jenny" in screen_text(app)
        assert screen.engine.path[-1].kind == ev.CONTROL


# -- the command line --------------------------------------------------------------------------


def test_open_rejects_bad_input_before_the_app_starts(tmp_path, capsys):
    from studio.cli import main

    db = str(tmp_path / "studio.db")
    assert main(["open", str(tmp_path / "nope.toml"), "--db", db]) == 2
    assert "no such play file" in capsys.readouterr().err
    assert main(["open", "7", "--db", db]) == 2
    assert "no run 7" in capsys.readouterr().err
    assert main(["open", str(PLAYS / "interview.toml"), "--model", "local/nope", "--db", db]) == 2
    assert "unknown local model" in capsys.readouterr().err
    assert main(["open", str(PLAYS / "interview.toml"), "--role", "nobody=human", "--db", db]) == 2
    assert "no role or character 'nobody'" in capsys.readouterr().err


def test_the_docs_list_every_control_with_its_id():
    section = (ROOT / "docs" / "app.md").read_text()
    for control in ALL:
        assert f"| `{control.id}` |" in section, control.id


def test_bare_studio_without_a_terminal_prints_help_instead_of_a_screen(capsys):
    from studio.cli import main

    assert main([]) == 0
    assert "open" in capsys.readouterr().out


def test_help_still_prints(capsys):
    from studio.cli import main

    with pytest.raises(SystemExit) as stop:
        main(["--help"])
    assert stop.value.code == 0
    assert "open" in capsys.readouterr().out
