"""Character Cards (SillyTavern V2 and V3, JSON or PNG) to character sheets, and sheets back to V2 cards.

A card is someone else's file, so everything in it is data: read within a size limit, decoded
defensively, validated as a sheet before anything is written, and whatever has no place on a sheet
is named in a comment at the top of the TOML instead of vanishing silently. Fields a sheet cannot
use but a card needs back (scenario, first message, ...) are kept in the sheet's [card] table, and
a sheet's own mind fields travel in the card's `extensions.studio`, so import and export round-trip.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
import struct
import zlib
from pathlib import Path
from typing import Any

import tomlkit
from pydantic import ValidationError

from studio.model.errors import InputError
from studio.model.macros import macro_notes
from studio.model.play import MAX_DESCRIPTION, MAX_NAME, MAX_PROMPT, CharacterSheet

MAX_CARD_BYTES = 16 * 1024 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u202a-\u202e\u2066-\u2069]")
_NAME_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]")

# Card fields with a place on the sheet or in its [card] table; every other field is reported.
_MAPPED = {
    "name", "description", "personality", "scenario", "first_mes", "mes_example", "creator_notes",
    "system_prompt", "post_history_instructions", "alternate_greetings", "character_book", "tags",
    "creator", "character_version", "extensions",
}
_CARD_FIELDS = {  # [card] key -> card data key
    "personality": "personality",
    "scenario": "scenario",
    "first_message": "first_mes",
    "examples": "mes_example",
    "system_prompt": "system_prompt",
    "post_history": "post_history_instructions",
    "creator_notes": "creator_notes",
    "creator": "creator",
    "version": "character_version",
}
_MIND_KEYS = ("traits", "archetype", "moods", "mood_redraw", "goals", "memory", "reflect_every")
MAX_KNOWLEDGE = 200


def _bad(path: Path, problem: str, fix: str, field: str | None = None) -> InputError:
    return InputError(str(path), field, problem, fix)


# -- reading the file ------------------------------------------------------------------------------


def _inflate(data: bytes) -> bytes:
    """Decompress at most MAX_CARD_BYTES: a small chunk must not unpack into gigabytes."""
    out = zlib.decompressobj().decompress(data, MAX_CARD_BYTES)
    if len(out) >= MAX_CARD_BYTES:
        raise zlib.error("text chunk larger than a card may be")
    return out


def _png_texts(path: Path, raw: bytes) -> dict[str, str]:
    """The tEXt, zTXt and iTXt chunks of a PNG, keyword -> text; chunk lengths are checked, not trusted."""
    texts: dict[str, str] = {}
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(raw):
        length, kind = struct.unpack(">I4s", raw[pos : pos + 8])
        body = raw[pos + 8 : pos + 8 + length]
        if len(body) != length:
            raise _bad(path, "is a PNG cut short (a chunk runs past the end of the file)", "export the card again")
        pos += 12 + length
        try:
            if kind == b"tEXt":
                key, _, value = body.partition(b"\0")
                texts[key.decode("latin-1")] = value.decode("latin-1")
            elif kind == b"zTXt":
                key, _, rest = body.partition(b"\0")
                texts[key.decode("latin-1")] = _inflate(rest[1:]).decode("latin-1")
            elif kind == b"iTXt":
                key, _, rest = body.partition(b"\0")
                compressed, rest = rest[0], rest[2:]
                _lang, _, rest = rest.partition(b"\0")
                _translated, _, value = rest.partition(b"\0")
                if compressed:
                    value = _inflate(value)
                texts[key.decode("latin-1")] = value.decode("utf-8")
        except (zlib.error, UnicodeDecodeError, IndexError):
            continue  # a damaged text chunk that is not the card's is no reason to refuse the card
        if kind == b"IEND":
            break
    return texts


def read_card(path: Path) -> dict[str, Any]:
    """The card's JSON object, from a .json file or a PNG's `ccv3` (preferred) or `chara` chunk."""
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise _bad(path, f"cannot be read ({exc.strerror})", "check the path") from None
    if size > MAX_CARD_BYTES:
        raise _bad(path, f"is {size / 1e6:.1f} MB; a card is at most {MAX_CARD_BYTES // (1024 * 1024)} MB",
                   "check that this is a character card, or shrink its image")
    try:
        raw = path.read_bytes()
    except OSError as exc:
        raise _bad(path, f"cannot be read ({exc.strerror})", "check the path") from None
    if raw.startswith(PNG_SIGNATURE):
        texts = _png_texts(path, raw)
        key = "ccv3" if "ccv3" in texts else "chara" if "chara" in texts else None
        if key is None:
            raise _bad(path, "is a PNG without a character card in it (no 'chara' or 'ccv3' text chunk)",
                       "export the card from its app as a PNG card or as JSON")
        try:
            text = base64.b64decode("".join(texts[key].split()), validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            raise _bad(path, f"holds a '{key}' chunk that is not valid base64 text",
                       "export the card again; the file may be damaged", field=key) from None
    else:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise _bad(path, "is neither a PNG nor UTF-8 JSON", "give a card's .json or .png file") from None
    try:
        card = json.loads(text)
    except json.JSONDecodeError as exc:
        raise _bad(path, f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
                   "export the card again") from None
    if not isinstance(card, dict):
        raise _bad(path, "holds JSON that is not an object", "give a character card")
    return card


def card_data(path: Path, card: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The card's `data` object and its spec (V3, V2, or a bare V1 object)."""
    spec = card.get("spec")
    if spec in ("chara_card_v2", "chara_card_v3"):
        data = card.get("data")
        if not isinstance(data, dict):
            raise _bad(path, f"is a {spec} card without a 'data' object", "export the card again", field="data")
        return data, spec
    if spec is not None:
        raise _bad(path, f"has spec {str(spec)[:40]!r}, which is not a card this studio reads",
                   "use a Character Card V2 or V3 (spec chara_card_v2 or chara_card_v3)", field="spec")
    if "name" in card:
        return card, "v1"
    raise _bad(path, "has no 'spec' and no 'name'; it does not look like a character card",
               "give a Character Card V2 or V3", field="spec")


