"""CHARX cards (Character Card V3's zip form) in: built here with zipfile, good and malformed, through the CLI."""

from __future__ import annotations

import io
import json
import struct
import tomllib
import zipfile

import pytest

from authored_cards import chunk, png
from studio.cli import main
from studio.model.cards import MAX_CARD_BYTES

V3 = {
    "spec": "chara_card_v3",
    "spec_version": "3.0",
    "data": {
        "name": "Wren Halloway",
        "description": "{{char}} keeps the tide tables for the harbour. She counts everything twice.",
        "personality": "careful, dry, kind",
        "scenario": "Fog over the quay.",
        "first_mes": "You're standing on my charts.",
        "mes_example": "",
        "creator_notes": "",
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": [],
        "group_only_greetings": [],
        "tags": ["harbour"],
        "creator": "tester",
        "character_version": "1",
        "extensions": {},
        "assets": [
            {"type": "background", "uri": "embeded://assets/background/images/quay.png", "name": "quay", "ext": "png"},
            {"type": "icon", "uri": "embeded://assets/icon/images/main.png", "name": "main", "ext": "png"},
        ],
    },
}


def _charx(members: dict[str, bytes], compression: int = zipfile.ZIP_DEFLATED) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return buffer.getvalue()


def _import(tmp_path, name, payload, capsys):
    (tmp_path / name).write_bytes(payload)
    code = main(["import", str(tmp_path / name), "--dir", str(tmp_path)])
    return code, capsys.readouterr()


def test_a_charx_card_imports_with_its_portrait_kept_beside_the_sheet(tmp_path, capsys):
    portrait = png(colour=b"\0\xff\0\0")
    card_chunk = chunk(b"tEXt", b"chara\0c3RhbGU=")  # a stale card in the portrait is not kept with it
    payload = _charx({"card.json": json.dumps(V3).encode(),
                      "assets/icon/images/main.png": png(card_chunk, colour=b"\0\xff\0\0"),
                      "assets/background/images/quay.png": png(colour=b"\0\0\xff\0")})
    code, out = _import(tmp_path, "wren.charx", payload, capsys)
    assert code == 0, out.err
    sheet = tomllib.loads((tmp_path / "characters" / "wren_halloway.toml").read_text())
    assert sheet["name"] == "Wren Halloway" and sheet["card"]["image"] == "wren_halloway.png"
    kept = (tmp_path / "characters" / "wren_halloway.png").read_bytes()
    assert kept == portrait and b"chara" not in kept
    assert "its image wren_halloway.png" in out.out
    # a JSON card has no zip to hold the assets: the portrait becomes the reader's default, the rest go
    assert main(["export-card", str(tmp_path / "characters" / "wren_halloway.toml"),
                 "--out", str(tmp_path / "out.json")]) == 0
    exported = (tmp_path / "out.json").read_text()
    assert json.loads(exported)["data"]["assets"] == [
        {"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"}]
    assert "embeded://" not in exported


def test_a_charx_without_a_png_portrait_imports_without_one_and_says_so(tmp_path, capsys):
    card = json.loads(json.dumps(V3))
    card["data"]["assets"] = [{"type": "icon", "uri": "embeded://assets/icon/images/main.webp", "name": "main",
                               "ext": "webp"}]
    payload = _charx({"card.json": json.dumps(card).encode(), "assets/icon/images/main.webp": b"RIFF0000WEBP"})
    code, out = _import(tmp_path, "wren.charx", payload, capsys)
    assert code == 0, out.err
    assert "main.webp is not a PNG image; imported without it" in out.out
    assert not list((tmp_path / "characters").glob("*.png"))
    assert "image" not in tomllib.loads((tmp_path / "characters" / "wren_halloway.toml").read_text())["card"]


@pytest.mark.parametrize("uri", ["embeded://../../etc/passwd", "embeded:///etc/passwd", "embeded://a/../../x.png",
                                 "ccdefault:", "https://example.invalid/x.png"])
