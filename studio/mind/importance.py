"""How much a line will matter to the character who heard it: asked once per line, kept as an event.

Scoring is a model call, so it is done once and committed (kind `mind.importance`, data `line` = the
stage event's id); a rewind or another take reads the score back instead of asking again, and so
recalls the same memories. A reply that stays invalid after the second ask is committed too, as
`importance: null`, so the line counts as middling (5) and is not asked about on every replay.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from studio.structured import whole_number
from studio.mind.asking import Answer, ask
from studio.mind.state import IMPORTANCE

SHAPE = '{"importance": <a whole number from 1 to 10>, "why": "<a few words>"}'


class Importance(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    importance: StrictInt = Field(ge=1, le=10)
    why: str = Field(default="", max_length=300)

    @field_validator("importance", mode="before")
    @classmethod
    def _whole(cls, value: Any) -> Any:
        return whole_number(value)


def _normalise(obj: dict) -> dict:
    data = {str(k).strip().lower(): v for k, v in obj.items()}
    for alias in ("score", "rating", "poignancy"):
        if "importance" not in data and alias in data:
            data["importance"] = data[alias]
    for alias in ("reason", "because", "explanation"):
        if "why" not in data and alias in data:
            data["why"] = data[alias]
    if not isinstance(data.get("why", ""), str):
        data["why"] = str(data["why"])
    return data


def messages_for(character: str, speaker: str | None, line: str) -> list[dict[str, str]]:
    said = f"{speaker} said: {line}" if speaker else line
    return [
        {
            "role": "system",
            "content": f"You keep {character}'s memory. Judge how much one moment will still matter to "
            f"{character} later on: 1 is small talk that will be forgotten by evening, 10 is something that "
            f"changes {character}'s life. Reply with only a JSON object of this shape:\n{SHAPE}",
        },
        {"role": "user", "content": said},
    ]


async def score_line(gateway: Any, settings: Any, character: str, speaker: str | None, line: str,
                     *, scene: int = 0, turn: int = 0) -> Answer[Importance]:
    from studio.llm import CallContext

    ctx = CallContext(role="memory", task="importance", character=character, scene=scene, turn=turn)
    return await ask(gateway, settings, ctx, messages_for(character, speaker, line), Importance, SHAPE,
                     normalise=_normalise)


def event_fields(answer: Answer[Importance], character: str, line_event: int) -> dict[str, Any]:
    """Keyword arguments for Store.append that commit the score (or its absence) for one line."""
    value = answer.value
    text = f"{value.importance}/10: {value.why}" if value else f"unscored: {answer.error}"
    return {
        "kind": IMPORTANCE,
        "text": text,
        "character": character,
        "origin": "model",
        "model": answer.model,
        "usage": answer.usage,
        "data": {
            "line": line_event,
            "importance": value.importance if value else None,
            "why": value.why if value else "",
            "replies": answer.replies,
        },
    }
