"""A character sheet to a Character Card: an imported card comes back whole, with the studio's edits.

An edit in `[card]` changes the card's field of that name (and SillyTavern's V1 copy beside `data`); every
field the studio does not use goes back unchanged. Only what cards have no field for (traits, moods,
goals, a prompt or knowledge written in the studio) travels in `extensions.studio`.
"""

from __future__ import annotations

import copy
from typing import Any

from pydantic import ValidationError

from studio.model.card_fields import (LIST_FIELDS, STUDIO_KEYS, TEXT_FIELDS, card_book, card_data, card_name,
                                      derived_fields, shown_fields)
from studio.model.card_file import SPECS, Spec
from studio.model.errors import InputError
from studio.model.play import CharacterSheet

# SillyTavern writes V1 copies of some fields beside `data`; an edit changes the copy too.
_MIRRORS = {"name": "name", "description": "description", "personality": "personality", "scenario": "scenario",
            "first_mes": "first_mes", "mes_example": "mes_example", "creator_notes": "creatorcomment", "tags": "tags"}
# What the Character Card V2 specification requires in `data` (SillyTavern's validator checks each).
_V2_REQUIRED: dict[str, Any] = {
    "name": "", "description": "", "personality": "", "scenario": "", "first_mes": "", "mes_example": "",
    "creator_notes": "", "system_prompt": "", "post_history_instructions": "", "alternate_greetings": [],
    "tags": [], "creator": "", "character_version": "", "extensions": {},
}
_V3_REQUIRED: dict[str, Any] = {**_V2_REQUIRED, "group_only_greetings": []}


def _studio_born(sheet: CharacterSheet) -> dict[str, Any]:
    """A card for a sheet written in the studio: the prompt is the description, the persona the personality,
    and knowledge becomes the lorebook so other apps can use it."""
    from studio.model.inner_life import persona_text

    origin = sheet.card
    data: dict[str, Any] = dict(_V2_REQUIRED, name=sheet.name, alternate_greetings=[], tags=[], extensions={})
    if origin is None:
        data.update(description=sheet.prompt, personality=persona_text(sheet.traits, sheet.archetype),
                    creator_notes=sheet.description)
    entries = []
    for number, item in enumerate(sheet.knowledge, 1):
        when = item.when
        keys = list(when.keywords or []) + ([when.keyword] if when.keyword else []) if when else []
        entries.append({
            "keys": keys, "content": item.text, "extensions": {}, "enabled": True, "insertion_order": number,
            "constant": not keys, "id": number, "name": f"knowledge {number}", "comment": "",
            "selective": False, "secondary_keys": [], "position": "before_char", "case_sensitive": False,
        })
    if entries:
        data["character_book"] = {"name": f"{sheet.name}'s knowledge", "extensions": {}, "entries": entries}
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}


def _set(card: dict[str, Any], data: dict[str, Any], key: str, value: Any) -> None:
    data[key] = value
    mirror = _MIRRORS.get(key)
    if mirror and card is not data and mirror in card:
        card[mirror] = copy.deepcopy(value)


def _with_edits(card: dict[str, Any], data: dict[str, Any], sheet: CharacterSheet) -> None:
    """Write what was edited in the studio into the card's own fields; what was not stays byte for byte."""
    if sheet.name != card_name(data.get("name")):
        _set(card, data, "name", sheet.name)
    origin = sheet.card
    if origin is None:
        return
    before = shown_fields(data)
    for ours, theirs in (*TEXT_FIELDS.items(), *LIST_FIELDS.items()):
        value = getattr(origin, ours)
        if value != before[ours]:
            _set(card, data, theirs, copy.deepcopy(value))


def _as_spec(card: dict[str, Any], was: str, spec: Spec | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The card in the spec asked for (default: the one it came in; V1 becomes V2), with every field the
    specification requires present so other apps' validators accept it."""
    target = spec or ("v3" if was == "chara_card_v3" else "v2")
    if was == "v1":
        card = {"spec": SPECS[target][0], "spec_version": SPECS[target][1], "data": card}
    elif card.get("spec") != SPECS[target][0]:
        card["spec"], card["spec_version"] = SPECS[target]
    data = card["data"]
    for key, default in (_V3_REQUIRED if target == "v3" else _V2_REQUIRED).items():
        if data.get(key) is None:
            data[key] = copy.deepcopy(default)
    book = data.get("character_book")
    if isinstance(book, dict) and not isinstance(book.get("extensions"), dict):
        book["extensions"] = {}
    return card, data


def _derived_sheet(data: dict[str, Any]) -> CharacterSheet | None:
    """The sheet the card's own fields would give on import; None if they give no valid sheet."""
    name = card_name(data.get("name"))
    try:
        book = card_book("[card] original", data, "")
        return CharacterSheet.model_validate({"name": name, **derived_fields(data, name, shown_fields(data), book)})
    except (InputError, ValidationError):
        return None


def _studio_extension(sheet: CharacterSheet, derived: CharacterSheet | None, prior: Any) -> dict[str, Any]:
    """extensions.studio: what the sheet says that the card's fields do not, beside what else was there."""
    studio: dict[str, Any] = {k: v for k, v in prior.items() if k not in STUDIO_KEYS} if isinstance(prior, dict) else {}
    for key in STUDIO_KEYS:
        mine = getattr(sheet, key)
        if derived is None or mine != getattr(derived, key):
            value = sheet.model_dump(mode="json", include={key}, exclude_none=True).get(key)
            if value is None:
                continue
            if key == "knowledge":
                value = [k.model_dump(mode="json", exclude_none=True) for k in sheet.knowledge]
            studio[key] = value
    return studio


def card_from_sheet(sheet: CharacterSheet, spec: Spec | None = None) -> dict[str, Any]:
    """The card for a sheet: an imported card comes back as it was, with the studio's edits in its own fields;
    a sheet born in the studio maps its prompt to the description. Whatever the card's fields cannot say
    (inner life, a prompt or knowledge written here) rides in extensions.studio, so import gives the sheet back."""
    origin = sheet.card
    card = origin.card if origin is not None else None
    if card is None:
        card = _studio_born(sheet)
    data, was = card_data("[card] original", card)
    _with_edits(card, data, sheet)
    card, data = _as_spec(card, was, spec)
    extensions = data["extensions"]
    prior = extensions.pop("studio", None)
    studio = _studio_extension(sheet, _derived_sheet(data), prior)
    if studio:
        extensions["studio"] = studio
    return card
