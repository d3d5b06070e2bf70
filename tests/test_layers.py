"""The layers hold: imports go down the list in pyproject.toml's [tool.importlinter], and no modules import
each other round a circle. scripts/layers does the checking, so a failure here reads the same as running it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from conftest import ROOT

pytest.importorskip("importlinter", reason="import-linter is in the test extra: pip install -e '.[test]'")


def _layers(*check: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "layers"), *check],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
    )


def test_imports_keep_every_contract():
    """Down the layers, through the one door to the models, and never round between a package's parts."""
    done = _layers("contract")
    assert done.returncode == 0, f"imports that break the contracts:\n{done.stdout}{done.stderr}"


def test_no_modules_import_each_other_round_a_circle():
    done = _layers("circles")
    assert done.returncode == 0, f"circles of imports:\n{done.stdout}{done.stderr}"


def test_at_most_two_upward_imports_are_excused_and_each_says_why():
    """An excused import is a debt with its reason beside it; more than two means the layers are wrong."""
    import tomllib

    text = (ROOT / "pyproject.toml").read_text()
    config = tomllib.loads(text)["tool"]["importlinter"]
    excused = [line for c in config["contracts"] for line in c.get("ignore_imports", [])]
    assert len(excused) <= 2, f"{len(excused)} upward imports excused in pyproject.toml: {excused}"
    lines = text.splitlines()
    for line in excused:
        at = next(i for i, raw in enumerate(lines) if f'"{line}"' in raw)
        said = lines[at].partition("#")[2].strip() or lines[at - 1].strip().startswith("#")
        assert said, f"pyproject.toml: the excused import {line!r} needs a comment saying why it goes up"


def _script():
    import importlib.machinery
    import importlib.util

    loader = importlib.machinery.SourceFileLoader("layers_script", str(ROOT / "scripts" / "layers"))
    spec = importlib.util.spec_from_loader("layers_script", loader)
    layers = importlib.util.module_from_spec(spec)
    loader.exec_module(layers)
    return layers


def test_the_checker_finds_a_circle_and_shows_where_to_cut():
    """The circle finder itself, on a graph small enough to read: a -> b -> c -> a, and d alone."""
    layers = _script()

    class Graph:
        edges = {"a": {"b"}, "b": {"c"}, "c": {"a", "d"}, "d": set()}
        modules = set(edges)

        def find_modules_directly_imported_by(self, module):
            return self.edges[module]

    graph = Graph()
    assert layers.circles(graph) == [["a", "b", "c"]]
    assert layers.loop_through(graph, ["a", "b", "c"]) == ["a", "b", "c", "a"]
