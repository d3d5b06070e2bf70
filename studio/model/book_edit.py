"""A character's lorebooks, found and edited in their own files, for the app's World Info dialog.

A character's World Info comes from two kinds of file, and an edit goes back to the one it came from, in
that file's own form: the card's embedded book lives in the sheet's `[card] original` (the card's JSON,
changed with tomlkit so the rest of the TOML stays as written, and export-card sends the edit out with
the card), and a lorebook named by `lorebooks = [...]` is a JSON file (SillyTavern's World Info, with
entries keyed by uid, or a card's `character_book` shape). Only the fields edited change: every other
field of the entry, every other entry and the book's settings are written back as they were read.
Everything is validated before anything is written, and a file is replaced in one step.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from studio.model.errors import InputError
from studio.model.lorebook import Lorebook, book_from_data, is_world_info, lorebook_path, read_json, world_to_book
from studio.model.play import CharacterSheet

Kind = Literal["card", "world", "book", "card_file"]


@dataclass(frozen=True)
class BookFile:
    """One of a character's books and the file it is saved in."""

    label: str  # for people: "the card's own book" or the file's name
    path: Path
    kind: Kind  # card: in the sheet's [card] original; world: a World Info file; book, card_file: a JSON book
    book: Lorebook


@dataclass(frozen=True)
class EntryEdit:
    """What the dialog edits of an entry; the rest of it is kept."""

    keys: list[str]
    content: str
    enabled: bool = True


def character_books(sheet: CharacterSheet, sheet_path: Path) -> list[BookFile]:
    """The books `sheet` brings to a run, in the order a run reads them: the card's own, then each the sheet
    names (studio.model.lorebook finds them, and refuses a path out of the project)."""
    books: list[BookFile] = []
    if sheet.card is not None and sheet.card.lorebook is not None:
        label = "the card's own book"
        if _linked_world(sheet):  # as a run does (studio.engine.forms): the linked world stands for its copy
            label += " (SillyTavern's copy of the world the sheet names; a run uses that world instead)"
        books.append(BookFile(label, sheet_path, "card", sheet.card.lorebook))
    for ref in sheet.lorebooks:
        path = lorebook_path(ref, sheet_path)
        if path is None:
            raise InputError(str(sheet_path), "lorebooks", f"names {ref!r}, which is not in lorebooks/ or beside the file",
                             "import the World Info file with `studio import`, or fix the name")
        books.append(_json_book(path))
    return books


def _linked_world(sheet: CharacterSheet) -> bool:
    from studio.model.starter import slug

    card = (sheet.card.card if sheet.card is not None else None) or {}
    data = card.get("data") if isinstance(card.get("data"), dict) else card
    extensions = data.get("extensions") if isinstance(data, dict) else None
    world = extensions.get("world") if isinstance(extensions, dict) else None
    return isinstance(world, str) and bool(world.strip()) and slug(world) in sheet.lorebooks


def _json_book(path: Path) -> BookFile:
    data = read_json(path)
    kind, book_data, field = _shape(path, data)
    return BookFile(path.name, path, kind, book_from_data(book_data, str(path), field))


def _shape(path: Path, data: Any) -> tuple[Kind, Any, str]:
    if is_world_info(data):
        return "world", world_to_book(data, path.stem), "entries"
    if isinstance(data, dict) and isinstance(data.get("data"), dict) and "character_book" in data["data"]:
        return "card_file", data["data"]["character_book"], "data.character_book"
    if isinstance(data, dict) and isinstance(data.get("entries"), list):
        return "book", data, "character_book"
    raise InputError(str(path), "entries", "is not a lorebook (no 'entries')",
                     "give a SillyTavern World Info JSON file or a card's character_book")


def _clean_keys(keys: list[str]) -> list[str]:
    return [k.strip() for k in keys if k.strip()]


def _check(edit: EntryEdit, source: str) -> None:
    if not edit.content.strip():
        raise InputError(source, "content", "is empty, so the entry would never be given",
                         "write what the character should be told when a key comes up")


def _edit_card_entry(entries: list[Any], index: int | None, edit: EntryEdit) -> None:
    """An entry in the card specification's shape (a card's book, or a bare book file)."""
    if index is None:
        ids = [e.get("id") for e in entries if isinstance(e, dict)]
        number = max([i for i in ids if isinstance(i, int) and not isinstance(i, bool)], default=-1) + 1
        entries.append({"keys": _clean_keys(edit.keys), "content": edit.content, "extensions": {},
                        "enabled": edit.enabled, "insertion_order": 100, "id": number,
                        "comment": (_clean_keys(edit.keys) or [f"entry {number}"])[0], "constant": False,
                        "selective": False, "secondary_keys": [], "position": "before_char"})
        return
    entry = entries[index]
    entry["keys"], entry["content"], entry["enabled"] = _clean_keys(edit.keys), edit.content, edit.enabled


