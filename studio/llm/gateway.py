"""One gateway for every model call: streaming, deadlines, retries, usage, honest errors.

The built-in models (the embedded one and the scripted understudy) are called in-process; every
other model goes through litellm. litellm is imported on the first call that needs it, on a worker
thread (it takes seconds and would freeze the UI), with its network price-map fetch, its debug
banners and its log handlers switched off: the studio runs under a full-screen terminal UI, where a
stray print tears the screen.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import functools
import json
import logging
import os
import random
import re
import threading
import time
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from studio.clean import StreamCleaner, clean_model_text, redact_secrets, redact_url_credentials, url_credentials
from studio.llm.call_settings import CallSettings
from studio.llm.errors import BrokenReply, ModelError
from studio.structured import words_first

BUILTIN_MODELS = ("local/smollm2", "scripted")

FALLBACK_HINT = "try again later, or use --model local/smollm2"
UNKNOWN_HINT = "use a litellm name such as openai/gpt-4o-mini, ollama_chat/llama3, or local/smollm2"
MAX_PAUSE = 60.0


@dataclass(frozen=True)
class CallContext:
    """Who is asking and for what: the engine records it, the scripted voice performs from it."""

    role: str
    task: str
    character: str
    scene: int = 0
    turn: int = 0


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


# How a reply that is data (a move, a vote, a score) is asked of a model that is not built in, strongest
# first. A server that refuses one is asked the next way, once, and remembered for the rest of the run.
STRUCTURED = ("schema", "json", "words")
_STRUCTURED_WORDS = {"schema": "a JSON schema (response_format json_schema)",
                     "json": "JSON mode (response_format json_object)", "words": "the reply's shape in words"}
# A refusal of the request's response_format, as servers word it: OpenAI-style 400s, llama.cpp's servers'
# validation errors (llama-cpp-python answers a json_schema response_format with a 500 naming it).
_FORMAT_REFUSED = re.compile(r"response_format|json_schema|json_object|structured output|guided_json", re.I)


# --------------------------------------------------------------------------- litellm, quietly

_litellm = None
_litellm_lock = threading.Lock()


def _load_litellm():
    """Import and configure litellm once; safe to call from any thread."""
    global _litellm
    if _litellm is not None:
        return _litellm
    with _litellm_lock:
        if _litellm is None:
            os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
            os.environ.setdefault("LITELLM_LOCAL_ANTHROPIC_BETA_HEADERS", "True")
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                import litellm
            # litellm's types finish building lazily on first use, and pydantic warns about them then.
            warnings.filterwarnings("ignore", message=r".*`ReadOnly` qualifier", category=UserWarning)
            warnings.filterwarnings("ignore", module=r"litellm(\..*)?$")
            litellm.suppress_debug_info = True
            litellm.set_verbose = False
            litellm.drop_params = True
            # a continued line's answer is what comes after the line so far, from every provider alike
            litellm.disable_add_prefix_to_prompt = True
            _hush_loggers()
            _litellm = litellm
    return _litellm


def warm_up() -> None:
    """Import litellm now, on the caller's thread.

    The first ``complete`` of a model outside the built-ins does this anyway, but it takes seconds;
    a UI can call this from a background thread once its first frame is up.
    """
    _load_litellm()


async def _litellm_ready():
    return _litellm if _litellm is not None else await asyncio.to_thread(_load_litellm)


def _hush_loggers() -> None:
    """litellm's handlers write to stdout/stderr, under the UI; send them to a file only if asked."""
    target = os.environ.get("STUDIO_LLM_LOG")
    for name in ("LiteLLM", "LiteLLM Router", "LiteLLM Proxy"):
        logger = logging.getLogger(name)
        for handler in list(logger.handlers):
            if isinstance(handler, logging.StreamHandler) and not isinstance(handler, logging.FileHandler):
                logger.removeHandler(handler)
        logger.propagate = False
        if target:
            logger.addHandler(logging.FileHandler(target))
        else:
            logger.addHandler(logging.NullHandler())


def _route(name: str) -> str:
    return "scripted/default" if name == "scripted" else name


def _builtin(route: str) -> bool:
    return route.startswith(("scripted/", "local/"))


