"""Seeing the lore in the app: the backstage of a line lists the World Info entries its call was given, and
the World Info dialog (b, or the mind dialog's book) shows a character's books and saves an edit to the
book's own file. Driven through Textual's pilot on the scripted model."""

from __future__ import annotations

import json
import shutil

from conftest import ROOT
from test_tui import _plain, opened, step, stage, studio, wait_for  # noqa: F401  (studio is a fixture)


SIZE = (120, 40)
WORLD = {"entries": {
    "0": {"uid": 0, "key": ["kettle"], "keysecondary": [], "comment": "the kettle",
          "content": "The kettle was her mother's, brought from Fujian.", "constant": False, "selective": True,
          "order": 100, "position": 0, "disable": False, "probability": 100, "useProbability": True,
          "excludeRecursion": False, "group": "", "sticky": 0},
    "1": {"uid": 1, "key": [], "keysecondary": [], "comment": "hours", "content": "The tea house opens at dawn.",
          "constant": True, "selective": True, "order": 90, "position": 0, "disable": False},
    "2": {"uid": 2, "key": ["storm"], "keysecondary": [], "comment": "the storm", "content": "A storm is due.",
          "constant": False, "selective": True, "order": 80, "position": 0, "disable": False},
}}


def _project(tmp_path):
    for folder in ("characters", "plays", "lorebooks"):
        (tmp_path / folder).mkdir()
    shutil.copy(ROOT / "characters" / "sasha_interviewer.toml", tmp_path / "characters")
    (tmp_path / "characters" / "lin.toml").write_text(
        'name = "Lin"\nprompt = "You are Lin, who keeps the tea house."\nlorebooks = ["tea"]\n\n'
        '[[moods]]\nname = "calm"\nvoice = "slow and kind"\n')
    (tmp_path / "lorebooks" / "tea.json").write_text(json.dumps(WORLD, indent=4) + "\n")
    play = tmp_path / "plays" / "tea.toml"
    play.write_text('title = "Tea"\nseed = 5\nturns = 4\nepilogue = false\n\n[cast.ego]\ncharacter = "lin"\n\n'
                    '[[cast.others]]\ncharacter = "sasha_interviewer"\n')
    return play


async def test_the_backstage_lists_the_entries_a_line_was_given(studio, tmp_path):
    from studio.llm import scripted

    app = studio(play_path=_project(tmp_path))
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        scripted.queue("Is that a kettle on the stove?", task="speak", role="other")
        await step(pilot)
        lin = next(e for e in screen.engine.stage() if e.character == "Lin")
        assert sorted(lin.data["lore"]) == ["hours", "the kettle"]
        stage(app).select_event(lin.id)
        await pilot.pause()
        pane = _plain(screen.query_one("#backstage").content)
        assert "World Info given to this line" in pane, pane
        assert "• the kettle · The kettle was her mother's, brought from Fujian." in pane
        assert "• hours · The tea house opens at dawn." in pane and "the storm" not in pane
        sasha = next(e for e in screen.engine.stage() if e.character == "Sasha")
        stage(app).select_event(sasha.id)  # Sasha's sheet has no lore: no empty section
        await pilot.pause()
        assert "World Info given" not in _plain(screen.query_one("#backstage").content)


async def _open_book(pilot, key: str = "b"):
    await pilot.press(key)
    await wait_for(pilot, lambda: pilot.app.screen.__class__.__name__ == "LorebookScreen", "the World Info dialog")
    await pilot.pause()
    return pilot.app.screen


