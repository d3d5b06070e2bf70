"""SillyTavern's own card reader and validator for the tests, run by node.

SillyTavern reads a PNG card with src/character-card-parser.js (the `ccv3` text chunk before
`chara`, base64 JSON) and checks a card with src/validator/TavernCardValidator.js. `.ci/run` takes
those files, unchanged, from SillyTavern's npm package into ~/.cache/studio/node/sillytavern and
installs what they import (png-chunks-extract, png-chunk-text, crc) beside afterwriting;
STUDIO_SILLYTAVERN names another folder. Where node or the files are missing, the tests that need
them skip, saying so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

SCRIPT = Path(__file__).parent / "readers" / "sillytavern_read.mjs"


def folder() -> Path | None:
    where = Path(os.environ.get("STUDIO_SILLYTAVERN") or Path.home() / ".cache/studio/node/sillytavern")
    needed = ("src/character-card-parser.js", "src/validator/TavernCardValidator.js")
    if shutil.which("node") and all((where / rel).exists() for rel in needed):
        return where
    return None


needs_sillytavern = pytest.mark.skipif(
    folder() is None, reason="node and SillyTavern's card reader are not installed (.ci/run installs them)"
)


def read(path: Path) -> dict:
    """{"version": 1|2|3|false, "error": the field the validator stopped at, "v2"/"v3": whether the card
    passes that version's rules, "card": the card read}."""
    done = subprocess.run(["node", str(SCRIPT), str(folder()), str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)
