"""The two built-in voices, called in-process.

They stream the same ``(piece, usage)`` pairs the gateway makes of litellm's chunks, so the gateway's
one loop handles streaming, usage, retries and errors alike for them and for hosted models, while a
step on a built-in never waits for litellm's import.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator

import studio.llm.local as local
import studio.llm.scripted as scripted


def perform(route: str, messages: list[dict], settings, ctx) -> AsyncGenerator[tuple[str, dict | None], None]:
    """Start the built-in named by ``route`` (``scripted/...`` or ``local/...``) on one call."""
    if route.startswith("scripted/"):
        return scripted.perform(
            model=route,
            messages=messages,
            role=ctx.role,
            task=ctx.task,
            character=ctx.character,
            scene=ctx.scene,
            turn=ctx.turn,
            take=ctx.take,
            max_tokens=settings.max_tokens,
            prefill=settings.prefill,
        )
    return local.perform(
        messages,
        temperature=settings.temperature,
        max_tokens=settings.max_tokens,
        stop=settings.stop,
        top_p=settings.top_p,
        min_p=settings.min_p,
        repeat_penalty=settings.repeat_penalty,
        schema=settings.schema,
        prefill=settings.prefill,
        seed=settings.seed,
        grammar=settings.grammar,
        avoid=settings.avoid,
        unsaid=settings.unsaid,
    )