def model_window(name: str) -> int | None:
    """The number of tokens `name` can hold (prompt and reply), when it is known: the embedded model's
    `n_ctx`, or litellm's figure for a hosted one. litellm is slow to import and a cast is resolved before
    the app's first frame, so its model list is read from the file litellm ships (the one it reads itself
    offline) unless litellm is already loaded. The scripted model and unknown names have none: the play's
    budget, or the default, holds."""
    route = _route(name)
    if route.startswith("scripted/"):
        return None
    if route.startswith("local/"):
        from studio.llm.local import N_CTX

        return N_CTX
    if _litellm is not None:
        try:
            info = _litellm.get_model_info(route)
        except Exception:  # noqa: BLE001 - litellm raises plain Exceptions for a model it does not list
            return None
    else:
        table = _model_table()
        info = table.get(route) or table.get(route.split("/", 1)[-1]) or {}
    window = info.get("max_input_tokens") or info.get("max_tokens")
    return int(window) if isinstance(window, int) and window > 0 else None


@functools.lru_cache(maxsize=1)
def _model_table() -> dict[str, Any]:
    """litellm's own list of models and their windows, read without importing litellm."""
    import importlib.util

    spec = importlib.util.find_spec("litellm")
    if spec is None or not spec.submodule_search_locations:
        return {}
    for folder in spec.submodule_search_locations:
        path = Path(folder) / "model_prices_and_context_window_backup.json"
        try:
            table = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        return table if isinstance(table, dict) else {}
    return {}


def needs_litellm(cast: Any) -> bool:
    """Whether running this cast can ever call litellm: a role on a hosted model, or a sheet's embeddings.

    A cast of built-in models never does, so a UI need not spend seconds of CPU importing it (on the
    embedded model those seconds are taken from the model's own first turn).
    """
    for role in getattr(cast, "roles", ()):
        if not _builtin(_route(role.model)):
            return True
        memory = getattr(role.sheet, "memory", None)
        if getattr(memory, "embedding_model", None):
            return True
    return False


# --------------------------------------------------------------------------- check_model


def embed(model: str, texts: list[str], api_base: str | None = None) -> list[list[float]]:
    """One vector per text from an embedding model, through the same quietly configured litellm as a reply."""
    reply = _load_litellm().embedding(model=model, input=texts, api_base=api_base or None)
    return [list(item["embedding"]) for item in reply["data"]]


def check_model(name: str) -> str | None:
    """None if the name can be routed, else one line saying what is wrong and what to use instead.

    Only routing is checked (is there a provider for this name?), not keys or
    reachability: those are reported by the first call, with their own fix.
    """
    from studio.clean import LINE_CONTROLS

    name = (name or "").strip()
    if not name:
        return f"no model given: {UNKNOWN_HINT}"
    if LINE_CONTROLS.search(name):
        return "a model's name is one line of printable text (no line breaks, control characters or escapes)"
    if name in BUILTIN_MODELS or (name.startswith("scripted/") and len(name) > len("scripted/")):
        return None
    if name.startswith("local/"):
        return f"unknown local model '{name}': the embedded model is local/smollm2"
    if name.endswith("/") or name.startswith("/"):
        return f"unknown model '{name}': {UNKNOWN_HINT}"
    litellm = _load_litellm()
    try:
        litellm.get_llm_provider(name)
    except Exception:
        return f"unknown model '{name}': {UNKNOWN_HINT}"
    return None


# --------------------------------------------------------------------------- what went wrong


@dataclass(frozen=True)
class _Verdict:
    retry: bool
    reason: str  # short, for on_retry and the final message
    fix: str


class _CallerFault(Exception):
    """Wraps an exception raised by the caller's own on_token, so it is re-raised untouched, not retried."""

    def __init__(self, error: Exception):
        super().__init__(error)
        self.error = error


# What a cut or garbled stream looks like from inside litellm, httpx or aiohttp.
_CUT = re.compile(
    r"payload is not completed|transferencodingerror|not enough data|incomplete ?read|remoteprotocolerror|"
    r"peer closed connection|connection reset|reset by peer|server disconnected|clientpayloaderror",
    re.I,
)
_GARBLED = re.compile(r"unterminated string|expecting (value|property name|',' delimiter)|extra data|"
                      r"invalid control character|jsondecodeerror|invalid json", re.I)


_SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD", re.I)
_LITELLM_PREFIX = re.compile(r"^((litellm\.)?\w+(Error|Exception|Timeout):\s*|\w+Exception\s*-\s*)")
_OBJECT_REPR = re.compile(r"\w+:<[^>]*>\s*")
# Some SDKs report a missing key or a dead socket as a plain 500; the words tell the truth.
_NO_KEY = re.compile(r"missing credentials|api[_ ]?key.{0,40}(must be set|not set|missing|not provided|required)|no api key", re.I)
_NO_LINE = re.compile(r"connection error|cannot connect|connect call failed|connection refused|name or service not known", re.I)


def _scrub(text: str, limit: int = 160) -> str:
    """One short line of provider detail with anything key-shaped removed."""
    for var, value in os.environ.items():
        if value and len(value) >= 8 and _SECRET_NAME.search(var):
            text = text.replace(value, "***")
    text = redact_secrets(clean_model_text(text))
    text = " ".join(_OBJECT_REPR.sub("", text).split())
    while (bare := _LITELLM_PREFIX.sub("", text, count=1)) != text:
        text = bare
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _unwrap(exc: BaseException, builtin: bool) -> BaseException:
    """The error that matters, out of the wrapping litellm puts around it.

    litellm wraps a failure that happens while streaming in a
    MidStreamFallbackError (a 503) carrying the real one: a 429 must not read
    as a 503. A built-in voice's own failure (a ModelError, or a plain Python
    error, i.e. a bug) arrives disguised as a connection error, with the
    original as its ``__context__``; it must not be retried.
    """
    chain: list[BaseException] = []
    current: BaseException | None = exc
    while current is not None and all(current is not seen for seen in chain):
        chain.append(current)
        current = current.__cause__ or current.__context__
    for link in chain:
        if isinstance(link, ModelError):
            return link
    if builtin:
        for link in chain:
            if not type(link).__module__.startswith(("litellm", "openai", "httpx", "asyncio")):
                return link
    while True:
        inner = getattr(exc, "original_exception", None)
        if isinstance(inner, BaseException) and inner is not exc and type(exc).__name__ == "MidStreamFallbackError":
            exc = inner
            continue
        return exc


def _status(exc: BaseException) -> int | None:
    code = getattr(exc, "status_code", None)
    try:
        return int(code) if code is not None else None
    except (TypeError, ValueError):
        return None


def _credentials(litellm, route: str, status: int | None) -> _Verdict:
    """Name the environment variable to set, never its value."""
    try:
        missing = litellm.validate_environment(model=route).get("missing_keys") or []
    except Exception:
        missing = []
    if missing:
        return _Verdict(False, "no API key found", "set " + " and ".join(missing))
    try:
        provider = litellm.get_llm_provider(route)[1]
    except Exception:
        provider = "this provider"
    return _Verdict(False, f"the provider refused the credentials ({status or 401})", f"check the API key for {provider}")


def _judge(litellm, exc: BaseException, settings: CallSettings) -> _Verdict:
    route = _route(settings.model)
    if isinstance(exc, TimeoutError):
        return _Verdict(True, f"no answer within {settings.timeout:g}s", "raise the timeout, " + FALLBACK_HINT)
    if isinstance(exc, BrokenReply):
        return _Verdict(True, str(exc), FALLBACK_HINT)
    detail = _scrub(str(getattr(exc, "message", None) or exc))
    status = _status(exc)
    if isinstance(exc, litellm.ContextWindowExceededError):
        return _Verdict(False, "the prompt is longer than the model's context", "shorten the play's history")
    if (
        isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError))
        or status in (401, 403)
        or _NO_KEY.search(detail)
    ):
        return _credentials(litellm, route, status)
    if isinstance(exc, litellm.NotFoundError) or status == 404:
        return _Verdict(False, f"the provider does not know this model ({detail})", "check the model name")
    if isinstance(exc, litellm.RateLimitError) or status == 429:
        return _Verdict(True, "rate limited (429)", FALLBACK_HINT)
    if isinstance(exc, litellm.Timeout) or status == 408:
        return _Verdict(True, f"no answer within {settings.timeout:g}s", "raise the timeout, " + FALLBACK_HINT)
    if _CUT.search(detail) or _CUT.search(type(exc).__name__):
        return _Verdict(True, "the reply was cut off before it finished", FALLBACK_HINT)
    if isinstance(exc, json.JSONDecodeError) or _GARBLED.search(detail):
        return _Verdict(True, f"the provider sent malformed data ({detail})", FALLBACK_HINT)
    if isinstance(exc, litellm.APIConnectionError) or _NO_LINE.search(detail):
        check = f"check the server at {redact_url_credentials(settings.api_base)} is running" if settings.api_base else "check the network"
        return _Verdict(True, f"could not reach the provider ({detail})", f"{check}, {FALLBACK_HINT}")
    if (status is not None and status >= 500) or isinstance(
        exc, (litellm.ServiceUnavailableError, litellm.InternalServerError, litellm.BadGatewayError)
    ):
        return _Verdict(True, f"the provider is unavailable ({status or 'server error'}: {detail})", FALLBACK_HINT)
    if isinstance(exc, litellm.BadRequestError) or status in (400, 422):
        return _Verdict(False, f"the provider rejected the request ({detail})", "check the model name and settings")
    return _Verdict(False, f"unexpected error: {type(exc).__name__}: {detail}", "report this; meanwhile " + FALLBACK_HINT)


