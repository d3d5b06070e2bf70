"""A character's books, edited where they are kept: a World Info file in its own JSON, a card's book in the
sheet's [card] original. Nothing else in either file changes."""

from __future__ import annotations

import json

import pytest

from studio.cli import main
from studio.model import load_character
from studio.model.book_edit import EntryEdit, character_books, save_entry
from studio.model.errors import InputError
from studio.model.lorebook import read_lorebook
from conftest import ROOT

DATA = ROOT / "tests" / "data" / "cards"


def _project(tmp_path, capsys):
    assert main(["import", str(DATA / "Eldoria.json"), "--dir", str(tmp_path)]) == 0
    assert main(["import", str(DATA / "saltcombe.v2.json"), "--dir", str(tmp_path)]) == 0
    capsys.readouterr()
    sheet_path = next((tmp_path / "characters").glob("*.toml"))
    text = sheet_path.read_text()
    sheet_path.write_text(text.replace("\n[card]", '\nlorebooks = ["eldoria"]\n\n[card]', 1))
    return sheet_path


def test_an_edit_to_a_world_info_file_changes_that_entry_and_nothing_else(tmp_path, capsys):
    sheet_path = _project(tmp_path, capsys)
    books = character_books(load_character(sheet_path), sheet_path)
    assert [b.kind for b in books] == ["card", "world"]
    world = books[1]
    before = json.loads(world.path.read_text())
    saved = save_entry(world, 1, EntryEdit(keys=["wolf", " shadowfang ", ""], content="The wolves are gone.",
                                           enabled=False))
    after = json.loads(world.path.read_text())
    edited = after["entries"]["1"]
    assert (edited["key"], edited["content"], edited["disable"]) == (["wolf", "shadowfang"], "The wolves are gone.", True)
    untouched = {k: v for k, v in before["entries"]["1"].items() if k not in ("key", "content", "disable")}
    assert {k: edited[k] for k in untouched} == untouched
    assert {k: v for k, v in after["entries"].items() if k != "1"} == {
        k: v for k, v in before["entries"].items() if k != "1"}
    assert world.path.read_text().startswith('{\n    "entries": {\n        "0": {')  # SillyTavern's own layout
    assert not read_lorebook(world.path).entries[1].enabled and saved.book.entries[1].keys == ["wolf", "shadowfang"]
    # a new entry gets the next uid, in SillyTavern's field names
    grown = save_entry(saved, None, EntryEdit(keys=["moon"], content="The moon is red tonight."))
    added = json.loads(world.path.read_text())["entries"]["4"]
    assert (added["uid"], added["key"], added["disable"]) == (4, ["moon"], False)
    assert [e.label for e in grown.book.entries][-1] == "moon"


def test_an_edit_to_the_cards_book_changes_only_the_card_on_the_sheet_and_export_carries_it(tmp_path, capsys):
    sheet_path = _project(tmp_path, capsys)
    lines = sheet_path.read_text().splitlines()
    card = character_books(load_character(sheet_path), sheet_path)[0]
    count = len(card.book.entries)
    save_entry(card, 0, EntryEdit(keys=["harbour bell"], content="The bell rings for the drowned.", enabled=True))
    save_entry(character_books(load_character(sheet_path), sheet_path)[0], None,
               EntryEdit(keys=["gull"], content="Gulls steal from the nets."))
    after = sheet_path.read_text().splitlines()
    original_at = next(i for i, line in enumerate(lines) if line.startswith("original = "))
    assert after[:original_at] == lines[:original_at]  # every line before the card's JSON, as it was
    sheet = load_character(sheet_path)
    book = sheet.card.lorebook
    assert len(book.entries) == count + 1 and book.entries[0].content == "The bell rings for the drowned."
    assert book.entries[-1].keys == ["gull"]
    assert main(["export-card", str(sheet_path), "--out", str(tmp_path / "out.json")]) == 0
    exported = json.loads((tmp_path / "out.json").read_text())["data"]["character_book"]["entries"]
    assert exported[0]["keys"] == ["harbour bell"] and exported[-1]["content"] == "Gulls steal from the nets."
    original = json.loads((DATA / "saltcombe.v2.json").read_text())["data"]["character_book"]["entries"]
    assert exported[1:count] == original[1:count]


def test_an_entry_without_text_is_refused_and_the_file_is_left_alone(tmp_path, capsys):
    sheet_path = _project(tmp_path, capsys)
    world = character_books(load_character(sheet_path), sheet_path)[1]
    before = world.path.read_bytes()
    with pytest.raises(InputError, match="is empty"):
        save_entry(world, 0, EntryEdit(keys=["x"], content="   "))
    assert world.path.read_bytes() == before


def test_the_cards_copy_of_a_linked_world_says_a_run_uses_the_world(tmp_path, capsys):
    folder = tmp_path / "download"
    folder.mkdir()
    for name in ("seraphina.png", "Eldoria.json"):
        (folder / name).write_bytes((DATA / name).read_bytes())
    assert main(["import", str(folder / "seraphina.png"), "--dir", str(tmp_path)]) == 0
    sheet_path = tmp_path / "characters" / "seraphina.toml"
    books = character_books(load_character(sheet_path), sheet_path)
    assert [b.label for b in books][1:] == ["eldoria.json"]
    assert books[0].label.startswith("the card's own book (SillyTavern's copy") and "uses that world" in books[0].label


def test_a_character_without_world_info_starts_a_book_with_its_first_entry(tmp_path):
    """The book is a World Info file in lorebooks/, the sheet names it, and a run reads it like an import."""
    from studio.model.book_edit import start_book
    from studio.model.lorebook import load_lorebooks

    (tmp_path / "characters").mkdir()
    sheet_path = tmp_path / "characters" / "ines.toml"
    sheet_path.write_text((ROOT / "characters" / "jenny.toml").read_text())
    before = sheet_path.read_text()
    with pytest.raises(InputError) as refused:
        start_book(sheet_path, "Ines Varga", EntryEdit(keys=["ferry"], content="  "))
    assert refused.value.field == "content" and not (tmp_path / "lorebooks").exists()
    assert sheet_path.read_text() == before  # nothing written for a refused entry

    book = start_book(sheet_path, "Ines Varga", EntryEdit(keys=["ferry", " harbour "], content="The ferry runs at six."))
    assert book.path == tmp_path / "lorebooks" / "ines_varga.json" and book.kind == "world"
    sheet = load_character(sheet_path)
    assert sheet.lorebooks == ["ines_varga"]
    assert sheet_path.read_text().startswith(before.split("\n[")[0].rstrip("\n"))  # the rest as written
    books = character_books(sheet, sheet_path)
    assert [b.path for b in books] == [book.path]
    [lore] = load_lorebooks(sheet.lorebooks, sheet_path)
    assert [(e.keys, e.content) for e in lore.entries] == [(["ferry", "harbour"], "The ferry runs at six.")]
    # the next entry goes through the ordinary edit, into the same file
    save_entry(books[0], None, EntryEdit(keys=["lamp"], content="The lamp is out."))
    assert len(json.loads(book.path.read_text())["entries"]) == 2
