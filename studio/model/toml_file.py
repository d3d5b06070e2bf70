"""The one reader of the studio's TOML files (plays, characters, experiments): the file's bytes to plain
data, or one InputError naming the file and the fix. Standard library only, so the app can read a play's
title and check that its file parses before pydantic, the engine or a model is loaded."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from studio.model.errors import InputError
from studio.model.outside_file import read_outside


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """`what` names the kind of file in the message: "play", "character", "experiment"."""
    raw = read_outside(path, what)
    try:
        # utf-8-sig: a byte-order mark some editors write is accepted, not reported as bad TOML at line 1.
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = raw[: exc.start].count(b"\n") + 1
        raise InputError(
            str(path), None, f"is not UTF-8 text (bad byte at line {line})", "save the file as UTF-8"
        ) from None
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InputError(str(path), None, f"is not valid TOML: {exc}", "correct the TOML syntax there") from None
    except RecursionError:
        raise InputError(str(path), None, "nests arrays or tables too deeply to read",
                         "no play, character or experiment needs more than a few levels") from None
