"""A kind's own settings, the table of its name in an experiment file, as a pydantic model.

Unknown keys, wrong types and values out of bounds are refused by the model itself; the message names
the experiment file and the field as the file spells it (`pd.temperature`), says what is wrong and how
to put it right, through the same reader as plays and characters (`studio.model.loading`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict

S = TypeVar("S", bound="KindSettings")


class KindSettings(BaseModel):
    """Strict: TOML has real numbers, booleans and lists, so a quoted number or a `true` for a count is a
    mistake to name, not a value to coerce."""

    model_config = ConfigDict(extra="forbid", strict=True)


def read(model: type[S], spec: dict[str, Any], table: str, source: str) -> S:
    """The kind's table of `spec` checked by `model`; bad input raises InputError naming `source` and
    `table.field`. A validator's message is "<what is wrong>; <the fix>"."""
    from studio.model.loading import _validate

    return _validate(model, dict(spec.get(table) or {}), Path(source), prefix=f"{table}.")


def listed(value: list[Any], known: Any, key: str) -> list[Any]:
    """Some of `known`, each once, in the order given: what groups, partners and methods may be."""
    names = list(known)
    if not value or any(v not in names for v in value):
        raise ValueError(f"must be a list of some of {names}, not {value!r}; "
                         f"e.g. {key} = [\"{names[0]}\"], or leave it out for all")
    return list(dict.fromkeys(value))
