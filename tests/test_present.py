"""studio.present is pure: it renders events and knows no Textual, so the CLI can print with it and the
app can draw with it alike."""

from __future__ import annotations

import subprocess
import sys
from types import SimpleNamespace

from conftest import ROOT
from studio.present.stage import BACKSTAGE_LABELS, backstage_label, line_style, tag, take_counts
from studio.store import events as ev


def test_the_renderers_load_without_textual():
    code = (
        "import sys; import studio.present.stage, studio.present.words, studio.present.game, "
        "studio.present.mind, studio.present.terminal; "
        "print(','.join(m for m in ('textual', 'studio.tui') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == ""


def _line(id_, parent, role="other", kind=ev.STAGE, origin="model", data=None):
    return SimpleNamespace(id=id_, parent=parent, role=role, kind=kind, origin=origin, data=data or {})


def test_takes_are_counted_per_line_and_said_in_its_tag():
    events = [_line(1, None, kind=ev.SCENE, role=None), _line(2, 1), _line(3, 1), _line(4, 1, origin="human"),
              _line(5, 2, role="ego")]
    counts = take_counts(events)
    assert counts == {2: (1, 3), 3: (2, 3), 4: (3, 3)}
    assert tag(events[3], counts) == "yours · take 3/3"
    assert tag(events[4], counts) == ""
    starred = {2: SimpleNamespace(starred=True, name="the quiet one")}
    assert tag(events[1], counts, starred) == "★ · “the quiet one” · take 1/3"
    # a line an edit before it copied onto the new take says so, beside who wrote it
    assert tag(_line(9, 8, origin="human", data={"kept": 4}), {}) == "yours · kept"


def test_every_backstage_kind_reads_and_directions_lean():
    assert all(backstage_label(kind) for kind in ev.BACKSTAGE)
    assert backstage_label(ev.VOTE) == BACKSTAGE_LABELS[ev.VOTE] == "votes"
    assert line_style(ev.DIRECTION, "other") == "italic" and line_style(ev.STAGE, "director") == "italic"
    assert line_style(ev.DRAFT, "ego") == "dim italic" and line_style(ev.STAGE, "ego") == ""
