"""The app's first frame comes before litellm: checked in a fresh interpreter, where sys.modules tells
the truth about what an import actually pulled in."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT

HEADLESS = "textual.drivers.headless_driver:HeadlessDriver"


def _python(code: str) -> str:
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_command_line_loads_pydantic_only_for_a_command_that_reads_a_play():
    loaded = _python(
        "import sys, studio.cli, studio.model\n"
        "studio.cli.build_parser()\n"
        "assert studio.model.InputError\n"
        "print('pydantic' in sys.modules)"
    )
    assert loaded == "False"
    # and the lazy names still resolve, to the one definition
    assert _python("from studio.model import Play, read_play; from studio.model.play import Play as P; print(Play is P)") == "True"


@pytest.mark.parametrize("module", ["studio.tui", "studio.tui.app", "studio.cli"])
def test_importing_the_app_imports_neither_litellm_nor_the_engine(module):
    loaded = _python(
        f"import sys, {module}\n"
        "print(','.join(m for m in ('litellm', 'studio.engine', 'studio.llm.gateway') if m in sys.modules))"
    )
    assert loaded == ""


@pytest.mark.parametrize(
    "args",
    [
        ["open", "plays/interview.toml", "--model", "scripted"],
        # a model litellm must route: the check waits until after the first frame
        ["open", "plays/interview.toml", "--model", "openai/gpt-4o-mini"],
        ["open"],  # the picker
    ],
    ids=["scripted", "litellm-routed", "picker"],
)
def test_the_first_frame_comes_before_litellm(tmp_path, args):
    probe = tmp_path / "probe.json"
    env = dict(
        os.environ,
        STUDIO_TUI_PROBE=str(probe),
        STUDIO_TUI_PROBE_EXIT="1",
        TEXTUAL_DRIVER=HEADLESS,
        STUDIO_DB=str(tmp_path / "studio.db"),
    )
    done = subprocess.run(
        [sys.executable, "-m", "studio.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    seen = json.loads(probe.read_text())
    assert seen["litellm"] is False
    if args == ["open"]:
        # the picker lists files and runs: pydantic's models wait until a play is opened
        assert seen["pydantic"] is False


def test_the_app_imports_litellm_only_for_a_cast_that_can_call_it(tmp_path):
    """A cast of built-in models never needs litellm: importing it anyway would take seconds of CPU from
    the embedded model's first turn. A hosted model's cast gets it warmed up in the background."""
    code = f"""
import asyncio, sys
from pathlib import Path
from studio.engine.forms import load_play, resolve_cast
from studio.store import Store
from studio.tui.app import StudioApp

async def opened(model, db, idle):
    path = Path('plays/interview.toml')
    cast = resolve_cast(load_play(path), path, model=model)
    app = StudioApp(Store(Path(db)), play=(path, cast, {{}}))
    async with app.run_test() as pilot:
        while getattr(app.screen, 'engine', None) is None:
            await pilot.pause(0.05)
        waited = 0.0
        while waited < idle and 'litellm' not in sys.modules:
            await pilot.pause(0.25)
            waited += 0.25
    return 'litellm' in sys.modules

async def main():
    print(await opened('scripted', r'{tmp_path / "a.db"}', 3.0))
    print(await opened('openai/gpt-4o-mini', r'{tmp_path / "b.db"}', 30.0))

asyncio.run(main())
"""
    assert _python(code).split() == ["False", "True"]
