"""What went wrong with a call, and what to do about it: try again (after how long), or give up with one
honest line naming the fix. A provider's words are shown scrubbed of anything key-shaped."""

from __future__ import annotations

import json
import os
import random
import re
from dataclasses import dataclass
from typing import Any

from studio.clean import clean_model_text, redact_secrets, redact_url_credentials
from studio.llm.call_settings import CallSettings
from studio.llm.errors import BrokenReply, ModelError
from studio.llm.names import route

FALLBACK_HINT = "try again later, or use --model local/smollm2"
MAX_PAUSE = 60.0


@dataclass(frozen=True)
class Verdict:
    retry: bool
    reason: str  # short, for on_retry and the final message
    fix: str

    def at(self, where: str) -> Verdict:
        """The verdict on a routed call: it says which of the model's servers failed."""
        fix = self.fix.replace("check the network", f"check the server at {where} is running")
        return Verdict(self.retry, f"{self.reason} at {where}", fix)


class CallerFault(Exception):
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


def scrub(text: str, limit: int = 160) -> str:
    """One short line of provider detail with anything key-shaped removed."""
    for var, value in os.environ.items():
        if value and len(value) >= 8 and _SECRET_NAME.search(var):
            text = text.replace(value, "***")
    text = redact_secrets(clean_model_text(text))
    text = " ".join(_OBJECT_REPR.sub("", text).split())
    while (bare := _LITELLM_PREFIX.sub("", text, count=1)) != text:
        text = bare
    return text if len(text) <= limit else text[: limit - 1] + "…"


def unwrap(exc: BaseException, builtin: bool) -> BaseException:
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


def status(exc: BaseException) -> int | None:
    """The HTTP status a provider's error carries, if any."""
    code = getattr(exc, "status_code", None)
    try:
        return int(code) if code is not None else None
    except (TypeError, ValueError):
        return None


def _credentials(litellm, routed: str, code: int | None) -> Verdict:
    """Name the environment variable to set, never its value."""
    try:
        missing = litellm.validate_environment(model=routed).get("missing_keys") or []
    except Exception:
        missing = []
    if missing:
        return Verdict(False, "no API key found", "set " + " and ".join(missing))
    try:
        provider = litellm.get_llm_provider(routed)[1]
    except Exception:
        provider = "this provider"
    return Verdict(False, f"the provider refused the credentials ({code or 401})", f"check the API key for {provider}")


def judge(litellm: Any, exc: BaseException, settings: CallSettings) -> Verdict:
    """Whether a failed attempt is worth another, and the words for it. `litellm` holds the exception
    types a provider's failure comes as; a built-in's timeout or broken reply is judged without it (None)."""
    if isinstance(exc, TimeoutError):
        return Verdict(True, f"no answer within {settings.timeout:g}s", "raise the timeout, " + FALLBACK_HINT)
    if isinstance(exc, BrokenReply):
        return Verdict(True, str(exc), FALLBACK_HINT)
    detail = scrub(str(getattr(exc, "message", None) or exc))
    code = status(exc)
    if isinstance(exc, litellm.ContextWindowExceededError):
        return Verdict(False, "the prompt is longer than the model's context", "shorten the play's history")
    if (
        isinstance(exc, (litellm.AuthenticationError, litellm.PermissionDeniedError))
        or code in (401, 403)
        or _NO_KEY.search(detail)
    ):
        return _credentials(litellm, route(settings.model), code)
    if isinstance(exc, litellm.NotFoundError) or code == 404:
        return Verdict(False, f"the provider does not know this model ({detail})", "check the model name")
    if isinstance(exc, litellm.RateLimitError) or code == 429:
        return Verdict(True, "rate limited (429)", FALLBACK_HINT)
    if isinstance(exc, litellm.Timeout) or code == 408:
        return Verdict(True, f"no answer within {settings.timeout:g}s", "raise the timeout, " + FALLBACK_HINT)
    if _CUT.search(detail) or _CUT.search(type(exc).__name__):
        return Verdict(True, "the reply was cut off before it finished", FALLBACK_HINT)
    if isinstance(exc, json.JSONDecodeError) or _GARBLED.search(detail):
        return Verdict(True, f"the provider sent malformed data ({detail})", FALLBACK_HINT)
    if isinstance(exc, litellm.APIConnectionError) or _NO_LINE.search(detail):
        check = f"check the server at {redact_url_credentials(settings.api_base)} is running" if settings.api_base else "check the network"
        return Verdict(True, f"could not reach the provider ({detail})", f"{check}, {FALLBACK_HINT}")
    if (code is not None and code >= 500) or isinstance(
        exc, (litellm.ServiceUnavailableError, litellm.InternalServerError, litellm.BadGatewayError)
    ):
        return Verdict(True, f"the provider is unavailable ({code or 'server error'}: {detail})", FALLBACK_HINT)
    if isinstance(exc, litellm.BadRequestError) or code in (400, 422):
        return Verdict(False, f"the provider rejected the request ({detail})", "check the model name and settings")
    return Verdict(False, f"unexpected error: {type(exc).__name__}: {detail}", "report this; meanwhile " + FALLBACK_HINT)


def retry_after(exc: BaseException) -> float:
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


def pause(backoff: float, attempt: int, exc: BaseException) -> float:
    """Seconds to wait before the next attempt: `backoff` doubled per attempt, with a little jitter so that
    parallel callers spread out, or longer if the provider said so, never over MAX_PAUSE."""
    wait = backoff * 2 ** (attempt - 1) * (1 + random.random() * 0.1)
    return min(MAX_PAUSE, max(wait, retry_after(exc)))


def retrying(verdict: Verdict, wait: float, attempt: int, retries: int) -> str:
    """What on_retry is told before attempt `attempt + 1`."""
    return f"{verdict.reason}; trying again in {wait:.0f} s, attempt {attempt + 1} of {retries + 1}"


def given_up(model: str, verdict: Verdict, attempt: int) -> ModelError:
    """The one error a caller sees when no attempt is left or none is worth making."""
    tries = f" after {attempt} attempts" if attempt > 1 else ""
    return ModelError(model, f"{model}: {verdict.reason}{tries}; {verdict.fix}", attempt)
