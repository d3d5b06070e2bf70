"""Every kind of backstage event can be shown and exported: `show --backstage` on a game crashed on its goals."""

from __future__ import annotations

from conftest import PLAYS
from studio.cli import main
from studio.engine import script
from studio.store import events as ev
from studio import terminal


def test_every_backstage_kind_has_words_in_the_terminal_and_in_exports():
    assert set(ev.BACKSTAGE) <= set(terminal._BACKSTAGE_LABEL)
    assert set(ev.BACKSTAGE) <= set(script._BACKSTAGE_VERBS)


def test_a_game_is_shown_and_exported_with_its_backstage(tmp_path, capsys):
    db = str(tmp_path / "s.db")
    assert main(["run", str(PLAYS / "island.toml"), "--model", "scripted", "--db", db]) == 0
    capsys.readouterr()
    assert main(["show", "1", "--backstage", "--db", db]) == 0
    shown = capsys.readouterr().out
    assert "sets goals:" in shown and "votes:" in shown
    out = tmp_path / "game.md"
    assert main(["export", "1", "--backstage", "--format", "markdown", "--out", str(out), "--db", db]) == 0
    assert "votes, in secret" in out.read_text()
