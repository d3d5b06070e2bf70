"""A researcher's own wording for an experiment's prompts, in place of the studio's.

The studio's prompts are its own words. A researcher who wants to run a paper's protocol with the paper's
appendix verbatim names a file of prompt texts in the experiment's table (`prompts = "my_prompts.toml"`):
one TOML string per prompt the kind lets a user replace, each a template whose `{placeholders}` the kind
fills (the item's statement, the answer, the scripts...). A prompt the file leaves out keeps the studio's
wording. What a reply must look like (the JSON the reader holds it to) is always added after the text, so
a replaced prompt still yields replies the studio can read.

A file is checked once, when the experiment is: an unknown prompt, a placeholder the prompt does not
have, or a template that does not parse is refused naming the file, the prompt and the fix.
"""

from __future__ import annotations

import string
import tomllib
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Slot:
    """A prompt a user may replace: what it is for and the placeholders it is given."""

    about: str
    placeholders: tuple[str, ...] = ()


def fields(template: str) -> list[str]:
    """The placeholders a template names, in order; ValueError when it does not parse or asks for more
    than a name (an index, an attribute, a conversion or a format spec)."""
    names = []
    for _, name, spec, conversion in string.Formatter().parse(template):
        if name is None:
            continue
        if not name.isidentifier() or spec or conversion:
            raise ValueError(f"'{{{name}{'!' + conversion if conversion else ''}{':' + spec if spec else ''}}}' "
                             "is not a plain placeholder")
        names.append(name)
    return names


def read(path: Path, slots: Mapping[str, Slot], source: str, field: str) -> dict[str, str]:
    """The file's prompts, each checked against its slot; `source` and `field` name where the file was given."""
    from studio.model import InputError
    from studio.model.outside_file import read_outside

    if not path.is_file():
        raise InputError(source, field, f"no prompt file '{path}'",
                         "give the path of a TOML file of prompt texts, relative to the experiment file")
    try:
        data = tomllib.loads(read_outside(path, "prompt table").decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise InputError(str(path), None, f"is not TOML: {exc}", "fix the file's syntax") from None
    out: dict[str, str] = {}
    for key, text in data.items():
        if key not in slots:
            raise InputError(str(path), key, "is not a prompt this experiment uses",
                             f"use some of: {', '.join(slots)}")
        if not isinstance(text, str) or not text.strip():
            raise InputError(str(path), key, "must be a text", f'e.g. {key} = """..."""')
        try:
            named = fields(text)
        except ValueError as exc:
            raise InputError(str(path), key, f"does not read as a template: {exc}",
                             "write placeholders as {name}, and a literal brace as {{ or }}") from None
        unknown = sorted(set(named) - set(slots[key].placeholders))
        if unknown:
            allowed = ", ".join("{" + p + "}" for p in slots[key].placeholders) or "none"
            raise InputError(str(path), key, f"names {', '.join('{' + u + '}' for u in unknown)}, which this "
                             f"prompt is not given", f"use only: {allowed}")
        out[key] = text
    return out


def fill(template: str, **values: str) -> str:
    """The template with its placeholders filled; text inserted is never read as a template again."""
    return template.format_map({name: values.get(name, "") for name in fields(template)})


def catalogue(slots: Mapping[str, Slot]) -> list[str]:
    """One line per replaceable prompt: its key, what it is for and its placeholders (for the docs and errors)."""
    return [f"{key}: {slot.about}" + (f" ({', '.join('{' + p + '}' for p in slot.placeholders)})"
                                      if slot.placeholders else "") for key, slot in slots.items()]
