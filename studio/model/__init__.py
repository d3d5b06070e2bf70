"""Plays, characters and their settings: pydantic models read from and written to TOML.

A play here is data; its form checks the cast it needs (studio.engine.forms: load_play, resolve_cast).

The names below load on first use: `from studio.model import InputError` must not pay for pydantic,
whose import and model building are most of the time a command takes before it can say anything.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from studio.model.errors import InputError

_WHERE = {
    **dict.fromkeys(
        ("DEFAULT_MODEL", "ROLE_DEFAULTS", "CastMember", "CharacterSheet", "Play", "ResolvedCast", "ResolvedRole",
         "StrategySchedule", "SuperegoSettings", "STRATEGIES"),
        "studio.model.play",
    ),
    **dict.fromkeys(("load_character", "read_play", "resolve_roles"), "studio.model.loading"),
    "save_character": "studio.model.edit",
}

__all__ = ["InputError", *_WHERE]


def __getattr__(name: str) -> Any:
    if name in _WHERE:
        value = getattr(import_module(_WHERE[name]), name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'studio.model' has no attribute {name!r}")


if TYPE_CHECKING:
    from studio.model.edit import save_character  # noqa: F401
    from studio.model.loading import load_character, read_play, resolve_roles  # noqa: F401
    from studio.model.play import (  # noqa: F401
        DEFAULT_MODEL, ROLE_DEFAULTS, STRATEGIES, CastMember, CharacterSheet, Play, ResolvedCast, ResolvedRole,
        StrategySchedule, SuperegoSettings,
    )
