"""Character Cards (V1, V2 and V3; JSON, PNG or CHARX) to character sheets and back, losing nothing.

A card is someone else's file, so everything in it is data: read within a size limit, decoded
defensively, type-checked field by field, and validated as a sheet before anything is written. The
whole card is kept on the sheet as it came (`[card] original`), so `export-card` writes back every
field the studio does not use (other apps' extensions, every lorebook entry and field, V3 assets and
dates) unchanged; the card's own text fields are shown in `[card]` to edit, and an edit there changes
the card's field of that name. Only what cards have no field for (traits, moods, goals, a prompt or
knowledge written in the studio) travels in `extensions.studio`.
"""

from __future__ import annotations

import base64
import binascii
import copy
import json
import io
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any, Literal

import tomlkit
from pydantic import ValidationError

from studio.clean import LINE_CONTROLS, clean_text
from studio.model.card_text import card_description, card_prompt
from studio.model.errors import InputError
from studio.model.lorebook import Lorebook, book_from_data, loads, template_code
from studio.model.macros import macro_notes
from studio.model.play import MAX_NAME, MAX_PROMPT, CharacterSheet

MAX_CARD_BYTES = 16 * 1024 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")  # a zip with members, an empty zip
MAX_CHARX_MEMBERS = 10_000
_NAME_CONTROL = LINE_CONTROLS

Spec = Literal["v2", "v3"]
SPECS = {"v2": ("chara_card_v2", "2.0"), "v3": ("chara_card_v3", "3.0")}

