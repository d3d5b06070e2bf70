"""One gateway for every model call: streaming, deadlines, retries, usage, honest errors.

The built-in models (the embedded one and the scripted understudy) are called in-process; every
other model goes through litellm, imported on the first call that needs it (studio.llm.litellm_loader).
What a failure means is judged in studio.llm.faults, the request each kind of server takes is built in
studio.llm.requests, how a reply that is data is asked for in studio.llm.structured_replies, and a line
that goes on in studio.llm.continuation: here is only the loop that ties one call's attempts together.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field, replace
from typing import Any

from studio.clean import StreamCleaner, clean_model_text
from studio.llm import continuation, faults, litellm_loader, names, structured_replies
from studio.llm.call_settings import CallSettings
from studio.llm.errors import BrokenReply, ModelError
from studio.llm.requests import build_request, whole

# Names the engine (model_window), the lab (CallSettings, STRUCTURED) and the app (needs_litellm, warm_up)
# import from here; each lives in the module its job names.
from studio.llm.litellm_loader import warm_up
from studio.llm.names import model_window, needs_litellm
from studio.llm.structured_replies import STRUCTURED

__all__ = [
    "STRUCTURED",
    "CallContext",
    "CallSettings",
    "Completion",
    "Gateway",
    "ModelError",
    "model_window",
    "needs_litellm",
    "warm_up",
]


@dataclass(frozen=True)
class CallContext:
    """Who is asking and for what: the engine records it, the scripted voice performs from it. ``take``
    counts the takes that already stand where the line will go (0 for the first), so a built-in voice
    can write a new take differently and the same take the same way again."""

    role: str
    task: str
    character: str
    scene: int = 0
    turn: int = 0
    take: int = 0


@dataclass
class Completion:
    """A finished answer. ``text`` is the final attempt's alone; ``seconds`` counts every attempt and pause.
    ``structured`` is how a reply held to a schema was asked for ("schema", "json" or "words"; None for a
    reply that is not data or a built-in model); ``notices`` say what this call learned about its server
    (it refused a schema, so it is asked another way from now on), for the run's notes."""

    text: str
    model: str
    usage: dict
    attempts: int
    seconds: float
    structured: str | None = None
    notices: list[str] = field(default_factory=list)


