"""Plays, characters and their settings: pydantic models read from and written to TOML."""

from studio.model.errors import InputError
from studio.model.play import (
    DEFAULT_MODEL,
    ROLE_DEFAULTS,
    CastMember,
    CharacterSheet,
    Play,
    ResolvedCast,
    ResolvedRole,
    StrategySchedule,
    SuperegoSettings,
    STRATEGIES,
)
from studio.model.loading import load_character, load_play, save_character, resolve_cast

__all__ = [
    "DEFAULT_MODEL",
    "ROLE_DEFAULTS",
    "STRATEGIES",
    "CastMember",
    "CharacterSheet",
    "InputError",
    "Play",
    "ResolvedCast",
    "ResolvedRole",
    "StrategySchedule",
    "SuperegoSettings",
    "load_character",
    "load_play",
    "resolve_cast",
    "save_character",
]
