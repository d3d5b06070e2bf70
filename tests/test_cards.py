"""Character Cards in and out: cards the tests build, good and malformed, through the real CLI entry point."""

from __future__ import annotations

import base64
import json
import tomllib
import zlib
from pathlib import Path

import pytest
import tomlkit

from authored_cards import ILSE, b64, chunk, png, wrapped
from studio.cli import main
from studio.model import load_character

ROOT = Path(__file__).resolve().parents[1]

def _import(tmp_path, name, payload, capsys):
    card = tmp_path / name
    card.write_bytes(payload)
    code = main(["import", str(card), "--dir", str(tmp_path)])
    return code, capsys.readouterr()


def test_import_v2_json_maps_fields_lorebook_and_lists_the_rest(tmp_path, capsys):
    code, out = _import(tmp_path, "ilse.json", json.dumps(ILSE).encode(), capsys)
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
    _import(tmp_path, "ilse.json", json.dumps(ILSE).encode(), capsys)
    monkeypatch.chdir(tmp_path)
    assert main(["export-card", "captain_ilse"]) == 0
    back = json.loads((tmp_path / "captain_ilse.card.json").read_text())
    # everything comes back as the card had it: the disabled entry, the book's scan depth, other apps'
    # extensions; the book gains only the empty `extensions` object the specification requires
    expected = json.loads(json.dumps(ILSE))
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
    card = json.loads(json.dumps(ILSE))
    if key == "ccv3":
        card.update(spec="chara_card_v3", spec_version="3.0")
        card["data"].update(nickname="Ils", group_only_greetings=[], assets=[{"type": "icon", "uri": "ccdefault:"}])
        body = b"ccv3\0\0\0\0\0" + b64(card)
    else:
        body = b"chara\0" + b64(card)
    code, out = _import(tmp_path, "ilse.png", png(chunk(text_chunk.encode(), body)), capsys)
    assert code == 0, out.err
    text = (tmp_path / "characters" / "captain_ilse.toml").read_text()
    assert tomllib.loads(text)["name"] == "Captain Ilse"
    if key == "ccv3":
        assert "(chara_card_v3)" in text and "written back by export-card: assets" in text
        assert tomllib.loads(text)["card"]["nickname"] == "Ils"


def test_a_png_with_both_chunks_prefers_ccv3(tmp_path, capsys):
    v3 = dict(ILSE, spec="chara_card_v3", data=dict(ILSE["data"], name="Ilse Three"))
    both = png(chunk(b"tEXt", b"chara\0" + b64(ILSE)), chunk(b"tEXt", b"ccv3\0" + b64(v3)))
    code, _ = _import(tmp_path, "both.png", both, capsys)
    assert code == 0 and (tmp_path / "characters" / "ilse_three.toml").exists()


