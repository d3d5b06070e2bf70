"""SillyTavern's own reader and validator accept every card the studio exports, PNG and JSON, V2 and V3,
and read back what the studio wrote."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from studio.cli import main
from st_reader import needs_sillytavern, read

ROOT = Path(__file__).resolve().parents[1]
DATA = ROOT / "tests" / "data" / "cards"
CARDS = sorted(p.name for p in DATA.iterdir() if p.suffix in (".json", ".png") and p.name not in ("Eldoria.json", "Toaru.json"))


@needs_sillytavern
@pytest.mark.parametrize("spec", ["v2", "v3"])
@pytest.mark.parametrize("name", CARDS)
def test_sillytavern_reads_and_validates_every_export(tmp_path, capsys, name, spec):
    assert main(["import", str(DATA / name), "--dir", str(tmp_path)]) == 0
    sheet = next((tmp_path / "characters").glob("*.toml"))
    for suffix in (".json", ".png"):
        out = tmp_path / f"card{suffix}"
        assert main(["export-card", str(sheet), "--out", str(out), "--spec", spec]) == 0
        found = read(out)
        assert found["version"] in (1, 2, 3), (suffix, found["error"])
        # the card passes its own version's rules, not only the V1 fields it may carry beside `data`
        assert found[spec] is True
        assert found["card"]["spec"] == ("chara_card_v3" if spec == "v3" else "chara_card_v2")
        written = json.loads(out.read_text()) if suffix == ".json" else None
        if written is not None:
            assert found["card"] == written


@needs_sillytavern
def test_sillytavern_validates_a_v2_export_as_v2(tmp_path, capsys):
    assert main(["import", str(DATA / "saltcombe.v2.json"), "--dir", str(tmp_path)]) == 0
    out = tmp_path / "saltcombe.png"
    assert main(["export-card", str(tmp_path / "characters" / "saltcombe.toml"), "--out", str(out)]) == 0
    found = read(out)
    assert found["version"] == 2 and found["v2"] and found["card"]["data"]["name"] == "Saltcombe"
    assert len(found["card"]["data"]["character_book"]["entries"]) == 24


@needs_sillytavern
def test_sillytavern_reads_a_studio_sheet_on_its_portrait(tmp_path):
    out = tmp_path / "mara.png"
    assert main(["export-card", str(ROOT / "characters" / "mara_lighthouse.toml"), "--out", str(out), "--spec", "v3"]) == 0
    found = read(out)
    assert found["version"] == 3 and found["card"]["data"]["name"] == "Mara"
