"""A Character Card to a character sheet: the sheet's fields, the notes on what was kept, and its TOML.

The whole card is kept on the sheet as it came (`[card] original`), so export writes back every field the
studio does not use; the card's own text fields are shown in `[card]` to edit. The notes name, once at
import, what the studio keeps but does not use.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import tomlkit
from pydantic import ValidationError

from studio.clean import LINE_CONTROLS
from studio.model.card_fields import (LIST_FIELDS, STUDIO_KEYS, TEXT_FIELDS, card_book, card_data, card_name,
                                      check_types, derived_fields, field_text, shown_fields)
from studio.model.card_file import card_error
from studio.model.card_text import card_description, card_prompt
from studio.model.lorebook import Lorebook, template_code
from studio.model.macros import macro_notes
from studio.model.play import MAX_NAME, MAX_PROMPT, CharacterSheet

# Fields the studio reads; every other field of `data` is kept for export and named once at import.
_USED = {"name", "character_book", "extensions", *TEXT_FIELDS.values(), *LIST_FIELDS.values()}


def _strings(value: Any, where: str) -> list[tuple[str, str]]:
    """Every text in a JSON value with where it sits, for finding template code anywhere in a card."""
    if isinstance(value, str):
        return [(where, value)]
    if isinstance(value, list):
        return [s for i, v in enumerate(value) for s in _strings(v, where)]
    if isinstance(value, dict):
        return [s for k, v in value.items() for s in _strings(v, f"{where}.{k}" if where else str(k))]
    return []


def _import_notes(data: dict[str, Any], book: Lorebook | None, origin: dict[str, Any]) -> list[str]:
    notes: list[str] = []
    kept = [k for k in sorted(set(data) - _USED) if data[k] not in (None, "", [], {})]
    kept += [f"extensions.{k}" for k in sorted(data.get("extensions") or {}) if k not in ("studio", "world")]
    if book is not None:
        kept += [f"character_book.{k}" for k in ("scan_depth", "token_budget", "recursive_scanning")
                 if getattr(book, k) not in (None, False)]
    if kept:
        notes.append("kept as the card has them and written back by export-card: " + ", ".join(kept))
    if book is not None:
        disabled = sum(1 for e in book.entries if not e.enabled)
        if disabled:
            notes.append(f"character_book: {disabled} disabled entr{'y' if disabled == 1 else 'ies'} kept, unused")
        notes.append("character_book: runs as World Info when the character speaks, as SillyTavern runs it")
        loose = sum(1 for e in book.entries if e.enabled and e.content.strip() and not e.keys and not e.constant)
        if loose:
            notes.append(f"character_book: {loose} entr{'y has' if loose == 1 else 'ies have'} no keys and "
                         f"{'is' if loose == 1 else 'are'} not constant, so never active")
    if origin["greetings"] or origin["group_greetings"]:
        notes.append("alternate and group greetings: kept in [card]")
    if origin["post_history"]:
        notes.append("post_history_instructions: kept in [card]")
    code = sorted({where for where, text in _strings(data, "") if template_code(text)})
    if code:
        notes.append("template code from other apps (in " + ", ".join(code[:8]) + (", ..." if len(code) > 8 else "")
                     + "): kept in the card, never sent to models")
    notes.extend(macro_notes(data))
    return notes


def sheet_from_card(path: Path | str, card: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The sheet's fields from a card, and the notes on what the studio keeps but does not use."""
    data, spec = card_data(path, card)
    prefix = "" if spec == "v1" else "data."
    check_types(path, data, prefix)
    name = card_name(data.get("name"))
    if not name:
        raise card_error(path, "has no name", "give the card a name in its app and export it again",
                         field=prefix + "name")
    book = card_book(path, data, prefix)
    origin = shown_fields(data)
    fields: dict[str, Any] = {"name": name, **derived_fields(data, name, origin, book)}
    notes = [f"imported from {Path(path).name} ({spec})", *_import_notes(data, book, origin)]
    if field_text(data.get("name")) != name:
        notes.append(f"name: shortened to one line of {MAX_NAME} characters at most")
    if fields["description"]:
        notes.append("description: the card description's first sentence is what the others know of them")
    if len(fields["prompt"]) >= MAX_PROMPT:
        notes.append(f"prompt: the card's text is longer than a prompt may be; the first {MAX_PROMPT} "
                     "characters are used")
    studio = (data.get("extensions") or {}).get("studio") or {}
    fields.update({k: studio[k] for k in STUDIO_KEYS if k in studio})
    card_table = {k: v for k, v in origin.items() if v}
    card_table["original"] = json.dumps(card, ensure_ascii=False, indent=1)
    fields["card"] = card_table
    return fields, notes


def _toml_string(value: str) -> Any:
    return tomlkit.string(value, multiline="\n" in value)


def original_string(value: str) -> Any:
    """The card's JSON as a TOML literal block: no escapes, so it reads like the JSON file it was."""
    text = value.replace("\x7f", "\\u007f")
    if "'''" in text:
        text = text.replace("'", "\\u0027")  # JSON's own escape keeps the literal block closed
    return tomlkit.string(text, literal=True, multiline=True)


def _valid_sheet(path: Path | str, fields: dict[str, Any]) -> CharacterSheet:
    try:
        return CharacterSheet.model_validate(fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise card_error(path, f"maps to a sheet whose '{where}' is invalid: {err['msg']}",
                         "fix that field in the card, or import and edit the TOML by hand", field=where) from None


def _card_table(card_table: dict[str, Any]) -> Any:
    """[card]: the card's own fields to edit, then the whole card as imported."""
    table = tomlkit.table()
    original = card_table.pop("original", None)
    for key, value in card_table.items():
        table[key] = _toml_string(value) if isinstance(value, str) else value
    if original is not None:
        table.add(tomlkit.comment("The card as imported; export-card writes it back with the fields above"))
        table["original"] = original_string(original)
    return table


def _sheet_toml(sheet: CharacterSheet, notes: list[str]) -> str:
    """The sheet as TOML under the import notes; a prompt or description the card's fields would build
    anyway is left out, so an edit in [card] still reaches it."""
    doc = tomlkit.document()
    for note in notes:
        doc.add(tomlkit.comment(LINE_CONTROLS.sub(" ", note)))
    doc.add(tomlkit.nl())
    plain = sheet.model_dump(mode="json", exclude_defaults=True, exclude_none=True)
    built = {"prompt": card_prompt(plain.get("card", {}), sheet.name),
             "description": card_description(plain.get("card", {}), sheet.name)}
    for key in ("name", "description", "prompt"):
        if key in plain or key == "name":
            value = plain.pop(key, "")
            if key in built and value == built[key]:
                continue
            doc[key] = _toml_string(value) if isinstance(value, str) else value
    doc.add(tomlkit.comment("The prompt and what the others know are built from [card] when the sheet is read;"))
    doc.add(tomlkit.comment("write prompt = \"...\" or description = \"...\" here to replace them."))
    card_table = plain.pop("card", None)
    for key, value in plain.items():
        doc[key] = value
    if card_table:
        doc["card"] = _card_table(card_table)
    return tomlkit.dumps(doc)


def card_to_toml(path: Path | str, card: dict[str, Any],
                 image: str | None = None) -> tuple[str, CharacterSheet, list[str]]:
    """TOML text for the sheet (validated before it is returned), the sheet, and the notes."""
    fields, notes = sheet_from_card(path, card)
    if image:
        fields["card"]["image"] = image
    sheet = _valid_sheet(path, fields)
    return _sheet_toml(sheet, notes), sheet, notes
