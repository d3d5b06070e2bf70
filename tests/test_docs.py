"""The documentation where users look for it: a short README, an mkdocs site that builds strictly, a CLI
reference read from the parser, and no words about how the studio was made in anything a user reads."""

from __future__ import annotations

import argparse
import importlib.util
import os
import re
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"


def _cli_reference():
    spec = importlib.util.spec_from_file_location("cli_reference", ROOT / "scripts" / "cli_reference.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_the_readme_is_a_five_minute_read_with_the_two_commands():
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    # CI runs the second; a newcomer types the first.
    assert "scripts/setup && .venv/bin/studio run plays/interview.toml" in text
    assert "scripts/setup && .venv/bin/python -m pytest -q" in text


def test_every_local_link_in_the_readme_leads_somewhere():
    for target in re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", README.read_text()):
        if "://" not in target:
            assert (ROOT / target).exists(), f"README.md links to {target}, which does not exist"


def test_every_page_is_in_the_site_navigation():
    nav = (ROOT / "mkdocs.yml").read_text()
    for page in (ROOT / "docs").rglob("*.md"):
        rel = page.relative_to(ROOT / "docs").as_posix()
        assert f": {rel}" in nav or f"- {rel}" in nav, f"docs/{rel} is not in mkdocs.yml's nav"


def test_the_cli_reference_has_every_command_and_option():
    from studio.cli import build_parser

    ref = _cli_reference()
    page = ref.render(build_parser())
    names = [name for name, _, _ in ref.commands(build_parser())]
    for top in ("run", "show", "open", "export", "lab", "game", "new", "mind"):
        assert f"studio {top}" in names
    assert "studio lab run" in names and "studio new play" in names
    for name, _, parser in ref.commands(build_parser()):
        assert f"`{name}`" in page, name
        for action in parser._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            for option in action.option_strings:
                assert f"`{option}" in page or f", {option}" in page, f"{name} {option}"


# Files the pages name only as examples of what a playwright or a form writer would create.
EXAMPLE_PATHS = {"plays/x.toml", "plays/the_visit.toml", "characters/old_friend.toml", "studio/engine/forms/coins.py"}


def test_every_file_the_docs_name_exists():
    """Modules move; a page that names one where it used to live sends a reader to nothing."""
    named = re.compile(r"(?<![\w/.])((?:studio|tests|bench|scripts|experiments|plays|characters|docs)/[\w/.\-*]+)")
    missing = []
    for page in [README, *sorted((ROOT / "docs").rglob("*.md"))]:
        for number, line in enumerate(page.read_text().splitlines(), 1):
            for match in named.finditer(line):
                path = match.group(1).rstrip(".,:;")
                if "NAME" in path or path in EXAMPLE_PATHS or any(ROOT.glob(path)):
                    continue
                missing.append(f"{page.relative_to(ROOT)}:{number}: {path}")
    assert not missing, "these pages name files that do not exist:\n" + "\n".join(missing)


def test_python_dash_m_studio_is_the_studio_command(tmp_path):
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-m", "studio", "--help"], capture_output=True, text=True, env=env,
                          cwd=tmp_path, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "open" in done.stdout
    bad = subprocess.run([sys.executable, "-m", "studio", "show", "7", "--db", str(tmp_path / "s.db")],
                         capture_output=True, text=True, env=env, cwd=tmp_path, timeout=60)
    assert bad.returncode == 2 and "Traceback" not in bad.stderr


def test_the_license_is_mit_as_an_spdx_string():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]
    assert project["license"] == "MIT"
    assert "MIT License" in (ROOT / "LICENSE").read_text()