# -- card to sheet ---------------------------------------------------------------------------------


def _text(value: Any) -> str:
    if value is None:
        return ""
    text = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return _CONTROL.sub("", text.replace("\r\n", "\n")).strip()


def _macros(text: str, name: str) -> str:
    """Cards write {{char}} and {{user}}; the sheet keeps them as written and a prompt fills them when it is
    built (studio.model.macros), where who {{user}} is, is known."""
    return text


def _first_sentence(text: str, limit: int = 300) -> str:
    match = re.match(r"(.+?[.!?])(\s|$)", text, re.DOTALL)
    first = (match.group(1) if match else text).strip().replace("\n", " ")
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def _knowledge(book: Any, notes: list[str]) -> list[dict[str, Any]]:
    if book in (None, {}):
        return []
    if not isinstance(book, dict) or not isinstance(book.get("entries", []), list):
        notes.append("character_book: not an object with a list of entries; skipped")
        return []
    items: list[dict[str, Any]] = []
    unused: set[str] = set()
    for k in ("scan_depth", "token_budget", "recursive_scanning"):
        if book.get(k) not in (None, False):
            unused.add(f"character_book.{k}")
    for number, entry in enumerate(book.get("entries", []), 1):
        if not isinstance(entry, dict):
            notes.append(f"character_book entry {number}: not an object; skipped")
            continue
        content = _text(entry.get("content"))
        if not content:
            notes.append(f"character_book entry {number}: empty content; skipped")
            continue
        if entry.get("enabled") is False:
            notes.append(f"character_book entry {number}: disabled in the card; skipped")
            continue
        if len(content) > 1000:
            notes.append(f"character_book entry {number}: content cut to 1000 characters")
            content = content[:999].rstrip() + "…"
        keys = [k for k in (_text(k) for k in entry.get("keys") or []) if 0 < len(k) <= 80][:20]
        for k in ("secondary_keys", "use_regex", "case_sensitive", "position", "insertion_order", "priority"):
            if entry.get(k) not in (None, False, [], "", 0, 100):
                unused.add(f"character_book entries' {k}")
        if entry.get("use_regex"):
            notes.append(f"character_book entry {number}: its keys are regular expressions, read as plain words")
        item: dict[str, Any] = {"text": content}
        if keys and not entry.get("constant"):
            item["when"] = {"keywords": keys}
        elif not keys and not entry.get("constant"):
            notes.append(f"character_book entry {number}: has no keys, so it is known from the start")
        items.append(item)
    if len(items) > MAX_KNOWLEDGE:
        notes.append(f"character_book: {len(items) - MAX_KNOWLEDGE} entries past the first {MAX_KNOWLEDGE} dropped")
        items = items[:MAX_KNOWLEDGE]
    notes.extend(f"{k}: no studio equivalent" for k in sorted(unused))
    return items


