"""A Character Card's file in each of its forms (JSON, a PNG's text chunks, a CHARX zip), read and written.

A card is someone else's file, so it is read within a size limit and decoded defensively: lengths in a
PNG and sizes in a zip are claims to check, and no chunk or member may unpack past the limit. What
the card's fields mean is read in studio.model.card_fields.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any, Literal

from studio.model.errors import InputError
from studio.model.outside_file import read_outside
from studio.model.lorebook import loads

MAX_CARD_BYTES = 16 * 1024 * 1024
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
ZIP_SIGNATURES = (b"PK\x03\x04", b"PK\x05\x06")  # a zip with members, an empty zip
MAX_CHARX_MEMBERS = 10_000


def card_error(path: Path | str, problem: str, fix: str, field: str | None = None) -> InputError:
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
            raise card_error(path, "is a PNG cut short (a chunk runs past the end of the file)",
                             "export the card again")
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


def png_texts(path: Path | str, raw: bytes) -> dict[str, str]:
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
        raise card_error(path, "is not a PNG image", "give a .png image as the avatar")
    chunks = []
    for kind, body in png_chunks(path, raw):
        found = _chunk_text(kind, body)
        if found is None or found[0].lower() not in _CARD_KEYS:
            chunks.append((kind, body))
    if not chunks or chunks[-1][0] != b"IEND":
        raise card_error(path, "is a PNG without its end (IEND) chunk", "save the image again")
    added = [(b"tEXt", key.encode("latin-1") + b"\0" + value.encode("latin-1")) for key, value in texts.items()]
    chunks[-1:-1] = added
    return PNG_SIGNATURE + b"".join(_chunk(kind, body) for kind, body in chunks)


def read_card_bytes(path: Path) -> bytes:
    return read_outside(path, "card", MAX_CARD_BYTES, fix="check the path")


def is_charx(path: Path | str, raw: bytes) -> bool:
    """A CHARX card (Character Card V3's zip form), told by its bytes or, for a damaged one, its name."""
    return raw.startswith(ZIP_SIGNATURES) or Path(path).suffix.lower() == ".charx"


def _charx(path: Path | str, raw: bytes) -> zipfile.ZipFile:
    try:
        archive = zipfile.ZipFile(io.BytesIO(raw))
    except (zipfile.BadZipFile, zipfile.LargeZipFile, ValueError):
        raise card_error(path, "is not a zip archive, and a .charx card is one (card.json and its assets)",
                        "export the card again from its app, or give its .png or .json card") from None
    if len(archive.infolist()) > MAX_CHARX_MEMBERS:
        raise card_error(path, f"holds more than {MAX_CHARX_MEMBERS} files; a card does not",
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
        raise card_error(path, f"holds {name} of {info.file_size / 1e6:.1f} MB; {limit}",
                        "check that this is a character card, or shrink its assets")
    try:
        with archive.open(info) as member:
            data = member.read(MAX_CARD_BYTES + 1)
    except (zipfile.BadZipFile, zlib.error, EOFError, OSError, NotImplementedError, RuntimeError) as exc:
        raise card_error(path, f"holds {name}, which cannot be unpacked ({exc})",
                        "export the card again; the file may be damaged or encrypted") from None
    if len(data) > MAX_CARD_BYTES:
        raise card_error(path, f"holds {name}, which unpacks to more than its stated size; {limit}",
                        "check that this is a character card")
    return data


def _charx_text(path: Path | str, raw: bytes) -> str:
    """card.json from a CHARX zip, as text."""
    with _charx(path, raw) as archive:
        data = _charx_member(path, archive, "card.json")
    if data is None:
        raise card_error(path, "is a zip without card.json at its top, so not a CHARX card",
                        "export the card again from its app as .charx, .png or .json")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError:
        raise card_error(path, "holds a card.json that is not UTF-8 text", "export the card again") from None


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
    data = card.get("data")
    listed = data.get("assets") if isinstance(data, dict) else None
    assets = [a for a in listed if isinstance(a, dict) and a.get("type") == "icon"] if isinstance(listed, list) else []
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


def _png_card_text(path: Path | str, raw: bytes) -> str:
    """The card's JSON text from a PNG: its `ccv3` chunk, else its `chara` chunk, base64-decoded."""
    texts = {k.lower(): v for k, v in png_texts(path, raw).items()}
    keys = [k for k in ("ccv3", "chara") if k in texts]
    if not keys:
        raise card_error(path, "is a PNG without a character card in it (no 'chara' or 'ccv3' text chunk)",
                         "export the card from its app as a PNG card or as JSON")
    for key in keys:  # `ccv3` first; a damaged one leaves the `chara` copy the same app wrote beside it
        try:
            return base64.b64decode("".join(texts[key].split()), validate=True).decode("utf-8")
        except (binascii.Error, ValueError):
            continue
    raise card_error(path, f"holds a '{keys[-1]}' chunk that is not valid base64 text",
                     "export the card again; the file may be damaged", field=keys[-1])


def read_card(path: Path, raw: bytes | None = None) -> dict[str, Any]:
    """The card's JSON object, from a .json file, a PNG's `ccv3` (preferred) or `chara` chunk, or a
    CHARX zip's card.json."""
    raw = read_card_bytes(path) if raw is None else raw
    if is_charx(path, raw):
        text = _charx_text(path, raw)
    elif raw.startswith(PNG_SIGNATURE):
        text = _png_card_text(path, raw)
    else:
        try:
            text = raw.decode("utf-8-sig")
        except UnicodeDecodeError:
            raise card_error(path, "is neither a PNG, a CHARX zip nor UTF-8 JSON",
                             "give a card's .json, .png or .charx file") from None
    card = loads(text, str(path))
    if not isinstance(card, dict):
        raise card_error(path, "holds JSON that is not an object", "give a character card")
    return card


# -- writing the file ------------------------------------------------------------------------------

Spec = Literal["v2", "v3"]
SPECS = {"v2": ("chara_card_v2", "2.0"), "v3": ("chara_card_v3", "3.0")}


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

    card = card_for_form(card, "png")
    texts = {"chara": b64(card_as(card, "v2"))}
    if card_spec(card) == "v3":
        texts["ccv3"] = b64(card)
    return png_with_texts(source, image, texts)


# -- assets in each form ---------------------------------------------------------------------------

# Where a CHARX written here keeps the portrait, as CHARX writers lay their zips out.
CHARX_ICON = "assets/icon/images/main.png"
Form = Literal["json", "png", "charx"]


def _main_icon(asset: dict[str, Any]) -> bool:
    return asset.get("type") == "icon" and asset.get("name") in ("main", None)


def card_for_form(card: dict[str, Any], form: Form) -> dict[str, Any]:
    """The card with its V3 `assets` fitted to the file it goes in.

    An `embeded://` link names a file inside a CHARX zip, and no JSON or PNG card has one: there, the main
    portrait becomes `ccdefault:` (the PNG's own image, or the reader's default) and the other embedded
    assets are left out. A CHARX written here holds the portrait alone, so its list names that file as
    the main icon and keeps only the links that lead outside the zip. The card on the sheet is unchanged."""
    data = card.get("data")
    assets = data.get("assets") if isinstance(data, dict) else None
    if not isinstance(assets, list) and form != "charx":
        return card
    kept: list[Any] = []
    for asset in assets if isinstance(assets, list) else []:
        uri = asset.get("uri") if isinstance(asset, dict) else None
        embedded = isinstance(uri, str) and uri.startswith("embeded://")
        if isinstance(asset, dict) and _main_icon(asset) and (embedded or form == "charx"):
            if form != "charx":
                kept.append({**asset, "uri": "ccdefault:", "ext": "png"})
        elif not embedded:
            kept.append(asset)
    if form == "charx":
        kept.insert(0, {"type": "icon", "uri": f"embeded://{CHARX_ICON}", "name": "main", "ext": "png"})
    out = dict(card)
    out["data"] = {**(data if isinstance(data, dict) else {}), "assets": kept}
    return out


def card_charx(card: dict[str, Any], image: bytes, source: str = "image") -> bytes:
    """A CHARX card: a zip holding card.json at its top and the portrait (a PNG without card chunks) where
    the card's assets name it."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("card.json", json.dumps(card_for_form(card, "charx"), ensure_ascii=False, indent=2) + "\n")
        archive.writestr(CHARX_ICON, png_without_card(source, image), compress_type=zipfile.ZIP_STORED)
    return buffer.getvalue()
