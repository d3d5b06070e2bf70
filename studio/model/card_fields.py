"""A Character Card's fields as the studio reads them, shared by import (card to sheet) and export (back).

Everything in a card is data from someone else: the fields the studio reads are type-checked one by one
before any is used, so a card is refused with one message naming the field, never half-read.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from studio.clean import LINE_CONTROLS, clean_text
from studio.model.card_file import card_error
from studio.model.card_text import card_description, card_prompt
from studio.model.lorebook import Lorebook, book_from_data
from studio.model.play import MAX_NAME

# [card] key -> the card's field: text the sheet shows to edit.
TEXT_FIELDS = {
    "description": "description",
    "personality": "personality",
    "scenario": "scenario",
    "first_message": "first_mes",
    "examples": "mes_example",
    "system_prompt": "system_prompt",
    "post_history": "post_history_instructions",
    "creator_notes": "creator_notes",
    "creator": "creator",
    "version": "character_version",
    "nickname": "nickname",
}
LIST_FIELDS = {"tags": "tags", "greetings": "alternate_greetings", "group_greetings": "group_only_greetings"}
_MIND_KEYS = ("traits", "archetype", "moods", "mood_redraw", "goals", "memory", "reflect_every")
STUDIO_KEYS = (*_MIND_KEYS, "knowledge", "description", "prompt", "lorebooks")


def card_data(path: Path | str, card: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The card's `data` object and its spec (V3, V2, or a bare V1 object)."""
    spec = card.get("spec")
    if spec in ("chara_card_v2", "chara_card_v3"):
        data = card.get("data")
        if not isinstance(data, dict):
            raise card_error(path, f"is a {spec} card without a 'data' object", "export the card again", field="data")
        return data, spec
    if spec is not None:
        raise card_error(path, f"has spec {str(spec)[:40]!r}, which is not a card this studio reads",
                        "use a Character Card V1, V2 or V3 (spec chara_card_v2 or chara_card_v3)", field="spec")
    if "name" in card:
        return card, "v1"
    raise card_error(path, "has no 'spec' and no 'name'; it does not look like a character card",
                    "give a Character Card V2 or V3", field="spec")


def _kind(value: Any) -> str:
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, dict):
        return "an object"
    return "text"


def check_types(path: Path | str, data: dict[str, Any], prefix: str) -> None:
    """The fields the studio reads have the types the specification gives them; the first that has not
    is one message naming it (a card is never half-read)."""
    for key in ("name", *TEXT_FIELDS.values()):
        _expect(path, data.get(key), str, "text", "write it as text in quotes", prefix + key)
    for key in LIST_FIELDS.values():
        value = data.get(key)
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            what = _kind(value) if not isinstance(value, list) else "a list holding something other than text"
            raise card_error(path, f"is {what}, not a list of texts", 'write it as a list of texts, ["..."]',
                            field=prefix + key)
    extensions = data.get("extensions")
    _expect(path, extensions, dict, "an object", "write it as an object, { ... }", prefix + "extensions")
    studio = (extensions or {}).get("studio")
    _expect(path, studio, dict, "an object", "write it as an object, or remove it", prefix + "extensions.studio")
    for key in ("prompt", "description"):
        _expect(path, (studio or {}).get(key), str, "text", "write it as text in quotes",
                prefix + f"extensions.studio.{key}")
    _expect(path, data.get("assets"), list, "a list of assets", "write it as a list, [ ... ], or remove it",
            prefix + "assets")
    _expect(path, (extensions or {}).get("world"), str, "text", "write the World Info file's name in quotes",
            prefix + "extensions.world")


def _expect(path: Path | str, value: object, kind: type, what: str, fix: str, field: str) -> None:
    """A field that is absent is left to its default; one of another type is refused, naming it."""
    if value is not None and not isinstance(value, kind):
        raise card_error(path, f"is {_kind(value)}, not {what}", fix, field=field)


def field_text(value: str | None) -> str:
    if value is None:
        return ""
    return clean_text(value).strip()


def card_name(value: str | None) -> str:
    return LINE_CONTROLS.sub(" ", field_text(value)).strip()[:MAX_NAME].rstrip()


def shown_fields(data: dict[str, Any]) -> dict[str, Any]:
    """The card's own fields as the sheet shows them in [card]."""
    origin: dict[str, Any] = {ours: field_text(data.get(theirs)) for ours, theirs in TEXT_FIELDS.items()}
    for ours, theirs in LIST_FIELDS.items():
        origin[ours] = [t for t in (field_text(v) for v in data.get(theirs) or []) if t]
    return origin


def derived_fields(data: dict[str, Any], name: str, origin: dict[str, Any], book: Lorebook | None) -> dict[str, Any]:
    """What a sheet takes from a card's own fields; export compares a sheet with this to know what changed."""
    derived: dict[str, Any] = {"prompt": card_prompt(origin, name), "description": card_description(origin, name)}
    # The card's own lorebook is not copied into knowledge: it runs as World Info at play time
    # (studio.mind.worldinfo), with its secondary keys, regex keys, positions and budget.
    world = (data.get("extensions") or {}).get("world")
    if isinstance(world, str) and world.strip():
        from studio.model.starter import slug

        derived["lorebooks"] = [slug(world)]
    return derived


def card_book(path: Path | str, data: dict[str, Any], prefix: str) -> Lorebook | None:
    if data.get("character_book") is None:
        return None
    return book_from_data(data["character_book"], str(path), prefix + "character_book")
