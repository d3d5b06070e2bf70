"""Plays, characters and their settings: pydantic models read from and written to TOML.

The names below load on first use (PEP 562): pydantic and the models cost about a fifth of a second
to import, and a command that only needs :class:`InputError` (every command's error path, the app's
picker) should not pay for them before it has anything to show.
"""

from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

from studio.model.errors import InputError

_WHERE = {
    "DEFAULT_MODEL": "play",
    "ROLE_DEFAULTS": "play",
    "STRATEGIES": "play",
    "CastMember": "play",
    "CharacterSheet": "play",
    "Play": "play",
    "ResolvedCast": "play",
    "ResolvedRole": "play",
    "StrategySchedule": "play",
    "SuperegoSettings": "play",
    "load_character": "loading",
    "load_play": "loading",
    "resolve_cast": "loading",
    "save_character": "loading",
}

__all__ = ["InputError", *_WHERE]


def __getattr__(name: str) -> Any:
    module = _WHERE.get(name)
    if module is None:
        raise AttributeError(f"module 'studio.model' has no attribute {name!r}")
    value = getattr(import_module(f"studio.model.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted(__all__)


if TYPE_CHECKING:
    from studio.model.loading import load_character, load_play, resolve_cast, save_character
    from studio.model.play import (
        DEFAULT_MODEL,
        ROLE_DEFAULTS,
        STRATEGIES,
        CastMember,
        CharacterSheet,
        Play,
        ResolvedCast,
        ResolvedRole,
        StrategySchedule,
        SuperegoSettings,
    )