# [card] key -> the card's field: text the sheet shows to edit.
_TEXT_FIELDS = {
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
_LIST_FIELDS = {"tags": "tags", "greetings": "alternate_greetings", "group_greetings": "group_only_greetings"}
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
# Fields the studio reads; every other field of `data` is kept for export and named once at import.
_USED = {"name", "character_book", "extensions", *_TEXT_FIELDS.values(), *_LIST_FIELDS.values()}
_MIND_KEYS = ("traits", "archetype", "moods", "mood_redraw", "goals", "memory", "reflect_every")
_STUDIO_KEYS = (*_MIND_KEYS, "knowledge", "description", "prompt", "lorebooks")
MAX_KNOWLEDGE = 200


def _bad(path: Path | str, problem: str, fix: str, field: str | None = None) -> InputError:
    return InputError(str(path), field, problem, fix)


# -- reading the file ------------------------------------------------------------------------------


def _inflate(data: bytes) -> bytes:
    """Decompress at most MAX_CARD_BYTES: a small chunk must not unpack into gigabytes."""
    out = zlib.decompressobj().decompress(data, MAX_CARD_BYTES)
    if len(out) >= MAX_CARD_BYTES:
        raise zlib.error("text chunk larger than a card may be")
    return out


def png_chunks(path: Path | str, raw: bytes) -> list[tuple[bytes, bytes]]:
    """A PNG's chunks as (kind, body), up to IEND; lengths are checked, not trusted."""
    chunks: list[tuple[bytes, bytes]] = []
    pos = len(PNG_SIGNATURE)
    while pos + 8 <= len(raw):
        length, kind = struct.unpack(">I4s", raw[pos : pos + 8])
        body = raw[pos + 8 : pos + 8 + length]
        if len(body) != length:
            raise _bad(path, "is a PNG cut short (a chunk runs past the end of the file)", "export the card again")
        pos += 12 + length
        chunks.append((kind, body))
        if kind == b"IEND":
            break
    return chunks


def _chunk_text(kind: bytes, body: bytes) -> tuple[str, str] | None:
    """A text chunk's keyword and text; None for other chunks and damaged ones."""
    try:
        if kind == b"tEXt":
            key, _, value = body.partition(b"\0")
            return key.decode("latin-1"), value.decode("latin-1")
        if kind == b"zTXt":
            key, _, rest = body.partition(b"\0")
            return key.decode("latin-1"), _inflate(rest[1:]).decode("latin-1")
        if kind == b"iTXt":
            key, _, rest = body.partition(b"\0")
            compressed, rest = rest[0], rest[2:]
            _lang, _, rest = rest.partition(b"\0")
            _translated, _, value = rest.partition(b"\0")
            if compressed:
                value = _inflate(value)
            return key.decode("latin-1"), value.decode("utf-8")
    except (zlib.error, UnicodeDecodeError, IndexError):
        return None  # a damaged text chunk that is not the card's is no reason to refuse the card
    return None


def _png_texts(path: Path, raw: bytes) -> dict[str, str]:
    """The tEXt, zTXt and iTXt chunks of a PNG, keyword -> text."""
    texts: dict[str, str] = {}
    for kind, body in png_chunks(path, raw):
        found = _chunk_text(kind, body)
        if found:
            texts[found[0]] = found[1]
    return texts


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


_CARD_KEYS = ("chara", "ccv3")


def png_without_card(path: Path | str, raw: bytes) -> bytes:
    """The image alone: the PNG with any card text chunks taken out (an avatar to keep beside a sheet)."""
    return png_with_texts(path, raw, {})


def png_with_texts(path: Path | str, raw: bytes, texts: dict[str, str]) -> bytes:
    """The PNG with its card chunks replaced by `texts` as tEXt chunks just before IEND."""
    if not raw.startswith(PNG_SIGNATURE):
        raise _bad(path, "is not a PNG image", "give a .png image as the avatar")
    chunks = []
    for kind, body in png_chunks(path, raw):
        found = _chunk_text(kind, body)
        if found is None or found[0].lower() not in _CARD_KEYS:
            chunks.append((kind, body))
    if not chunks or chunks[-1][0] != b"IEND":
        raise _bad(path, "is a PNG without its end (IEND) chunk", "save the image again")
    added = [(b"tEXt", key.encode("latin-1") + b"\0" + value.encode("latin-1")) for key, value in texts.items()]
    chunks[-1:-1] = added
    return PNG_SIGNATURE + b"".join(_chunk(kind, body) for kind, body in chunks)


def read_card_bytes(path: Path) -> bytes:
    try:
        size = path.stat().st_size
    except OSError as exc:
        raise _bad(path, f"cannot be read ({exc.strerror})", "check the path") from None
    if size > MAX_CARD_BYTES:
        raise _bad(path, f"is {size / 1e6:.1f} MB; a card is at most {MAX_CARD_BYTES // (1024 * 1024)} MB",
                   "check that this is a character card, or shrink its image")
    try:
        return path.read_bytes()
    except OSError as exc:
        raise _bad(path, f"cannot be read ({exc.strerror})", "check the path") from None


def is_charx(path: Path | str, raw: bytes) -> bool:
    """A CHARX card (Character Card V3's zip form), told by its bytes or, for a damaged one, its name."""
    return raw.startswith(ZIP_SIGNATURES) or Path(path).suffix.lower() == ".charx"


def _charx(path: Path | str, raw: bytes) -> zipfile.ZipFile:
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError):
        raise _bad(path, "is not a zip archive, and a .charx card is one (card.json and its assets)",
                   "export the card again from its app, or give its .png or .json card") from None
    if len(archive.infolist()) > MAX_CHARX_MEMBERS:
        raise _bad(path, f"holds more than {MAX_CHARX_MEMBERS} files; a card does not",
                   "check that this is a character card")
    return archive


