"""Structured replies: the one way the studio asks a model for data and decides whether it got any.

The Critic, the lab's interviews and anything else that wants a JSON answer from a model go through
here, so they all share the same judgement. Small models wrap JSON in prose, fences or odd key
spellings, so the reading is lenient about wrapping (the first {...} that validates wins; whole
numbers may arrive as "7", 7.0 or "7/10"). Validation is strict about content, including its meaning:
a number, a bare placeholder or a copy of the example is not an interpretation. An invalid reply is
shown its error and asked for once more; if that fails too the result is marked invalid with every
reply kept, and nothing is guessed in its place.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any, Callable, Generic, TypeVar

from pydantic import BaseModel, ValidationError

T = TypeVar("T")

ATTEMPTS = 2  # the first reply and one more chance

# Text that says nothing: blank, dots, an <angle placeholder>, or a number (with an optional "/10").
_EMPTY_TEXT = re.compile(r"[\s.…\-–—]*|<[^<>]*>|[\s(]*[-+]?\d+(?:[.,]\d+)?\s*(?:/\s*\d+)?[\s).]*", re.IGNORECASE)
_WORD = re.compile(r"[^\W\d_]{2,}")


def json_objects(text: str):
    """Every JSON object in `text`, in order: fenced, bare or wrapped in prose."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text or ""):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value


def whole_number(value: Any) -> Any:
    """Whole numbers however written ("7", "7/10", 7.0); anything else is left for validation to refuse."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        match = re.fullmatch(r"\s*(\d+)\s*(?:/\s*10\s*)?", value)
        if match:
            return int(match.group(1))
    return value


def check_prose(value: str, *, placeholders: tuple[str, ...] = (), words: int = 2) -> str:
    """Raise ValueError unless `value` reads as words someone wrote: a number is not an interpretation."""
    text = (value or "").strip()
    if _EMPTY_TEXT.fullmatch(text) or text.lower().strip(" .<>") in {p.lower() for p in placeholders}:
        raise ValueError("is a number or the example's placeholder, not an interpretation")
    if len(_WORD.findall(text)) < words:
        raise ValueError(f"says too little to be an interpretation (fewer than {words} words)")
    return value


def describe(exc: ValidationError, limit: int = 4) -> str:
    """A validation failure in one line the model (and a person) can act on."""
    problems = []
    for err in exc.errors()[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "the reply"
        shown = repr(err.get("input"))
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        if err["type"] == "missing":
            problems.append(f"{where} is missing")
        else:
            message = re.sub(r"^value error, ", "", err["msg"], flags=re.IGNORECASE)
            got = f" (got {shown})" if "input" in err else ""
            problems.append(f"{where}: {message[:1].lower()}{message[1:]}{got}")
    more = len(exc.errors()) - len(problems)
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


def read(
    text: str,
    model: type[BaseModel],
    normalise: Callable[[dict[str, Any]], dict[str, Any]] = lambda obj: obj,
    check: Callable[[BaseModel], None] | None = None,
) -> tuple[BaseModel | None, str | None]:
    """The first object in `text` that validates as `model`, or None and the first object's error.

    `check` judges the whole reply once its parts are valid (raise ValueError to refuse it), for
    faults no single field shows, such as every interpretation being the same text.
    """
    first_error: str | None = None
    for obj in json_objects(text or ""):
        try:
            value = model.model_validate(normalise(obj))
            if check is not None:
                check(value)
            return value, None
        except ValidationError as exc:
            first_error = first_error or describe(exc)
        except ValueError as exc:
            first_error = first_error or str(exc)
    return None, first_error or "no JSON object could be read from the reply"


@dataclass
class Structured(Generic[T]):
    """What came of asking: the value if any reply was valid, and every reply either way."""

    value: T | None = None
    error: str | None = None
    attempts: int = 0
    replies: list[str] = field(default_factory=list)

    @property
    def valid(self) -> bool:
        return self.value is not None


async def ask(
    gateway: Any,
    settings: Any,
    messages: list[dict[str, str]],
    ctx: Any,
    parse: Callable[[str], tuple[T | None, str | None]],
    shape: str,
    *,
    rules: str = "",
    attempts: int = ATTEMPTS,
    on_token: Callable[[str], None] | None = None,
) -> Structured[T]:
    """Ask, read the reply with `parse`, and on failure say what was wrong and ask again.

    The gateway's ModelError propagates: no reply is not an invalid reply, so the caller stores nothing.
    """
    result: Structured[T] = Structured()
    for attempt in range(1, max(1, attempts) + 1):
        completion = await gateway.complete(settings, messages, ctx, on_token=on_token)
        reply = completion.text
        result.attempts = attempt
        result.replies.append(reply)
        value, error = parse(reply)
        if value is not None:
            result.value, result.error = value, None
            return result
        result.error = error
        messages = messages + [
            {"role": "assistant", "content": reply},
            {"role": "user", "content": f"That reply could not be used: {error}. Reply again with only the JSON "
             f"object, in exactly this shape{rules}:\n{shape}"},
        ]
    return result
