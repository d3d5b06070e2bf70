"""Editing the playwright's own TOML files in place.

A play or a character sheet is a file someone wrote by hand: comments, the order of keys and a
`\"\"\"` prompt laid out over many lines are theirs. Saving from the app therefore changes only the
values that changed, through tomlkit, and a save with nothing changed leaves the file byte-identical.
The result is validated before it is written, and written atomically, so a bad edit or a crash never
costs the file.
"""

from __future__ import annotations

import os
import tempfile
import tomllib
from pathlib import Path
from typing import Any, TypeVar

import tomlkit
from pydantic import BaseModel
from tomlkit.items import AoT, Array, String, StringType, Table, Trivia

from studio.model.errors import InputError
from studio.model.toml_file import read_toml
from studio.model.play import CharacterSheet, Play

M = TypeVar("M", bound=BaseModel)

# A key path into a document: names for tables, numbers for array (of tables) entries.
KeyPath = tuple[str | int, ...]


def _long(text: str) -> bool:
    return "\n" in text or len(text) > 100


def _string_like(old: Any, value: str) -> Any:
    """A TOML string for `value` written the way the old one was (multi-line stays multi-line)."""
    multiline = isinstance(old, String) and old.type in (StringType.MLB, StringType.MLL)
    if not multiline and not (old is None and "\n" in value):
        if "\n" not in value:
            item = tomlkit.string(value)
            if isinstance(old, String):
                item.trivia.comment = old.trivia.comment
                item.trivia.comment_ws = old.trivia.comment_ws
            return item
    # A carriage return written raw in a multi-line string is read back as a plain line break, so it is escaped.
    escaped = tomlkit.string(value.strip("\n"), multiline=True).as_string()[3:-3].replace("\r", "\\r")
    lead = isinstance(old, String) and old.as_string()[3:4] == "\n" or old is None
    trail = isinstance(old, String) and old.as_string()[:-3].endswith("\n") or old is None
    original = ("\n" if lead else "") + escaped + ("\n" if trail else "")
    trivia = old.trivia if isinstance(old, String) else Trivia()
    body = value.strip("\n") + ("\n" if trail else "")
    return String(StringType.MLB, body, original, trivia)


class Replace(dict[str, Any]):
    """A table's whole new content: keys the file has and this lacks go (they held defaults before)."""


def _item_for(old: Any, value: Any) -> Any:
    if isinstance(value, str):
        return _string_like(old, value)
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        array = tomlkit.array()
        for entry in value:
            array.append(tomlkit.string(entry))
        if any(_long(v) for v in value) or (isinstance(old, Array) and "\n" in old.as_string()):
            array.multiline(True)
        return array
    return value


def _plain(value: Any) -> Any:
    return value.unwrap() if hasattr(value, "unwrap") else value


def _set(container: Any, key: str | int, value: Any) -> None:
    """Set one value, keeping the old item's style, and nested tables merged key by key."""
    exists = key in container if isinstance(key, str) else key < len(container)
    old = container[key] if exists else None
    if value is None:
        if exists:
            del container[key]
        return
    if isinstance(value, dict):
        if old is None or not isinstance(old, (Table, dict)) and not hasattr(old, "keys"):
            table = tomlkit.table()
            if isinstance(key, int):
                container.append(table)
            else:
                container[key] = table
            old = table
        if isinstance(value, Replace):
            for stale in [k for k in list(old.keys()) if k not in value]:
                del old[stale]
        _merge(old, value)
        return
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        if not isinstance(old, AoT):
            aot = tomlkit.aot()
            container[key] = aot
            old = container[key]
        while len(old) > len(value):
            del old[len(old) - 1]
        for i, entry in enumerate(value):
            if i < len(old):
                _merge(old[i], entry)
            else:
                table = tomlkit.table()
                old.append(table)
                _merge(old[i], entry)
        return
    if isinstance(old, Array) and isinstance(value, list) and len(old) == len(value):
        for i, entry in enumerate(value):
            if _plain(old[i]) != entry:
                old[i] = _item_for(old[i], entry)
        return
    if exists and _plain(old) == value:
        return
    container[key] = _item_for(old, value)