def _retry_after(exc: BaseException) -> float:
    """The provider's Retry-After in seconds; litellm keeps the headers on `litellm_response_headers`."""
    for headers in (getattr(exc, "litellm_response_headers", None),
                    getattr(getattr(exc, "response", None), "headers", None)):
        try:
            value = headers.get("retry-after") if headers else None
            if value is not None:
                return max(0.0, float(value))
        except (TypeError, ValueError, AttributeError):
            continue
    return 0.0


# --------------------------------------------------------------------------- the gateway


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
        route = _route(settings.model)
        builtin = _builtin(route)
        if not builtin:
            await _litellm_ready()  # its import (seconds, once) is not the provider's time to answer
            from studio.llm.sampling import is_small, small_settings

            small = settings.small if settings.small is not None else self.small
            if is_small(settings.model, small):
                settings = small_settings(settings, ctx.task)
        # A model served by several endpoints: each attempt first waits for a free slot on one of them,
        # outside the attempt's deadline (a queue behind a busy server is not the server being slow).
        router = None if builtin else self.routers.get(settings.model)
        if router is None and not builtin and not settings.api_base:
            from studio.settings import served_api_base

            served = served_api_base(settings.model)
            if served:  # a call made outside a play's cast (an assessor, the Critic) finds the same server
                settings = replace(settings, api_base=served)
        notices: list[str] = []
        attempt = 0
        while True:
            attempt += 1
            endpoint = None
            mode = None
            try:
                async with contextlib.AsyncExitStack() as held:
                    endpoint = await held.enter_async_context(router.slot()) if router is not None else None
                    mode = None if builtin else self._mode(settings, route, endpoint)
                    async with asyncio.timeout(settings.timeout):
                        text, usage = await self._attempt(settings, messages, ctx, on_token, endpoint, mode)
                return Completion(text, settings.model, usage, attempt, time.monotonic() - started, mode, notices)
            except _CallerFault as fault:
                raise fault.error from None
            except Exception as exc:
                cause = _unwrap(exc, builtin)
                if isinstance(cause, ModelError):
                    cause.attempts = attempt
                    raise cause from None
                if mode in ("schema", "json") and _format_refused(cause):
                    # The server cannot hold a reply this way: ask it the next way at once (not a fault of
                    # the call, so no attempt is spent), and from now on for the rest of the run.
                    notices.append(self._refused(settings, route, endpoint, mode, attempt))
                    attempt -= 1
                    continue
                # Judging needs litellm's exception types; a built-in's timeout is judged without them.
                litellm = None if isinstance(cause, (TimeoutError, BrokenReply)) else await _litellm_ready()
                verdict = _judge(litellm, cause, settings)
                where = getattr(exc, "studio_endpoint", None) or getattr(cause, "studio_endpoint", None)
                if where:  # a routed call: say which of the model's servers failed
                    fix = verdict.fix.replace("check the network", f"check the server at {where} is running")
                    verdict = _Verdict(verdict.retry, f"{verdict.reason} at {where}", fix)
                pause = self._pause(attempt, cause)
            if not verdict.retry or attempt > settings.retries:
                tries = f" after {attempt} attempts" if attempt > 1 else ""
                raise ModelError(
                    settings.model, f"{settings.model}: {verdict.reason}{tries}; {verdict.fix}", attempt
                ) from None
            if on_retry is not None:
                on_retry(attempt + 1, f"{verdict.reason}; trying again in {pause:.0f} s, attempt {attempt + 1} of {settings.retries + 1}")
            await asyncio.sleep(pause)

    # -- structured replies ----------------------------------------------------------------------------

    @staticmethod
    def _server(settings: CallSettings, route: str, endpoint: Any) -> str:
        return getattr(endpoint, "url", None) or settings.api_base or route

    def _mode(self, settings: CallSettings, route: str, endpoint: Any) -> str | None:
        """How this call asks for a reply held to its schema. A choice made for the role or the experiment
        stands; otherwise a server of one's own (an api_base, an endpoint) and a provider litellm knows to
        take schemas are sent the schema, and others are asked in words, until a server refuses."""
        if not settings.schema:
            return None
        chosen = settings.structured or self.structured
        if chosen:
            return chosen
        learned = self.held.get(self._server(settings, route, endpoint))
        if learned:
            return learned
        return "schema" if settings.api_base or endpoint is not None or _takes_schema(route) else "words"

    def _refused(self, settings: CallSettings, route: str, endpoint: Any, mode: str, attempt: int) -> str:
        """Remember that the server refused `mode`; the notice for the run's notes. A way of asking that the
        play or the experiment chose outright is not changed behind its back: that is an error to fix."""
        server = self._server(settings, route, endpoint)
        shown = redact_url_credentials(server) if "://" in server else server
        if settings.structured or self.structured:
            chosen = settings.structured or self.structured
            others = " or ".join(f'"{m}"' for m in STRUCTURED if m != chosen)
            raise ModelError(settings.model, f"{settings.model}: the server at {shown} refused "
                             f"{_STRUCTURED_WORDS[mode]}, which structured = \"{chosen}\" asks for; "
                             f"set structured = {others}", attempt)
        lower = STRUCTURED[STRUCTURED.index(mode) + 1]
        self.held[server] = lower
        return (f"{shown} refused {_STRUCTURED_WORDS[mode]} for replies that are data; "
                f"asking it with {_STRUCTURED_WORDS[lower]} for the rest of the run.")

    def _pause(self, attempt: int, exc: BaseException) -> float:
        pause = self.backoff * 2 ** (attempt - 1) * (1 + random.random() * 0.1)
        return min(MAX_PAUSE, max(pause, _retry_after(exc)))

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
        (piece, usage) pairs, so streaming, usage and errors are handled by the one loop below."""
        route = _route(settings.model)
        spaced = False
        if settings.prefill and not _builtin(route):
            # A provider that takes a prefill is handed the line so far as the start of its reply; any other
            # (a server of one's own, a provider the model map does not vouch for) is told it in words, and
            # its answer, a new message, is a new word after the line's last.
            native = endpoint is None and not settings.api_base and _takes_prefill(route)
            messages = continued(messages, settings.prefill, native)
            spaced = not native
        if _builtin(route):
            from studio.llm.providers import perform

            litellm = _litellm
            stream = perform(route, messages, settings, ctx)
        elif endpoint is not None:  # the slot on one of the model's endpoints is held by the caller
            litellm = await _litellm_ready()
            request = _request(route, settings, messages, mode, own_server=True)
            if on_token is None:
                # A batch call nobody watches arrive is asked for whole: litellm spends about a third of
                # the CPU on it that it spends on a stream (bench/bench_lab.py), and a batch is CPU-bound.
                request["stream"] = False
                request.pop("stream_options", None)
            stream = self.routers[settings.model].call(endpoint, request)
        else:
            litellm = await _litellm_ready()
            request = _request(route, settings, messages, mode, own_server=bool(settings.api_base))
            stream = _pieces(await litellm.acompletion(**request))
        if spaced:
            stream = _after_the_line(stream)
        pieces: list[str] = []  # as received: a sequence split across two pieces is only whole here
        usage = None
        shown = StreamCleaner()
        try:
            async for raw, found in stream:
                if raw:
                    pieces.append(raw)
                piece = shown.feed(raw or "")
                if piece:
                    if on_token is not None:
                        try:
                            on_token(piece)
                        except Exception as exc:
                            raise _CallerFault(exc) from exc
                if found:
                    usage = found
        except BaseException:
            # Release the connection, or raise the embedded model's stop flag, before moving on.
            with contextlib.suppress(Exception):
                await stream.aclose()
            raise
        # Cleaned whole: a sequence split across two pieces is removed from what is stored.
        text = clean_model_text("".join(pieces))
        if settings.prefill and not spaced and not _builtin(route) and text.startswith(settings.prefill):
            text = text[len(settings.prefill):]  # a provider that answers a prefill with the whole reply
        if not text.strip() and not settings.allow_empty and not _builtin(route):
            # A 200 with no content, or a body that was not an answer: nothing was said, so nothing is kept.
            raise BrokenReply("the reply held no text (empty, or not an answer)")
        return text, _usage(litellm, usage, route, messages, text)


# Most OpenAI-compatible APIs refuse more stop sequences than this.
MAX_REMOTE_STOPS = 4


def _format_refused(exc: BaseException) -> bool:
    """Whether a failure is the server refusing the request's response_format (not the call failing)."""
    status = _status(exc)
    if status not in (400, 422, 500) and type(exc).__name__ not in ("BadRequestError", "UnprocessableEntityError"):
        return False
    return bool(_FORMAT_REFUSED.search(str(getattr(exc, "message", None) or exc)))


