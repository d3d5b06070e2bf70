"""World Info: which lorebook entries a character is given for one call, evaluated as SillyTavern does.

An entry activates when one of its primary keys is found in the lines scanned (the newest `scan_depth`
lines the character witnessed, as it heard them: the caller passes them from its lens, so lore never
fires on words a character did not hear); a selective entry then also asks its secondary keys, by its
logic (AND ANY, NOT ALL, NOT ANY, AND ALL). Keys match as plain text or, written `/pattern/flags`, as a
regular expression; case-sensitively or not, as whole words or not. Constant entries are always active;
disabled ones never. With recursive scanning, the text of what activated is scanned again for further
entries, a bounded number of times. What activated is then held to a token budget, most important
first, and never cut: an entry fits whole or waits for a later call. The survivors are placed before or
after the character's definition, or into the history at a depth, in their insertion order.

Everything here is a pure function of the lines and the books, so a replay gives the same lore; an
entry's probability is drawn from the run's seed and the moment, never from the clock.
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from studio.model.lorebook import Lorebook, LoreEntry

DEFAULT_SCAN_DEPTH = 2  # SillyTavern's default: the two newest lines
MAX_RECURSION = 3  # passes over activated entries' text, when the book has no limit of its own
MAX_PATTERN = 300  # a key's regular expression, in characters
MAX_SCANNED = 50_000  # characters of history one key is matched against
CHARS_PER_TOKEN = 4

_REGEX_KEY = re.compile(r"^/(.+)/([a-z]*)$", re.DOTALL)
# A quantified group holding a quantifier or an alternation ((a+)+, (a|aa)*...) or a back-reference can take
# exponential time on a crafted line. Python's re has no timeout, and a timeout would make a replay depend
# on the machine's speed, so such keys are refused by their shape: the same key is refused everywhere.
_NESTED = re.compile(r"\([^()]*[+*}|][^()]*\)\s*[+*{]|\\[1-9]")


@dataclass
class Activated:
    """The lore one call is given, by where it goes."""

    before: list[str] = field(default_factory=list)  # before the character's definition
    after: list[str] = field(default_factory=list)  # after it
    depth: list[tuple[int, str, str]] = field(default_factory=list)  # (depth, role, text) into the history
    entries: list[LoreEntry] = field(default_factory=list)  # every entry used, in insertion order
    skipped: list[LoreEntry] = field(default_factory=list)  # activated but over the budget

    @property
    def texts(self) -> list[str]:
        return [e.content.strip() for e in self.entries]


@lru_cache(maxsize=4096)
def _compile(key: str, case_sensitive: bool) -> re.Pattern[str] | None:
    """A `/pattern/flags` key, compiled if it is safe to run on any line (short, no nested quantifiers)."""
    found = _REGEX_KEY.match(key.strip())
    if not found or len(found.group(1)) > MAX_PATTERN or _NESTED.search(found.group(1)):
        return None
    flags = 0 if case_sensitive and "i" not in found.group(2) else re.IGNORECASE
    flags |= re.MULTILINE if "m" in found.group(2) else 0
    flags |= re.DOTALL if "s" in found.group(2) else 0
    try:
        return re.compile(found.group(1), flags)
    except (re.error, RecursionError, OverflowError):
        return None


@lru_cache(maxsize=4096)
def _word(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?:^|\W){re.escape(key)}(?:$|\W)")


class Text:
    """Scanned text, folded once for every key that is matched against it."""

    def __init__(self, text: str):
        self.text = text[-MAX_SCANNED:]
        self._folded: str | None = None

    @property
    def folded(self) -> str:
        if self._folded is None:
            self._folded = self.text.casefold()
        return self._folded


def matches(key: str, text: str | Text, *, case_sensitive: bool = False, whole_words: bool = False,
            regex: bool = False) -> bool:
    """Whether `key` is found in `text`, the way SillyTavern matches a World Info key."""
    key = key.strip()
    if not key:
        return False
    scanned = text if isinstance(text, Text) else Text(text)
    if regex or (key.startswith("/") and _REGEX_KEY.match(key)):
        pattern = _compile(key, case_sensitive)
        if pattern is not None:
            return pattern.search(scanned.text) is not None
        if regex:
            return False
    haystack = scanned.text if case_sensitive else scanned.folded
    if not case_sensitive:
        key = key.casefold()
    if whole_words and " " not in key:
        return key in haystack and _word(key).search(haystack) is not None
    return key in haystack


class _Scan:
    """One entry's keys, prepared once per call: folded, compiled, or refused."""

    def __init__(self, book: Lorebook, entry: LoreEntry, defaults: dict[str, bool]):
        self.entry = entry
        case = entry.case_sensitive_keys
        whole = entry.match_whole_words
        self.case = defaults["case_sensitive"] if case is None else case
        self.whole = defaults["whole_words"] if whole is None else whole
        self.regex = bool(entry.use_regex)
        self.primary = [self._prepare(k) for k in entry.keys]
        self.secondary = [self._prepare(k) for k in (entry.secondary_keys or []) if k.strip()]

    def _prepare(self, key: str) -> tuple[str, re.Pattern[str] | None, bool]:
        """(the key as matched, its pattern if it is a regex or a whole word, whether it can match at all)."""
        key = key.strip()
        if not key:
            return "", None, False
        if self.regex or (key.startswith("/") and _REGEX_KEY.match(key)):
            pattern = _compile(key, self.case)
            if pattern is not None:
                return key, pattern, True
            if self.regex:
                return key, None, False
        folded = key if self.case else key.casefold()
        return folded, _word(folded) if self.whole and " " not in folded else None, True

    def found(self, prepared: tuple[str, re.Pattern[str] | None, bool], text: Text) -> bool:
        key, pattern, usable = prepared
        if not usable:
            return False
        if pattern is not None and key.startswith("/"):
            return pattern.search(text.text) is not None
        haystack = text.text if self.case else text.folded
        return key in haystack and (pattern is None or pattern.search(haystack) is not None)

    def fires(self, text: Text) -> bool:
        entry = self.entry
        if not any(self.found(k, text) for k in self.primary):
            return False
        if not entry.selective or not self.secondary:
            return True
        hits = [self.found(k, text) for k in self.secondary]
        logic = entry.logic
        if logic == "and_any":
            return any(hits)
        if logic == "not_all":
            return not all(hits)
        if logic == "not_any":
            return not any(hits)
        return all(hits)  # and_all


