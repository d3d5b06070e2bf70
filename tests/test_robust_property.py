"""The property: whatever text a file or a model holds, every command shows it as text.

Titles, names and model lines are drawn from text rich in Rich markup, terminal escapes, control
characters, bidirectional marks and wide characters. For each, `run`, `runs`, `show`, and every export
must end normally (or refuse the file with exit 2 and one message), and no escape or control character
may reach the output.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import tempfile
from pathlib import Path

import pytest
import tomli_w
from hypothesis import HealthCheck, given, settings, strategies as st

from conftest import ROOT
from test_cli import studio

PIECES = ["[/]", "[bold]", "[link=http://x]", "\x1b]0;t\x07", "\x1b[2J", "\x1b[?1049h", "\x1b]8;;http://x\x1b\\",
          "\x07", "\x00", "\r", "\n", "\t", "\u202e", "\u200b", "界", "é", "*", "_", ":", "(", "INT.", "Sasha:"]
nasty = st.lists(st.one_of(st.sampled_from(PIECES), st.text(max_size=6)), min_size=1, max_size=8).map("".join)
RAW = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")
# What a file may hold in a name or a title: anything printable (control characters are refused, below).
printable = nasty.map(lambda s: re.sub(r"[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]", "", s)).filter(lambda s: s.strip())


def _spoil(work: Path, title: str, name: str, sheet: str = "jenny") -> Path:
    """A copy of the interview in `work` with the given title and one character renamed; returns the play."""
    import tomllib

    shutil.copytree(ROOT / "plays", work / "plays")
    shutil.copytree(ROOT / "characters", work / "characters")
    play = work / "plays" / "interview.toml"
    data = tomllib.loads(play.read_text())
    data.update(title=title, turns=1)
    play.write_text(tomli_w.dumps(data))
    path = work / "characters" / f"{sheet}.toml"
    character = tomllib.loads(path.read_text())
    character["name"] = name
    path.write_text(tomli_w.dumps(character))
    return play


def _check(result, allowed=(0,)):
    assert "Traceback" not in result.stderr, result.stderr
    assert result.returncode in allowed, (result.returncode, result.stdout[-500:], result.stderr[-500:])
    assert not RAW.search(result.stdout), repr(result.stdout[-300:])
    assert not RAW.search(result.stderr), repr(result.stderr[-300:])


@pytest.mark.typed_braces  # a name typed "{{" is the character's name, sent as written
def test_any_text_is_shown_as_text_everywhere():
    """Any title, name and line is shown as text by every command; and the property means something only
    if most drawn cases got past loading, which is counted here, in the same test, so it holds when the
    test runs alone or in any worker."""
    completed: list[str] = []

    @settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(title=printable, name=printable, line=nasty)
    def any_text(title, name, line):
        if _shown_as_text(title, name, line):
            completed.append(name)

    any_text()
    assert len(completed) >= 10, completed


def _shown_as_text(title, name, line) -> bool:
    """One drawn case through run, runs, show and every export; False if the file was refused (as it may be)."""
    from studio.llm import scripted

    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        play = _spoil(work, title, name)
        db = work / "s.db"
        scripted.queue(line, task="speak", role="other")
        run = studio("run", play, "--model", "scripted", db=db)
        _check(run, allowed=(0, 2))
        if run.returncode == 2:  # the file was refused: one message naming the file, nothing saved
            assert str(play.name) in run.stderr or "jenny.toml" in run.stderr or "characters" in run.stderr
            assert not db.exists() or studio("runs", db=db).stdout.count("\n") <= 1
            return False
        _check(studio("runs", db=db))
        _check(studio("show", "1", "--backstage", db=db))
        for fmt in ("fountain", "markdown", "pdf"):
            out = work / f"x.{fmt}"
            _check(studio("export", "1", "--format", fmt, "--out", str(out), db=db))
            if fmt != "pdf":
                assert not RAW.search(out.read_text(encoding="utf-8"))
        return True


@given(bad=st.sampled_from(["\x1b[2J", "\n", "\t", "\x07", "\u2028", "\x00", "\u202e", "\u2066"]), where=st.sampled_from(["title", "name"]))
@settings(max_examples=12, deadline=None)
def test_control_characters_in_a_name_or_title_are_refused_with_the_field(bad, where):
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        shutil.copytree(ROOT / "plays", work / "plays")
        shutil.copytree(ROOT / "characters", work / "characters")
        import tomllib

        target = work / "plays" / "interview.toml" if where == "title" else work / "characters" / "jenny.toml"
        data = tomllib.loads(target.read_text())
        data[where] = f"Ann{bad}ie"
        target.write_text(tomli_w.dumps(data))
        result = studio("run", work / "plays" / "interview.toml", "--model", "scripted", db=work / "s.db")
        assert result.returncode == 2 and f"field '{where}'" in result.stderr and "one line" in result.stderr
        assert not RAW.search(result.stderr)


CASES = [
    ("Act [/] One", "Mal [/]", "Hello \x1b]0;t\x07[bold]there[/] \x1b[2Jnow."),
    ("[link=http://x]Click[/link]", "[bold red]Loud", "\x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\ and \x07bell."),
    ("مسرحية الليل", "界 Wide", "Sasha: not a cue \x1b[?1049h [/] end."),
]


@pytest.mark.parametrize("title, name, line", CASES)
def test_the_app_stage_shows_any_text_as_text(tmp_path, monkeypatch, title, name, line):
    from studio.llm import scripted
    from studio.store import Store
    from studio.tui.app import StudioApp
    from studio.tui.screens.main import MainScreen
    from test_tui import screen_text, wait_for

    monkeypatch.setenv("STUDIO_TUI_NO_WARMUP", "1")
    play = _spoil(tmp_path, title, name, sheet="sasha_interviewer")
    db = tmp_path / "s.db"
    scripted.queue(line, task="speak", role="other")
    assert studio("run", play, "--model", "scripted", db=db).returncode == 0
    store = Store(db)

    async def look() -> None:
        app = StudioApp(store, run_id=1, model="scripted")
        async with app.run_test(size=(120, 36)) as pilot:
            await wait_for(pilot, lambda: isinstance(app.screen, MainScreen) and app.screen.engine is not None)
            await pilot.pause()
            shown = screen_text(app)
            assert not RAW.search(shown), repr(shown)
            assert name.upper()[:6] in shown.upper() or name[:3] in shown
            assert app.is_running  # nothing crashed it

    try:
        asyncio.run(look())
    finally:
        store.close()
