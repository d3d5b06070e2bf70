"""The command line's shape: every command registers itself and names its function, the CLI's modules are
imported by nothing but the CLI, and the export formats are listed once for the CLI and the app alike."""

from __future__ import annotations

import argparse
import ast
import subprocess
import sys

import pytest
from conftest import ROOT

STUDIO = ROOT / "studio"


def _commands() -> dict[str, argparse.ArgumentParser]:
    from studio.cli import build_parser

    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


def _imports(path) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module)
            if node.module == "studio":  # from studio import cli
                found.update(f"studio.{alias.name}" for alias in node.names)
    return found


def test_every_command_names_the_function_that_runs_it():
    commands = _commands()
    assert list(commands)[:4] == ["run", "runs", "show", "resume"]  # the order `studio --help` has always had
    for name, parser in commands.items():
        assert callable(parser.get_default("func")), f"'studio {name}' has no set_defaults(func=...)"


def test_every_command_module_registers_itself_the_same_way():
    import importlib
    import inspect

    for path in sorted((STUDIO / "commands").glob("*.py")):
        if path.stem in ("__init__", "common") or path.stem.startswith("lab_"):
            continue  # the shared helpers, and the lab's subcommands (registered by commands/lab.py)
        module = importlib.import_module(f"studio.commands.{path.stem}")
        assert list(inspect.signature(module.register).parameters) == ["sub"], path.name


def test_nothing_below_the_command_line_imports_it():
    for path in STUDIO.rglob("*.py"):
        if path.is_relative_to(STUDIO / "commands") or path in (STUDIO / "cli.py", STUDIO / "__main__.py"):
            continue
        wrong = {m for m in _imports(path) if m == "studio.cli" or m.startswith("studio.commands")}
        assert not wrong, f"{path.relative_to(ROOT)} imports {sorted(wrong)}"


def test_no_command_imports_the_app_but_open():
    for path in (STUDIO / "commands").glob("*.py"):
        if path.stem == "open":
            continue
        assert not {m for m in _imports(path) if m.startswith("studio.tui")}, path.name


def test_the_export_formats_are_listed_once():
    from studio.export import FORMATS
    from studio.tui.screens.dialogs import ExportScreen

    export = _commands()["export"]
    choices = next(a.choices for a in export._actions if a.dest == "format")
    assert list(choices) == list(FORMATS)
    assert ExportScreen()._formats == {name: f.description for name, f in FORMATS.items()}
    for f in FORMATS.values():
        assert f.suffix.startswith(".") and (f.text is None) != (f.writer is None)


@pytest.mark.parametrize("module", ["studio.export", "studio.commands.common"])
def test_the_formats_and_the_shared_helpers_load_without_pydantic(module):
    done = subprocess.run([sys.executable, "-c", f"import sys, {module}; print('pydantic' in sys.modules)"],
                          capture_output=True, text=True, cwd=ROOT, timeout=60)
    assert done.stdout.strip() == "False", done.stderr


def test_a_command_line_naming_one_command_parses_as_the_whole_parser_would():
    """`studio open` builds its own parser alone (a quicker start for the app): each name that table gives
    a module is registered by that module, with the same options as in the whole parser."""
    from studio.cli import OWNERS, build_parser

    whole = _commands()
    for name, module in OWNERS.items():
        parser = build_parser(name)
        sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
        assert name in sub.choices, f"studio/commands/{module}.py does not register '{name}'"
        assert sub.choices[name].format_help() == whole[name].format_help()
    assert not set(OWNERS) - set(whole)


def test_every_command_has_its_module_in_the_owners_table():
    """The other way round: a command left out of the table still works, but `studio NAME` then imports
    and registers every command first; the table names them all, `delete` among them."""
    from studio.cli import OWNERS

    unowned = set(_commands()) - set(OWNERS)
    assert not unowned, f"studio/cli.py's OWNERS lacks {sorted(unowned)}: add each with the module that registers it"


def test_studio_version_prints_the_package_version_and_exits_0():
    import tomllib

    done = subprocess.run([sys.executable, "-m", "studio", "--version"], capture_output=True, text=True,
                          cwd=ROOT, timeout=60)
    declared = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    assert done.returncode == 0 and done.stdout == f"studio {declared}\n", (done.stdout, done.stderr)
    assert "--version" in subprocess.run([sys.executable, "-m", "studio", "--help"], capture_output=True,
                                         text=True, cwd=ROOT, timeout=60).stdout


def test_the_app_starts_without_every_command_loaded():
    done = subprocess.run(
        [sys.executable, "-c", "import sys\nfrom studio import cli\ncli.build_parser('open')\n"
         "print(sorted(m for m in sys.modules if m.startswith('studio.commands.')))"],
        capture_output=True, text=True, cwd=ROOT, timeout=60,
    )
    assert done.stdout.strip() == "['studio.commands.common', 'studio.commands.open']", done.stderr
