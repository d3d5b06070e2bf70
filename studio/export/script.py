"""A run read as a play script, from the store: the one shape every export format renders.

The script itself (studio.engine.script) is a pure reading of a cast and a take, shared with the Critic,
and studio.engine.reading reads one from the store; every format renders what these return.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

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


# -- a script read from a file (studio.export.fountain.read, studio.export.fdx.read) ---------------------


@dataclass(frozen=True)
class Note:
    """A note the writer left in the script (Fountain's `[[...]]`): kept in the run, never a line."""

    text: str


@dataclass
class WrittenScript:
    """What a script file holds, in order, as the blocks a run's script is made of: scene headings (a
    play's own "SCENE N" with its brief, or a written heading), directions with their shape, speeches
    with their parenthetical, extension and dual flag, notes, and an epilogue. `title_page` maps each
    title page key, lower case ("title", "author", "credit", "draft date", "contact"...), to its value."""

    title_page: dict[str, str] = field(default_factory=dict)
    blocks: list[Heading | Direction | Speech | Epilogue | Note] = field(default_factory=list)


def speech_text(parts: tuple[tuple[str, str], ...]) -> str:
    """A speech's parts as the one text a stage line holds: business as `*business*` on a line of its own
    (where `split_business` reads it back as business), spoken lines as written."""
    return "\n".join(f"*{text}*" if kind == "business" else text for kind, text in parts)


# The extensions a cue may carry after the name, as screenwriters type them (compared without dots,
# spaces, hyphens or apostrophes): a bracket after a name that is none of these is part of the name,
# so "Simulacrum 1 (competitive)" stays one character's name.
CUE_EXTENSIONS = frozenset({
    "VO", "OS", "OC", "CONTD", "CONT", "OFF", "ONSCREEN", "OFFSCREEN", "PRELAP", "FILTERED", "ONPHONE",
    "INTOPHONE", "OVERPHONE", "ONTV", "ONRADIO", "OVERRADIO", "SUBTITLED", "SUBTITLE", "SINGING", "SUNG",
    "WHISPERING", "ONSPEAKER", "RECORDING", "MORE",
})
_CUE_BRACKET = re.compile(r"\s*\(([^()]*)\)\s*$")


def _extension(text: str) -> bool:
    return re.sub(r"[\s.'’\-]", "", text).upper() in CUE_EXTENSIONS


def split_cue(text: str) -> tuple[str, str]:
    """A cue as the name and its extensions ("V.O.", "O.S. CONT'D": each as typed, joined by a space):
    what `cue` wrote, read back."""
    name = " ".join(text.split())
    extensions: list[str] = []
    while (found := _CUE_BRACKET.search(name)) and found.start() > 0:
        inside = " ".join(found.group(1).split())
        if not _extension(inside) and not all(_extension(word) for word in inside.split()):
            break
        extensions.insert(0, inside)
        name = name[: found.start()].rstrip()
    return name, " ".join(extensions)
