"""Starting from nothing: `studio new`, and the $EDITOR round trip."""

from __future__ import annotations

import stat
import tomllib
from pathlib import Path

import pytest

from studio.commands.new import _edit_and_check
from studio.model.starter import new_character, new_play
from studio.editor import EditorError, edit_text
from studio.model import InputError, load_character
from studio.engine.forms import load_play, resolve_cast
from test_cli import studio


def stub_editor(tmp_path: Path, body: str) -> str:
    """An 'editor' that edits its file with a shell command, as a playwright would by hand."""
    script = tmp_path / "editor.sh"
    script.write_text("#!/bin/sh\n" + body + "\n")
    script.chmod(script.stat().st_mode | stat.S_IEXEC)
    return str(script)


def test_new_play_writes_a_commented_play_that_runs_at_once(tmp_path: Path) -> None:
    result = studio("new", "play", "The Long Goodbye", "--other", "Marlowe", "--dir", tmp_path, "--no-edit")
    assert result.returncode == 0, result.stderr
    play_path = tmp_path / "plays" / "the_long_goodbye.toml"
    assert str(play_path) in result.stdout
    text = play_path.read_text()
    # every field explained, the optional ones there but off
    for line in ("# The title on", "# Turns per scene", "# seed = 0", "# epilogue = true", "# [cast.director]"):
        assert line in text
    play = load_play(play_path)
    assert play.title == "The Long Goodbye"
    cast = resolve_cast(play, play_path, model="scripted")
    assert [r.name for r in cast.roles] == ["protagonist", "Marlowe"]
    sheet_text = (tmp_path / "characters" / "marlowe.toml").read_text()
    assert "# temperature = 0.8" in sheet_text and 'name = "Marlowe"' in sheet_text


def test_new_character_escapes_a_name_and_refuses_to_overwrite(tmp_path: Path) -> None:
    path = new_character(tmp_path, 'Ma "Bear" \\ Barker')
    assert load_character(path).name == 'Ma "Bear" \\ Barker'
    before = path.read_bytes()
    result = studio("new", "character", 'Ma "Bear" \\ Barker', "--dir", tmp_path, "--no-edit")
    assert result.returncode == 2
    assert "already exists" in result.stderr and "Traceback" not in result.stderr
    assert path.read_bytes() == before


def test_a_play_naming_existing_characters_leaves_them_alone(tmp_path: Path) -> None:
    first = new_character(tmp_path, "Jenny")
    first.write_text(first.read_text().replace("as the others see them", "the office manager"))
    kept = first.read_text()
    _, created = new_play(tmp_path, "Again", ego="Jenny", others=["Sasha"])
    assert first.read_text() == kept
    assert [p.name for p in created] == ["sasha.toml"]


def test_edit_text_round_trips_through_the_editor(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", stub_editor(tmp_path, 'sed -i "s/calm/furious/" "$1"'))
    assert edit_text("She is calm.\nShe waits.") == "She is furious.\nShe waits."


def test_editor_failures_leave_the_text(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.delenv("EDITOR", raising=False)
    with pytest.raises(EditorError, match="set \\$EDITOR"):
        edit_text("x")
    monkeypatch.setenv("EDITOR", stub_editor(tmp_path, "exit 3"))
    with pytest.raises(EditorError, match="status 3"):
        edit_text("x")


def test_a_play_broken_in_the_editor_is_reported_and_kept(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path, _ = new_play(tmp_path, "Broken")
    monkeypatch.delenv("VISUAL", raising=False)
    monkeypatch.setenv("EDITOR", stub_editor(tmp_path, 'sed -i "s/^turns = 6/turns = 0/" "$1"'))
    with pytest.raises(InputError) as caught:
        _edit_and_check(path, load_play)
    assert "turns" in caught.value.message
    assert tomllib.loads(path.read_text())["turns"] == 0  # the playwright's edit is kept to fix


# -- the title page: the playwright's own defaults, asked for or flagged --------------------------------


def test_settings_keep_the_author_and_a_new_play_starts_with_it(tmp_path: Path) -> None:
    shown = studio("settings")
    assert shown.returncode == 0 and "author: (none)" in shown.stdout
    set_ = studio("settings", "--author", "Ana Kay", "--contact", "ana@example.com")
    assert set_.returncode == 0, set_.stderr
    assert "author: Ana Kay" in set_.stdout and "contact: ana@example.com" in set_.stdout
    # no terminal: the settings' defaults, no question asked
    result = studio("new", "play", "The Visit", "--dir", tmp_path, "--no-edit")
    assert result.returncode == 0, result.stderr
    play = load_play(tmp_path / "plays" / "the_visit.toml")
    assert (play.author, play.contact, play.credit, play.draft_date) == ("Ana Kay", "ana@example.com", "", "")
    text = (tmp_path / "plays" / "the_visit.toml").read_text()
    assert "# credit = " in text and "# draft_date = " in text and "Anonymous" not in text


def test_new_play_flags_set_the_whole_title_page(tmp_path: Path) -> None:
    studio("settings", "--author", "Ana Kay")
    result = studio("new", "play", "The Visit", "--dir", tmp_path, "--no-edit", "--author", "Ida Lake",
                    "--credit", "Story by", "--draft-date", "First draft", "--contact", "ida@example.com")
    assert result.returncode == 0, result.stderr
    play = load_play(tmp_path / "plays" / "the_visit.toml")
    assert (play.author, play.credit, play.draft_date, play.contact) == (
        "Ida Lake", "Story by", "First draft", "ida@example.com")


def test_new_play_in_a_terminal_asks_with_the_default_offered(tmp_path: Path) -> None:
    import argparse

    from studio.commands.new import title_page

    studio("settings", "--author", "Ana Kay")
    asked: list[str] = []
    answers = iter(["", "Adapted by", "ana@example.com"])

    def ask(question: str) -> str:
        asked.append(question)
        return next(answers)

    args = argparse.Namespace(author=None, credit=None, draft_date="Third draft", contact=None)
    page = title_page(args, interactive=True, ask=ask)
    assert asked[0] == "Author [Ana Kay]: " and len(asked) == 3  # the flag's field is not asked
    assert page == {"author": "Ana Kay", "credit": "Adapted by", "draft_date": "Third draft",
                    "contact": "ana@example.com"}


def test_a_bad_title_page_value_is_named_and_nothing_is_written(tmp_path: Path) -> None:
    result = studio("new", "play", "The Visit", "--dir", tmp_path, "--no-edit", "--author", "Ana\x1b[31mKay\nx")
    assert result.returncode == 2 and "--author" in result.stderr and "one line" in result.stderr
    assert "Traceback" not in result.stderr and "\x1b" not in result.stderr
    assert not (tmp_path / "plays").exists()
    result = studio("settings", "--author", "x" * 500)
    assert result.returncode == 2 and "--author" in result.stderr and "Traceback" not in result.stderr
    assert "author: (none)" in studio("settings").stdout  # nothing saved
