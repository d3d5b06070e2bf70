"""The sheet editor's inner life: traits, moods, knowledge and goals edited as a playwright drafts them."""

from __future__ import annotations

import pytest

from test_tui import dialog, notifications, opened, screen_text, steady, studio, wait_for, workshop  # noqa: F401


from studio.model import load_character  # noqa: E402
from studio.tui.screens.main import MainScreen  # noqa: E402

INNER_LIFE = '''
# Jenny's inner life: written by hand, kept by the editor
[traits]
openness = -1  # she distrusts the new
neuroticism = 1

[[moods]]
name = "wistful"
weight = 3
voice = "lets sentences trail into memories"

[[moods]]
name = "bitter"

[[knowledge]]
text = "Her father kept every receipt in a shoebox."

[[knowledge]]
text = "She burned the shoebox the week he died."
when = { keyword = "receipts" }

[[goals]]
text = "Make the interviewer laugh once."
'''


@pytest.fixture
def jenny(workshop):
    path = workshop / "characters" / "jenny.toml"
    path.write_text(path.read_text() + INNER_LIFE)
    return path


async def _editor(pilot):
    await opened(pilot)
    await dialog(pilot, "c", "enter", screen="CharacterScreen")
    await pilot.pause()
    return pilot.app.screen


async def test_the_sheet_editor_shows_and_saves_traits_moods_knowledge_and_goals(studio, workshop, jenny):
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await _editor(pilot)
        assert editor.query_one("#field-trait-openness").value == "-1"
        assert editor.query_one("#field-trait-extraversion").value == ""
        assert editor.query_one("#field-moods").text.splitlines() == [
            "wistful 3: lets sentences trail into memories", "bitter 1"]
        assert 'when {keyword = "receipts"}: She burned the shoebox' in editor.query_one("#field-knowledge").text
        editor.query_one("#field-trait-extraversion").value = "+2"
        goals = editor.query_one("#field-goals")
        goals.load_text(goals.text + "\nscene 2: Get the interviewer to admit a regret.")
        knowledge = editor.query_one("#field-knowledge")
        knowledge.load_text(knowledge.text.replace("a shoebox", "a biscuit tin"))
        await pilot.pause()
        assert "Valid." in screen_text(app)
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the editor to close")
    text = jenny.read_text()
    assert "# Jenny's inner life: written by hand, kept by the editor" in text
    assert "openness = -1  # she distrusts the new" in text
    saved = load_character(jenny)
    assert (saved.traits.openness, saved.traits.extraversion, saved.traits.neuroticism) == (-1, 2, 1)
    assert [(g.text, g.scene) for g in saved.goals] == [
        ("Make the interviewer laugh once.", None), ("Get the interviewer to admit a regret.", 2)]
    assert saved.knowledge[0].text == "Her father kept every receipt in a biscuit tin."
    assert saved.knowledge[1].when is not None and saved.knowledge[1].when.keyword == "receipts"
    assert [(m.name, m.weight) for m in saved.moods] == [("wistful", 3), ("bitter", 1)]
    assert saved.prompt.startswith("You are Jenny")


async def test_a_bad_trait_or_line_is_named_and_nothing_is_saved(studio, workshop, jenny):
    original = jenny.read_text()
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await _editor(pilot)
        editor.query_one("#field-trait-agreeableness").value = "5"
        await pilot.pause()
        assert "agreeableness: write a whole number from -2 to +2" in screen_text(app)
        assert editor.query_one("#character-save").disabled
        editor.query_one("#field-trait-agreeableness").value = ""
        editor.query_one("#field-goals").load_text("Make the interviewer laugh once.\nscene two: Leave early.")
        editor.query_one("#field-moods").load_text("wistful 0: quiet")
        await pilot.pause()
        problems = str(editor.query_one("#character-problems").render())
        assert "jenny.toml: moods: line 1: wistful's weight 0 must be above 0" in problems
        assert "goals: line 2: names scene 'two'" in problems
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "Not saved" in notifications(app)
        assert jenny.read_text() == original
        # nothing typed is lost: the lines stay as written for the playwright to mend
        assert editor.query_one("#field-goals").text.endswith("scene two: Leave early.")


async def test_a_sheet_without_inner_life_saves_without_gaining_one(studio, workshop):
    path = workshop / "characters" / "jenny.toml"
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=(120, 40)) as pilot:
        editor = await _editor(pilot)
        editor.query_one("#field-description").value = "Jenny, who keeps receipts."
        await pilot.pause()
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the editor to close")
    text = path.read_text()
    assert "traits" not in text and "moods" not in text and "goals" not in text
    assert load_character(path).description == "Jenny, who keeps receipts."


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
async def test_the_inner_life_fields_are_reached_by_tab_and_scrolled_into_sight(studio, workshop, jenny, size):
    app = studio(play_path=workshop / "plays" / "interview.toml")
    async with app.run_test(size=size) as pilot:
        editor = await _editor(pilot)
        order = []
        for _ in range(14):
            await pilot.press("tab")
            await pilot.pause()
            order.append(app.focused.id)
            if app.focused.id == "field-goals":
                break
        traits = [f"field-trait-{t}" for t in ("openness", "conscientiousness", "extraversion", "agreeableness",
                                                 "neuroticism")]
        assert order[-8:] == [*traits, "field-moods", "field-knowledge", "field-goals"], order
        await pilot.pause(0.3)
        goals = editor.query_one("#field-goals")
        scroller = editor.query_one("#character-fields")
        assert goals.region.y >= scroller.region.y and goals.region.y < scroller.region.bottom, "goals off screen"