# Words about how the studio was made, not about what it does. A paper is cited by its authors, year and
# title ("Magee et al., 2024, The Drama Machine"); a figure says its conditions (cores, load), not whose
# machine it was measured on.
BANNED = [
    (r"\bissues?\s*#?\d+", "an issue number"),
    (r"\btickets?\b", "a ticket"),
    (r"(?<![-\w])sessions?\b", "a session"),
    (r"\b(?:other|another|fellow|coding|AI)\s+helpers?\b|\bhelpers?\s+(?:sessions?|engineers?)\b", "a helper"),
    (r"\bpapers?\s+0\d\d\b", "a paper by number"),
    (r"\bproduct owner\b", "the product owner"),
    (r"\bfixed on main\b", "the branch a fix landed on"),
    (r"this project's[^.\n]*machine|shared \d-core machine|machine shared with|\d cores, shared machine",
     "the machine a figure was measured on"),
]
SCANNED = ["studio", "docs", "README.md", "plays", "characters", "experiments", "bench", "scripts", "mkdocs.yml"]
TEXT = {".py", ".md", ".toml", ".tcss", ".yml", ".txt", ""}


def _files():
    for name in SCANNED:
        path = ROOT / name
        if path.is_file():
            yield path
        elif path.is_dir():
            for file in sorted(path.rglob("*")):
                if file.is_file() and file.suffix in TEXT and "__pycache__" not in file.parts:
                    yield file


def test_nothing_a_user_reads_says_how_the_studio_was_made():
    found = []
    patterns = [(re.compile(p, re.IGNORECASE), what) for p, what in BANNED]
    for file in _files():
        try:
            lines = file.read_text().splitlines()
        except UnicodeDecodeError:
            continue
        for number, line in enumerate(lines, 1):
            for pattern, what in patterns:
                if pattern.search(line):
                    found.append(f"{file.relative_to(ROOT)}:{number}: {what}: {line.strip()[:100]}")
    assert not found, "say what the studio does instead:\n" + "\n".join(found)


def test_the_tests_say_what_they_hold_not_which_ticket_asked():
    """The tests are read as the studio's specification: they too cite no issue, ticket or paper number
    ("session" stays allowed here: pytest's and tmux's sessions are what the tests speak of)."""
    wanted = {"an issue number", "a ticket", "a paper by number"}
    patterns = [(re.compile(p, re.IGNORECASE), what) for p, what in BANNED if what in wanted]
    found = []
    for file in sorted((ROOT / "tests").rglob("*.py")):
        if file.name == "test_docs.py":  # it spells the patterns out
            continue
        for number, line in enumerate(file.read_text().splitlines(), 1):
            for pattern, what in patterns:
                if pattern.search(line):
                    found.append(f"{file.relative_to(ROOT)}:{number}: {what}: {line.strip()[:100]}")
    assert not found, "say what the test holds instead:\n" + "\n".join(found)


def test_the_site_builds_strictly(tmp_path):
    pytest.importorskip("mkdocs")
    pytest.importorskip("material")
    env = {**os.environ, "PYTHONPATH": str(ROOT), "NO_MKDOCS_2_WARNING": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--quiet", "--site-dir", str(tmp_path / "site")],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=300,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    cli = (tmp_path / "site" / "reference" / "cli" / "index.html").read_text()
    assert "studio lab run" in cli and "studio export" in cli


def test_the_benchmarks_page_opens_with_one_current_table_and_keeps_its_history_apart():
    """A reader looking for where a goal stands finds it in one row, not under older tables."""
    text = (ROOT / "docs" / "benchmarks.md").read_text()
    now = text.split("## Now", 1)[1].split("\n## ", 1)[0]
    rows = [line for line in now.splitlines() if line.startswith("| ")]
    assert rows[0] == "| measure | goal | now | command | date | load |", rows[0]
    for row in rows[2:]:
        cells = [cell.strip() for cell in row.strip("|").split("|")]
        assert len(cells) == 6 and all(cells), f"docs/benchmarks.md: a row of the current table lacks a cell: {row}"
        script = re.search(r"`(bench/\w+\.py)", cells[3])
        assert script and (ROOT / script.group(1)).exists(), f"docs/benchmarks.md: no bench script in {cells[3]}"
        assert re.fullmatch(r"\d{4}-\d{2}-\d{2}", cells[4]), f"docs/benchmarks.md: date {cells[4]!r} is not YYYY-MM-DD"
    assert "](benchmarks-history.md)" in text
