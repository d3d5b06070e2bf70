"""Private reflection: every N turns or at a scene's end a character takes stock, and what it concludes
(its impressions of the others, perhaps revised goals) is committed as a `mind.reflection` event.

The reply is data: thoughts, and per character met a trust and a liking from -5 to 5 and what it
believes they want. Names the character has not met are dropped rather than trusted, since a small
model invents people; a reply that stays invalid after the second ask commits nothing, and the old
impressions stand.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, field_validator

from studio.structured import whole_number
from studio.mind.asking import Answer, ask
from studio.mind.state import REFLECTION, Impression

SHAPE = (
    '{"thoughts": "<two or three private sentences>", '
    '"impressions": {"<name>": {"trust": <-5 to 5>, "liking": <-5 to 5>, "wants": "<what they are after>"}}, '
    '"goals": null or ["<a revised goal>", ...]}'
)


def _signed(value: Any) -> Any:
    if isinstance(value, str) and re.fullmatch(r"\s*[+-]?\d+\s*", value):
        return int(value)
    return whole_number(value)


class ImpressionReply(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    trust: StrictInt = Field(ge=-5, le=5)
    liking: StrictInt = Field(ge=-5, le=5)
    wants: str = Field(default="", max_length=300)

    @field_validator("trust", "liking", mode="before")
    @classmethod
    def _whole(cls, value: Any) -> Any:
        return _signed(value)


class ReflectionReply(BaseModel):
    model_config = ConfigDict(extra="ignore", str_strip_whitespace=True)

    thoughts: str = Field(min_length=1, max_length=2000)
    impressions: dict[str, ImpressionReply] = Field(default_factory=dict)
    goals: list[str] | None = Field(default=None, max_length=5)

    @field_validator("thoughts")
    @classmethod
    def _not_the_example(cls, value: str) -> str:
        if value.startswith("<"):
            raise ValueError("is the example's placeholder, not thoughts")
        return value


def _normalise(obj: dict) -> dict:
    data = {str(k).strip().lower(): v for k, v in obj.items()}
    impressions = data.get("impressions")
    if isinstance(impressions, list):  # [{"name": "Ada", "trust": 2, ...}]
        data["impressions"] = {str(i.get("name", "")): i for i in impressions if isinstance(i, dict)}
    if isinstance(data.get("impressions"), dict):
        data["impressions"] = {
            str(name): {str(k).strip().lower(): v for k, v in value.items()} if isinstance(value, dict) else value
            for name, value in data["impressions"].items()
        }
    goals = data.get("goals")
    if isinstance(goals, str):
        data["goals"] = [goals] if goals.strip() else None
    elif isinstance(goals, list) and not goals:
        data["goals"] = None
    return data


def due(every: int, turn: int, last_turn: int | None, scene_ended: bool) -> bool:
    """Reflect at a scene's end (if the sheet reflects at all) or when `every` turns have passed."""
    if every <= 0:
        return False
    return scene_ended or turn - (last_turn or 0) >= every


def messages_for(
    character: str,
    who: str,
    goals: Sequence[str],
    witnessed: Sequence[str],
    others: Sequence[str],
    impressions: Mapping[str, Impression],
) -> list[dict[str, str]]:
    """The character, alone: who it is, what it saw lately, what it thought of the others until now."""
    lines = [f"Others: {'; '.join(others)}", "", "What you witnessed lately:"]
    lines += [f"- {line}" for line in witnessed] or ["- (nothing yet)"]
    if goals:
        lines += ["", "Your goals until now:"] + [f"- {g}" for g in goals]
    if impressions:
        lines += ["", "What you thought of them until now:"]
        for name, imp in impressions.items():
            lines.append(f"- {name}: trust {imp.trust:+d}, liking {imp.liking:+d}; wants {imp.wants or '?'}")
    return [
        {
            "role": "system",
            "content": f"{who}\n\nYou are {character}, alone for a moment, thinking over what has happened. Nobody "
            f"hears this. Say privately what you make of it, then rate each of the others you have met: how far "
            f"you trust them and how much you like them, each from -5 to 5, and what you believe they want. "
            f"If your goals should change, give the new list; otherwise goals is null. Reply with only a JSON "
            f"object of this shape:\n{SHAPE}",
        },
        {"role": "user", "content": "\n".join(lines)},
    ]


async def reflect(gateway: Any, settings: Any, character: str, messages: list[dict[str, str]],
                  *, scene: int = 0, turn: int = 0) -> Answer[ReflectionReply]:
    from studio.llm import CallContext

    ctx = CallContext(role="mind", task="reflect", character=character, scene=scene, turn=turn)
    return await ask(gateway, settings, ctx, messages, ReflectionReply, SHAPE, normalise=_normalise)


def event_fields(answer: Answer[ReflectionReply], character: str, others: Sequence[str], *,
                 scene: int, turn: int) -> dict[str, Any] | None:
    """Keyword arguments for Store.append, or None when the reply never validated (nothing changes)."""
    value = answer.value
    if value is None:
        return None
    known = {name.casefold(): name for name in others}
    impressions = {}
    for name, imp in value.impressions.items():
        real = known.get(name.strip().casefold())
        if real is not None:
            impressions[real] = imp.model_dump()
    return {
        "kind": REFLECTION,
        "text": value.thoughts,
        "character": character,
        "scene": scene,
        "turn": turn,
        "origin": "model",
        "model": answer.model,
        "usage": answer.usage,
        "data": {
            "thoughts": value.thoughts,
            "impressions": impressions,
            "goals": [g for g in value.goals if g.strip()] if value.goals else None,
            "dropped": sorted(set(value.impressions) - {n for n in value.impressions if n.strip().casefold() in known}),
            "replies": answer.replies,
        },
    }


def failed_fields(answer: Answer[ReflectionReply], character: str, *, scene: int, turn: int) -> dict[str, Any]:
    """A reflection that never validated: committed with no thoughts, so it is not asked again every turn."""
    return {
        "kind": REFLECTION,
        "text": f"{character} could not put it into words ({answer.error})",
        "character": character,
        "scene": scene,
        "turn": turn,
        "origin": "model",
        "model": answer.model,
        "usage": answer.usage,
        "data": {"thoughts": "", "impressions": {}, "goals": None, "error": answer.error, "replies": answer.replies},
    }
