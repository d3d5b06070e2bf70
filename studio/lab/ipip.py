"""The two public-domain Big-Five scales the interview asks from, and how an item becomes a question.

The items and their keys live in studio/lab/data/ipip.toml, with their source (ipip.ori.org): the
50-item IPIP Big-Five Factor Markers and the 20-item Mini-IPIP. An item is a self-description with
the subject left out ("Am the life of the party."); the interviewer turns it into an open-ended
question put to the character ("Would you say that you are the life of the party? ..."), by a fixed
rule, so the same scale always asks the same questions and a replay of the run agrees with it.
"""

from __future__ import annotations

import re
import tomllib
from functools import cache
from pathlib import Path

from studio.lab.personality import DIMENSIONS, Item

DATA = Path(__file__).with_name("data") / "ipip.toml"
SCALES = {"mini": "the Mini-IPIP (20 items; Donnellan et al., 2006)",
          "ipip50": "the IPIP Big-Five Factor Markers (50 items; Goldberg, 1992)"}
SOURCE = "International Personality Item Pool, https://ipip.ori.org/ (public domain)"


@cache
def _table() -> dict[str, tuple[Item, ...]]:
    data = tomllib.loads(DATA.read_text(encoding="utf-8"))
    out: dict[str, tuple[Item, ...]] = {}
    for scale in SCALES:
        items = []
        for row in data[scale]:
            if row["dimension"] not in DIMENSIONS or row["key"] not in (1, -1):
                raise ValueError(f"{DATA}: {scale} item {row['text']!r} has a bad dimension or key")
            items.append(Item(row["text"], row["dimension"], row["key"]))
        out[scale] = tuple(items)
    return out


def items(scale: str) -> list[Item]:
    """The scale's items in their published order."""
    return list(_table()[scale])


# The subject the items leave out is "I"; asked of someone else, it is "you", and the verb agrees.
_VERBS = {"am": "are", "i'm": "you're"}
_PRONOUNS = {"my": "your", "myself": "yourself", "me": "you", "i": "you", "mine": "yours"}

# Three ways of asking, taken in turn, so a long interview does not drone; each wants a story, not a number.
_ASK = (
    "Would you say that {x}? Tell me how that shows in your life.",
    "Is it true that {x}? Give me an example from your own days.",
    "Someone who knows you said that {x}. Is that fair? Why, or why not?",
)


def clause(text: str) -> str:
    """The item as a clause about "you": "Am not interested in others." -> "you are not interested in others"."""
    words = text.strip().rstrip(".").split()
    if not words:
        raise ValueError("an empty item")
    first = words[0].lower()
    words[0] = _VERBS.get(first, first)
    out = [words[0]] + [_PRONOUNS.get(w.lower(), w) for w in words[1:]]
    return "you " + " ".join(out)


def question(item: Item, index: int) -> str:
    """The open-ended question the interviewer asks for the scale's `index`-th item (0-based)."""
    return _ASK[index % len(_ASK)].format(x=clause(item.text))


def anonymise(text: str, names: list[str]) -> str:
    """Text with the character's names (whole words, any case) replaced, for an assessor that must not know them."""
    for name in sorted({n for n in names if n and n.strip()}, key=len, reverse=True):
        text = re.sub(rf"(?i)\b{re.escape(name.strip())}\b", "the participant", text)
    return text