def _studio_extension(data: dict[str, Any], notes: list[str]) -> dict[str, Any]:
    extensions = data.get("extensions") or {}
    if not isinstance(extensions, dict):
        notes.append("extensions: not an object; skipped")
        return {}
    for key in sorted(extensions):
        if key != "studio":
            notes.append(f"extensions.{key}: another app's settings; not used")
    studio = extensions.get("studio") or {}
    if not isinstance(studio, dict):
        return {}
    mind = {k: studio[k] for k in _MIND_KEYS if k in studio}
    if isinstance(studio.get("knowledge"), list):
        mind["knowledge"] = studio["knowledge"]
    if "description" in studio:
        mind["description"] = studio["description"]
    if "prompt" in studio:
        mind["prompt"] = studio["prompt"]
    return mind


def sheet_from_card(path: Path, card: dict[str, Any]) -> tuple[dict[str, Any], list[str]]:
    """The sheet's fields from a card, and the notes on what could not be mapped."""
    data, spec = card_data(path, card)
    notes: list[str] = []
    name = _NAME_CONTROL.sub(" ", _text(data.get("name"))).strip()
    if not name:
        raise _bad(path, "has no name", "give the card a name in its app and export it again", field="data.name")
    if len(name) > MAX_NAME:
        notes.append(f"name: cut to {MAX_NAME} characters")
        name = name[:MAX_NAME].rstrip()
    for key in sorted(set(data) - _MAPPED):
        if data[key] not in (None, "", [], {}):
            notes.append(f"{key}: no studio equivalent")
    origin: dict[str, Any] = {"description": _text(data.get("description"))}
    for ours, theirs in _CARD_FIELDS.items():
        origin[ours] = _text(data.get(theirs))
    origin["tags"] = [t for t in (_text(t) for t in data.get("tags") or []) if t][:100]
    origin["greetings"] = [g for g in (_text(g) for g in data.get("alternate_greetings") or []) if g][:50]
    if origin["greetings"]:
        notes.append("alternate_greetings: kept in [card] for export; the studio opens with the director or the play")
    if origin["post_history"]:
        notes.append("post_history_instructions: kept in [card]; the studio does not send it")
    mind = _studio_extension(data, notes)
    notes.extend(macro_notes(data))

    parts = []
    if origin["system_prompt"]:
        parts.append(_macros(origin["system_prompt"], name))
    if origin["description"]:
        parts.append(_macros(origin["description"], name))
    if origin["personality"]:
        parts.append(f"Personality: {_macros(origin['personality'], name)}")
    if origin["scenario"]:
        parts.append(f"The situation: {_macros(origin['scenario'], name)}")
    if origin["first_message"]:
        parts.append(f"How you first spoke:\n{_macros(origin['first_message'], name)}")
    if origin["examples"]:
        examples = re.sub(r"^\s*<START>\s*$\n?", "", _macros(origin["examples"], name), flags=re.MULTILINE | re.IGNORECASE)
        parts.append(f"How you speak, for example:\n{examples.strip()}")
    prompt = mind.pop("prompt", None) or "\n\n".join(parts) or f"You are {name}."
    if not parts and "prompt" not in mind:
        notes.append("the card has no description, personality or scenario; the prompt is a placeholder to write")
    if len(prompt) > MAX_PROMPT:
        notes.append(f"prompt: cut to {MAX_PROMPT} characters")
        prompt = prompt[:MAX_PROMPT]
    description = mind.pop("description", None)
    if description is None:
        description = _first_sentence(_macros(origin["description"], name)) if origin["description"] else ""
        if description:
            notes.append("description: only the card description's first sentence is what the others know of them")
    fields: dict[str, Any] = {"name": name, "description": description[:MAX_DESCRIPTION], "prompt": prompt}
    knowledge = mind.pop("knowledge", None)
    fields.update(mind)
    fields["knowledge"] = knowledge if knowledge is not None else _knowledge(data.get("character_book"), notes)
    if not fields["knowledge"]:
        del fields["knowledge"]
    fields["card"] = {k: v for k, v in origin.items() if v}
    notes.insert(0, f"imported from {path.name} ({spec})")
    return fields, notes


