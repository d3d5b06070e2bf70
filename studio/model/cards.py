"""Character Cards (V1, V2 and V3; JSON, PNG or CHARX) to character sheets and back, losing nothing.

A card is someone else's file, so everything in it is data: read within a size limit, decoded
defensively, type-checked field by field, and validated as a sheet before anything is written. The
whole card is kept on the sheet as it came (`[card] original`), so `export-card` writes back every
field the studio does not use (other apps' extensions, every lorebook entry and field, V3 assets and
dates) unchanged; the card's own text fields are shown in `[card]` to edit, and an edit there changes
the card's field of that name. Only what cards have no field for (traits, moods, goals, a prompt or
knowledge written in the studio) travels in `extensions.studio`.

The work is done in four parts, and this module names what the commands use of them:
studio.model.card_file reads and writes the file's forms, studio.model.card_fields reads a card's
fields, studio.model.card_import maps a card to a sheet and studio.model.card_export a sheet to a card.
"""

from __future__ import annotations

from studio.model.card_export import card_from_sheet
from studio.model.card_fields import card_data
from studio.model.card_file import (
    MAX_CARD_BYTES,
    MAX_CHARX_MEMBERS,
    PNG_SIGNATURE,
    SPECS,
    ZIP_SIGNATURES,
    Spec,
    card_as,
    card_charx,
    card_for_form,
    card_json,
    card_png,
    card_spec,
    charx_avatar,
    is_charx,
    png_chunks,
    png_with_texts,
    png_without_card,
    read_card,
    read_card_bytes,
)
from studio.model.card_import import card_to_toml, sheet_from_card

__all__ = [
    "MAX_CARD_BYTES", "MAX_CHARX_MEMBERS", "PNG_SIGNATURE", "SPECS", "ZIP_SIGNATURES", "Spec", "card_as",
    "card_charx", "card_data", "card_for_form", "card_from_sheet", "card_json", "card_png", "card_spec", "card_to_toml", "charx_avatar",
    "is_charx", "png_chunks", "png_with_texts", "png_without_card", "read_card", "read_card_bytes",
    "sheet_from_card",
]
