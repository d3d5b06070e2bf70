"""What a character sheet takes from its Character Card's own fields: the prompt and what the others know.

A sheet imported from a card keeps the card's fields in `[card]`; its prompt and description are built
from them whenever the sheet is read, unless the sheet writes its own. So an edit to `[card] scenario`
changes both the card `export-card` writes and the character on stage, and a sheet whose prompt was
never touched needs no copy of it.
"""

from __future__ import annotations

import re
from typing import Any

from studio.model.macros import without_code
from studio.model.limits import MAX_DESCRIPTION, MAX_PROMPT


# A sentence ends at . ! ? before a space or the end, or at a full-width 。！？ (no space follows those).
_SENTENCE = re.compile(r"(.+?(?:[.!?](?=\s|$)|[。！？]))", re.DOTALL)


def first_sentence(text: str, limit: int = 300) -> str:
    """The first sentence, in any script: what the other characters know of someone."""
    match = _SENTENCE.match(text)
    first = (match.group(1) if match else text).strip().replace("\n", " ")
    return first if len(first) <= limit else first[: limit - 1].rstrip() + "…"


def _field(card: dict[str, Any], key: str, name: str) -> str:
    value = card.get(key)
    # Macros stay as the card writes them: a prompt fills them when it is built (studio.model.macros), where
    # who {{user}} is, is known.
    return without_code(value).strip() if isinstance(value, str) else ""


def card_prompt(card: dict[str, Any], name: str) -> str:
    """The prompt from a sheet's [card] fields: system prompt, description, personality, scenario, first
    message and examples, in the order a card means them; other apps' template code left out."""
    parts = [_field(card, "system_prompt", name), _field(card, "description", name)]
    if personality := _field(card, "personality", name):
        parts.append(f"Personality: {personality}")
    if scenario := _field(card, "scenario", name):
        parts.append(f"The situation: {scenario}")
    if first := _field(card, "first_message", name):
        parts.append(f"How you first spoke:\n{first}")
    if examples := _field(card, "examples", name):
        examples = re.sub(r"^\s*<START>\s*$\n?", "", examples, flags=re.MULTILINE | re.IGNORECASE)
        parts.append(f"How you speak, for example:\n{examples.strip()}")
    return ("\n\n".join(p.strip() for p in parts if p.strip()) or f"You are {name}.")[:MAX_PROMPT]


def card_description(card: dict[str, Any], name: str) -> str:
    """What the others know: the first sentence of the card's description."""
    text = _field(card, "description", name)
    return first_sentence(text)[:MAX_DESCRIPTION] if text else ""


def with_card_defaults(data: Any) -> Any:
    """A sheet's raw fields with the prompt and description built from [card] where the sheet has none."""
    if not isinstance(data, dict) or not isinstance(data.get("card"), dict) or not isinstance(data.get("name"), str):
        return data
    out = dict(data)
    if out.get("prompt") in (None, ""):
        out["prompt"] = card_prompt(data["card"], data["name"])
    if "description" not in out:
        out["description"] = card_description(data["card"], data["name"])
    return out
