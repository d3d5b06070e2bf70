"""The two built-in voices, dressed as litellm custom providers.

Routing them through litellm like any hosted model keeps a single code path:
the gateway's streaming, usage and retry handling is the same whether the
words come from a server, from llama.cpp, or from the scripted understudy.

This module imports litellm at the top and is itself imported only by the
gateway, after litellm has been configured to stay quiet and offline.
"""

from __future__ import annotations

from collections.abc import AsyncIterator

from litellm.llms.custom_llm import CustomLLM
from litellm.types.utils import GenericStreamingChunk

from studio.llm import local, scripted

CONTEXT_KEY = "studio_ctx"


def _chunk(text: str, usage: dict | None = None, finish: str = "") -> GenericStreamingChunk:
    return {
        "text": text,
        "tool_use": None,
        "is_finished": usage is not None,
        "finish_reason": finish or ("stop" if usage is not None else ""),
        "usage": usage,
        "index": 0,
    }


def _context(litellm_params: dict | None) -> dict:
    metadata = (litellm_params or {}).get("metadata") or {}
    return metadata.get(CONTEXT_KEY) or {}


class _Voice(CustomLLM):
    """Common ground: litellm calls ``astreaming`` for ``acompletion(stream=True)``."""

    async def astreaming(self, *args, **kwargs) -> AsyncIterator[GenericStreamingChunk]:  # type: ignore[override]
        async for piece, usage in self.perform(
            model=kwargs.get("model", ""),
            messages=kwargs.get("messages") or [],
            params=kwargs.get("optional_params") or {},
            ctx=_context(kwargs.get("litellm_params")),
        ):
            yield _chunk(piece, usage)

    def perform(self, model: str, messages: list[dict], params: dict, ctx: dict) -> AsyncIterator[tuple[str, dict | None]]:
        raise NotImplementedError


class ScriptedVoice(_Voice):
    def perform(self, model, messages, params, ctx):
        return scripted.perform(
            model=f"scripted/{model}",
            messages=messages,
            role=str(ctx.get("role", "ego")),
            task=str(ctx.get("task", "speak")),
            character=str(ctx.get("character", "Someone")),
            scene=int(ctx.get("scene", 0)),
            turn=int(ctx.get("turn", 0)),
            max_tokens=params.get("max_tokens"),
        )


class EmbeddedVoice(_Voice):
    def perform(self, model, messages, params, ctx):
        return local.perform(
            messages=messages,
            temperature=float(params.get("temperature", 0.7)),
            max_tokens=int(params.get("max_tokens") or 256),
        )


def register(litellm) -> None:
    """Add the built-in providers to litellm's map once, keeping any a user registered."""
    present = {item["provider"] for item in litellm.custom_provider_map}
    voices = {"scripted": ScriptedVoice, "local": EmbeddedVoice}
    for provider, voice in voices.items():
        if provider not in present:
            litellm.custom_provider_map.append({"provider": provider, "custom_handler": voice()})
    from litellm.utils import custom_llm_setup

    custom_llm_setup()
