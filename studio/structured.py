"""Replies that are data: a critic's scores, a dilemma move, a vote, an interviewer's rating.

One reader for all of them, lenient about the wrapping and strict about the content. Models (small ones
most of all) put JSON in prose or fences, spell keys three ways and write "7/10" for 7; all of that is
read. What is read is then validated with pydantic, meaning as well as shape: a score in range, a reason
that is words and not a number or the example's placeholder. An invalid reply is described in one line
that can be shown to the model when it is asked again; a caller asks once more and, if that fails too,
stores the reply as invalid rather than guessing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

M = TypeVar("M", bound=BaseModel)

ATTEMPTS = 2  # the first reply and one more chance

# The example's own placeholders, and text with nothing to say.
PLACEHOLDER = re.compile(r"[\s.…]*|<[^<>]*>|one or two sentences|a short overall interpretation|\.\.\.|n/?a", re.I)
_LETTERS = re.compile(r"[^\W\d_]{2,}")  # two letters in a row, in any script


def json_objects(text: str) -> Iterator[dict[str, Any]]:
    """Every JSON object in `text`, in order: fenced, bare or wrapped in prose."""
    decoder = json.JSONDecoder()
    for match in re.finditer(r"\{", text or ""):
        try:
            value, _ = decoder.raw_decode(text, match.start())
        except json.JSONDecodeError:
            continue
        if isinstance(value, dict):
            yield value


def key(name: Any, aliases: dict[str, str] | None = None) -> str:
    """A key as the schema spells it: lower case, words joined by underscores, known variants mapped."""
    folded = re.sub(r"[\s\-]+", "_", str(name).strip().lower())
    return (aliases or {}).get(folded, folded)


def whole_number(value: Any, out_of: int | None = None) -> Any:
    """Whole numbers however written ("7", "7/10", 7.0); anything else is left for validation to refuse."""
    if isinstance(value, float) and value.is_integer():
        return int(value)
    if isinstance(value, str):
        scale = rf"(?:\s*/\s*{out_of})?" if out_of else ""
        match = re.fullmatch(rf"\s*(-?\d+){scale}\s*", value)
        if match:
            return int(match.group(1))
    return value


def words(value: str) -> str:
    """A reason or an interpretation must be words: not empty, not a placeholder, not just a number."""
    text = value.strip()
    if PLACEHOLDER.fullmatch(text):
        raise ValueError("is the example's placeholder or empty, not an answer")
    if not _LETTERS.search(text):
        raise ValueError("is not words (a number is not an interpretation)")
    if _loops(text):
        raise ValueError("repeats the same words over and over, which is a loop, not an answer")
    return text


def _loops(text: str, span: int = 4, times: int = 3) -> bool:
    """Whether some run of `span` words comes back `times` times or more: a small model caught in a loop."""
    said = re.findall(r"[\w']+", text.lower())
    seen: dict[tuple[str, ...], int] = {}
    for i in range(len(said) - span + 1):
        run = tuple(said[i:i + span])
        seen[run] = seen.get(run, 0) + 1
        if seen[run] >= times:
            return True
    return False


def describe(exc: ValidationError, limit: int = 4) -> str:
    """One line naming what is wrong, for the log and for the model's second chance."""
    problems = []
    for err in exc.errors()[:limit]:
        where = ".".join(str(p) for p in err["loc"]) or "the reply"
        shown = repr(err.get("input"))
        shown = shown if len(shown) <= 40 else shown[:39] + "…"
        got = f" (got {shown})" if err["type"] != "missing" and "input" in err else ""
        if err["type"] == "missing":
            problems.append(f"{where} is missing")
        else:
            message = re.sub(r"^value error, ", "", err["msg"], flags=re.IGNORECASE)
            problems.append(f"{where}: {message[:1].lower()}{message[1:]}{got}")
    more = len(exc.errors()) - len(problems)
    return "; ".join(problems) + (f"; and {more} more" if more > 0 else "")


