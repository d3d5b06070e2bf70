"""One model served by several OpenAI-compatible endpoints: calls spread over them, each endpoint capped.

A lab batch that runs 30 trials at once against one server waits on that server; given the same model
on two or four servers (vLLM, llama.cpp's server, Ollama on several machines), the calls are spread
over them with a litellm ``Router``: one deployment per endpoint, all under the model's own name.

Which endpoint takes a call is decided here, not by litellm's routing: a call waits for a free slot
(at most ``max_parallel`` calls in flight per endpoint, the stream included), then goes to the free
endpoint with the fewest calls in flight, skipping one that failed in the last few seconds while
another is free. litellm's own ``max_parallel_requests`` is not used for the cap: in the pinned
litellm a deployment at its limit answers the next call with a 429 instead of queueing it, and its
shuffle picks a deployment before looking at what is free (measured in bench/bench_lab.py's notes,
docs/benchmarks.md). The gateway keeps its retries: a retried call takes a slot again, and since the
endpoint that failed is avoided, it lands on another one when there is another.

No key is held here: a key comes from the environment as for any litellm call, and an endpoint's URL
may not carry one (a user:password in it is refused as bad input; the OpenAI client cannot use it anyway).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import time
from collections.abc import AsyncGenerator, AsyncIterator, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, cast
from urllib.parse import urlsplit

from studio.clean import address_problem, one_line, redact_url_credentials

DEFAULT_MAX_PARALLEL = 4
# An endpoint that failed is passed over for this long while another endpoint has a free slot.
AVOID_AFTER_FAILURE = 5.0
MAX_ENDPOINTS = 64
_ROUTER_NOTE = "\n\nLiteLLM: model group"


def check_endpoints(values: Iterable[object], where: str, field_name: str | None) -> tuple[str, ...]:
    """The endpoints as given, validated: http(s) URLs with a host, each once. Bad input raises InputError
    naming ``where`` (a file, or the flag) and ``field_name`` with the item's index (None for a flag)."""
    from studio.model import InputError

    fix = "give the server's OpenAI-compatible base URL, e.g. http://127.0.0.1:8000/v1"
    out: list[str] = []
    for index, value in enumerate(values):
        name = f"{field_name}[{index}]" if field_name else None
        if not isinstance(value, str):
            raise InputError(where, name, f"must be a URL in quotes, not {type(value).__name__}", fix)
        url = value.strip()
        shown = one_line(redact_url_credentials(url))[:80] or "(empty)"
        if not url or len(url) > 500:
            raise InputError(where, name, f"'{shown}' is not a URL (empty or too long)", fix)
        problem = address_problem(url)
        if problem:
            raise InputError(where, name, problem, fix)
        parts = urlsplit(url)
        if parts.username is not None or parts.password is not None:
            raise InputError(where, name, f"'{shown}' has a user or password in it; keys are never kept in a URL",
                             "give the bare URL and put the key in the provider's variable, e.g. OPENAI_API_KEY")
        if parts.query or parts.fragment:
            raise InputError(where, name, f"'{shown}' has a query or fragment; a base URL has neither", fix)
        url = url.rstrip("/")
        if url in out:
            raise InputError(where, name, f"'{shown}' is listed twice", "list each endpoint once")
        out.append(url)
    if len(out) > MAX_ENDPOINTS:
        raise InputError(where, field_name, f"lists {len(out)} endpoints, more than {MAX_ENDPOINTS}", "list fewer")
    return tuple(out)


def check_routable(model: str, where: str, field_name: str | None) -> None:
    """Endpoints serve a model over HTTP; the built-in voices run in this process and have none."""
    from studio.model import InputError

    if model == "scripted" or model.startswith(("scripted/", "local/")):
        raise InputError(where, field_name, f"endpoints serve a model over HTTP; '{model}' runs inside the studio",
                         "give the served model as openai/NAME (or another litellm name), e.g. --model openai/llama3")


class Stream(Protocol):
    """A provider's reply as litellm streams it: chunks as they come, and a way to close the connection
    before the last one."""

    def __aiter__(self) -> AsyncIterator[object]: ...

    async def aclose(self) -> None: ...


@dataclass
class _Endpoint:
    url: str
    deployment: str
    in_flight: int = 0
    calls: int = 0
    failures: int = 0
    failed_at: float = field(default=-1e9)


