"""Character Cards in and out: cards the tests build, good and malformed, through the real CLI entry point."""

from __future__ import annotations

import base64
import json
import struct
import tomllib
import zlib
from pathlib import Path

import pytest

from studio.cli import main
from studio.model import load_character

ROOT = Path(__file__).resolve().parents[1]

CARD = {
    "spec": "chara_card_v2",
    "spec_version": "2.0",
    "data": {
        "name": "Captain Ilse",
        "description": "{{char}} commands the salvage tug Merrow. She distrusts {{user}} on sight.",
        "personality": "gruff, loyal, superstitious",
        "scenario": "A storm pins the tug in harbour for the night.",
        "first_mes": "*Ilse wipes the rain off her cap.* You're late.",
        "mes_example": "<START>\n{{user}}: Why the Merrow?\n{{char}}: Because she floats.",
        "creator_notes": "Best with slow scenes.",
        "system_prompt": "",
        "post_history_instructions": "",
        "alternate_greetings": ["Another night, another wreck."],
        "tags": ["sea", "drama"],
        "creator": "tester",
        "character_version": "1.2",
        "extensions": {"depth_prompt": {"prompt": "x", "depth": 4}},
        "character_book": {
            "name": "Merrow lore",
            "scan_depth": 3,
            "entries": [
                {"keys": ["Aurelia", "the wreck"], "content": "Ilse pulled the Aurelia's bell from the rocks.",
                 "enabled": True, "insertion_order": 1, "extensions": {}},
                {"keys": [], "content": "The Merrow leaks at the stern.", "constant": True, "enabled": True,
                 "insertion_order": 2, "extensions": {}},
                {"keys": ["gold"], "content": "A disabled entry.", "enabled": False, "insertion_order": 3,
                 "extensions": {}},
            ],
        },
    },
}


def _chunk(kind: bytes, body: bytes) -> bytes:
    return struct.pack(">I", len(body)) + kind + body + struct.pack(">I", zlib.crc32(kind + body) & 0xFFFFFFFF)


def _png(*chunks: bytes) -> bytes:
    ihdr = _chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    idat = _chunk(b"IDAT", zlib.compress(b"\0\0\0\0"))
    return b"\x89PNG\r\n\x1a\n" + ihdr + b"".join(chunks) + idat + _chunk(b"IEND", b"")


def _b64(card) -> bytes:
    return base64.b64encode(json.dumps(card).encode())


def _import(tmp_path, name, payload, capsys):
    card = tmp_path / name
    card.write_bytes(payload)
    code = main(["import", str(card), "--dir", str(tmp_path)])
    return code, capsys.readouterr()


def test_import_v2_json_maps_fields_lorebook_and_lists_the_rest(tmp_path, capsys):
    code, out = _import(tmp_path, "ilse.json", json.dumps(CARD).encode(), capsys)
    assert code == 0, out.err
    path = tmp_path / "characters" / "captain_ilse.toml"
    assert f"wrote {path}" in out.out
    sheet = load_character(path)
    assert sheet.name == "Captain Ilse"
    assert sheet.description == "{{char}} commands the salvage tug Merrow."  # filled when a prompt is built
    assert "She distrusts {{user}} on sight." in sheet.prompt
    assert "Personality: gruff, loyal, superstitious" in sheet.prompt
    # the card's lorebook runs as World Info (studio.mind.worldinfo), every entry as the card has it
    assert sheet.knowledge == [] and [e.content for e in sheet.card.lorebook.entries] == [
        "Ilse pulled the Aurelia's bell from the rocks.", "The Merrow leaks at the stern.", "A disabled entry."]
    assert sheet.card.first_message.startswith("*Ilse wipes") and sheet.card.tags == ["sea", "drama"]
    head = path.read_text().split("\nname =")[0]
    assert head.startswith("# imported from ilse.json (chara_card_v2)")
    for unmapped in ("extensions.depth_prompt", "1 disabled entry kept", "character_book.scan_depth", "alternate and group greetings"):
        assert unmapped in head
    assert "extensions.depth_prompt" in out.out


def test_import_export_round_trips_a_card(tmp_path, capsys, monkeypatch):
    _import(tmp_path, "ilse.json", json.dumps(CARD).encode(), capsys)
    monkeypatch.chdir(tmp_path)
    assert main(["export-card", "captain_ilse"]) == 0
    back = json.loads((tmp_path / "captain_ilse.card.json").read_text())
    # everything comes back as the card had it: the disabled entry, the book's scan depth, other apps'
    # extensions; the book gains only the empty `extensions` object the specification requires
    expected = json.loads(json.dumps(CARD))
    expected["data"]["character_book"]["extensions"] = {}
    assert back == expected
    # and the exported card imports to the same sheet
    first = (tmp_path / "characters" / "captain_ilse.toml")
    again = tmp_path / "again.toml"
    assert main(["import", str(tmp_path / "captain_ilse.card.json"), "--out", str(again)]) == 0
    assert load_character(again).model_dump(exclude={"card": {"original"}}) == \
        load_character(first).model_dump(exclude={"card": {"original"}})
    assert main(["export-card", "captain_ilse"]) == 2  # no silent overwrite
    assert "already exists" in capsys.readouterr().err


def test_export_of_a_studio_sheet_carries_its_inner_life(tmp_path, capsys):
    out = tmp_path / "mara.json"
    assert main(["export-card", str(ROOT / "characters" / "mara_lighthouse.toml"), "--out", str(out)]) == 0
    card = json.loads(out.read_text())["data"]
    assert card["personality"] == ("You are somewhat attached to the familiar; very orderly and dutiful; very reserved and "
                                   "quiet; somewhat anxious and easily shaken. Your part in the story: the skeptic.")
    assert card["extensions"]["studio"]["moods"][0]["name"] == "weary"
    entry = card["character_book"]["entries"][1]
    assert entry["keys"] == ["logbook"] and not entry["constant"]
    assert main(["import", str(out), "--out", str(tmp_path / "mara.toml")]) == 0
    mara = load_character(ROOT / "characters" / "mara_lighthouse.toml")
    assert load_character(tmp_path / "mara.toml").model_dump(exclude={"card"}) == mara.model_dump(exclude={"card"})


