"""`studio open PLAY` draws its first frame before the play is read past its TOML: the stage, the footer
and the play's title come first; the fields, the cast and the models are checked by the app's worker. A
play that fails there still ends as bad input does on the command line: one message, exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import PLAYS, ROOT, STUDIO


from studio.store import Store  # noqa: E402
from studio.tui.app import StudioApp  # noqa: E402
from studio.tui.screens.main import MainScreen  # noqa: E402

SIZE = (100, 30)


def _bad_play(tmp_path: Path) -> Path:
    """The interview with one field a playwright might get wrong: it parses as TOML, fails as a play."""
    text = (PLAYS / "interview.toml").read_text(encoding="utf-8").replace("turns = 10", 'turns = "ten"', 1)
    assert 'turns = "ten"' in text
    path = tmp_path / "bad.toml"
    path.write_text(text, encoding="utf-8")
    return path


def _screen_text(app) -> str:
    strips = app.screen._compositor.render_strips()
    return "\n".join("".join(segment.text for segment in strip) for strip in strips)


async def test_the_first_frame_shows_the_plays_title_and_the_run_follows(tmp_path, monkeypatch):
    monkeypatch.setenv("STUDIO_TUI_NO_WARMUP", "1")
    store = Store(tmp_path / "studio.db")
    first: list[str] = []

    first_frame = StudioApp.first_frame

    def watched(self) -> bool:
        if not first:
            first.append(_screen_text(self))
        return first_frame(self)

    monkeypatch.setattr(StudioApp, "first_frame", watched)
    path = PLAYS / "interview.toml"
    app = StudioApp(store, play=(path, None, {"title": "The Interview"}), model="scripted")
    try:
        async with app.run_test(size=SIZE) as pilot:
            while not (isinstance(app.screen, MainScreen) and app.screen.engine is not None):
                await pilot.pause(0.02)
            await pilot.pause()
            assert "Opening The Interview…" in first[0]
            footer = first[0].splitlines()[-1]
            assert "Stage" in first[0] and "s Step" in footer and "? Help" in footer  # not a blank screen
            assert "The Interview · run 1" in _screen_text(app)
            assert app.screen.engine.cast.play.seed == 7  # the play was read and cast in the worker
    finally:
        store.close()
    # the run opened as run 1; left with no line written, it is cleared away when the app quits
    assert [run.id for run in Store(tmp_path / "studio.db").runs()] == []


async def test_a_play_that_fails_its_checks_after_the_first_frame_ends_the_app_with_its_message(tmp_path,
                                                                                                 monkeypatch):
    monkeypatch.setenv("STUDIO_TUI_NO_WARMUP", "1")
    store = Store(tmp_path / "studio.db")
    path = _bad_play(tmp_path)
    app = StudioApp(store, play=(path, None, {"title": "The Interview"}), model="scripted")
    try:
        async with app.run_test(size=SIZE) as pilot:
            for _ in range(500):
                if app._exit:
                    break
                await pilot.pause(0.02)
        assert app.return_code == 2
        message = app.bad_input.message
        assert str(path) in message and "field 'turns'" in message and "fix:" in message
        assert store.runs() == []  # nothing half-made is saved
    finally:
        store.close()


def test_studio_open_in_a_terminal_reports_a_bad_play_found_by_the_app_and_exits_2(tmp_path, monkeypatch, capsys):
    """The command line end to end, with the app running (headless) as it would in a terminal."""
    from studio import cli

    monkeypatch.setenv("STUDIO_TUI_NO_WARMUP", "1")
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    run = StudioApp.run
    started: list[bool] = []

    def headless(self, *args, **kwargs):
        started.append(True)
        return run(self, *args, headless=True, size=SIZE, **kwargs)

    monkeypatch.setattr(StudioApp, "run", headless)
    path = _bad_play(tmp_path)
    assert cli.main(["open", str(path), "--model", "scripted", "--db", str(tmp_path / "studio.db")]) == 2
    assert started, "the app started: the play was read past its TOML only after the first frame"
    err = capsys.readouterr().err
    assert err.count("studio: ") == 1 and "field 'turns'" in err and "fix:" in err
    assert "Traceback" not in err


def test_studio_open_without_a_terminal_checks_the_play_before_the_app(tmp_path):
    env = dict(os.environ, STUDIO_DB=str(tmp_path / "studio.db"))
    done = subprocess.run([*STUDIO, "open", str(_bad_play(tmp_path)), "--model", "scripted"], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2
    assert done.stderr.count("studio: ") == 1 and "field 'turns'" in done.stderr and "fix:" in done.stderr
    assert "Traceback" not in done.stderr
    assert "\x1b" not in done.stdout + done.stderr  # no escape code reached the script's output


def test_a_file_that_is_not_toml_is_refused_before_the_app_even_in_a_terminal(tmp_path, monkeypatch, capsys):
    from studio import cli

    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    monkeypatch.setattr(StudioApp, "run", lambda self, *a, **k: pytest.fail("the app started on a broken file"))
    path = tmp_path / "broken.toml"
    path.write_text('title = "unterminated\n', encoding="utf-8")
    assert cli.main(["open", str(path), "--db", str(tmp_path / "studio.db")]) == 2
    err = capsys.readouterr().err
    assert str(path) in err and "is not valid TOML" in err


def test_the_app_bench_prints_its_usage_on_help_instead_of_running():
    import time

    started = time.monotonic()
    done = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_tui.py"), "--help"], capture_output=True,
                          text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0 and "usage: bench/bench_tui.py" in done.stdout and "--only" in done.stdout
    assert time.monotonic() - started < 20  # the bench itself takes minutes
    wrong = subprocess.run([sys.executable, str(ROOT / "bench" / "bench_tui.py"), "--qiuck"], capture_output=True,
                           text=True, timeout=60, cwd=ROOT)
    assert wrong.returncode == 2 and "unrecognized arguments: --qiuck" in wrong.stderr