def test_asset_names_outside_the_zip_are_ignored(tmp_path, capsys, uri):
    card = json.loads(json.dumps(V3))
    card["data"]["assets"] = [{"type": "icon", "uri": uri, "name": "main", "ext": "png"}]
    payload = _charx({"card.json": json.dumps(card).encode(), "../../etc/passwd": png(), "x.png": png()})
    code, out = _import(tmp_path, "wren.charx", payload, capsys)
    assert code == 0, out.err
    assert sorted(p.name for p in (tmp_path / "characters").iterdir()) == ["wren_halloway.toml"]
    assert not (tmp_path / "etc").exists()


def _bomb() -> bytes:
    """card.json that unpacks past the card limit from a few kilobytes."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        with archive.open("card.json", "w", force_zip64=True) as member:
            chunk = b" " * (1024 * 1024)
            for _ in range(MAX_CARD_BYTES // len(chunk) + 2):
                member.write(chunk)
    return buffer.getvalue()


def _lying_size(raw: bytes) -> bytes:
    """The bomb with its directory claiming card.json is tiny: the read itself must stop at the limit."""
    archive = zipfile.ZipFile(io.BytesIO(raw))
    info = archive.getinfo("card.json")
    data = bytearray(raw)
    central = raw.rfind(b"PK\x01\x02")
    # zip64 keeps the true size in an extra field; point the reader at a 100-byte claim instead
    struct.pack_into("<I", data, central + 24, 100)
    struct.pack_into("<I", data, 22, 100)
    assert info.file_size > MAX_CARD_BYTES
    return bytes(data)


@pytest.mark.parametrize("name,payload,says", [
    ("notzip.charx", b"this is not a zip at all", "is not a zip archive"),
    ("cut.charx", _charx({"card.json": json.dumps(V3).encode()})[:40], "is not a zip archive"),
    ("empty.charx", _charx({}), "zip without card.json"),
    ("nested.charx", _charx({"wren/card.json": json.dumps(V3).encode()}), "zip without card.json"),
    ("broken.charx", _charx({"card.json": b'{"spec": "chara_card_v3", "data": {'}), "is not valid JSON"),
    ("latin.charx", _charx({"card.json": b"\xff\xfe\x00garbage"}), "card.json that is not UTF-8"),
    ("bomb.charx", _bomb(), "card.json of 1"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 20 else "")
def test_malformed_charx_cards_get_one_clear_message_and_exit_2(tmp_path, capsys, name, payload, says):
    code, out = _import(tmp_path, name, payload, capsys)
    assert code == 2, out
    assert out.err.startswith(f"studio: {tmp_path / name}") and says in out.err and "fix:" in out.err
    assert "Traceback" not in out.err and not (tmp_path / "characters").exists()


def test_a_member_whose_stated_size_lies_is_still_read_only_up_to_the_limit(tmp_path, capsys):
    code, out = _import(tmp_path, "liar.charx", _lying_size(_bomb()), capsys)
    assert code == 2 and "Traceback" not in out.err and not (tmp_path / "characters").exists()
    assert out.err.startswith(f"studio: {tmp_path / 'liar.charx'}") and "fix:" in out.err


def _zip_members(raw: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(raw)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


def _imported_wren(tmp_path, capsys, assets=None):
    card = json.loads(json.dumps(V3))
    if assets is not None:
        card["data"]["assets"] = assets
    payload = _charx({"card.json": json.dumps(card).encode(),
                      "assets/icon/images/main.png": png(colour=b"\0\xff\0\0"),
                      "assets/background/images/quay.png": png(colour=b"\0\0\xff\0")})
    code, out = _import(tmp_path, "wren.charx", payload, capsys)
    assert code == 0, out.err
    return tmp_path / "characters" / "wren_halloway.toml"


def test_png_and_json_cards_keep_no_links_into_a_zip_they_are_not(tmp_path, capsys):
    from studio.model.cards import png_chunks
    import base64

    sheet = _imported_wren(tmp_path, capsys, V3["data"]["assets"] + [
        {"type": "emotion", "uri": "https://example.invalid/joy.png", "name": "joy", "ext": "png"}])
    assert main(["export-card", str(sheet), "--out", str(tmp_path / "out.png")]) == 0
    texts = {body.split(b"\0")[0]: body.split(b"\0", 1)[1] for kind, body in png_chunks("x", (tmp_path / "out.png").read_bytes())
             if kind == b"tEXt"}
    for key in (b"chara", b"ccv3"):
        card = json.loads(base64.b64decode(texts[key]))
        assert [a["uri"] for a in card["data"]["assets"]] == ["ccdefault:", "https://example.invalid/joy.png"]
    # the sheet still holds the card as it came, for a CHARX written later
    assert "embeded://assets/background/images/quay.png" in sheet.read_text()


@pytest.mark.parametrize("assets,kind", [(5, "a number"), (True, "true/false"), ("icon", "text"), ({"a": 1}, "an object")])
def test_assets_that_are_not_a_list_are_one_message(tmp_path, capsys, assets, kind):
    card = json.loads(json.dumps(V3))
    card["data"]["assets"] = assets
    code, out = _import(tmp_path, "wren.charx", _charx({"card.json": json.dumps(card).encode()}), capsys)
    assert code == 2 and "field 'data.assets'" in out.err and f"is {kind}, not a list of assets" in out.err
    assert "fix:" in out.err and "Traceback" not in out.err
    assert not (tmp_path / "characters").exists()


def test_export_writes_a_charx_that_the_studio_and_sillytavern_read_back(tmp_path, capsys):
    import st_reader

    sheet = _imported_wren(tmp_path, capsys, V3["data"]["assets"] + [
        {"type": "emotion", "uri": "https://example.invalid/joy.png", "name": "joy", "ext": "png"}])
    out = tmp_path / "wren-out.charx"
    assert main(["export-card", str(sheet), "--out", str(out)]) == 0
    assert "wrote" in capsys.readouterr().out
    members = _zip_members(out.read_bytes())
    assert sorted(members) == ["assets/icon/images/main.png", "card.json"]
    card = json.loads(members["card.json"])
    assert card["spec"] == "chara_card_v3" and card["data"]["name"] == "Wren Halloway"
    assert card["data"]["assets"] == [
        {"type": "icon", "uri": "embeded://assets/icon/images/main.png", "name": "main", "ext": "png"},
        {"type": "emotion", "uri": "https://example.invalid/joy.png", "name": "joy", "ext": "png"}]
    assert members["assets/icon/images/main.png"] == png(colour=b"\0\xff\0\0")
    # the studio reads it back to the same sheet and the same portrait
    again = tmp_path / "again"
    again.mkdir()
    assert main(["import", str(out), "--dir", str(again)]) == 0
    back = again / "characters" / "wren_halloway.toml"
    assert tomllib.loads(back.read_text())["card"]["description"] == V3["data"]["description"]
    assert (again / "characters" / "wren_halloway.png").read_bytes() == png(colour=b"\0\xff\0\0")
    if st_reader.folder() is not None:  # SillyTavern reads a CHARX's card.json as it reads a JSON card
        (tmp_path / "card.json").write_bytes(members["card.json"])
        read = st_reader.read(tmp_path / "card.json")
        assert read["v3"] and read["card"]["data"]["name"] == "Wren Halloway"


def test_a_studio_sheet_exports_as_charx_with_a_drawn_portrait_and_never_as_v2(tmp_path, capsys):
    sheet = tmp_path / "pim.toml"
    sheet.write_text('name = "Pim"\nprompt = "You are Pim, a lighthouse keeper."\n')
    assert main(["export-card", str(sheet), "--out", str(tmp_path / "pim.charx")]) == 0
    members = _zip_members((tmp_path / "pim.charx").read_bytes())
    assert members["assets/icon/images/main.png"].startswith(b"\x89PNG\r\n\x1a\n")
    assert json.loads(members["card.json"])["spec"] == "chara_card_v3"
    code = main(["export-card", str(sheet), "--out", str(tmp_path / "v2.charx"), "--spec", "v2"])
    err = capsys.readouterr().err
    assert code == 2 and "CHARX card is Character Card V3 only" in err and not (tmp_path / "v2.charx").exists()
