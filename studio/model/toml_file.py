"""The one reader of the studio's TOML files (plays, characters, experiments): the file's bytes to plain
data, or one InputError naming the file and the fix. Standard library only, so the app can read a play's
title and check that its file parses before pydantic, the engine or a model is loaded."""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

from studio.model.errors import InputError


def read_toml(path: Path, what: str) -> dict[str, Any]:
    """`what` names the kind of file in the message: "play", "character", "experiment"."""
    try:
        raw = path.read_bytes()
    except FileNotFoundError:
        raise InputError(str(path), None, f"no such {what} file", f"check the path; {what}s live in {what}s/") from None
    except IsADirectoryError:
        raise InputError(str(path), None, "is a folder, not a file", f"name a {what} .toml file") from None
    except OSError as exc:
        raise InputError(str(path), None, f"cannot be read ({exc.strerror})", "check its permissions") from None
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
