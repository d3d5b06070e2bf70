"""Sizes from the command line and the file obey one set of bounds, checked before anything is saved."""

from __future__ import annotations

import resource
import subprocess
import sys
from pathlib import Path

import pytest

from studio.model.errors import InputError
from studio.model.play import SCENES_MAX, TEXT_MAX, TURNS_MAX
from studio.store import Store

ROOT = Path(__file__).resolve().parents[1]


def _run(args, db, env_extra=None):
    import os

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "studio.cli", *args, "--db", str(db)], capture_output=True,
                          text=True, cwd=ROOT, env=env, timeout=120)


def _runs(db: Path) -> int:
    if not db.exists():
        return 0
    return len(Store(db).runs())


@pytest.mark.parametrize("flags,flag", [
    (["--turns", str(TURNS_MAX + 1)], "--turns"),
    (["--turns", "0"], "--turns"),
    (["--scenes", str(SCENES_MAX + 1)], "--scenes"),
    (["--scenes", "100000000"], "--scenes"),
    (["--scenes", "-3"], "--scenes"),
])
def test_out_of_bounds_overrides_stop_before_a_run_is_saved(tmp_path, flags, flag):
    db = tmp_path / "s.db"
    out = _run(["run", "plays/detective.toml", "--model", "scripted", *flags], db)
    assert out.returncode == 2, out.stderr
    assert flag in out.stderr and "Traceback" not in out.stderr
    assert _runs(db) == 0


def test_a_huge_scene_count_does_not_allocate():
    """The check comes before the brief list is padded: 10^8 scenes must fail at once, in little memory."""
    from argparse import Namespace

    from studio.cli import cmd_run

    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    args = Namespace(play=str(ROOT / "plays/detective.toml"), turns=None, scenes=100_000_000, seed=None,
                     model="scripted", role=[], no_superego=False, strategies=None, db=None, backstage=False)
    with pytest.raises(InputError) as info:
        cmd_run(args)
    assert info.value.where == "--scenes"
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB: under 100 MB


def _play(tmp_path: Path, **fields: str) -> Path:
    prompt = fields.get("prompt", "You are Ann.")
    (tmp_path / "characters").mkdir()
    (tmp_path / "characters" / "ann.toml").write_text(f'name = "Ann"\nprompt = """{prompt}"""\n')
    (tmp_path / "characters" / "bo.toml").write_text('name = "Bo"\nprompt = "You are Bo."\n')
    title = fields.get("title", "T")
    play = tmp_path / "p.toml"
    play.write_text(f'title = """{title}"""\nturns = 2\n[cast]\nego = {{ character = "ann" }}\n'
                    'others = [{ character = "bo" }]\n')
    return play


@pytest.mark.parametrize("fields,where,field", [
    ({"prompt": "x" * (TEXT_MAX + 1)}, "ann.toml", "prompt"),
    ({"title": "y" * 1000}, "p.toml", "title"),
])
def test_oversized_texts_are_refused_with_file_and_field(tmp_path, fields, where, field):
    db = tmp_path / "s.db"
    out = _run(["run", str(_play(tmp_path, **fields)), "--model", "scripted"], db)
    assert out.returncode == 2
    assert where in out.stderr and f"'{field}'" in out.stderr and "characters)" in out.stderr
    assert "xxxxxxxxxx" not in out.stderr and "yyyyyyyyyy" not in out.stderr  # the text is not echoed
    assert _runs(db) == 0


def test_a_key_in_the_wrong_field_is_not_echoed(tmp_path):
    (tmp_path / "characters").mkdir()
    (tmp_path / "characters" / "ann.toml").write_text(
        'name = "Ann"\nprompt = "You are Ann."\ntemperature = "sk-live-abc123def456ghi789"\n')
    (tmp_path / "characters" / "bo.toml").write_text('name = "Bo"\nprompt = "You are Bo."\n')
    play = tmp_path / "p.toml"
    play.write_text('title = "T"\n[cast]\nego = { character = "ann" }\nothers = [{ character = "bo" }]\n')
    out = _run(["run", str(play), "--model", "scripted"], tmp_path / "s.db")
    assert out.returncode == 2 and "temperature" in out.stderr
    assert "abc123" not in out.stderr and "looks like a key" in out.stderr


def test_bounds_in_range_still_run(tmp_path):
    db = tmp_path / "s.db"
    out = _run(["run", "plays/interview.toml", "--model", "scripted", "--turns", "1", "--scenes", "1"], db)
    assert out.returncode == 0, out.stderr
    assert _runs(db) == 1
