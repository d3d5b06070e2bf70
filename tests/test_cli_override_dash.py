"""`studio override RUN EVENT ---`: a new line that starts with `-` reads as an option, and the
refusal says how to give it; given after `--`, the line is taken as written."""

from __future__ import annotations

import json

from conftest import ROOT
from test_cli import studio


def test_a_line_that_starts_with_a_dash_is_refused_with_the_fix(tmp_path):
    db = tmp_path / "s.db"
    studio("run", ROOT / "plays" / "interview.toml", "--model", "scripted", "--turns", "1", "--strategies", "none", db=db)
    lines = [json.loads(x) for x in studio("show", "1", "--json", db=db).stdout.splitlines()]
    ego = next(e for e in lines if e["role"] == "ego" and e["kind"] == "stage")
    refused = studio("override", "1", ego["id"], "---", db=db)
    assert refused.returncode == 2 and "Traceback" not in refused.stderr
    assert "studio override RUN EVENT -- '---'" in refused.stderr
    taken = studio("override", "1", ego["id"], "--", "---", db=db)
    assert taken.returncode == 0, taken.stderr
    now = [json.loads(x) for x in studio("show", "1", "--json", db=db).stdout.splitlines()]
    assert any(e["text"] == "---" and e["origin"] == "override" for e in now)
