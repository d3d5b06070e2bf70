"""afterwriting as a second Fountain reader for the tests: its own parser, run by node.

afterwriting (npm) is the parser behind widely used Fountain editors, and it reads some lines
differently from fountain-py (any line holding ` TO:` is a transition, `/*` ends nothing unless
split, a paragraph whose first line has no lower-case letter is a cue). `.ci/run` installs it into
~/.cache/studio/node; STUDIO_AFTERWRITING names another node_modules folder. Where node or the
package is missing, the tests that need it skip, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import tempfile
import unicodedata
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "readers" / "afterwriting_read.js"


def _nfkc(text: str) -> str:
    """As the tests compare text: compatibility forms (Arabic presentation forms and the like) folded."""
    return unicodedata.normalize("NFKC", text)


def modules() -> Path | None:
    folder = Path(os.environ.get("STUDIO_AFTERWRITING") or Path.home() / ".cache/studio/node/node_modules")
    if shutil.which("node") and (folder / "aw-parser" / "parser.js").exists():
        return folder
    return None


needs_afterwriting = pytest.mark.skipif(
    modules() is None, reason="node and afterwriting are not installed (.ci/run installs them)"
)


def read(text: str) -> dict:
    """The document as afterwriting prints it: {"title_page": [...], "tokens": [...]}."""
    with tempfile.NamedTemporaryFile("w", suffix=".fountain", encoding="utf-8", delete=False) as f:
        f.write(text)
    try:
        env = dict(os.environ, NODE_PATH=str(modules()))
        done = subprocess.run(["node", str(SCRIPT), f.name], capture_output=True, text=True, env=env, timeout=60)
    finally:
        os.unlink(f.name)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def items(doc: dict) -> list[tuple]:
    """The tokens in the shape fountain-py's reading takes in the tests: ("heading", t),
    ("synopsis", t), ("action", t), ("page_break",), ("speech", CUE, ((kind, text), ...)).
    Notes are not printed by afterwriting by default, so they are absent; a dual marker shows up
    as ("dual", ...) so that no test can miss it."""
    out: list = []
    speech = None
    last_action = False
    for token in doc["tokens"]:
        kind, text = token["type"], _nfkc(token["text"])
        if token.get("dual"):
            out.append(("dual", text))
        if kind in ("dialogue", "parenthetical") and speech is not None:
            parts = speech[2]
            if kind == "parenthetical":
                parts.append(["business", text[1:-1]])
            elif parts and parts[-1][0] == "line":
                parts[-1][1] += "\n" + text
            else:
                parts.append(["line", text])
            continue
        speech = None
        if kind == "action" and last_action:
            out[-1] = ("action", out[-1][1] + "\n" + text)
            continue
        last_action = kind == "action"
        if kind == "separator":
            continue
        if kind == "character":
            speech = ["speech", text, []]
            out.append(speech)
        elif kind == "scene_heading":
            out.append(("heading", text))
        elif kind in ("synopsis", "action"):
            out.append((kind, text))
        elif kind == "page_break":
            out.append(("page_break",))
        else:
            out.append((kind, text))
    return [(i[0], i[1], tuple(tuple(p) for p in i[2])) if i[0] == "speech" else i for i in out]


def title_page(doc: dict) -> dict[str, str]:
    return {t["type"]: _nfkc(t["text"]) for t in doc["title_page"]}