def _chance(entry: LoreEntry, seed: int, moment: tuple[int, int], index: int) -> bool:
    if entry.probability >= 100:
        return True
    key = f"{seed}:{moment}:{index}:{entry.id}"
    draw = random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")).random()
    return draw * 100 < entry.probability


_Candidate = tuple[Lorebook, _Scan, int]  # an entry that may activate, with its place among all the books' entries


def _candidates(books: Sequence[Lorebook]) -> list[_Candidate]:
    """Every entry that may activate, its keys prepared by its book's defaults."""
    candidates: list[_Candidate] = []
    for book in books:
        ext = book.extensions or {}
        defaults = {"case_sensitive": bool(ext.get("case_sensitive", False)),
                    "whole_words": bool(ext.get("match_whole_words", False))}
        for entry in book.entries:
            if entry.active:
                candidates.append((book, _Scan(book, entry, defaults), len(candidates)))
    return candidates


class _History:
    """The lines an entry scans, joined once per scan depth."""

    def __init__(self, lines: Sequence[str]):
        self.lines = lines
        self.scanned: dict[int, Text] = {}

    def scanned_by(self, book: Lorebook, entry: LoreEntry) -> Text:
        depth = entry.scan_depth if entry.scan_depth is not None else book.scan_depth
        depth = max(DEFAULT_SCAN_DEPTH if depth is None else depth, 0)
        if depth not in self.scanned:
            self.scanned[depth] = Text("\n".join(self.lines[-depth:]) if depth > 0 else "")
        return self.scanned[depth]


def _recurse(books: Sequence[Lorebook], candidates: list[_Candidate],
             chosen: dict[int, tuple[Lorebook, LoreEntry]]) -> None:
    """Add to `chosen` the entries that what activated brings in, pass by pass, up to the books' limit."""
    recursive = [b for b in books if b.recursive_scanning]
    limit = min((int(b.extensions.get("max_recursion_steps") or MAX_RECURSION) for b in recursive), default=0)
    fresh = dict(chosen)
    for _ in range(max(limit, 0)):
        joined = "\n".join(e.content for _, e in fresh.values() if not e.prevent_recursion)
        if not joined:
            break
        text = Text(joined)
        fresh = {}
        for book, scan, index in candidates:
            if index in chosen or not book.recursive_scanning or scan.entry.exclude_recursion:
                continue
            if scan.fires(text):
                fresh[index] = chosen[index] = (book, scan.entry)
        if not fresh:
            break


