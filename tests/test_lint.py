"""ruff and mypy, with the settings in pyproject.toml, over the parts already held to them.

mypy holds the whole of studio (its `files` in pyproject.toml). A part joins RUFF_CLEAN once it passes,
and then stays clean; the whole tree is checked with ruff too, expected to fail until every part has joined."""

from __future__ import annotations

import importlib.util
import subprocess
import sys

import pytest

from conftest import ROOT

RUFF_CLEAN = [
    "studio/export",
    "studio/lab",
    "studio/llm",
    "studio/mind",
    "studio/present",
    "studio/store",
    "studio/settings.py",
    "studio/structured.py",
    "studio/usage.py",
    "studio/clean.py",
    "scripts/layers",
    "tests/stub_server.py",
    "tests/test_export_fountain.py",
    "tests/test_export_layouts.py",
    "tests/test_export_markdown_pdf.py",
    "tests/test_export_pen.py",
    "tests/test_export_title_page.py",
    "tests/test_faults.py",
    "tests/test_import_hygiene.py",
    "tests/test_import_scripts.py",
    "tests/test_layers.py",
    "tests/test_lint.py",
    "tests/test_llm.py",
    "tests/test_mind.py",
    "tests/test_mind_engine.py",
    "tests/test_mind_memory.py",
    "tests/test_mind_reflection.py",
    "tests/test_mind_world.py",
    "tests/test_present.py",
    "tests/test_robust_sizes.py",
    "tests/test_robust_text.py",
    "tests/test_sampling.py",
    "tests/test_store.py",
    "tests/test_structured.py",
    "tests/test_takes.py",
]
RUFF_ALL = ["studio", "tests", "bench", "scripts/layers"]


def _run(tool: str, *args: str) -> subprocess.CompletedProcess:
    if importlib.util.find_spec(tool) is None:
        pytest.skip(f"{tool} is in the test extra: pip install -e '.[test]'")
    return subprocess.run(
        [sys.executable, "-m", tool, *args], capture_output=True, text=True, cwd=ROOT, timeout=600
    )


def test_ruff_finds_nothing_in_the_clean_parts():
    done = _run("ruff", "check", "--no-cache", *RUFF_CLEAN)
    assert done.returncode == 0, done.stdout + done.stderr


def test_ruff_finds_nothing_anywhere():
    done = _run("ruff", "check", "--no-cache", *RUFF_ALL)
    assert done.returncode == 0, done.stdout + done.stderr


# The parts `ruff format` keeps as they are; scripts/format formats the rest once and makes this RUFF_ALL.
FORMATTED = ["studio/tui/textual_parts.py", "tests/test_tui_textual_parts.py", "scripts/mutation"]


def test_ruff_format_leaves_the_formatted_parts_as_they_are():
    done = _run("ruff", "format", "--check", "--no-cache", *FORMATTED)
    assert done.returncode == 0, done.stdout + done.stderr + "\nrun: .venv/bin/python -m ruff format " + " ".join(FORMATTED)


def test_mypy_finds_nothing_in_the_studio():
    done = _run("mypy")  # the files [tool.mypy] in pyproject.toml holds to it
    assert done.returncode == 0, done.stdout + done.stderr


# Tools a test may skip without: they come with the docs or test extras, not with the studio.
OPTIONAL_TOOLS = {"mkdocs", "material", "importlinter", "ruff", "mypy"}


def test_a_test_skips_only_for_an_optional_tool_never_for_a_package_the_studio_needs():
    """A required package missing is a broken install: its tests must fail, not skip and pass."""
    import re

    skips = re.compile(r"importorskip\(\s*[\"']([\w.]+)[\"']")
    wrong = [f"{path.relative_to(ROOT)}: importorskip({name!r})" for path in sorted((ROOT / "tests").rglob("*.py"))
             for name in skips.findall(path.read_text(encoding="utf-8")) if name.split(".")[0] not in OPTIONAL_TOOLS]
    assert not wrong, "import it plainly instead (it is in pyproject.toml's dependencies): " + "; ".join(wrong)