class EndpointRouter:
    """Spreads calls to ``model`` over ``endpoints``, at most ``max_parallel`` in flight at each.

    Build it with :func:`make_router`; hand it to the gateway (``Gateway(routers=[router])`` or
    ``gateway.route(router)``), which then sends every call for ``model`` through it.
    """

    def __init__(self, model: str, endpoints: Sequence[str], max_parallel: int = DEFAULT_MAX_PARALLEL):
        if not endpoints:
            raise ValueError("a router needs at least one endpoint")
        if max_parallel < 1:
            raise ValueError("max_parallel must be at least 1")
        self.model = model
        self.max_parallel = int(max_parallel)
        self.endpoints = [_Endpoint(url, f"studio-endpoint-{i}") for i, url in enumerate(endpoints)]
        self._router = None
        self._waiters: list[asyncio.Future] = []
        self._turn = 0

    # -- what it has done, for a progress line or a test ------------------------------------------------

    def stats(self) -> list[dict]:
        """Per endpoint (URL shown without credentials): calls sent, failures, calls in flight now."""
        return [{"endpoint": redact_url_credentials(e.url), "calls": e.calls, "failures": e.failures,
                 "in_flight": e.in_flight} for e in self.endpoints]

    def describe(self) -> str:
        urls = ", ".join(redact_url_credentials(e.url) for e in self.endpoints)
        return f"{self.model} on {len(self.endpoints)} endpoints ({urls}), at most {self.max_parallel} calls each"

    # -- the litellm Router --------------------------------------------------------------------------------

    def _litellm_router(self):
        if self._router is None:
            from litellm import Router

            deployments = []
            for endpoint in self.endpoints:
                params = {"model": self.model, "api_base": endpoint.url}
                if self.model.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
                    params["api_key"] = "none"  # a server of one's own rarely checks keys; the client wants one
                deployments.append({"model_name": self.model, "litellm_params": params,
                                    "model_info": {"id": endpoint.deployment}})
            # Retries and their pauses are the gateway's (counted, reported); the router only carries the call.
            self._router = Router(model_list=deployments, num_retries=0, disable_cooldowns=True)
        return self._router

    # -- slots -----------------------------------------------------------------------------------------

    def _pick(self) -> _Endpoint | None:
        """The endpoint to use now, or None to wait for one.

        An endpoint that failed lately is passed over while any other is sound, even a busy one (better
        to wait for a slot on a server that answers than to spend a retry on one that does not); when
        every endpoint failed lately they are all tried, the one that failed longest ago first. Among
        the rest: the fewest calls in flight, ties taken in turn.
        """
        now = time.monotonic()
        sound = [e for e in self.endpoints if now - e.failed_at >= AVOID_AFTER_FAILURE]
        pool = sound or sorted(self.endpoints, key=lambda e: e.failed_at)
        free = [e for e in pool if e.in_flight < self.max_parallel]
        if not free or not sound:  # none free: a waiter tries again at every release
            return free[0] if free else None
        count = len(self.endpoints)
        start = self._turn
        self._turn = (self._turn + 1) % count
        return min(free, key=lambda e: (e.in_flight, (self.endpoints.index(e) - start) % count))

    @contextlib.asynccontextmanager
    async def slot(self) -> AsyncIterator[_Endpoint]:
        """Wait for a free slot and hold it. If the block raises, the endpoint is marked failed (passed over
        for a few seconds) and the error carries its URL, without credentials, as ``studio_endpoint``."""
        endpoint = self._pick()
        while endpoint is None:
            waiter = asyncio.get_running_loop().create_future()
            self._waiters.append(waiter)
            try:
                await waiter
            except asyncio.CancelledError:
                if waiter.done() and not waiter.cancelled():
                    self._wake()  # woken and cancelled at once: the wake goes to the next in line
                raise
            finally:
                with contextlib.suppress(ValueError):
                    self._waiters.remove(waiter)
            endpoint = self._pick()
        endpoint.in_flight += 1
        endpoint.calls += 1
        try:
            yield endpoint
        except (asyncio.CancelledError, GeneratorExit):
            raise
        except BaseException as exc:
            endpoint.failures += 1
            endpoint.failed_at = time.monotonic()
            # So the gateway can say which server failed. The error is litellm's (or httpx's) own class, kept
            # so the gateway's retry rules still recognise it: the tag rides on the instance, which no type
            # declares; a class that refuses new attributes just goes untagged.
            with contextlib.suppress(Exception):
                cast(Any, exc).studio_endpoint = redact_url_credentials(endpoint.url)
            raise
        finally:
            endpoint.in_flight -= 1
            self._wake()

    def _wake(self) -> None:
        """Let the first caller still waiting try again for a slot."""
        for waiter in self._waiters:
            if not waiter.done() and not waiter.get_loop().is_closed():
                waiter.set_result(None)
                return

    # -- a call ----------------------------------------------------------------------------------------

    async def stream(self, request: dict) -> AsyncIterator[tuple[str, object]]:
        """One call on a free endpoint, holding its slot until the stream is read or closed."""
        async with self.slot() as endpoint:
            async for pair in self.call(endpoint, request):
                yield pair

    async def call(self, endpoint: _Endpoint, request: dict) -> AsyncGenerator[tuple[str, object], None]:
        """One call (the gateway's litellm request) on ``endpoint``, whose slot the caller holds, as
        (piece, usage) pairs: streamed if the request asks for a stream, else one piece."""
        body = {k: v for k, v in request.items() if k not in ("model", "api_base", "api_key")}
        try:
            stream = await self._litellm_router().acompletion(model=endpoint.deployment, **body)
            if not body.get("stream"):  # asked for whole: one piece, with the usage
                choices = getattr(stream, "choices", None) or []
                message = getattr(choices[0], "message", None) if choices else None
                yield (getattr(message, "content", None) or ""), getattr(stream, "usage", None)
                return
            async for pair in pieces(stream):
                yield pair
        except Exception as exc:
            # The router appends paragraphs about fallback groups (there are none here) to the provider's words.
            message = getattr(exc, "message", None)
            if isinstance(message, str) and _ROUTER_NOTE in message:
                with contextlib.suppress(Exception):  # litellm's own error: it has .message, no type says so
                    cast(Any, exc).message = message.split(_ROUTER_NOTE, 1)[0]
            raise


