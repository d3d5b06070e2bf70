"""A line asked to go on from where it stopped: a provider that takes a prefill is handed the line so far
as the start of its reply; any other (a server of one's own, a provider the model map does not vouch for)
is told it in words, and its answer, a new message, is a new word after the line's last."""

from __future__ import annotations

from collections.abc import AsyncGenerator
from typing import Any

from studio.llm import litellm_loader


def going_on(messages: list[dict], so_far: str, route: str, own_server: bool) -> tuple[list[dict], bool]:
    """The call's messages for a line that goes on from `so_far`, and whether the answer comes as a new
    message (asked in words) that must be spaced after the line (see `after_the_line`)."""
    native = not own_server and takes_prefill(route)
    return continued(messages, so_far, native), not native


def continued(messages: list[dict], so_far: str, native: bool) -> list[dict]:
    """The call's messages for a line that goes on from `so_far`. `native`: the provider continues an
    assistant message left last (a prefill, marked `prefix` as litellm passes it on to Mistral and DeepSeek,
    which need the mark); otherwise the line so far is put to it in words."""
    if native:
        return [*messages, {"role": "assistant", "content": so_far, "prefix": True}]
    ask = (f"Your line so far, which stopped before it was done:\n\n{so_far}\n\n"
           "Go on from exactly where it stops. Reply with only the words that come next, not the line again.")
    out = [dict(m) for m in messages]
    if out and out[-1].get("role") == "user" and isinstance(out[-1].get("content"), str):
        out[-1]["content"] = out[-1]["content"] + "\n\n" + ask
    else:
        out.append({"role": "user", "content": ask})
    return out


def takes_prefill(route: str) -> bool:
    """Whether litellm's bundled model map says the provider goes on from an assistant message left last."""
    litellm = litellm_loader.loaded()
    if litellm is None:
        return False
    try:
        return bool(litellm.get_model_info(route).get("supports_assistant_prefill"))
    except Exception:  # noqa: BLE001 - a model the map does not list: ask in words
        return False


async def after_the_line(stream: Any) -> AsyncGenerator[tuple[str, Any], None]:
    """An answer asked for in words is a new message: its first word follows the line's last after a space,
    as a prefilled reply's own first piece would (the stream and the stored text agree)."""
    first = True
    try:
        async for piece, usage in stream:
            if first and piece:
                first = False
                if not piece[:1].isspace() and piece[:1] not in ",.;:!?…)":
                    piece = " " + piece
            yield piece, usage
    finally:
        await stream.aclose()


def answer_only(text: str, so_far: str) -> str:
    """The reply without the line so far, for a provider that answers a prefill with the whole line."""
    return text[len(so_far):] if text.startswith(so_far) else text