@pytest.mark.parametrize("name,payload,says", [
    ("bad64.png", png(chunk(b"tEXt", b"chara\0not*base64!!")), "'chara' chunk that is not valid base64"),
    ("plain.png", png(), "PNG without a character card in it"),
    ("cut.png", png(chunk(b"tEXt", b"chara\0" + b64(ILSE)))[:60], "PNG cut short"),
    ("noname.json", json.dumps({"spec": "chara_card_v2", "data": {"description": "x"}}).encode(),
     "field 'data.name': has no name"),
    ("nodata.json", json.dumps({"spec": "chara_card_v3"}).encode(), "without a 'data' object"),
    ("odd.json", json.dumps({"spec": "chara_card_v9", "data": {}}).encode(), "not a card this studio reads"),
    ("broken.json", b'{"spec": "chara_card_v2", "data": {', "is not valid JSON (line 1"),
    ("list.json", b"[1, 2]", "JSON that is not an object"),
    ("latin.json", b"\xff\xfe\x00garbage", "neither a PNG, a CHARX zip nor UTF-8 JSON"),
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
    card = json.loads(json.dumps(ILSE))
    card["data"]["name"] = "[bold red]Ilse\x1b[2J"
    code, out = _import(tmp_path, "ilse.json", json.dumps(card).encode(), capsys)
    assert code == 0 and "\x1b" not in out.out and "[bold red]Ilse" in out.out
    sheet_path = next((tmp_path / "characters").glob("*.toml"))
    before = sheet_path.read_bytes()
    code, out = _import(tmp_path, "ilse.json", json.dumps(card).encode(), capsys)
    assert code == 2 and "already exists" in out.err and sheet_path.read_bytes() == before


def test_compressed_and_line_wrapped_chunks_are_read_and_bombs_are_not(tmp_path, capsys):
    itxt = b"chara\0\1\0\0\0" + zlib.compress(wrapped(ILSE))
    code, out = _import(tmp_path, "z.png", png(chunk(b"iTXt", itxt)), capsys)
    assert code == 0, out.err
    bomb = chunk(b"zTXt", b"chara\0\0" + zlib.compress(b"A" * (40 * 1024 * 1024)))
    code, out = _import(tmp_path, "bomb.png", png(bomb), capsys)
    assert code == 2 and "without a character card" in out.err


# -- the cards in tests/data/cards: every form, round-tripped ---------------------------------------

DATA = ROOT / "tests" / "data" / "cards"
WORLDS = {"Eldoria.json", "Toaru.json"}
CORPUS = sorted(p.name for p in DATA.iterdir() if p.suffix in (".json", ".png") and p.name not in WORLDS)


def _differences(original, exported, where="card"):
    """Every place where the export does not hold what the original held (fields it adds are allowed)."""
    if isinstance(original, dict) and isinstance(exported, dict):
        return [d for k, v in original.items()
                for d in (_differences(v, exported[k], f"{where}.{k}") if k in exported else [f"{where}.{k}: dropped"])]
    if isinstance(original, list) and isinstance(exported, list) and len(original) == len(exported):
        return [d for i, (a, b) in enumerate(zip(original, exported)) for d in _differences(a, b, f"{where}[{i}]")]
    same = original == exported and type(original) is type(exported)
    return [] if same else [f"{where}: {str(original)[:50]!r} became {str(exported)[:50]!r}"]


def _sheet(path):
    """A sheet as a user sees it: everything but the kept JSON text, which is the card itself."""
    return load_character(path).model_dump(exclude={"card": {"original", "image"}})


def test_the_corpus_has_every_form_the_studio_promises():
    from studio.model.cards import card_data, read_card

    forms = set()
    for name in CORPUS:
        card = read_card(DATA / name)
        data, spec = card_data(DATA / name, card)
        forms.add((spec, (DATA / name).suffix))
        if len((data.get("character_book") or {}).get("entries", [])) >= 20:
            forms.add("20+ entries")
        if data.get("assets"):
            forms.add("assets")
        if any(ord(ch) > 0x2E80 for ch in data["name"]):
            forms.add("non-Latin")
    assert len(CORPUS) >= 8
    assert {("v1", ".json"), ("v1", ".png"), ("chara_card_v2", ".json"), ("chara_card_v2", ".png"),
            ("chara_card_v3", ".json"), ("chara_card_v3", ".png"), "20+ entries", "assets", "non-Latin"} <= forms
    readme = (DATA / "README.md").read_text()
    assert all(f"`{name}`" in readme for name in [*CORPUS, *WORLDS])


@pytest.mark.parametrize("name", CORPUS)
def test_each_card_comes_back_as_it_was_and_imports_to_the_same_sheet(tmp_path, capsys, name):
    from studio.model.cards import card_data, card_for_form, read_card

    source = DATA / name
    assert main(["import", str(source), "--dir", str(tmp_path)]) == 0, capsys.readouterr().err
    sheet_path = next((tmp_path / "characters").glob("*.toml"))
    out = tmp_path / "back.json"
    assert main(["export-card", str(sheet_path), "--out", str(out)]) == 0
    original, exported = read_card(source), json.loads(out.read_text())
    _, spec = card_data(source, original)
    original = card_for_form(original, "json")  # but for links into a CHARX zip, which a JSON card is not
    if spec == "v1":  # a V1 card comes back as V2, its fields inside `data`
        assert exported["spec"] == "chara_card_v2"
        assert _differences(original, exported["data"]) == []
    else:
        assert exported["spec"] == spec
        assert _differences(original, exported) == []
    again = tmp_path / "again.toml"
    assert main(["import", str(out), "--out", str(again)]) == 0
    assert _sheet(again) == _sheet(sheet_path)
    # and as a PNG card, read back the same
    back = tmp_path / "back.png"
    assert main(["export-card", str(sheet_path), "--out", str(back)]) == 0
    assert main(["import", str(back), "--out", str(tmp_path / "from_png.toml")]) == 0
    assert _sheet(tmp_path / "from_png.toml") == _sheet(sheet_path)
    assert _differences(original if spec != "v1" else exported, read_card(back)) == []
    # the image of a PNG card is kept beside the sheet, its pixels untouched
    if source.suffix == ".png":
        from studio.model.cards import png_chunks

        image = sheet_path.with_suffix(".png")
        assert load_character(sheet_path).card.image == image.name
        pixels = [body for kind, body in png_chunks(source, source.read_bytes()) if kind == b"IDAT"]
        assert [body for kind, body in png_chunks(image, image.read_bytes()) if kind == b"IDAT"] == pixels


def test_a_card_without_a_field_the_specification_requires_gets_it_back_empty(tmp_path, capsys):
    bare = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {"name": "Bare", "description": "Only this."}}
    _import(tmp_path, "bare.json", json.dumps(bare).encode(), capsys)
    out = tmp_path / "bare.card.json"
    assert main(["export-card", str(tmp_path / "characters" / "bare.toml"), "--out", str(out)]) == 0
    data = json.loads(out.read_text())["data"]
    assert data["description"] == "Only this." and data["alternate_greetings"] == [] and data["extensions"] == {}
    assert data["system_prompt"] == "" and data["tags"] == []


# -- edits made in the studio -----------------------------------------------------------------------


def _edit(path, old, new):
    text = path.read_text()
    assert old in text
    path.write_text(text.replace(old, new, 1))


def test_edits_in_the_studio_change_the_cards_own_fields_and_nothing_else(tmp_path, capsys):
    from studio.model.cards import read_card

    source = DATA / "seraphina.png"
    assert main(["import", str(source), "--dir", str(tmp_path)]) == 0
    sheet = tmp_path / "characters" / "seraphina.toml"
    doc = tomlkit.parse(sheet.read_text())
    doc["card"]["scenario"] = "A new scenario, written in the studio."
    doc["card"]["tags"] = ["studio"]
    sheet.write_text(tomlkit.dumps(doc))
    out = tmp_path / "edited.json"
    assert main(["export-card", str(sheet), "--out", str(out)]) == 0, capsys.readouterr().err
    original, exported = read_card(source), json.loads(out.read_text())
    assert exported["data"]["scenario"] == "A new scenario, written in the studio."
    assert exported["scenario"] == "A new scenario, written in the studio."  # SillyTavern's V1 copy too
    assert exported["data"]["tags"][0] == "studio" and exported["tags"][0] == "studio"
    assert "studio" not in exported["data"]["extensions"]  # the card has fields for these edits
    changed = {d.split(":")[0] for d in _differences(original, exported)}
    assert changed == {"card.scenario", "card.data.scenario", "card.tags", "card.data.tags"}


def test_a_prompt_written_in_the_studio_travels_in_extensions_studio(tmp_path, capsys):
    assert main(["import", str(DATA / "captain_ilse.v2.png"), "--dir", str(tmp_path)]) == 0
    sheet = tmp_path / "characters" / "captain_ilse.toml"
    _edit(sheet, 'name = "Captain Ilse"\n', 'name = "Captain Ilse"\nprompt = "Speak only in sea shanties."\n')
    out = tmp_path / "ilse.json"
    assert main(["export-card", str(sheet), "--out", str(out)]) == 0
    data = json.loads(out.read_text())["data"]
    assert data["extensions"]["studio"] == {"prompt": load_character(sheet).prompt}
    assert data["description"].startswith("{{char}} commands the salvage tug")  # the card's own field is untouched
    assert main(["import", str(out), "--out", str(tmp_path / "again.toml")]) == 0
    assert load_character(tmp_path / "again.toml").prompt == "Speak only in sea shanties."


@pytest.mark.parametrize("name,spec,expected", [
    ("mara_quill.v3.json", None, ("chara_card_v3", "3.0")),
    ("mara_quill.v3.json", "v2", ("chara_card_v2", "2.0")),
    ("saltcombe.v2.json", None, ("chara_card_v2", "2.0")),
    ("saltcombe.v2.json", "v3", ("chara_card_v3", "3.0")),
    ("aqua.v1.json", None, ("chara_card_v2", "2.0")),
    ("aqua.v1.json", "v3", ("chara_card_v3", "3.0")),
])
def test_export_keeps_the_cards_version_unless_asked(tmp_path, capsys, name, spec, expected):
    assert main(["import", str(DATA / name), "--dir", str(tmp_path)]) == 0
    sheet = next((tmp_path / "characters").glob("*.toml"))
    out = tmp_path / "out.json"
    assert main(["export-card", str(sheet), "--out", str(out), *(["--spec", spec] if spec else [])]) == 0
    card = json.loads(out.read_text())
    assert (card["spec"], card["spec_version"]) == expected
    if expected[0] == "chara_card_v3":
        assert card["data"]["group_only_greetings"] is not None
    if name.startswith("mara"):  # V3 fields survive a V2 export too, for the app that reads them
        assert card["data"]["nickname"] == "Mara" and len(card["data"]["assets"]) == 3  # but for the zip's own
        assert not any(a["uri"].startswith("embeded://") for a in card["data"]["assets"])


# -- PNG cards out ----------------------------------------------------------------------------------


def _texts(path):
    from studio.model.card_file import png_texts

    return {k: json.loads(base64.b64decode(v)) for k, v in png_texts(path, path.read_bytes()).items()}


def test_a_png_name_writes_a_png_card_on_the_imported_image(tmp_path, capsys):
    assert main(["import", str(DATA / "修女与女忍.v3.png"), "--dir", str(tmp_path)]) == 0
    sheet = tmp_path / "characters" / "修女与女忍.toml"
    out = tmp_path / "nun.png"
    assert main(["export-card", str(sheet), "--out", str(out)]) == 0
    raw = out.read_bytes()
    assert raw.startswith(b"\x89PNG\r\n\x1a\n")
    texts = _texts(out)
    assert texts["ccv3"]["spec"] == "chara_card_v3" and texts["chara"]["spec"] == "chara_card_v2"
    assert texts["ccv3"]["data"] == texts["chara"]["data"] and texts["ccv3"]["data"]["name"] == "修女与女忍"
    from PIL import Image

    assert Image.open(out).size == Image.open(DATA / "修女与女忍.v3.png").size
    # a V2 export holds the `chara` chunk only
    v2 = tmp_path / "nun2.png"
    assert main(["export-card", str(sheet), "--out", str(v2), "--spec", "v2"]) == 0
    assert set(_texts(v2)) == {"chara"}


def test_a_sheet_without_an_image_gets_a_drawn_portrait_and_never_json(tmp_path, capsys):
    from PIL import Image

    out = tmp_path / "MARA.PNG"
    assert main(["export-card", str(ROOT / "characters" / "mara_lighthouse.toml"), "--out", str(out)]) == 0
    assert not out.read_bytes().lstrip().startswith(b"{")
    image = Image.open(out)
    assert image.format == "PNG" and image.size == (400, 600)
    assert _texts(out)["chara"]["data"]["extensions"]["studio"]["moods"][0]["name"] == "weary"
    # the card imports back as the same character
    assert main(["import", str(out), "--out", str(tmp_path / "mara.toml")]) == 0
    mara = load_character(ROOT / "characters" / "mara_lighthouse.toml")
    assert load_character(tmp_path / "mara.toml").model_dump(exclude={"card"}) == mara.model_dump(exclude={"card"})


def test_portraits_differ_by_name_and_carry_the_initials():
    from studio.export.portrait import initials, portrait_png

    assert initials("Captain Ilse") == "CI" and initials("修女与女忍") == "修" and initials("mara") == "M"
    assert portrait_png("Captain Ilse") != portrait_png("Captain Ilsa")
    assert portrait_png("修女与女忍").startswith(b"\x89PNG")


# -- names in any script ----------------------------------------------------------------------------


def _named(name, description):
    return json.dumps({"spec": "chara_card_v2", "spec_version": "2.0",
                       "data": {"name": name, "description": description}}, ensure_ascii=False).encode()


def test_names_in_any_script_give_their_own_files(tmp_path, capsys):
    for file, name in (("a.json", "修女与女忍"), ("b.json", "女忍"), ("c.json", "Анна"), ("d.json", "★☆★")):
        code, out = _import(tmp_path, file, _named(name, "x"), capsys)
        assert code == 0, out.err
    stems = sorted(p.stem for p in (tmp_path / "characters").glob("*.toml"))
    assert "修女与女忍" in stems and "女忍" in stems and "анна" in stems
    assert len(stems) == 4 and "untitled" not in stems


def test_what_the_others_know_ends_at_the_first_sentence_in_any_script(tmp_path, capsys):
    code, _ = _import(tmp_path, "zh.json", _named("艾琳", "艾琳是修女。游戏主持人的规则：每回合输出状态栏。"), capsys)
    assert code == 0
    assert load_character(tmp_path / "characters" / "艾琳.toml").description == "艾琳是修女。"
    code, _ = _import(tmp_path, "en.json", _named("Ann", "Ann is 3.5 feet tall! She hides it."), capsys)
    assert load_character(tmp_path / "characters" / "ann.toml").description == "Ann is 3.5 feet tall!"


# -- what import says --------------------------------------------------------------------------------


def test_import_names_template_code_once_and_keeps_it_out_of_the_prompt(tmp_path, capsys):
    assert main(["import", str(DATA / "mara_quill.v3.json"), "--dir", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.count("template code") == 1 and "never sent to models" in out
    sheet = load_character(tmp_path / "characters" / "mara_quill.toml")
    assert "<%" not in sheet.prompt and "getvar" not in sheet.prompt
    assert "<% if (getvar('storm') > 2) { %>" in sheet.card.description  # kept in the card


def test_lorebook_entries_are_kept_whole_with_every_field(tmp_path, capsys):
    assert main(["import", str(DATA / "saltcombe.v2.json"), "--dir", str(tmp_path)]) == 0
    sheet = load_character(tmp_path / "characters" / "saltcombe.toml")
    book = sheet.card.lorebook
    assert len(book.entries) == 24 and book.name == "Saltcombe lore"
    assert [e.enabled for e in book.entries].count(False) == 2
    long = next(e for e in book.entries if e.comment == "a long entry")
    assert len(long.content) > 2000 and sheet.knowledge == []  # whole, and run as World Info, not copied
    smuggler = next(e for e in book.entries if e.comment == "case sensitive, NOT ANY")
    assert (smuggler.logic, smuggler.place, smuggler.depth, smuggler.role) == ("not_any", "at_depth", 1, "user")
    assert smuggler.case_sensitive_keys is True and smuggler.secondary_keys == ["customs"]
    assert {e.place for e in book.entries} >= {"before_char", "after_char", "at_depth", "author_note_top",
                                                "examples_bottom"}


# -- World Info -------------------------------------------------------------------------------------


def test_a_world_info_file_imports_as_a_lorebook_kept_as_it_was(tmp_path, capsys):
    from studio.model.lorebook import read_lorebook

    assert main(["import", str(DATA / "Toaru.json"), "--dir", str(tmp_path)]) == 0
    kept = tmp_path / "lorebooks" / "toaru.json"
    assert kept.read_bytes() == (DATA / "Toaru.json").read_bytes()
    assert 'lorebooks = ["toaru"]' in capsys.readouterr().out
    book = read_lorebook(kept)
    assert len(book.entries) == 18 and all(e.keys for e in book.entries)
    assert book.entries[0].insertion_order == json.loads(kept.read_text())["entries"]["0"]["order"]


def test_a_cards_world_link_is_followed_to_the_file_beside_it(tmp_path, capsys):
    folder = tmp_path / "download"
    folder.mkdir()
    for name in ("seraphina.png", "Eldoria.json"):
        (folder / name).write_bytes((DATA / name).read_bytes())
    assert main(["import", str(folder / "seraphina.png"), "--dir", str(tmp_path)]) == 0
    assert (tmp_path / "lorebooks" / "eldoria.json").read_bytes() == (DATA / "Eldoria.json").read_bytes()
    assert load_character(tmp_path / "characters" / "seraphina.toml").lorebooks == ["eldoria"]
    # without the file, import says where to put it
    (tmp_path / "characters" / "seraphina.toml").unlink()
    (tmp_path / "characters" / "seraphina.png").unlink()
    (tmp_path / "lorebooks" / "eldoria.json").unlink()
    (folder / "Eldoria.json").unlink()
    assert main(["import", str(folder / "seraphina.png"), "--dir", str(tmp_path)]) == 0
    assert "put Eldoria.json there" in capsys.readouterr().out


@pytest.mark.parametrize("world", ["../secret", "../../etc/passwd", "/etc/passwd", "sub/Eldoria", "..", "x\\..\\y"])
def test_a_cards_world_link_is_never_followed_out_of_its_folder(tmp_path, capsys, world):
    folder = tmp_path / "download"
    folder.mkdir()
    (tmp_path / "secret.json").write_bytes((DATA / "Eldoria.json").read_bytes())  # a real World Info file
    card = json.loads(json.dumps(ILSE))
    card["data"]["extensions"] = {"world": world}
    code, out = _import(tmp_path / "download", "linked.json", json.dumps(card).encode(), capsys)
    assert code == 2 and "field 'extensions.world'" in out.err and "fix: give the World Info file's name alone" in out.err
    assert "Traceback" not in out.err and out.err.count("\n") == 2
    assert not (tmp_path / "download" / "lorebooks").exists() and not (tmp_path / "download" / "characters").exists()


def test_a_sheet_names_lorebooks_only_beside_it_or_in_the_projects_lorebooks(tmp_path, capsys, monkeypatch):
    from studio.model.errors import InputError
    from studio.model.lorebook import load_lorebooks

    assert main(["import", str(DATA / "Eldoria.json"), "--dir", str(tmp_path)]) == 0
    (tmp_path / "characters").mkdir()
    sheet = tmp_path / "characters" / "x.toml"
    (tmp_path / "characters" / "near.json").write_bytes((DATA / "Eldoria.json").read_bytes())
    assert load_lorebooks(["near.json"], sheet) and load_lorebooks(["../lorebooks/eldoria.json"], sheet)
    outside = tmp_path.parent / f"{tmp_path.name}-elsewhere.json"
    outside.write_bytes((DATA / "Eldoria.json").read_bytes())
    try:
        for ref in (str(outside), f"../../{outside.name}", "../characters/../../x.json"):
            with pytest.raises(InputError, match="outside this file's folder") as caught:
                load_lorebooks([ref], sheet)
            assert caught.value.field == "lorebooks" and "lorebooks/" in (caught.value.fix or "")
    finally:
        outside.unlink()


# -- wrong types and hostile files --------------------------------------------------------------------


@pytest.mark.parametrize("change,field", [
    ({"tags": 5}, "data.tags"),
    ({"alternate_greetings": 5}, "data.alternate_greetings"),
    ({"alternate_greetings": ["ok", 5]}, "data.alternate_greetings"),
    ({"description": 5}, "data.description"),
    ({"name": ["a"]}, "data.name"),
    ({"extensions": {"studio": {"prompt": 5}}}, "data.extensions.studio.prompt"),
    ({"extensions": 5}, "data.extensions"),
    ({"character_book": {"entries": [{"keys": 5, "content": "x"}]}}, "data.character_book.entries[0].keys"),
    ({"character_book": {"entries": 5}}, "data.character_book.entries"),
    ({"character_book": 5}, "data.character_book"),
])
def test_card_fields_of_the_wrong_type_get_one_message_naming_them(tmp_path, capsys, change, field):
    card = json.loads(json.dumps(ILSE))
    card["data"].update(change)
    code, out = _import(tmp_path, "bad.json", json.dumps(card).encode(), capsys)
    assert code == 2 and f"field '{field}'" in out.err and "fix:" in out.err
    assert "Traceback" not in out.err and out.err.count("\n") == 2
    assert not (tmp_path / "characters").exists()


@pytest.mark.parametrize("depth", [150, 990, 100_000])
def test_json_nested_deeper_than_any_card_is_one_message(tmp_path, capsys, depth):
    deep = b'{"spec": "chara_card_v2", "data": {"name": "D", "extensions": {"x": ' + b"[" * depth + b"]" * depth + b"}}}"
    code, out = _import(tmp_path, "deep.json", deep, capsys)
    assert code == 2 and "nested more than 100 levels deep" in out.err and "Traceback" not in out.err


def test_a_sheet_or_play_finds_the_lorebooks_it_names(tmp_path, capsys, monkeypatch):
    from studio.model.errors import InputError
    from studio.model.lorebook import load_lorebooks

    assert main(["import", str(DATA / "Eldoria.json"), "--dir", str(tmp_path)]) == 0
    (tmp_path / "characters").mkdir()
    sheet = tmp_path / "characters" / "x.toml"
    (books,) = load_lorebooks(["eldoria"], sheet)
    assert [e.label for e in books.entries] == ["eldoria", "shadowfang", "glade", "power"]
    (by_path,) = load_lorebooks(["../lorebooks/eldoria.json"], sheet)
    assert by_path == books
    monkeypatch.chdir(tmp_path)
    with pytest.raises(InputError, match="names 'atlantis'"):
        load_lorebooks(["atlantis"], sheet)


def test_a_damaged_ccv3_chunk_falls_back_to_the_chara_copy_beside_it(tmp_path, capsys):
    damaged = png(chunk(b"tEXt", b"chara\0" + b64(ILSE)), chunk(b"tEXt", b"ccv3\0not*base64!!"))
    code, out = _import(tmp_path, "both.png", damaged, capsys)
    assert code == 0, out.err
    assert load_character(tmp_path / "characters" / "captain_ilse.toml").name == "Captain Ilse"
