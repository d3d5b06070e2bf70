"""The newer surfaces under bad input and interruption: ensembles, experiment tables, facts, typed lines,
votes. Every case ends with one message and exit 2 (or the right behaviour), never a traceback."""

from __future__ import annotations

import pytest

from conftest import ROOT
from test_cli import bad, studio, workdir  # noqa: F401  (fixture)

INTERVIEW = ROOT / "plays" / "interview.toml"


def test_ctrl_c_in_the_middle_of_a_streamed_line_marks_it_unsaved(tmp_path, monkeypatch):
    from studio.present import terminal

    shown = terminal.StagePrinter.token
    pieces: list[str] = []

    def token(self, step, piece):
        shown(self, step, piece)
        pieces.append(piece)
        if len(pieces) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(terminal.StagePrinter, "token", token)
    result = studio("run", INTERVIEW, "--model", "scripted", db=tmp_path / "s.db")
    assert result.returncode == 130
    half = "".join(pieces)
    line = next(row for row in result.stdout.splitlines() if half.strip() and half.strip() in row)
    assert "not saved" in line  # the half line itself says it was never kept
    assert studio("show", "1", db=tmp_path / "s.db").stdout.count(half.strip()) == 0