class Gateway:
    """Sends chat messages to a model and streams the answer back.

    ``backoff`` is the first pause between attempts, in seconds; each further
    pause doubles it (with a little jitter so that parallel callers spread out).
    """

    def __init__(self, *, backoff: float | None = None, routers: Any = (), structured: str | None = None,
                 small: bool | None = None):
        # model name -> studio.llm.router.EndpointRouter: that model's calls are spread over its endpoints
        self.routers: dict[str, Any] = {}
        # An experiment's own choices for every call that does not make one (see CallSettings).
        self.structured = structured
        self.small = small
        # server -> the way of asking for structured replies it has held this run, after refusing a stronger one
        self.held: dict[str, str] = {}
        for router in routers:
            self.route(router)
        if backoff is None:
            # STUDIO_RETRY_BACKOFF: the first pause, for a playwright who would rather wait less (or more)
            try:
                backoff = max(0.0, float(os.environ.get("STUDIO_RETRY_BACKOFF", "1") or 1))
            except ValueError:
                backoff = 1.0
        self.backoff = backoff

    def route(self, router: Any) -> None:
        """Send every call for ``router.model`` through ``router`` (see studio.llm.router.make_router)."""
        self.routers[router.model] = router

    async def complete(
        self,
        settings: CallSettings,
        messages: list[dict],
        ctx: CallContext,
        on_token: Callable[[str], None] | None = None,
        on_retry: Callable[[int, str], None] | None = None,
    ) -> Completion:
        """Ask ``settings.model`` to continue ``messages``; return the whole answer.

        ``on_token(piece)`` is called with each piece of text as it arrives.
        If an attempt fails after some pieces were streamed and the gateway
        retries, those pieces are void: ``on_retry(next_attempt, reason)`` is
        called before the next attempt starts, so a UI can clear the partial
        line; the returned ``Completion.text`` holds only the final attempt.

        Each attempt must finish within ``settings.timeout`` seconds. Timeouts,
        rate limits, server errors and connection failures are retried up to
        ``settings.retries`` times; bad keys, unknown models and rejected
        requests are not. Giving up raises :class:`ModelError`.

        Cancelling the awaiting task stops the attempt at once (the embedded
        model stops sampling within a token) and ``CancelledError`` propagates.
        """
        started = time.monotonic()
        from studio.settings import shared_embedded

        shared = shared_embedded(settings.model)
        if shared is not None:  # one embedded model served for every tab, not a copy loaded in each
            settings = replace(settings, model=shared[0], api_base=shared[1])
        inside = names.builtin(names.route(settings.model))
        settings, router = await self._prepared(settings, ctx, inside)
        notices: list[str] = []
        attempt = 0
        while True:
            attempt += 1
            endpoint = None
            mode = None
            try:
                async with contextlib.AsyncExitStack() as held:
                    endpoint = await held.enter_async_context(router.slot()) if router is not None else None
                    mode = None if inside else self._mode(settings, endpoint)
                    async with asyncio.timeout(settings.timeout):
                        text, usage = await self._attempt(settings, messages, ctx, on_token, endpoint, mode)
                return Completion(text, settings.model, usage, attempt, time.monotonic() - started, mode, notices)
            except faults.CallerFault as fault:
                raise fault.error from None
            except Exception as exc:
                cause = faults.unwrap(exc, inside)
                if isinstance(cause, ModelError):
                    cause.attempts = attempt
                    raise cause from None
                if mode in ("schema", "json") and structured_replies.format_refused(cause):
                    # The server cannot hold a reply this way: ask it the next way at once (not a fault of
                    # the call, so no attempt is spent), and from now on for the rest of the run.
                    notices.append(self._refused(settings, endpoint, mode, attempt))
                    attempt -= 1
                    continue
                verdict = await self._verdict(exc, cause, settings)
                pause = self._pause(attempt, cause)
            if not verdict.retry or attempt > settings.retries:
                raise faults.given_up(settings.model, verdict, attempt) from None
            if on_retry is not None:
                on_retry(attempt + 1, faults.retrying(verdict, pause, attempt, settings.retries))
            await asyncio.sleep(pause)

    async def _prepared(self, settings: CallSettings, ctx: CallContext, inside: bool) -> tuple[CallSettings, Any]:
        """The settings a call is made with, and the router that spreads it over the model's endpoints (or
        None). A small model is held as the embedded one is; a call made outside a play's cast (an
        assessor, the Critic) finds the server its model is served on."""
        if inside:
            return settings, None
        await litellm_loader.ready()  # its import (seconds, once) is not the provider's time to answer
        from studio.llm.sampling import is_small, small_settings

        small = settings.small if settings.small is not None else self.small
        if is_small(settings.model, small):
            settings = small_settings(settings, ctx.task)
        # A model served by several endpoints: each attempt first waits for a free slot on one of them,
        # outside the attempt's deadline (a queue behind a busy server is not the server being slow).
        router = self.routers.get(settings.model)
        if router is None and not settings.api_base:
            from studio.settings import served_api_base

            served = served_api_base(settings.model)
            if served:
                settings = replace(settings, api_base=served)
        return settings, router

    async def _verdict(self, exc: BaseException, cause: BaseException, settings: CallSettings) -> faults.Verdict:
        """The judgement on a failed attempt; a routed call's names the endpoint that failed."""
        # Judging needs litellm's exception types; a built-in's timeout is judged without them.
        litellm = None if isinstance(cause, (TimeoutError, BrokenReply)) else await litellm_loader.ready()
        verdict = faults.judge(litellm, cause, settings)
        where = getattr(exc, "studio_endpoint", None) or getattr(cause, "studio_endpoint", None)
        return verdict.at(where) if where else verdict

    # -- structured replies ----------------------------------------------------------------------------

    def _mode(self, settings: CallSettings, endpoint: Any) -> str | None:
        """How this call asks for a reply held to its schema (see studio.llm.structured_replies.mode)."""
        return structured_replies.mode(settings, names.route(settings.model), endpoint, self.structured, self.held)

    def _refused(self, settings: CallSettings, endpoint: Any, mode: str, attempt: int) -> str:
        """The server refused `mode`: step down for the rest of the run, and say so for the run's notes."""
        return structured_replies.step_down(settings, names.route(settings.model), endpoint, mode, attempt,
                                            self.structured, self.held)

    def _pause(self, attempt: int, exc: BaseException) -> float:
        return faults.pause(self.backoff, attempt, exc)

    # -- one attempt -----------------------------------------------------------------------------------

    async def _attempt(
        self,
        settings: CallSettings,
        messages: list[dict],
        ctx: CallContext,
        on_token: Callable[[str], None] | None,
        endpoint: Any = None,
        mode: str | None = None,
    ) -> tuple[str, dict]:
        """One try: the built-ins are called in-process, without litellm (whose import takes seconds that
        a first step should not wait for); every other model goes through litellm. Both yield the same
        (piece, usage) pairs, so streaming, usage and errors are handled by the one loop in `_read`."""
        routed = names.route(settings.model)
        inside = names.builtin(routed)
        litellm = litellm_loader.loaded()  # loaded already for any model but a built-in
        spaced = False
        if settings.prefill and not inside:
            own_server = endpoint is not None or bool(settings.api_base)
            messages, spaced = continuation.going_on(messages, settings.prefill, routed, own_server)
        stream = await self._stream(settings, routed, messages, ctx, on_token is None, endpoint, mode)
        if spaced:
            stream = continuation.after_the_line(stream)
        pieces, usage = await _read(stream, on_token)
        # Cleaned whole: a sequence split across two pieces is removed from what is stored.
        text = clean_model_text("".join(pieces))
        if settings.prefill and not spaced and not inside:
            text = continuation.answer_only(text, settings.prefill)
        if not text.strip() and not settings.allow_empty and not inside:
            # A 200 with no content, or a body that was not an answer: nothing was said, so nothing is kept.
            raise BrokenReply("the reply held no text (empty, or not an answer)")
        return text, _usage(litellm, usage, routed, messages, text)

    async def _stream(self, settings: CallSettings, routed: str, messages: list[dict], ctx: CallContext,
                      unwatched: bool, endpoint: Any, mode: str | None) -> AsyncGenerator[tuple[str, Any], None]:
        """The attempt's (piece, usage) pairs: from a built-in, from the endpoint whose slot the caller
        holds, or from litellm's own call."""
        if names.builtin(routed):
            from studio.llm.providers import perform

            return perform(routed, messages, settings, ctx)
        litellm = await litellm_loader.ready()
        if endpoint is not None:
            request = build_request(routed, settings, messages, mode, own_server=True)
            if unwatched:
                request = whole(request)
            return self.routers[settings.model].call(endpoint, request)
        request = build_request(routed, settings, messages, mode, own_server=bool(settings.api_base))
        from studio.settings import shared_embedded_key

        key = shared_embedded_key(settings.api_base)
        if key is not None:  # the shared embedded model answers only to its own key, never recorded
            request["api_key"] = key
        return _pieces(await litellm.acompletion(**request))


