"""How a reply that is data (a move, a vote, a score) is asked of a model that is not built in, and the
step down to a weaker way when a server refuses one.

The ways, strongest first: a JSON schema, JSON mode, or the reply's shape in words. A server that refuses
one is asked the next way, once, and remembered for the rest of the run; a way the play or the experiment
chose outright is never changed behind its back.
"""

from __future__ import annotations

import re
from typing import Any

from studio.clean import redact_url_credentials
from studio.llm import litellm_loader
from studio.llm.call_settings import CallSettings
from studio.llm.errors import ModelError
from studio.llm.faults import status

STRUCTURED = ("schema", "json", "words")
_STRUCTURED_WORDS = {"schema": "a JSON schema (response_format json_schema)",
                     "json": "JSON mode (response_format json_object)", "words": "the reply's shape in words"}
# A refusal of the request's response_format, as servers word it: OpenAI-style 400s, llama.cpp's servers'
# validation errors (llama-cpp-python answers a json_schema response_format with a 500 naming it).
_FORMAT_REFUSED = re.compile(r"response_format|json_schema|json_object|structured output|guided_json", re.I)


def server(settings: CallSettings, route: str, endpoint: Any) -> str:
    """The server a call goes to, as what it has learned is remembered by."""
    return getattr(endpoint, "url", None) or settings.api_base or route


def mode(settings: CallSettings, route: str, endpoint: Any, chosen: str | None, held: dict[str, str]) -> str | None:
    """How this call asks for a reply held to its schema. A choice made for the role (the settings) or the
    experiment (`chosen`) stands; otherwise a server of one's own (an api_base, an endpoint) and a provider
    litellm knows to take schemas are sent the schema, and others are asked in words, until a server
    refuses (`held`: what each server was stepped down to this run)."""
    if not settings.schema:
        return None
    chosen = settings.structured or chosen
    if chosen:
        return chosen
    learned = held.get(server(settings, route, endpoint))
    if learned:
        return learned
    return "schema" if settings.api_base or endpoint is not None or takes_schema(route) else "words"


def step_down(settings: CallSettings, route: str, endpoint: Any, refused: str, attempt: int,
              chosen: str | None, held: dict[str, str]) -> str:
    """Remember in `held` that the server refused the way `refused`; the notice for the run's notes. A way
    the play or the experiment chose outright is not changed: that raises ModelError naming the fix."""
    where = server(settings, route, endpoint)
    shown = redact_url_credentials(where) if "://" in where else where
    if settings.structured or chosen:
        chosen = settings.structured or chosen
        others = " or ".join(f'"{m}"' for m in STRUCTURED if m != chosen)
        raise ModelError(settings.model, f"{settings.model}: the server at {shown} refused "
                         f"{_STRUCTURED_WORDS[refused]}, which structured = \"{chosen}\" asks for; "
                         f"set structured = {others}", attempt)
    lower = STRUCTURED[STRUCTURED.index(refused) + 1]
    held[where] = lower
    return (f"{shown} refused {_STRUCTURED_WORDS[refused]} for replies that are data; "
            f"asking it with {_STRUCTURED_WORDS[lower]} for the rest of the run.")


def format_refused(exc: BaseException) -> bool:
    """Whether a failure is the server refusing the request's response_format (not the call failing)."""
    code = status(exc)
    if code not in (400, 422, 500) and type(exc).__name__ not in ("BadRequestError", "UnprocessableEntityError"):
        return False
    return bool(_FORMAT_REFUSED.search(str(getattr(exc, "message", None) or exc)))


def takes_schema(route: str) -> bool:
    """Whether litellm's bundled model map says the provider holds a reply to a JSON schema (no network)."""
    litellm = litellm_loader.loaded()
    if litellm is None:
        return False
    try:
        return bool(litellm.supports_response_schema(model=route))
    except Exception:  # an unknown model: ask in words only, the reader checks the shape
        return False