def _request(route: str, settings: CallSettings, messages: list[dict], mode: str | None = None,
             own_server: bool = False) -> dict:
    """litellm's request for one call. `mode`: how a reply held to the schema is asked for (see STRUCTURED);
    `own_server`: a server the playwright runs (an api_base, an endpoint), which gets the small-model
    sampling fields llama.cpp's servers read (a hosted API might refuse fields it does not know)."""
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
        # `http://user:KEY@host` is what a browser or curl would send as Basic credentials; litellm's
        # async client drops them from the address, so they travel as the header the address means.
        base, userinfo = url_credentials(settings.api_base)
        request["api_base"] = base
        if route.startswith("openai/") and not os.environ.get("OPENAI_API_KEY"):
            # A server of one's own rarely checks keys, but the OpenAI client insists on one.
            request["api_key"] = "none"
        if userinfo is not None:
            request["extra_headers"] = {"Authorization": "Basic " + base64.b64encode(userinfo.encode()).decode()}
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
    if own_server and (settings.repeat_penalty is not None or settings.min_p is not None):
        extra = {"repeat_penalty": settings.repeat_penalty, "min_p": settings.min_p}
        request["extra_body"] = {k: v for k, v in extra.items() if v is not None}
    return request


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


def _takes_prefill(route: str) -> bool:
    """Whether litellm's bundled model map says the provider goes on from an assistant message left last."""
    if _litellm is None:
        return False
    try:
        return bool(_litellm.get_model_info(route).get("supports_assistant_prefill"))
    except Exception:  # noqa: BLE001 - a model the map does not list: ask in words
        return False


