"""A huge --scenes is refused before anything is built from it (it once padded a brief list to 9 GB)."""

from __future__ import annotations

import resource
from pathlib import Path

import pytest

from studio.cli import build_parser
from studio.model.errors import InputError

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize("count", ["100000000", "1000000000000"])
def test_a_huge_scene_count_fails_at_once_in_little_memory(tmp_path, count):
    args = build_parser().parse_args(["run", str(ROOT / "plays/detective.toml"), "--model", "scripted",
                                      "--scenes", count, "--db", str(tmp_path / "s.db")])
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    with pytest.raises(InputError) as info:
        args.func(args)
    assert "scenes" in info.value.message
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100_000  # KiB: under 100 MB grown
