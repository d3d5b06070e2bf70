"""The words of a player's reply read into what the game keeps: goals, audit scores, insights, impressions,
and whether a line of talk leaves the conversation. A model answers in JSON, a person in sentences; each
reader takes either, and none of them knows the state of the game."""

from __future__ import annotations

import re
from typing import Any

from studio import structured
from studio.engine.forms.social import prompts, rules
from studio.engine.forms.social.prompts import LEVELS


def leaves(line: str) -> bool:
    """Whether a line of talk is the speaker leaving the conversation (the paper's way to end one)."""
    return bool(re.search(r"\bI (?:leave|walk away from|end) (?:the|this) conversation\b", line, re.I))


def as_reply(text: str) -> dict[str, Any] | str:
    """The first JSON object in a reply, or the reply's words."""
    return next(structured.json_objects(text), None) or text


def _level(key: Any) -> str:
    return str(key).strip().lower().replace(" priority", "").replace("_priority", "")


def goals(text: str) -> list[str]:
    """Goals by priority, high first: {"high": .., "medium": .., "low": ..}, a list, or "High priority: .." lines."""
    obj = next(structured.json_objects(text), None)
    if isinstance(obj, dict):
        lowered = {_level(k): v for k, v in obj.items()}
        if any(level in lowered for level in LEVELS):
            return [str(lowered.get(level) or "").strip()[:300] for level in LEVELS]
    items = obj.get("goals") if isinstance(obj, dict) else None
    if not isinstance(items, list):
        by_level = _by_level(text, lambda rest: rest.strip()[:300] if rest.strip() else None)
        if by_level:
            return [by_level.get(level, "") for level in LEVELS]
        items = [line.strip(" -*0123456789.)") for line in re.split(r"[\n;]", text)]  # one per line, or split by ;
    return [str(g).strip()[:300] for g in items if str(g).strip()][:3]


def _by_level(text: str, value: Any) -> dict[str, Any]:
    """From "High priority: .." lines, what `value` makes of the rest of each level's line (None: left out)."""
    found: dict[str, Any] = {}
    for line in text.splitlines():
        head, _, rest = line.partition(":")
        level = head.strip(" -*").lower().replace(" priority", "")
        said = value(rest)
        if level in LEVELS and said is not None:
            found[level] = said
    return found


def _score(value: Any) -> int | None:
    n = structured.whole_number(value)
    return n if isinstance(n, int) and 1 <= n <= 5 else None


def scores(text: str) -> dict[str, int]:
    """The audit's 1-5 score per priority level; a level without a whole number in range is left out."""
    found: dict[str, int] = {}
    for obj in structured.json_objects(text):
        for k, v in obj.items():
            level, n = _level(k), _score(v)
            if level in LEVELS and n is not None:
                found[level] = n
        if found:
            return found
    return _by_level(text, lambda rest: _score(rest.strip().split(" ")[0]) if rest.strip() else None)


def insights(text: str, earlier: tuple[str, ...]) -> tuple[str, ...]:
    """The player's insights after a reflection: earlier ones revised in place by number, new ones added,
    at most the paper's five new ones per reflection; plain lines are read as new insights."""
    current = list(earlier)
    new: list[str] = []
    for said, number in _insight_items(text):
        if not said:
            continue
        if isinstance(number, int) and 1 <= number <= len(earlier):
            current[number - 1] = said
        elif len(new) < prompts.INSIGHTS:
            new.append(said)
    return tuple(current + new)


def _insight_items(text: str) -> list[tuple[str, Any]]:
    """Each insight a reflection gives, with the number of the earlier one it revises (None for a new one)."""
    obj = next(structured.json_objects(text), None)
    items = obj.get("insights") if isinstance(obj, dict) else None
    if isinstance(obj, dict) and items is None and isinstance(obj.get("thoughts"), str):
        items = [obj["thoughts"]]
    if not isinstance(items, list):
        items = [line.strip(" -*0123456789.)") for line in text.splitlines()]
    out: list[tuple[str, Any]] = []
    for item in items:
        if isinstance(item, dict):
            out.append((str(item.get("text") or item.get("insight") or "").strip()[:400],
                        structured.whole_number(item.get("revises"))))
        else:
            out.append((str(item).strip()[:400], None))
    return out


# The headings of a theory of mind (Thudium et al., 2024, Figure L.2) as the reply's keys and as read back.
TOM = (("wants", "wants"), ("strategy", "strategy:"), ("next", "next:"), ("of_me", "thinks of me:"),
       ("keep_secret", "keep from them:"))


def impressions(text: str, about: list[str]) -> dict[str, str]:
    """Impressions of players still in, as short plain text: 'trust 1, liking -1; wants the idol'."""
    out: dict[str, str] = {}
    for obj in structured.json_objects(text):
        for who, value in obj.items():
            name = next((p for p in about if rules._mentions(str(who), p)), None)
            if name is None:
                continue
            if isinstance(value, dict):
                out[name] = _impression(value)
            elif str(value).strip():
                out[name] = str(value).strip()[:200]
        if out:
            break
    return out or impressions_in_words(text, about)


def _impression(value: dict[str, Any]) -> str:
    """One player's impression given as JSON: trust and liking in -2..2, then the theory of mind's headings."""
    parts = []
    for k in ("trust", "liking"):
        n = structured.whole_number(value.get(k))
        if isinstance(n, int) and -2 <= n <= 2:
            parts.append(f"{k} {n:+d}")
    text = ", ".join(parts)
    for k, heading in TOM:
        said = str(value.get(k) or "").strip()
        if said:
            text += f"; {heading} {said[:200]}"
    return text


_DISTRUST = re.compile(r"\b(distrust|mistrust|suspect|wary of|(do not|don't|dont|never|can't|cannot) trust)\b", re.I)
_TRUST = re.compile(r"\b(trust|rely on|count on|ally|allies|alliance|believe)\b", re.I)
_DISLIKE = re.compile(r"\b(dislike|hate|(do not|don't|dont) like|annoy)", re.I)
_LIKE = re.compile(r"\b(like|fond of|warm to|love)\b", re.I)


def impressions_in_words(text: str, about: list[str]) -> dict[str, str]:
    """Impressions a person typed as sentences ("I trust Bruno. I don't like Cleo."): each sentence about one
    player gives trust and liking by its words, in the form the JSON reading gives, and is kept as said."""
    out: dict[str, str] = {}
    for sentence in re.split(r"(?<=[.!?;])\s+|\n+", text):
        named = [p for p in about if rules._mentions(sentence, p)]
        if len(named) != 1 or not sentence.strip():
            continue
        parts = []
        if _DISTRUST.search(sentence):
            parts.append("trust -1")
        elif _TRUST.search(sentence):
            parts.append("trust +1")
        if _DISLIKE.search(sentence):
            parts.append("liking -1")
        elif _LIKE.search(sentence):
            parts.append("liking +1")
        said = " ".join(sentence.split())[:200]
        out[named[0]] = ", ".join(parts) + (f"; said: {said}" if parts else said)
    return out