def _within_budget(picked: list[tuple[int, Lorebook, LoreEntry]], books: Sequence[Lorebook], budget_tokens: int,
                   out: Activated) -> list[tuple[int, LoreEntry]]:
    """The picked entries that fit the budget whole, in insertion order; the rest go to `out.skipped`.
    The budget goes to constant entries first, then by priority, then by insertion order (higher first)."""
    ranked = sorted(picked, key=lambda t: (not t[2].constant, -(t[2].priority or 0), -t[2].insertion_order, t[0]))
    budgets = [b.token_budget for b in books if b.token_budget]
    room = min([*budgets, budget_tokens]) * CHARS_PER_TOKEN if budget_tokens > 0 else 0
    kept: list[tuple[int, LoreEntry]] = []
    for index, _book, entry in ranked:
        size = len(entry.content.strip()) + 1
        if entry.extensions.get("ignore_budget") or size <= room:
            room -= 0 if entry.extensions.get("ignore_budget") else size
            kept.append((index, entry))
        else:
            out.skipped.append(entry)
    kept.sort(key=lambda t: (t[1].insertion_order, t[0]))
    return kept


def _place(entry: LoreEntry, out: Activated) -> None:
    """Put an entry where its position says, and count it as used; an outlet is shown only where a prompt
    names it, and no studio prompt does, so it is left out."""
    content = entry.content.strip()
    place = entry.place
    if place == "before_char":
        out.before.append(content)
    elif place in ("after_char", "examples_top", "examples_bottom"):
        out.after.append(content)
    elif place == "at_depth":
        out.depth.append((entry.depth, entry.role, content))
    elif place in ("author_note_top", "author_note_bottom"):
        out.depth.append((4, "system", content))  # where SillyTavern's Author's Note stands by default
    else:
        return
    out.entries.append(entry)


def activate(books: Sequence[Lorebook], lines: Sequence[str], *, budget_tokens: int, seed: int = 0,
             moment: tuple[int, int] = (0, 0)) -> Activated:
    """The entries of `books` that `lines` (oldest first, as the character heard them) bring into play."""
    out = Activated()
    candidates = _candidates(books)
    if not candidates:
        return out
    history = _History(lines)
    chosen: dict[int, tuple[Lorebook, LoreEntry]] = {}
    for book, scan, index in candidates:
        entry = scan.entry
        if entry.constant or (not entry.delay_until_recursion and scan.fires(history.scanned_by(book, entry))):
            chosen[index] = (book, entry)
    _recurse(books, candidates, chosen)
    picked = [(index, book, entry) for index, (book, entry) in chosen.items()
              if _chance(entry, seed, moment, index)]
    for _, entry in _within_budget(_one_per_group(picked), books, budget_tokens, out):
        _place(entry, out)
    return out


def _one_per_group(picked: list[tuple[int, Lorebook, LoreEntry]]) -> list[tuple[int, Lorebook, LoreEntry]]:
    """Of activated entries sharing an inclusion group, one: the group's override entry if it has one,
    else the one with the highest insertion order (SillyTavern draws by weight here; a fixed choice keeps
    a replay exact without a draw)."""
    groups: dict[str, list[tuple[int, Lorebook, LoreEntry]]] = {}
    out = []
    for item in picked:
        group = item[2].group.strip()
        if group:
            groups.setdefault(group, []).append(item)
        else:
            out.append(item)
    for members in groups.values():
        override = [m for m in members if m[2].extensions.get("group_override")]
        pool = override or members
        out.append(max(pool, key=lambda m: (m[2].insertion_order, -m[0])))
    return out


def at_depth(messages: list[dict[str, str]], inserts: Sequence[tuple[int, str, str]]) -> list[dict[str, str]]:
    """`messages` (a chat after its system message) with each (depth, role, text) placed `depth` messages
    from the end: depth 0 after the newest, 4 before the fourth newest. Same depth: in the order given."""
    out = list(messages)
    for depth, role, text in sorted(inserts, key=lambda t: t[0], reverse=True):  # deepest first: counts hold
        at = max(len(out) - depth, 0)
        out.insert(at, {"role": role, "content": text})
    return out