def _merge(container: Any, changes: dict[str, Any]) -> None:
    for key, value in changes.items():
        _set(container, key, value)


def _dump(model: BaseModel) -> dict[str, Any]:
    return model.model_dump(exclude_none=True, exclude_defaults=True)


def _diff(old: Any, new: Any) -> Any:
    """What changed from `old` to `new` (model dumps): None removes a key; equal values are left out."""
    if isinstance(old, dict) and isinstance(new, dict):
        out: dict[str, Any] = {}
        for key in new:
            if key not in old:
                # absent from the old dump means it held defaults: the file may spell them out
                out[key] = Replace(new[key]) if isinstance(new[key], dict) else new[key]
            elif old[key] != new[key]:
                out[key] = _diff(old[key], new[key])
        for key in old:
            if key not in new:
                out[key] = None
        return out
    if isinstance(old, list) and isinstance(new, list) and len(old) == len(new):
        if all(isinstance(v, dict) for v in old + new):
            return [_diff(a, b) for a, b in zip(old, new)]
    return new


def write_atomically(path: Path, text: str | bytes) -> None:
    """Replace the file in one step: a crash leaves the old file or the new, never half of one."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=str(path.parent or "."))
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(text.encode("utf-8") if isinstance(text, str) else text)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, path.stat().st_mode & 0o777 if path.exists() else _new_file_mode())
        os.replace(tmp, path)
    except BaseException:
        with_suppressed_unlink(tmp)
        raise


def _new_file_mode() -> int:
    """A new file as any editor would write it (0644 under the usual umask), not mkstemp's private 0600."""
    mask = os.umask(0)
    os.umask(mask)
    return 0o666 & ~mask


def with_suppressed_unlink(tmp: str) -> None:
    try:
        os.unlink(tmp)
    except OSError:
        pass


def validated_text(model: type[M], text: str, path: Path) -> M:
    from studio.model.loading import _validate

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:  # only a bug here could produce this
        raise InputError(str(path), None, f"the edit would not be valid TOML: {exc}", "report this") from None
    return _validate(model, data, path)


def save_model(model_obj: M, path: str | os.PathLike[str], *, previous: M | None = None) -> bool:
    """Write `model_obj` to its TOML file, changing only what differs. Returns whether it wrote.

    `previous` is what the file held when the editor opened it; without it the file is read now.
    Only values that differ from it change, so an edit made elsewhere to another field survives.
    """
    p = Path(path)
    kind = type(model_obj)
    if p.exists():
        read_toml(p, "character" if kind is CharacterSheet else "play")
        original = p.read_text(encoding="utf-8")  # a regular file within bounds: read_toml has just said so
        doc = tomlkit.parse(original)
        if previous is None:
            previous = validated_text(kind, original, p)
        _merge(doc, _diff(_dump(previous), _dump(model_obj)))
        text = tomlkit.dumps(doc)
    else:
        original = None
        doc = tomlkit.document()
        _merge(doc, _dump(model_obj))
        text = tomlkit.dumps(doc)
    if text == original:
        return False
    validated_text(kind, text, p)
    write_atomically(p, text)
    return True


def save_character(sheet: CharacterSheet, path: str | os.PathLike[str]) -> bool:
    """Save a sheet in place: only changed values change, so the playwright's comments survive."""
    return save_model(sheet, path)


def save_play(play: Play, path: str | os.PathLike[str]) -> bool:
    return save_model(play, path)


def set_values(path: str | os.PathLike[str], model: type[M], changes: dict[str, Any]) -> M:
    """Change a few top-level values of a play or sheet in place, validated before writing.

    `changes` maps a field to its new value (None removes it); nested dicts merge into tables.
    """
    p = Path(path)
    read_toml(p, "character" if model is CharacterSheet else "play")  # a regular file within bounds, as TOML
    original = p.read_text(encoding="utf-8")
    doc = tomlkit.parse(original)
    _merge(doc, changes)
    text = tomlkit.dumps(doc)
    result = validated_text(model, text, p)
    if text != original:
        write_atomically(p, text)
    return result
