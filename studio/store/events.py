"""The event: one immutable fact about a run. The stage, the backstage and every export are views of these."""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass, field
from typing import Any

SCENE = "scene"
STAGE = "stage"
DIRECTION = "direction"
DRAFT = "backstage.draft"
CRITIQUE = "backstage.critique"
REWRITE_SPEECH = "backstage.rewrite_speech"
REWRITE_PROMPT = "backstage.rewrite_prompt"
PICK = "backstage.pick"  # who speaks next, and why (a moderator's or director's choice, or the playwright's)
SUMMARY = "backstage.summary"  # a seat's own summary of lines that no longer fit its budget
# The social game's private records (studio.engine.forms.social).
CHOICE = "backstage.choice"  # an answer the rules could not use (asked again once)
GOALS = "backstage.goals"
VOTE = "backstage.vote"
MEMORY = "backstage.memory"  # a player's own note of a conversation
IMPRESSIONS = "backstage.impressions"
REFLECTION = "backstage.reflection"
EPILOGUE = "epilogue"
NOTE = "note"
CONTROL = "control"
ERROR = "error"
REVIEW = "backstage.review"  # the Critic's scores of the play so far, read by the Director (critic_loop)

GAME = (CHOICE, GOALS, VOTE, MEMORY, IMPRESSIONS, REFLECTION)
KINDS = (SCENE, STAGE, DIRECTION, DRAFT, CRITIQUE, REWRITE_SPEECH, REWRITE_PROMPT, PICK, SUMMARY, *GAME, REVIEW,
         EPILOGUE, NOTE, CONTROL, ERROR)
BACKSTAGE = (DRAFT, CRITIQUE, REWRITE_SPEECH, REWRITE_PROMPT, PICK, SUMMARY, *GAME, REVIEW)
# What an audience sees: the scene headings, directions and spoken lines, and the closing epilogue.
ON_STAGE = (SCENE, STAGE, DIRECTION, EPILOGUE)


# Line breaks other than \n and \r that json.dumps leaves as they are (it escapes only controls below 0x20)
_JSON_LINE_BREAKS = str.maketrans({"\u2028": "\\u2028", "\u2029": "\\u2029", "\x85": "\\u0085"})


@dataclass(frozen=True)
class Event:
    id: int
    run_id: int
    parent: int | None
    kind: str
    text: str
    role: str | None = None
    character: str | None = None
    scene: int | None = None
    turn: int | None = None
    origin: str = "model"  # model | human | override | studio
    data: dict[str, Any] = field(default_factory=dict)
    model: str | None = None
    settings: dict[str, Any] = field(default_factory=dict)
    usage: dict[str, Any] = field(default_factory=dict)
    created: float = 0.0

    @property
    def is_backstage(self) -> bool:
        return self.kind in BACKSTAGE

    @property
    def on_stage(self) -> bool:
        return self.kind in ON_STAGE

    @property
    def present(self) -> list[str] | None:
        """The character seats that witnessed this event; None for runs recorded before presence was kept."""
        value = self.data.get("present")
        return None if value is None else list(value)

    def witnessed_by(self, key: str) -> bool:
        private = self.data.get("private")
        if private is not None and private != key:
            return False
        present = self.data.get("present")
        return present is None or key in present

    @property
    def shaped_by(self) -> list[int]:
        return list(self.data.get("shaped_by", []))

    def to_json(self) -> str:
        """The event as one line of JSON, whatever its text holds. Text keeps the line and paragraph
        separators (U+2028, U+2029) as line breaks, and a line reader (Python's splitlines, many a log
        tool's) ends a line at them, so they are written as the escapes JSON has for them; NEL (U+0085)
        likewise. The JSON reads back the same."""
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True).translate(_JSON_LINE_BREAKS)
