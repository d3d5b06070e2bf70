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
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)
