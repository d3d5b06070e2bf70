"""Asking a model for a small JSON reply, read by studio/structured.py like every reply that is data.

Importance scores and reflections share that reading: lenient about the wrapping (prose, fences: the
first object that validates wins), strict about the content (pydantic).
An invalid reply is shown its error and asked once more; a second failure is returned as such, with
both replies, and the caller decides what a missing answer means. No reply at all (the model cannot be
reached) raises the gateway's ModelError, because that is not an invalid answer.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from pydantic import BaseModel

import studio.structured as structured

M = TypeVar("M", bound=BaseModel)


@dataclass
class Answer(Generic[M]):
    value: M | None
    replies: list[str] = field(default_factory=list)
    error: str | None = None
    model: str | None = None
    usage: dict[str, Any] = field(default_factory=dict)


def read_reply(model: type[M], text: str, normalise: Callable[[dict], dict] = lambda d: d) -> tuple[M | None, str | None]:
    """The first JSON object in `text` that validates as `model`, or None and why not."""
    return structured.read(text or "", model, normalise)


async def ask(
    gateway: Any,
    settings: Any,
    ctx: Any,
    messages: list[dict[str, str]],
    model: type[M],
    shape: str,
    *,
    normalise: Callable[[dict], dict] = lambda d: d,
    attempts: int = 2,
) -> Answer[M]:
    answer: Answer[M] = Answer(value=None, model=settings.model)
    if getattr(settings, "schema", "unset") is None:
        # Held to the shape where the model can be (the embedded model's grammar, providers' schemas).
        settings = dataclasses.replace(settings, schema=structured.reply_schema(model))
    for _ in range(max(1, attempts)):
        completion = await gateway.complete(settings, messages, ctx)
        answer.replies.append(completion.text)
        for key, value in (completion.usage or {}).items():
            if isinstance(value, (int, float)):
                answer.usage[key] = answer.usage.get(key, 0) + value
        value, error = read_reply(model, completion.text, normalise)
        if value is not None:
            answer.value, answer.error = value, None
            return answer
        answer.error = error
        messages = messages + [
            {"role": "assistant", "content": completion.text},
            {"role": "user", "content": structured.ask_again(error or "it was not the JSON asked for", shape)},
        ]
    return answer