@pytest.mark.parametrize("size", [(80, 24), (200, 50)])
def test_the_sheet_editor_at_80_and_200_columns(snap_compare, studio, workshop, jenny, size):
    async def run_before(pilot):
        editor = await _editor(pilot)
        # the title names the file, here under a fresh temporary folder: named as the shipped one instead
        editor.query_one(".dialog-title").update("Jenny (ego) · characters/jenny.toml")
        steady(pilot.app)
        moods = editor.query_one("#field-moods")
        # the focused field at the top of the form, by this scroll alone (focus's own scroll to the field
        # is deferred, and where it lands against this one depended on the machine's pace)
        moods.focus(scroll_visible=False)
        await pilot.pause()
        editor.query_one("#character-fields").scroll_to_widget(moods, top=True, animate=False, immediate=True)
        await pilot.wait_for_scheduled_animations()
        await pilot.pause()

    assert snap_compare(studio(play_path=workshop / "plays" / "interview.toml"), terminal_size=size,
                        run_before=run_before)


def test_knowledge_over_several_lines_survives_an_edit_of_the_others():
    from studio.model.inner_life import KnowledgeItem
    from studio.model.sheet_lines import from_lines, to_lines

    entry = KnowledgeItem(text="The harbour's old rules:\nno lamp after midnight.")
    items = [KnowledgeItem(text="The lamp failed."), entry]
    assert to_lines("knowledge", items) == "The lamp failed."
    edited = from_lines("knowledge", "The lamp failed twice.\nThe keeper lied.", items)
    assert [k["text"] for k in edited] == ["The lamp failed twice.", "The keeper lied.", entry.text]


# -- the mind dialog's changes are the playwright's events, listed in the notes -----------------------


async def test_an_unlock_goals_and_a_fact_set_by_hand_each_leave_a_line_in_the_notes(studio):
    from conftest import PLAYS
    from test_tui import _plain, step

    app = studio(play_path=PLAYS / "keepers_log.toml")
    async with app.run_test(size=(100, 34)) as pilot:
        screen = await opened(pilot)
        await step(pilot)
        engine = screen.engine

        async def in_dialog(act):
            await dialog(pilot, "m", screen="MindScreen")
            await pilot.pause()
            await act(app.screen)
            await wait_for(pilot, lambda: isinstance(app.screen, MainScreen), "the dialog to close")
            await pilot.pause(0.2)
            return _plain(screen.query_one("#notes").content)

        async def unlock(dialog):
            choices = dialog.query_one("#mind-choices")
            choices.highlighted = next(i for i in range(choices.option_count)
                                       if (choices.get_option_at_index(i).id or "").startswith("unlock:"))
            await pilot.press("enter")

        notes = await in_dialog(unlock)
        assert "Your change for Mara" in notes and engine.path[-1].text in notes, notes

        async def goals(dialog):
            dialog.query_one("#mind-goals").load_text("Send the detective away before dark.")
            dialog.query_one("#mind-goals").focus()
            await pilot.press("ctrl+s")

        notes = await in_dialog(goals)
        assert "Send the detective away before dark." in notes, notes

        async def fact(dialog):
            dialog.query_one("#mind-fact").focus()
            await pilot.press(*"tide=high", "enter")

        notes = await in_dialog(fact)
        assert "Your change: " in notes and "tide" in notes, notes
        assert [e.origin for e in engine.path[-3:]] == ["human"] * 3


def test_a_knowledge_condition_written_at_the_end_is_named_not_saved_as_plain_text():
    """The condition must come first; written after the fact it would have been known from the start, its
    condition read out as part of it, while the form said the sheet was valid."""
    import pytest

    from studio.model.sheet_lines import LineProblem, from_lines

    with pytest.raises(LineProblem) as late:
        from_lines("knowledge", 'The lamp failed.\nShe paid the harbour master. when { keyword = "logbook" }', [])
    assert late.value.line == 2
    assert "condition comes first" in str(late.value)
    first = from_lines("knowledge", 'when { keyword = "logbook" }: She paid the harbour master.', [])
    assert first == [{"text": "She paid the harbour master.", "when": {"keyword": "logbook"}}]
    # a fact that only mentions "when" is a fact
    assert from_lines("knowledge", "She knows when the ferry leaves.", []) == [{"text": "She knows when the ferry leaves."}]