async def _after_the_line(stream):
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


def _takes_schema(route: str) -> bool:
    """Whether litellm's bundled model map says the provider holds a reply to a JSON schema (no network)."""
    if _litellm is None:
        return False
    try:
        return bool(_litellm.supports_response_schema(model=route))
    except Exception:  # an unknown model: ask in words only, the reader checks the shape
        return False


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


def check_cast_models(cast, where: str) -> None:
    """Every model a cast will call must be routable: the first that is not is bad input in `where`."""
    from studio.model import InputError

    seen: dict[str, str | None] = {}
    for role in cast.roles:
        if role.human:
            continue
        if role.model not in seen:
            seen[role.model] = check_model(role.model)
        if seen[role.model]:
            sheet = _sheet_file(cast, role)
            if sheet is not None:
                # the sheet chose this model: that file is the one to fix, not the play
                raise InputError(str(sheet), "model", seen[role.model] or "",
                                 f"edit {sheet.name} (c in the app) or give the play a --role model")
            raise InputError(where, f"cast.{role.key}.model", seen[role.model] or "", None)


def _sheet_file(cast, role):
    """The character file whose `model` a role runs on, when the model came from there."""
    if not role.sheet.model or role.sheet.model != role.model:
        return None
    try:
        from pathlib import Path

        from studio.model.loading import character_path

        seats = cast.play.cast
        if role.key in ("ego", "superego", "director"):
            member = getattr(seats, role.key)
        elif role.key == "other":
            member = seats.others[0]
        else:
            member = seats.others[int(role.key[5:]) - 1]
        return character_path(member.character, Path(cast.play_path))
    except Exception:  # noqa: BLE001 - a cast of another shape names the play instead
        return None