def _edit_world_entry(entries: dict[str, Any], index: int | None, edit: EntryEdit) -> None:
    """An entry of SillyTavern's World Info file, keyed by uid, in its own field names."""
    if index is None:
        uids = [int(k) for k in entries if k.isdigit()]
        uid = max(uids, default=-1) + 1
        entries[str(uid)] = {"uid": uid, "key": _clean_keys(edit.keys), "keysecondary": [],
                             "comment": (_clean_keys(edit.keys) or [f"entry {uid}"])[0], "content": edit.content,
                             "constant": False, "selective": True, "order": 100, "position": 0,
                             "disable": not edit.enabled, "displayIndex": uid, "probability": 100,
                             "useProbability": True}
        return
    entry = list(entries.values())[index]
    entry["key"], entry["content"], entry["disable"] = _clean_keys(edit.keys), edit.content, not edit.enabled


def save_entry(source: BookFile, index: int | None, edit: EntryEdit) -> BookFile:
    """Change entry `index` of the book (None: add one) in its own file and return the book as saved."""
    _check(edit, str(source.path))
    if source.kind == "card":
        return _save_in_sheet(source, index, edit)
    data = read_json(source.path)
    raw_text = source.path.read_text(encoding="utf-8-sig")  # a regular file within bounds: read_json said so
    kind, book_data, field = _shape(source.path, data)
    if kind == "world":
        _edit_world_entry(data["entries"], index, edit)
        book_data = world_to_book(data, source.path.stem)
    else:
        _edit_card_entry(book_data["entries"], index, edit)
    book = book_from_data(book_data, str(source.path), field)
    from studio.model.edit import write_atomically

    write_atomically(source.path, _json_like(data, raw_text))
    return BookFile(source.label, source.path, kind, book)


def _json_like(data: Any, old: str) -> str:
    """JSON laid out as the file was: its indent (SillyTavern writes four spaces, cards often two), its
    escapes for non-ASCII letters or not, its final line break."""
    found = re.search(r"^\{\s*\n([ \t]+)\S", old)
    lead = found.group(1) if found else None
    indent: str | int | None = len(lead) if lead is not None and set(lead) == {" "} else lead
    ascii_only = old.isascii() and "\\u" in old
    text = json.dumps(data, ensure_ascii=ascii_only, indent=indent)
    return text + ("\n" if old.endswith("\n") else "")


def _save_in_sheet(source: BookFile, index: int | None, edit: EntryEdit) -> BookFile:
    """The card's book lives in the card's JSON on the sheet: change it there and write the sheet back with
    only `[card] original` changed."""
    import tomlkit

    from studio.model.card_import import original_string
    from studio.model.edit import validated_text, write_atomically

    from studio.model.toml_file import read_toml

    read_toml(source.path, "character")  # a regular file within bounds, as TOML
    text = source.path.read_text(encoding="utf-8")
    doc = tomlkit.parse(text)
    table = doc.get("card")
    original = table.get("original") if isinstance(table, dict) else None
    if original is None or not isinstance(table, dict):
        raise InputError(str(source.path), "card.original", "holds no card, so no card's book",
                         "import the card again, or keep the book in lorebooks/")
    card = json.loads(str(original))
    data = card["data"] if isinstance(card.get("data"), dict) else card
    _edit_card_entry(data["character_book"]["entries"], index, edit)
    table["original"] = original_string(json.dumps(card, ensure_ascii=False, indent=1))
    new_text = tomlkit.dumps(doc)
    sheet = validated_text(CharacterSheet, new_text, source.path)
    book = sheet.card.lorebook if sheet.card is not None else None
    if book is None:  # only a bug here could lose the book on the way
        raise InputError(str(source.path), "card.original", "lost its character_book in the edit", "report this")
    write_atomically(source.path, new_text)
    return BookFile(source.label, source.path, "card", book)


def start_book(sheet_path: Path, name: str, first: EntryEdit) -> BookFile:
    """A World Info book for a character that has none: a new file in the project's lorebooks/ (SillyTavern's
    World Info form, as `studio import` writes one) holding its first entry, and the sheet's `lorebooks`
    naming it. The entry gets the checks an edit gets, and the book the checks an import gets, before
    anything is written; if the sheet cannot be written the new file is taken away again."""
    import tomlkit

    from studio.model.edit import validated_text, write_atomically
    from studio.model.starter import slug
    from studio.model.toml_file import read_toml

    _check(first, str(sheet_path))
    read_toml(sheet_path, "character")  # a regular file within bounds, as TOML
    folder = sheet_path.parent.parent / "lorebooks"
    stem = slug(name) or "world"
    number = 1
    while (folder / f"{stem}.json").exists() or lorebook_path(stem, sheet_path) is not None:
        number += 1
        stem = f"{slug(name) or 'world'}_{number}"
    path = folder / f"{stem}.json"
    data: dict[str, Any] = {"entries": {}}
    _edit_world_entry(data["entries"], None, first)
    book = book_from_data(world_to_book(data, stem), str(path), "entries")
    doc = tomlkit.parse(sheet_path.read_text(encoding="utf-8"))
    named = doc.get("lorebooks")
    doc["lorebooks"] = [*(list(named) if isinstance(named, list) else []), stem]
    new_text = tomlkit.dumps(doc)
    validated_text(CharacterSheet, new_text, sheet_path)
    folder.mkdir(parents=True, exist_ok=True)
    write_atomically(path, json.dumps(data, ensure_ascii=False, indent=4) + "\n")
    try:
        write_atomically(sheet_path, new_text)
    except OSError:
        path.unlink(missing_ok=True)
        raise
    return BookFile(path.name, path, "world", book)
