"""Plays that would run without a word where they should be refused: each is one message naming the file,
the field and the fix, and exit 2, before anything is played or saved."""

from __future__ import annotations

import pytest

from test_cli import bad, studio, workdir  # noqa: F401  (fixture)


def _ensemble(workdir, change):
    play = workdir / "plays" / "last_crossing.toml"
    play.write_text(change(play.read_text()))
    return play


@pytest.mark.parametrize("policy", ["moderator", "director"])
def test_a_turn_policy_naming_an_empty_seat_is_refused(workdir, policy):
    play = _ensemble(workdir, lambda t: t.replace('next = "moderator"', f'next = "{policy}"')
                     .replace('[cast.moderator]\ncharacter = "chart_ferry"\n', ""))
    result = studio("run", play, "--model", "scripted", db=workdir / "s.db")
    bad(result, str(play), "'next'", f"[cast.{policy}]")
    assert not (workdir / "s.db").exists() or "Run 1" not in studio("runs", db=workdir / "s.db").stdout


@pytest.mark.parametrize("rule", ["pd_always_defect", "pd_tit_for_tat_c"])
def test_a_dilemma_rule_on_an_ensemble_seat_is_refused(workdir, rule):
    play = _ensemble(workdir, lambda t: t.replace('character = "oskar_ferry"', f'character = "oskar_ferry"\nrule = "{rule}"'))
    message = bad(studio("run", play, "--model", "scripted", db=workdir / "s.db"), str(play),
                  "cast.characters[3].rule", "fix:")
    assert "listens" in message  # the fix names the rules this form can use


@pytest.mark.parametrize("seat", ["ego", "superego"])
def test_a_drama_machine_seat_in_an_ensemble_is_refused(workdir, seat):
    play = _ensemble(workdir, lambda t: t + f'\n[cast.{seat}]\ncharacter = "jenny"\n')
    bad(studio("run", play, "--model", "scripted", db=workdir / "s.db"), str(play), f"cast.{seat}", "[[cast.characters]]")


def test_the_shipped_ensemble_still_plays(workdir):
    play = workdir / "plays" / "last_crossing.toml"
    result = studio("run", play, "--model", "scripted", "--turns", "2", "--scenes", "1", db=workdir / "s.db")
    assert result.returncode == 0, result.stderr


@pytest.mark.parametrize("name", ["", "   "])
def test_show_as_nobody_is_refused_not_the_whole_run(tmp_path, name):
    from conftest import ROOT

    db = tmp_path / "s.db"
    played = studio("run", ROOT / "plays" / "interview.toml", "--model", "scripted", "--turns", "2", db=db)
    assert played.returncode == 0, played.stderr
    bad(studio("show", "1", "--as", name, db=db), "--as", "use one of")