def card_to_toml(path: Path, card: dict[str, Any]) -> tuple[str, CharacterSheet, list[str]]:
    """TOML text for the sheet (validated before it is returned), the sheet, and the notes."""
    fields, notes = sheet_from_card(path, card)
    try:
        sheet = CharacterSheet.model_validate(fields)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = ".".join(str(p) for p in err["loc"])
        raise _bad(path, f"maps to a sheet whose '{where}' is invalid: {err['msg']}",
                   "fix that field in the card, or import and edit the TOML by hand", field=where) from None
    doc = tomlkit.document()
    for note in notes:
        doc.add(tomlkit.comment(_NAME_CONTROL.sub(" ", note)))
    doc.add(tomlkit.nl())
    plain = sheet.model_dump(mode="json", exclude_defaults=True, exclude_none=True)
    for key in ("name", "description", "prompt"):
        if key in plain or key == "name":
            value = plain.pop(key, "")
            doc[key] = tomlkit.string(value, multiline="\n" in value) if isinstance(value, str) else value
    card_table = plain.pop("card", None)
    for key, value in plain.items():
        doc[key] = value
    if card_table:
        table = tomlkit.table()
        for key, value in card_table.items():
            table[key] = tomlkit.string(value, multiline="\n" in value) if isinstance(value, str) else value
        doc["card"] = table
    return tomlkit.dumps(doc), sheet, notes


# -- sheet to card ---------------------------------------------------------------------------------


def card_from_sheet(sheet: CharacterSheet) -> dict[str, Any]:
    """A V2 card. An imported sheet gives back its card's own fields; a studio sheet maps its prompt to the
    card's description, and its inner life (traits, moods, goals, conditions) rides in extensions.studio."""
    from studio.model.inner_life import persona_text

    origin = sheet.card
    book_entries = []
    for number, item in enumerate(sheet.knowledge, 1):
        when = item.when
        keys = list(when.keywords or []) + ([when.keyword] if when and when.keyword else []) if when else []
        book_entries.append({
            "keys": keys, "content": item.text, "extensions": {}, "enabled": True, "insertion_order": number,
            "constant": not keys, "id": number, "name": f"knowledge {number}", "comment": "",
            "selective": False, "secondary_keys": [], "position": "before_char", "case_sensitive": False,
        })
    studio: dict[str, Any] = sheet.model_dump(mode="json", include=set(_MIND_KEYS), exclude_defaults=True)
    studio["knowledge"] = [k.model_dump(mode="json", exclude_none=True) for k in sheet.knowledge]
    studio["description"] = sheet.description
    studio["prompt"] = sheet.prompt
    if origin is None:
        data = {
            "name": sheet.name,
            "description": sheet.prompt,
            "personality": persona_text(sheet.traits, sheet.archetype),
            "scenario": "", "first_mes": "", "mes_example": "", "creator_notes": sheet.description,
            "system_prompt": "", "post_history_instructions": "", "alternate_greetings": [], "tags": [],
            "creator": "", "character_version": "",
        }
    else:
        data = {"name": sheet.name, "description": origin.description}
        for ours, theirs in _CARD_FIELDS.items():
            data[theirs] = getattr(origin, ours)
        data["alternate_greetings"] = list(origin.greetings)
        data["tags"] = list(origin.tags)
    if book_entries:
        data["character_book"] = {"name": f"{sheet.name}'s knowledge", "extensions": {}, "entries": book_entries}
    data["extensions"] = {"studio": studio}
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}