async def test_the_world_info_dialog_shows_the_book_and_saves_an_edit_to_its_file(studio, tmp_path):
    play = _project(tmp_path)
    book = tmp_path / "lorebooks" / "tea.json"
    app = studio(play_path=play)
    async with app.run_test(size=SIZE) as pilot:
        screen = await opened(pilot)
        dialog = await _open_book(pilot)
        entries = dialog.query_one("#lore-entries")
        shown = [_plain(entries.get_option_at_index(i).prompt) for i in range(entries.option_count)]
        assert shown[0] == "tea.json 3 entries · lorebooks/tea.json"
        assert "✓ the kettle keys: kettle" in shown and "✓ hours always" in shown and "✓ the storm keys: storm" in shown
        # the first entry is in the editor; change it and save
        assert dialog.query_one("#lore-content").text == "The kettle was her mother's, brought from Fujian."
        dialog.query_one("#lore-keys").value = "kettle, teapot"
        dialog.query_one("#lore-content").load_text("The kettle is cracked.")
        dialog.query_one("#lore-keys").focus()
        await pilot.press("ctrl+s")
        await pilot.pause()
        saved = json.loads(book.read_text())
        assert saved["entries"]["0"]["key"] == ["kettle", "teapot"]
        assert saved["entries"]["0"]["content"] == "The kettle is cracked."
        assert saved["entries"]["0"]["excludeRecursion"] is False and saved["entries"]["1"] == WORLD["entries"]["1"]
        assert book.read_text().startswith('{\n    "entries"')
        assert "✓ the kettle keys: kettle, teapot" in _plain(entries.get_option_at_index(1).prompt)
        # switch the storm off, and add an entry
        entries.highlighted = entries.get_option_index("entry:0:2")
        await pilot.pause()
        dialog.query_one("#lore-enabled").value = False
        await pilot.press("ctrl+s")
        await pilot.pause()
        entries.highlighted = entries.get_option_index("new:0")
        await pilot.pause()
        dialog.query_one("#lore-keys").value = "moon"
        await pilot.press("ctrl+s")  # no text: refused, nothing written
        await pilot.pause()
        assert "is empty" in _plain(dialog.query_one("#lore-error").content)
        dialog.query_one("#lore-content").load_text("The moon is red.")
        await pilot.press("ctrl+s")
        await pilot.pause()
        saved = json.loads(book.read_text())
        assert saved["entries"]["2"]["disable"] is True
        assert (saved["entries"]["3"]["key"], saved["entries"]["3"]["content"]) == (["moon"], "The moon is red.")
        # the run keeps the books it began with
        lin = screen.engine.cast.role("ego")
        assert lin.lore[0].entries[0].content == "The kettle was her mother's, brought from Fujian."
        await pilot.press("escape")
        await wait_for(pilot, lambda: pilot.app.screen is screen, "the dialog to close")
        # the mind dialog opens the same books
        await pilot.press("m")
        await wait_for(pilot, lambda: pilot.app.screen.__class__.__name__ == "MindScreen", "the Mind dialog")
        await pilot.pause()
        mind = pilot.app.screen
        choices = mind.query_one("#mind-choices")
        assert "World Info: 3 entries" in _plain(choices.get_option("book:").prompt)
        choices.highlighted = choices.get_option_index("book:")
        dialog = await _open_book(pilot, "enter")
        entries = dialog.query_one("#lore-entries")
        assert entries.option_count == 6  # the heading, four entries, the new-entry line


async def test_the_dialog_fits_80x24_and_says_where_world_info_comes_from_when_there_is_none(studio, tmp_path):
    from test_tui import screen_text

    play = _project(tmp_path)
    app = studio(play_path=play)
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        dialog = await _open_book(pilot)
        text = screen_text(app)
        assert "Lin's World Info" in text and "the kettle" in text and "ctrl+s saves" in text, text
        await pilot.press("escape")
    (tmp_path / "characters" / "lin.toml").write_text('name = "Lin"\nprompt = "You are Lin."\n')
    app = studio(play_path=play)
    async with app.run_test(size=SIZE) as pilot:
        await opened(pilot)
        dialog = await _open_book(pilot)
        entries = dialog.query_one("#lore-entries")
        assert "Lin has no World Info" in _plain(entries.get_option_at_index(0).prompt)
        # a book can be started here: its first entry gets the checks every entry gets
        assert entries.highlighted == entries.get_option_index("start:-1")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert "is empty" in _plain(dialog.query_one("#lore-error").content)
        assert not (tmp_path / "lorebooks" / "lin.json").exists()
        await pilot.press("enter")  # into the editor
        await pilot.press(*"kettle, tea")
        dialog.query_one("#lore-content").load_text("The kettle was her mother's.")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: (tmp_path / "lorebooks" / "lin.json").exists(), "the new book")
        await pilot.pause()
        saved = json.loads((tmp_path / "lorebooks" / "lin.json").read_text())
        assert [(e["key"], e["content"]) for e in saved["entries"].values()] == [
            (["kettle", "tea"], "The kettle was her mother's.")]
        assert 'lorebooks = ["lin"]' in (tmp_path / "characters" / "lin.toml").read_text()
        shown = [_plain(entries.get_option_at_index(i).prompt) for i in range(entries.option_count)]
        assert shown[0] == "lin.json 1 entry · lorebooks/lin.json" and "✓ kettle keys: kettle, tea" in shown, shown
        # and the next entry goes into the same book
        entries.highlighted = entries.get_option_index("new:0")
        await pilot.pause()
        dialog.query_one("#lore-keys").value = "storm"
        dialog.query_one("#lore-content").load_text("A storm is due.")
        await pilot.press("ctrl+s")
        await pilot.pause()
        assert len(json.loads((tmp_path / "lorebooks" / "lin.json").read_text())["entries"]) == 2