def make_router(model: str, endpoints: Sequence[str], max_parallel: int = DEFAULT_MAX_PARALLEL, *,
                where: str = "endpoints", field_name: str | None = "endpoints") -> EndpointRouter:
    """A router for ``model`` over ``endpoints`` (validated: bad input raises InputError naming ``where``
    and ``field_name``), at most ``max_parallel`` calls in flight at each endpoint."""
    from studio.model import InputError

    check_routable(model, where, "model" if field_name else None)
    urls = check_endpoints(endpoints, where, field_name)
    if not urls:
        raise InputError(where, field_name, "lists no endpoint", "give at least one base URL")
    if not isinstance(max_parallel, int) or isinstance(max_parallel, bool) or not 1 <= max_parallel <= 256:
        raise InputError(where, "max_parallel", f"must be a whole number from 1 to 256, not {max_parallel!r}",
                         "e.g. max_parallel = 4")
    return EndpointRouter(model, urls, max_parallel)


def router_from_table(table: dict, model: str, where: str) -> EndpointRouter | None:
    """The router an experiment file (or any settings table) asks for with ``endpoints = [...]`` and, if
    wanted, ``max_parallel = N``; None when it lists no endpoints. Bad input names ``where`` and the field."""
    from studio.model import InputError

    endpoints = table.get("endpoints")
    if endpoints is None:
        if "max_parallel" in table:
            raise InputError(where, "max_parallel", "is set but no endpoints are listed",
                             'add endpoints = ["http://127.0.0.1:8000/v1", ...] or remove max_parallel')
        return None
    if isinstance(endpoints, str):
        endpoints = [endpoints]
    if not isinstance(endpoints, list):
        raise InputError(where, "endpoints", f"must be a list of URLs, not {type(endpoints).__name__}",
                         'e.g. endpoints = ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"]')
    return make_router(model, endpoints, table.get("max_parallel", DEFAULT_MAX_PARALLEL), where=where,
                       field_name="endpoints")


async def pieces(stream: Stream) -> AsyncGenerator[tuple[str, object], None]:
    """A litellm stream's chunks as (piece, usage) pairs, for every streamed call (the gateway's and a
    routed one); closing this closes the provider's stream.

    A stream is a whole reply only when the provider said it finished (a finish reason): a connection
    that closes or resets after some words, with none, is a cut reply and raises BrokenReply, retried like
    other faults, however the body was framed (chunked, or delimited by the connection's close, where
    the client cannot tell a reset from an end)."""
    from studio.llm.errors import BrokenReply

    finished, said = False, False
    try:
        async for chunk in stream:
            choices = getattr(chunk, "choices", None) or []
            piece = choices[0].delta.content if choices else None
            if _finish_reason(chunk):
                finished = True
            said = said or bool(piece)
            yield piece or "", getattr(chunk, "usage", None)
    finally:
        with contextlib.suppress(Exception):
            await stream.aclose()
    # litellm's stream wrappers end every stream with a finish reason of their own ("stop" when the
    # provider sent none); the chunks they keep to log the reply hold only the provider's own.
    kept = getattr(stream, "chunks", None)
    if isinstance(kept, list):
        finished = any(_finish_reason(chunk) for chunk in kept)
    if not finished and not said:
        raise BrokenReply("the reply held no text (empty, or not an answer)")
    if not finished:
        raise BrokenReply("the reply was cut off before it finished (the stream ended without a finish reason)")


def _finish_reason(chunk: object) -> str | None:
    choices = getattr(chunk, "choices", None) or []
    return getattr(choices[0], "finish_reason", None) if choices else None