def read(
    text: str,
    model: type[M],
    normalise: Callable[[dict[str, Any]], dict[str, Any]] = lambda obj: obj,
    fallback: Callable[[str], dict[str, Any] | None] | None = None,
) -> tuple[M | None, str | None]:
    """The first JSON object in `text` that validates as `model` (after `normalise`), or None and why not.

    `fallback` may read plain words when no object validates ("I cooperate"): small models manage words
    where they fumble braces; what it returns is validated like any object.
    """
    first_error: str | None = None
    for obj in json_objects(text):
        try:
            return model.model_validate(normalise(obj)), None
        except ValidationError as exc:
            first_error = first_error or describe(exc)
    if fallback is not None:
        guess = fallback(text or "")
        if guess is not None:
            try:
                return model.model_validate(normalise(guess)), None
            except ValidationError as exc:
                first_error = first_error or describe(exc)
    return None, first_error or "no JSON object could be read from the reply"


def ask_again(problem: str, shape: str) -> str:
    """What the model is told the second time: what was wrong and the shape wanted."""
    return f"Your reply could not be used: {problem}. Reply again with JSON of this shape only: {shape}"


def json_schema(model: type[BaseModel]) -> dict[str, Any]:
    """The schema a provider (or llama.cpp's grammar) can hold a reply to, where it supports one."""
    return model.model_json_schema()


def reply_schema(model: type[BaseModel] | dict[str, Any], max_text: int = 240) -> str:
    """The schema a reply is held to, as JSON text for `CallSettings.schema`.

    Every property is required (a grammar would otherwise let a small model stop at `{}`), and a text
    with no length limit gets `max_text` characters, so a held reply closes its braces within a call's
    token budget instead of being cut off mid-string. The reader still validates the meaning."""
    schema = json_schema(model) if isinstance(model, type) else json.loads(json.dumps(model))

    def tighten(node: Any) -> None:
        if isinstance(node, dict):
            if node.get("type") == "string" and "enum" not in node and "maxLength" not in node:
                node["maxLength"] = max_text
            low, high = node.get("minimum"), node.get("maximum")
            if node.get("type") == "integer" and isinstance(low, int) and isinstance(high, int) and high - low <= 100:
                node["enum"] = list(range(low, high + 1))  # a grammar holds an enum; it ignores the bounds
            if isinstance(node.get("properties"), dict):
                node["required"] = list(node["properties"])
            for value in node.values():
                tighten(value)
        elif isinstance(node, list):
            for value in node:
                tighten(value)

    tighten(schema)
    return json.dumps(schema, separators=(",", ":"), sort_keys=False)


GRAMMAR_TEXT_MAX = 600


def words_first(schema: str) -> str:
    """The schema as a small model is held to it (by llama.cpp's grammar, in-process or on a server): a
    free text (a reason, an interpretation) begins with a letter and stays on one line. Left to itself
    the 135M model fills such fields with numbers ("5.6", "982}}"), which the reader then rightly
    refuses; capable models get the schema as it is."""

    def words(node: Any) -> Any:
        if isinstance(node, dict):
            if node.get("type") == "string" and "enum" not in node and "pattern" not in node:
                # llama.cpp spells {1,N} out as N nested options; past about 1,500 its grammar parser
                # crashes the process (a reflection's 2,000-character thoughts did), so the grammar holds
                # a text to GRAMMAR_TEXT_MAX characters and the reader still checks the schema's own bound.
                longest = min(GRAMMAR_TEXT_MAX, max(2, int(node.get("maxLength", 240))))
                node = {k: v for k, v in node.items() if k not in ("maxLength", "minLength")}
                node["pattern"] = '^[A-Za-z][^"\\\\\n]{1,%d}$' % (longest - 1)
                return node
            return {k: words(v) for k, v in node.items()}
        if isinstance(node, list):
            return [words(v) for v in node]
        return node

    return json.dumps(words(json.loads(schema)))