def _charx_member(path: Path | str, archive: zipfile.ZipFile, name: str) -> bytes | None:
    """One member's bytes, at most MAX_CARD_BYTES however large the zip says it is; None if absent.

    The size in the zip's directory is someone else's claim, so the read itself is bounded too: a small
    member must not unpack into gigabytes."""
    try:
        info = archive.getinfo(name)
    except KeyError:
        return None
    limit = f"a card's file is at most {MAX_CARD_BYTES // (1024 * 1024)} MB"
    if info.file_size > MAX_CARD_BYTES:
        raise _bad(path, f"holds {name} of {info.file_size / 1e6:.1f} MB; {limit}",
                   "check that this is a character card, or shrink its assets")
    try:
        with archive.open(info) as member:
            data = member.read(MAX_CARD_BYTES + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
        raise _bad(path, f"holds {name}, which cannot be unpacked ({exc})",
                   "export the card again; the file may be damaged or encrypted") from None
    if len(data) > MAX_CARD_BYTES:
        raise _bad(path, f"holds {name}, which unpacks to more than its stated size; {limit}",
                   "check that this is a character card")
    return data


def _charx_text(path: Path | str, raw: bytes) -> str:
    """card.json from a CHARX zip, as text."""
    with _charx(path, raw) as archive:
        data = _charx_member(path, archive, "card.json")
    if data is None:
        raise _bad(path, "is a zip without card.json at its top, so not a CHARX card",
                   "export the card again from its app as .charx, .png or .json")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise _bad(path, "holds a card.json that is not UTF-8 text", "export the card again") from None


def _asset_path(uri: Any) -> str | None:
    """The zip member an `embeded://` asset names (the spec's own spelling), or None.

    A name that climbs out of the archive or starts at a root is ignored, never followed."""
    if not isinstance(uri, str) or not uri.startswith("embeded://"):
        return None
    name = uri[len("embeded://"):]
    parts = name.replace("\\", "/").split("/")
    if not name or name.startswith("/") or ".." in parts or ":" in parts[0]:
        return None
    return name


def charx_avatar(path: Path | str, raw: bytes, card: dict[str, Any]) -> tuple[bytes | None, str | None]:
    """The CHARX card's own portrait as PNG bytes (its `icon` asset named `main`, else its first icon),
    and a note when the card has a portrait the studio cannot keep (not PNG, or not in the zip)."""
    data = card.get("data") if isinstance(card.get("data"), dict) else {}
    assets = [a for a in (data.get("assets") or []) if isinstance(a, dict) and a.get("type") == "icon"]
    if not assets:
        return None, None
    icon = next((a for a in assets if a.get("name") == "main"), assets[0])
    name = _asset_path(icon.get("uri"))
    if name is None:
        return None, None  # the app's default portrait, a link, or a name outside the zip: nothing to keep
    with _charx(path, raw) as archive:
        image = _charx_member(path, archive, name)
    if image is None:
        return None, f"avatar: the card names {name}, which is not in the zip; imported without it"
    if not image.startswith(PNG_SIGNATURE):
        return None, f"avatar: {name} is not a PNG image; imported without it"
    return png_without_card(path, image), None


def read_card(path: Path, raw: bytes | None = None) -> dict[str, Any]:
    """The card's JSON object, from a .json file, a PNG's `ccv3` (preferred) or `chara` chunk, or a
    CHARX zip's card.json."""
    raw = read_card_bytes(path) if raw is None else raw
    if is_charx(path, raw):
        text = _charx_text(path, raw)
    elif raw.startswith(PNG_SIGNATURE):
        texts = {k.lower(): v for k, v in _png_texts(path, raw).items()}
        keys = [k for k in ("ccv3", "chara") if k in texts]
        if not keys:
            raise _bad(path, "is a PNG without a character card in it (no 'chara' or 'ccv3' text chunk)",
                       "export the card from its app as a PNG card or as JSON")
        text = None
        for key in keys:  # `ccv3` first; a damaged one leaves the `chara` copy the same app wrote beside it
            try:
                text = base64.b64decode("".join(texts[key].split()), validate=True).decode("utf-8")
                break
            except (binascii.Error, ValueError):
                continue
        if text is None:
            raise _bad(path, f"holds a '{keys[-1]}' chunk that is not valid base64 text",
                       "export the card again; the file may be damaged", field=keys[-1])
    else:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise _bad(path, "is neither a PNG, a CHARX zip nor UTF-8 JSON",
                       "give a card's .json, .png or .charx file") from None
    card = loads(text, str(path))
    if not isinstance(card, dict):
        raise _bad(path, "holds JSON that is not an object", "give a character card")
    return card


def card_data(path: Path | str, card: dict[str, Any]) -> tuple[dict[str, Any], str]:
    """The card's `data` object and its spec (V3, V2, or a bare V1 object)."""
    spec = card.get("spec")
    if spec in ("chara_card_v2", "chara_card_v3"):
        data = card.get("data")
        if not isinstance(data, dict):
            raise _bad(path, f"is a {spec} card without a 'data' object", "export the card again", field="data")
        return data, spec
    if spec is not None:
        raise _bad(path, f"has spec {str(spec)[:40]!r}, which is not a card this studio reads",
                   "use a Character Card V1, V2 or V3 (spec chara_card_v2 or chara_card_v3)", field="spec")
    if "name" in card:
        return card, "v1"
    raise _bad(path, "has no 'spec' and no 'name'; it does not look like a character card",
               "give a Character Card V2 or V3", field="spec")


# -- card to sheet ---------------------------------------------------------------------------------


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


def _check_types(path: Path | str, data: dict[str, Any], prefix: str) -> None:
    """The fields the studio reads have the types the specification gives them; the first that has not
    is one message naming it (a card is never half-read)."""
    for key in ("name", *_TEXT_FIELDS.values()):
        value = data.get(key)
        if value is not None and not isinstance(value, str):
            raise _bad(path, f"is {_kind(value)}, not text", "write it as text in quotes", field=prefix + key)
    for key in _LIST_FIELDS.values():
        value = data.get(key)
        if value is not None and (not isinstance(value, list) or not all(isinstance(v, str) for v in value)):
            what = _kind(value) if not isinstance(value, list) else "a list holding something other than text"
            raise _bad(path, f"is {what}, not a list of texts", 'write it as a list of texts, ["..."]',
                       field=prefix + key)
    extensions = data.get("extensions")
    if extensions is not None and not isinstance(extensions, dict):
        raise _bad(path, f"is {_kind(extensions)}, not an object", "write it as an object, { ... }",
                   field=prefix + "extensions")
    studio = (extensions or {}).get("studio")
    if studio is not None and not isinstance(studio, dict):
        raise _bad(path, f"is {_kind(studio)}, not an object", "write it as an object, or remove it",
                   field=prefix + "extensions.studio")
    for key in ("prompt", "description"):
        value = (studio or {}).get(key)
        if value is not None and not isinstance(value, str):
            raise _bad(path, f"is {_kind(value)}, not text", "write it as text in quotes",
                       field=prefix + f"extensions.studio.{key}")
    world = (extensions or {}).get("world")
    if world is not None and not isinstance(world, str):
        raise _bad(path, f"is {_kind(world)}, not text", "write the World Info file's name in quotes",
                   field=prefix + "extensions.world")


def _text(value: str | None) -> str:
    if value is None:
        return ""
    return clean_text(value).strip()


def _name(value: str | None) -> str:
    return _NAME_CONTROL.sub(" ", _text(value)).strip()[:MAX_NAME].rstrip()


def _origin(data: dict[str, Any]) -> dict[str, Any]:
    """The card's own fields as the sheet shows them in [card]."""
    origin: dict[str, Any] = {ours: _text(data.get(theirs)) for ours, theirs in _TEXT_FIELDS.items()}
    for ours, theirs in _LIST_FIELDS.items():
        origin[ours] = [t for t in (_text(v) for v in data.get(theirs) or []) if t]
    return origin


def _derive(data: dict[str, Any], name: str, origin: dict[str, Any], book: Lorebook | None) -> dict[str, Any]:
    """What a sheet takes from a card's own fields; export compares a sheet with this to know what changed."""
    derived: dict[str, Any] = {"prompt": card_prompt(origin, name), "description": card_description(origin, name)}
    # The card's own lorebook is not copied into knowledge: it runs as World Info at play time
    # (studio.mind.worldinfo), with its secondary keys, regex keys, positions and budget.
    world = (data.get("extensions") or {}).get("world")
    if isinstance(world, str) and world.strip():
        from studio.model.starter import slug

        derived["lorebooks"] = [slug(world)]
    return derived


def _book(path: Path | str, data: dict[str, Any], prefix: str) -> Lorebook | None:
    if data.get("character_book") is None:
        return None
    return book_from_data(data["character_book"], str(path), prefix + "character_book")


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
    _check_types(path, data, prefix)
    name = _name(data.get("name"))
    if not name:
        raise _bad(path, "has no name", "give the card a name in its app and export it again", field=prefix + "name")
    book = _book(path, data, prefix)
    origin = _origin(data)
    fields: dict[str, Any] = {"name": name, **_derive(data, name, origin, book)}
    notes = [f"imported from {Path(path).name} ({spec})", *_import_notes(data, book, origin)]
    if _text(data.get("name")) != name:
        notes.append(f"name: shortened to one line of {MAX_NAME} characters at most")
    if fields["description"]:
        notes.append("description: the card description's first sentence is what the others know of them")
    if len(fields["prompt"]) >= MAX_PROMPT:
        notes.append(f"prompt: the card's text is longer than a prompt may be; the first {MAX_PROMPT} characters are used")
    studio = (data.get("extensions") or {}).get("studio") or {}
    fields.update({k: studio[k] for k in _STUDIO_KEYS if k in studio})
    card_table = {k: v for k, v in origin.items() if v}
    card_table["original"] = json.dumps(card, ensure_ascii=False, indent=1)
    fields["card"] = card_table
    return fields, notes


def _toml_string(value: str) -> Any:
    return tomlkit.string(value, multiline="\n" in value)


def _original_string(value: str) -> Any:
    """The card's JSON as a TOML literal block: no escapes, so it reads like the JSON file it was."""
    text = value.replace("\x7f", "\\u007f")
    if "'''" in text:
        text = text.replace("'", "\\u0027")  # JSON's own escape keeps the literal block closed
    return tomlkit.string(text, literal=True, multiline=True)


def card_to_toml(path: Path | str, card: dict[str, Any], image: str | None = None) -> tuple[str, CharacterSheet, list[str]]:
    """TOML text for the sheet (validated before it is returned), the sheet, and the notes."""
    fields, notes = sheet_from_card(path, card)
    if image:
        fields["card"]["image"] = image
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
        table = tomlkit.table()
        original = card_table.pop("original", None)
        for key, value in card_table.items():
            table[key] = _toml_string(value) if isinstance(value, str) else value
        if original is not None:
            table.add(tomlkit.comment("The card as imported; export-card writes it back with the fields above"))
            table["original"] = _original_string(original)
        doc["card"] = table
    return tomlkit.dumps(doc), sheet, notes


# -- sheet to card ---------------------------------------------------------------------------------


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
    if sheet.name != _name(data.get("name")):
        _set(card, data, "name", sheet.name)
    origin = sheet.card
    if origin is None:
        return
    before = _origin(data)
    for ours, theirs in (*_TEXT_FIELDS.items(), *_LIST_FIELDS.items()):
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
    name = _name(data.get("name"))
    try:
        derived_fields = {"name": name, **_derive(data, name, _origin(data), _book("[card] original", data, ""))}
        derived = CharacterSheet.model_validate(derived_fields)
    except (InputError, ValidationError):
        derived = None
    studio: dict[str, Any] = {k: v for k, v in prior.items() if k not in _STUDIO_KEYS} if isinstance(prior, dict) else {}
    for key in _STUDIO_KEYS:
        mine = getattr(sheet, key)
        if derived is None or mine != getattr(derived, key):
            value = sheet.model_dump(mode="json", include={key}, exclude_none=True).get(key)
            if value is None:
                continue
            if key == "knowledge":
                value = [k.model_dump(mode="json", exclude_none=True) for k in sheet.knowledge]
            studio[key] = value
    if studio:
        extensions["studio"] = studio
    return card


def card_as(card: dict[str, Any], spec: Spec) -> dict[str, Any]:
    """The same card under another spec's name (a V3 card's `chara` chunk holds it as V2)."""
    out = dict(card)
    out["spec"], out["spec_version"] = SPECS[spec]
    return out


def card_spec(card: dict[str, Any]) -> Spec:
    return "v3" if card.get("spec") == "chara_card_v3" else "v2"


def card_json(card: dict[str, Any]) -> str:
    return json.dumps(card, ensure_ascii=False, indent=2) + "\n"


def card_png(card: dict[str, Any], image: bytes, source: str = "image") -> bytes:
    """A PNG card: the image with the card in a `chara` tEXt chunk (V2, base64 JSON) and, for a V3 card,
    also in `ccv3`; readers that know V3 prefer it, the rest read `chara`."""
    def b64(value: dict[str, Any]) -> str:
        return base64.b64encode(json.dumps(value, ensure_ascii=False).encode("utf-8")).decode("ascii")

    texts = {"chara": b64(card_as(card, "v2"))}
    if card_spec(card) == "v3":
        texts["ccv3"] = b64(card)
    return png_with_texts(source, image, texts)
