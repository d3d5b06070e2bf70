"""Handing text to the playwright's own editor and taking it back, as git does for a commit message."""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path


class EditorError(Exception):
    """The editor could not be started or failed; the text is left as it was."""


def editor_command() -> list[str] | None:
    """$VISUAL, then $EDITOR, split as a shell would (so `code --wait` works); None if neither is set."""
    for var in ("VISUAL", "EDITOR"):
        value = os.environ.get(var, "").strip()
        if value:
            try:
                return shlex.split(value)
            except ValueError:
                raise EditorError(f"${var} ({value!r}) cannot be split into a command; check its quotes") from None
    return None


def run_editor(path: Path) -> None:
    command = editor_command()
    if command is None:
        raise EditorError("set $EDITOR (or $VISUAL) to the editor you write in, e.g. export EDITOR=nano")
    try:
        result = subprocess.run([*command, str(path)], check=False)
    except OSError as exc:
        raise EditorError(f"the editor {command[0]!r} could not be started ({exc.strerror})") from None
    if result.returncode != 0:
        raise EditorError(f"the editor {command[0]!r} exited with status {result.returncode}; nothing changed")


def edit_text(text: str, suffix: str = ".txt") -> str:
    """The text after the playwright has edited it in their editor (in a private temporary file)."""
    fd, name = tempfile.mkstemp(prefix="studio-", suffix=suffix)
    path = Path(name)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(text if text.endswith("\n") or not text else text + "\n")
        run_editor(path)
        try:
            edited = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            raise EditorError("the edited text is not UTF-8; nothing changed") from None
    finally:
        try:
            path.unlink()
        except OSError:
            pass
    # the editor's final newline is the file's, not the playwright's
    return edited[:-1] if edited.endswith("\n") and not text.endswith("\n") else edited