async def _read(stream: Any, on_token: Callable[[str], None] | None) -> tuple[list[str], Any]:
    """Read a stream to its end, showing each piece cleaned through `on_token`; the pieces as received
    (a sequence split across two is only whole once they are joined) and the usage the stream reported."""
    pieces: list[str] = []
    usage = None
    shown = StreamCleaner()
    try:
        async for raw, found in stream:
            if raw:
                pieces.append(raw)
            piece = shown.feed(raw or "")
            if piece and on_token is not None:
                try:
                    on_token(piece)
                except Exception as exc:
                    raise faults.CallerFault(exc) from exc
            if found:
                usage = found
    except BaseException:
        # Release the connection, or raise the embedded model's stop flag, before moving on.
        with contextlib.suppress(Exception):
            await stream.aclose()
        raise
    return pieces, usage


async def _pieces(stream):
    """litellm's chunks as (piece, usage) pairs; closing this closes the provider's stream."""
    from studio.llm.router import pieces

    async for pair in pieces(stream):
        yield pair


def _usage(litellm, found, route: str, messages: list[dict], text: str) -> dict:
    """Token counts from the stream when the provider reports them, else counted here."""
    if isinstance(found, dict) and (found.get("prompt_tokens") or found.get("completion_tokens")):
        return dict(found)  # a built-in's own count, with anything extra it knows (cached_tokens)
    if found:
        prompt = int(getattr(found, "prompt_tokens", 0) or 0)
        completion = int(getattr(found, "completion_tokens", 0) or 0)
        if prompt or completion:
            return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
    try:
        if litellm is None:
            raise LookupError("litellm not loaded: count words")
        prompt = int(litellm.token_counter(model=route, messages=messages))
        completion = int(litellm.token_counter(model=route, text=text)) if text else 0
    except Exception:
        prompt = sum(len(str(m.get("content", "")).split()) for m in messages)
        completion = len(text.split())
    return {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion}