@pytest.mark.parametrize("key,text_chunk", [("chara", "tEXt"), ("ccv3", "iTXt")])
def test_import_png_cards_v2_and_v3(tmp_path, capsys, key, text_chunk):
    card = json.loads(json.dumps(CARD))
    if key == "ccv3":
        card.update(spec="chara_card_v3", spec_version="3.0")
        card["data"].update(nickname="Ils", group_only_greetings=[], assets=[{"type": "icon", "uri": "ccdefault:"}])
        body = b"ccv3\0\0\0\0\0" + _b64(card)
    else:
        body = b"chara\0" + _b64(card)
    code, out = _import(tmp_path, "ilse.png", _png(_chunk(text_chunk.encode(), body)), capsys)
    assert code == 0, out.err
    text = (tmp_path / "characters" / "captain_ilse.toml").read_text()
    assert tomllib.loads(text)["name"] == "Captain Ilse"
    if key == "ccv3":
        assert "(chara_card_v3)" in text and "written back by export-card: assets" in text
        assert tomllib.loads(text)["card"]["nickname"] == "Ils"


def test_a_png_with_both_chunks_prefers_ccv3(tmp_path, capsys):
    v3 = dict(CARD, spec="chara_card_v3", data=dict(CARD["data"], name="Ilse Three"))
    png = _png(_chunk(b"tEXt", b"chara\0" + _b64(CARD)), _chunk(b"tEXt", b"ccv3\0" + _b64(v3)))
    code, _ = _import(tmp_path, "both.png", png, capsys)
    assert code == 0 and (tmp_path / "characters" / "ilse_three.toml").exists()


@pytest.mark.parametrize("name,payload,says", [
    ("bad64.png", _png(_chunk(b"tEXt", b"chara\0not*base64!!")), "'chara' chunk that is not valid base64"),
    ("plain.png", _png(), "PNG without a character card in it"),
    ("cut.png", _png(_chunk(b"tEXt", b"chara\0" + _b64(CARD)))[:60], "PNG cut short"),
    ("noname.json", json.dumps({"spec": "chara_card_v2", "data": {"description": "x"}}).encode(),
     "field 'data.name': has no name"),
    ("nodata.json", json.dumps({"spec": "chara_card_v3"}).encode(), "without a 'data' object"),
    ("odd.json", json.dumps({"spec": "chara_card_v9", "data": {}}).encode(), "not a card this studio reads"),
    ("broken.json", b'{"spec": "chara_card_v2", "data": {', "is not valid JSON (line 1"),
    ("list.json", b"[1, 2]", "JSON that is not an object"),
    ("latin.json", b"\xff\xfe\x00garbage", "neither a PNG nor UTF-8 JSON"),
    ("moods.json", json.dumps({"spec": "chara_card_v2", "data": {
        "name": "X", "extensions": {"studio": {"moods": [{"name": ""}]}}}}).encode(), "'moods.0.name' is invalid"),
], ids=lambda v: v if isinstance(v, str) and len(v) < 20 else "")
def test_malformed_cards_get_one_clear_message_and_exit_2(tmp_path, capsys, name, payload, says):
    code, out = _import(tmp_path, name, payload, capsys)
    assert code == 2
    assert out.err.startswith(f"studio: {tmp_path / name}") and says in out.err and "fix:" in out.err
    assert "Traceback" not in out.err and not (tmp_path / "characters").exists()


def test_a_20_mb_file_is_refused_before_it_is_read(tmp_path, capsys):
    big = tmp_path / "huge.png"
    with open(big, "wb") as f:
        f.write(b"\x89PNG\r\n\x1a\n")
        f.truncate(20 * 1000 * 1000)
    assert main(["import", str(big)]) == 2
    err = capsys.readouterr().err
    assert "is 20.0 MB; a card is at most 16 MB" in err and err.count("\n") == 2


def test_import_never_overwrites_and_names_are_printed_as_text(tmp_path, capsys):
    card = json.loads(json.dumps(CARD))
    card["data"]["name"] = "[bold red]Ilse\x1b[2J"
    code, out = _import(tmp_path, "ilse.json", json.dumps(card).encode(), capsys)
    assert code == 0 and "\x1b" not in out.out and "[bold red]Ilse" in out.out
    sheet_path = next((tmp_path / "characters").glob("*.toml"))
    before = sheet_path.read_bytes()
    code, out = _import(tmp_path, "ilse.json", json.dumps(card).encode(), capsys)
    assert code == 2 and "already exists" in out.err and sheet_path.read_bytes() == before


def test_compressed_and_line_wrapped_chunks_are_read_and_bombs_are_not(tmp_path, capsys):
    wrapped = b"\n".join(_b64(CARD)[i:i + 76] for i in range(0, len(_b64(CARD)), 76))
    itxt = b"chara\0\1\0\0\0" + zlib.compress(wrapped)
    code, out = _import(tmp_path, "z.png", _png(_chunk(b"iTXt", itxt)), capsys)
    assert code == 0, out.err
    bomb = _chunk(b"zTXt", b"chara\0\0" + zlib.compress(b"A" * (40 * 1024 * 1024)))
    code, out = _import(tmp_path, "bomb.png", _png(bomb), capsys)
    assert code == 2 and "without a character card" in out.err
