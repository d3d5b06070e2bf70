"""In-place edits of the playwright's files: only what changed changes."""

from __future__ import annotations

import shutil
import tomllib
from pathlib import Path

import pytest

from studio.model import CharacterSheet, InputError, load_character
from studio.engine.forms import load_play
from studio.model.edit import save_character, save_play, set_values
from studio.model.play import Play

ROOT = Path(__file__).resolve().parent.parent

SHEET = '''# Jenny, as the playwright keeps her
name = "Jenny"  # who she is on the page
description = "An office administrator."

# the voice: keep it long
prompt = """
You are Jenny.
You speak in small scenes.
"""
temperature = 0.9
'''


@pytest.fixture
def sheet_file(tmp_path: Path) -> Path:
    path = tmp_path / "jenny.toml"
    path.write_text(SHEET, encoding="utf-8")
    return path


def test_a_save_without_changes_leaves_the_file_byte_identical(sheet_file: Path) -> None:
    before = sheet_file.read_bytes()
    mtime = sheet_file.stat().st_mtime_ns
    assert save_character(load_character(sheet_file), sheet_file) is False
    assert sheet_file.read_bytes() == before
    assert sheet_file.stat().st_mtime_ns == mtime


def test_the_shipped_files_survive_a_no_change_save(tmp_path: Path) -> None:
    for src in [*(ROOT / "characters").glob("*.toml")]:
        copy = tmp_path / src.name
        shutil.copy(src, copy)
        save_character(load_character(copy), copy)
        assert copy.read_bytes() == src.read_bytes(), src.name
    for src in (ROOT / "plays").glob("*.toml"):
        copy = tmp_path / src.name
        shutil.copy(src, copy)
        save_play(load_play(copy), copy)
        assert copy.read_bytes() == src.read_bytes(), src.name


def test_only_the_changed_value_changes(sheet_file: Path) -> None:
    sheet = load_character(sheet_file)
    save_character(sheet.model_copy(update={"temperature": 0.5}), sheet_file)
    assert sheet_file.read_text() == SHEET.replace("temperature = 0.9", "temperature = 0.5")


def test_a_multi_line_prompt_stays_multi_line_with_its_comments(sheet_file: Path) -> None:
    sheet = load_character(sheet_file)
    new_prompt = 'You are Jenny.\nYou say """what""" you mean.\nA back\\slash.'
    save_character(sheet.model_copy(update={"prompt": new_prompt}), sheet_file)
    text = sheet_file.read_text()
    assert text.startswith("# Jenny, as the playwright keeps her\nname = \"Jenny\"  # who she is on the page\n")
    assert "# the voice: keep it long\nprompt = \"\"\"\nYou are Jenny.\n" in text
    assert text.endswith("temperature = 0.9\n")
    assert load_character(sheet_file).prompt == new_prompt


def test_a_removed_optional_field_goes_and_a_new_one_is_added(sheet_file: Path) -> None:
    sheet = load_character(sheet_file)
    save_character(sheet.model_copy(update={"temperature": None, "model": "scripted"}), sheet_file)
    data = tomllib.loads(sheet_file.read_text())
    assert "temperature" not in data and data["model"] == "scripted"
    assert "# the voice: keep it long" in sheet_file.read_text()


def test_an_invalid_edit_is_refused_and_the_file_kept(sheet_file: Path) -> None:
    with pytest.raises(InputError) as caught:
        set_values(sheet_file, CharacterSheet, {"temperature": 7.0})
    assert "temperature" in caught.value.message and str(sheet_file) in caught.value.message
    assert sheet_file.read_text() == SHEET


def test_a_play_edit_keeps_its_layout(tmp_path: Path) -> None:
    src = ROOT / "plays" / "detective.toml"
    copy = tmp_path / "detective.toml"
    shutil.copy(src, copy)
    play = load_play(copy)
    briefs = list(play.scenes) + ["A fourth scene: the morning after."]  # type: ignore[operator]
    briefs[0] = "Closing time. A body behind the bar."
    others = [m.model_copy() for m in play.cast.others]
    changed = play.model_copy(update={"scenes": briefs, "turns": 6})
    save_play(changed, copy)
    text = copy.read_text()
    original = src.read_text()
    assert text.startswith(original[: original.index("seed = 11")])  # the title and the """ premise
    assert "turns = 6" in text and "[cast.superego.critique]\nevery = 1" in text
    reread = load_play(copy)
    assert reread.scenes == briefs and reread.turns == 6 and reread.cast.others == others
    assert isinstance(reread, Play)


from hypothesis import HealthCheck, example, given, settings, strategies as st  # noqa: E402

_text = st.text(st.characters(blacklist_categories=("Cs",)), min_size=1, max_size=200).filter(lambda t: t.strip())


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(prompt=_text, description=st.text(st.characters(blacklist_categories=("Cs",)), max_size=80))
@example(prompt="0\r\n0", description="")  # found by hypothesis: a raw CR came back as a plain line break
def test_any_text_round_trips_and_the_rest_of_the_file_stays(tmp_path_factory, prompt: str, description: str) -> None:
    path = tmp_path_factory.mktemp("sheet") / "x.toml"
    path.write_text(SHEET, encoding="utf-8")
    sheet = load_character(path)
    wanted = sheet.model_copy(update={"prompt": prompt.strip(), "description": description.strip()})
    save_character(wanted, path)
    again = load_character(path)
    assert again.prompt == prompt.strip() and again.description == description.strip()
    text = path.read_text(encoding="utf-8")
    assert "# Jenny, as the playwright keeps her" in text and "# the voice: keep it long" in text
    assert text.endswith("temperature = 0.9\n")
    before = path.read_bytes()
    save_character(again, path)
    assert path.read_bytes() == before
