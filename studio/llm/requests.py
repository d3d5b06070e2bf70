"""litellm's request for one call, as each kind of server takes it: a hosted API is sent only the fields
every provider knows; a server the playwright runs (an api_base, an endpoint) also gets the small-model
sampling fields llama.cpp's servers read, and the Basic credentials its address carries as a header."""

from __future__ import annotations

import asyncio
import base64
import json
import os
import weakref
from urllib.parse import parse_qsl, urlsplit, urlunsplit

from studio.clean import url_credentials
from studio.llm.call_settings import CallSettings
from studio.structured import words_first

# Most OpenAI-compatible APIs refuse more stop sequences than this.
MAX_REMOTE_STOPS = 4


def build_request(route: str, settings: CallSettings, messages: list[dict], mode: str | None = None,
                  own_server: bool = False) -> dict:
    """litellm's request for one call. `mode`: how a reply held to the schema is asked for (see
    studio.llm.structured_replies.STRUCTURED); `own_server`: a server the playwright runs (an api_base, an
    endpoint), which gets the small-model sampling fields llama.cpp's servers read (a hosted API might
    refuse fields it does not know)."""
    request: dict = {
        "model": route,
        "messages": messages,
        "temperature": settings.temperature,
        "max_tokens": settings.max_tokens,
        "timeout": settings.timeout,
        "stream": True,
        "stream_options": {"include_usage": True},
        "num_retries": 0,  # the retries are ours, counted and reported
        "max_retries": 0,
    }
    if settings.api_base:
        request.update(_addressed(route, settings.api_base))
    if settings.stop:
        request["stop"] = list(settings.stop[:MAX_REMOTE_STOPS])
    if settings.top_p is not None:
        request["top_p"] = settings.top_p
    # A small model on one's own server is held as the embedded one is (free text begins with words).
    schema = settings.schema
    if schema and own_server and settings.repeat_penalty is not None:
        schema = words_first(schema)
    if schema and mode == "schema":
        request["response_format"] = {
            "type": "json_schema",
            "json_schema": {"name": "reply", "schema": json.loads(schema)},
        }
    elif schema and mode == "json":
        # JSON mode; llama.cpp's servers also hold the reply to a schema given beside it, others ignore it.
        request["response_format"] = {"type": "json_object", "schema": json.loads(schema)}
    if own_server:
        # llama.cpp's servers read these as the embedded model does: the studio's one shared model answers
        # a seeded call with the same line, and a line held to a grammar keeps its shape there too.
        extra = {"repeat_penalty": settings.repeat_penalty, "min_p": settings.min_p, "seed": settings.seed,
                 "grammar": settings.grammar}
        kept = {k: v for k, v in extra.items() if v is not None}
        if kept:
            request["extra_body"] = kept
    return request


def _addressed(route: str, api_base: str) -> dict:
    """The fields that send a call to one server's address."""
    # `http://user:KEY@host` is what a browser or curl would send as Basic credentials; litellm's
    # async client drops them from the address, so they travel as the header the address means.
    base, userinfo = url_credentials(api_base)
    parts = urlsplit(base)
    fields: dict = {"api_base": urlunsplit(parts._replace(query="", fragment=""))}
    if route.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
        # A server of one's own rarely checks keys, but the OpenAI client insists on one.
        fields["api_key"] = "none"
    if userinfo is not None:
        fields["extra_headers"] = {"Authorization": "Basic " + base64.b64encode(userinfo.encode()).decode()}
    if parts.query and route.startswith("openai/"):
        # litellm puts the path after the whole address, query included (`?key=K/chat/completions`); a
        # client of its own, given the query apart, puts it back after the path where the server reads it.
        fields["client"] = _client(fields["api_base"], parts.query, fields.get("api_key") or os.environ["OPENAI_API_KEY"])
    return fields


_CLIENTS: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[tuple[str, str, str], object]] = weakref.WeakKeyDictionary()


def _client(base: str, query: str, key: str) -> object:
    """An OpenAI client for one address whose query goes with every call, one per event loop (a client's
    connections belong to the loop that opened them)."""
    from openai import AsyncOpenAI

    def made() -> object:
        return AsyncOpenAI(base_url=base, api_key=key, default_query=dict(parse_qsl(query, keep_blank_values=True)),
                           max_retries=0)

    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:
        return made()
    held = _CLIENTS.setdefault(loop, {})
    if (base, query, key) not in held:
        held[(base, query, key)] = made()
    return held[(base, query, key)]


def whole(request: dict) -> dict:
    """The request asked for whole rather than streamed. A batch call nobody watches arrive is asked this
    way: litellm spends about a third of the CPU on it that it spends on a stream (bench/bench_lab.py),
    and a batch is CPU-bound."""
    request["stream"] = False
    request.pop("stream_options", None)
    return request
