"""A run read as a play script, from the store: the one shape every export format renders.

The script itself (studio.engine.script) is a pure reading of a cast and a take, shared with the Critic,
and studio.engine.reading reads one from the store; every format renders what these return.
"""

from __future__ import annotations

from studio.engine.reading import build_script, finished  # noqa: F401
from studio.engine.script import (  # noqa: F401
    BUSINESS,
    Backstage,
    Block,
    CastEntry,
    DIRECTION_SHAPES,
    Direction,
    Epilogue,
    Heading,
    Script,
    Speech,
    character_direction,
    clean_text,
    cue,
    dual_mark,
    parenthesise,
    protagonist_voice,
    read_script,
    split_business,
    superego_at_work,
)
