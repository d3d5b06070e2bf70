"""World Info: which lorebook entries a character is given for one call, evaluated as SillyTavern does.

An entry activates when one of its primary keys is found in the lines scanned (the newest `scan_depth`
lines the character witnessed, as it heard them: the caller passes them from its lens, so lore never
fires on words a character did not hear); a selective entry then also asks its secondary keys, by its
logic (AND ANY, NOT ALL, NOT ANY, AND ALL). A key is plain text, matched case-sensitively or not and as
a whole word or not, unless it is written `/pattern/flags`: then it is a regular expression, whatever the
entry's `use_regex` says (SillyTavern writes that flag on every entry it exports and reads keys this
way). A lorebook is someone else's file and a pattern can be built to take forever, so patterns run in
RE2, in time that grows with the text alone; the few RE2 cannot run go to the `regex` package with a time
limit, and a key that does not finish is skipped with a note. Constant entries are always active;
disabled ones never. With recursive scanning, the text of what activated is scanned again for further
entries, a bounded number of times. What activated is then held to a token budget, most important
first, and never cut: an entry fits whole or waits for a later call. The survivors are placed before or
after the character's definition, or into the history at a depth, in their insertion order.

Everything here is a pure function of the lines and the books, so a replay gives the same lore; an
entry's probability is drawn from the run's seed and the moment, never from the clock.
"""

from __future__ import annotations

import hashlib
import logging
import random
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal

import re2
import regex

from studio.model.lorebook import Lorebook, LoreEntry

DEFAULT_SCAN_DEPTH = 2  # SillyTavern's default: the two newest lines
MAX_RECURSION = 3  # passes over activated entries' text, when the book has no limit of its own
MAX_SCANNED = 50_000  # characters of history one key is matched against
CHARS_PER_TOKEN = 4
MATCH_SECONDS = 0.05  # one match of a key only the `regex` package can run (back-references, lookarounds)
SLOW_SECONDS = 0.25  # all such matches of one call together; past it, the rest are skipped

# SillyTavern reads a key as a regular expression only when it is written /pattern/flags, with every `/`
# inside escaped and JavaScript's flags after it; anything else, `use_regex` or not, is plain text.
_REGEX_KEY = re.compile(r"^/([\s\S]+?)/([gimsuy]*)$")
_BARE_SLASH = re.compile(r"(?:^|[^\\])/")
_NAMED_BACKREF = re.compile(r"(?<!\\)\\k<(\w+)>")  # JavaScript's \k<name>, in `regex` (?P=name)
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a key RE2 cannot run is expected, and told once as a note
_RE2_OPTIONS.max_mem = 8 << 20

log = logging.getLogger(__name__)


@dataclass(frozen=True)
class Key:
    """One key, prepared once: how it is matched and against what.

    `plain` keys are found as text (folded when the entry is not case-sensitive), `word` ones as a
    whole word; `re2` keys run in RE2, whose time grows with the text and never with the pattern, so
    no key can stall a turn; `slow` keys need what RE2 lacks (back-references, lookarounds) and run in
    the `regex` package under a time limit."""

    text: str
    kind: Literal["plain", "word", "re2", "slow"]
    pattern: Any = None


@lru_cache(maxsize=8192)
def regex_key(key: str) -> Key | None:
    """`key` as a regular expression when it is written /pattern/flags and compiles; otherwise None, and
    the key is plain text, as SillyTavern treats it. Its own flags rule its case, never the entry's."""
    found = _REGEX_KEY.match(key)
    if not found or _BARE_SLASH.search(found.group(1)):
        return None
    body, flags = found.group(1), found.group(2)
    inline = "".join(f for f in "ims" if f in flags)
    try:
        pattern = f"(?{inline}){body}" if inline else body
        return Key(key, "re2", re2.compile(pattern.encode("utf-8", "surrogatepass"), _RE2_OPTIONS))
    except re2.error:
        pass
    options = ((regex.IGNORECASE if "i" in flags else 0) | (regex.MULTILINE if "m" in flags else 0)
               | (regex.DOTALL if "s" in flags else 0))
    try:
        return Key(key, "slow", regex.compile(_NAMED_BACKREF.sub(r"(?P=\1)", body), options))
    except (regex.error, RecursionError, OverflowError, ValueError):
        return None


@lru_cache(maxsize=8192)
def _word(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?:^|\W){re.escape(key)}(?:$|\W)")


@lru_cache(maxsize=8192)
def prepare(key: str, *, case_sensitive: bool, whole_words: bool) -> Key | None:
    """`key` ready to match, or None when it is empty."""
    key = key.strip()
    if not key:
        return None
    compiled = regex_key(key) if key.startswith("/") else None
    if compiled is not None:
        return compiled
    folded = key if case_sensitive else key.casefold()
    if whole_words and len(folded.split()) == 1:
        return Key(folded, "word", _word(folded))
    return Key(folded, "plain")


class Text:
    """Scanned text, folded once for every key that is matched against it."""

    def __init__(self, text: str):
        self.text = text[-MAX_SCANNED:]
        self._folded: str | None = None
        self._encoded: bytes | None = None

    @property
    def folded(self) -> str:
        if self._folded is None:
            self._folded = self.text.casefold()
        return self._folded

    @property
    def encoded(self) -> bytes:
        """The text as RE2 reads it: encoded once, not once per key."""
        if self._encoded is None:
            self._encoded = self.text.encode("utf-8", "surrogatepass")
        return self._encoded


class Matcher:
    """Matches keys for one call, and keeps the time the slow keys may take and what was skipped."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.slow_left = SLOW_SECONDS

    def found(self, key: Key, text: Text, *, case_sensitive: bool, entry: LoreEntry | None = None) -> bool:
        if key.kind == "re2":
            return key.pattern.search(text.encoded) is not None
        if key.kind == "slow":
            return self._slow(key, text, entry)
        haystack = text.text if case_sensitive else text.folded
        if key.text not in haystack:
            return False
        return key.kind == "plain" or key.pattern.search(haystack) is not None

    def _slow(self, key: Key, text: Text, of: LoreEntry | None) -> bool:
        entry = of.label if of is not None else "a lorebook entry"
        if self.slow_left <= 0:
            self._note(f"the key {key.text!r} of {entry!r} was skipped: this call's time for slow keys was spent")
            return False
        start = time.perf_counter()
        try:
            return key.pattern.search(text.text, timeout=min(MATCH_SECONDS, self.slow_left)) is not None
        except TimeoutError:
            self._note(f"the key {key.text!r} of {entry!r} was skipped: it did not finish matching in time")
            return False
        finally:
            self.slow_left -= time.perf_counter() - start

    def _note(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)
            log.warning("World Info: %s", note)


def matches(key: str, text: str | Text, *, case_sensitive: bool = False, whole_words: bool = False) -> bool:
    """Whether `key` is found in `text`, the way SillyTavern matches a World Info key."""
    prepared = prepare(key, case_sensitive=case_sensitive, whole_words=whole_words)
    scanned = text if isinstance(text, Text) else Text(text)
    return prepared is not None and Matcher().found(prepared, scanned, case_sensitive=case_sensitive)


@dataclass
class Activated:
    """The lore one call is given, by where it goes."""

    before: list[str] = field(default_factory=list)  # before the character's definition
    after: list[str] = field(default_factory=list)  # after it
    depth: list[tuple[int, str, str]] = field(default_factory=list)  # (depth, role, text) into the history
    entries: list[LoreEntry] = field(default_factory=list)  # every entry used, in insertion order
    skipped: list[LoreEntry] = field(default_factory=list)  # activated but over the budget
    notes: list[str] = field(default_factory=list)  # keys that could not be matched in time, each once

    @property
    def texts(self) -> list[str]:
        return [e.content.strip() for e in self.entries]


class _Scan:
    """One entry's keys, prepared once per call."""

    def __init__(self, book: Lorebook, entry: LoreEntry, defaults: dict[str, bool]):
        self.entry = entry
        case = entry.case_sensitive_keys
        whole = entry.match_whole_words
        self.case = defaults["case_sensitive"] if case is None else case
        self.whole = defaults["whole_words"] if whole is None else whole
        self.primary = self._prepare(entry.keys)
        self.secondary = self._prepare(entry.secondary_keys or [])

    def _prepare(self, keys: list[str]) -> list[Key]:
        prepared = (prepare(k, case_sensitive=self.case, whole_words=self.whole) for k in keys)
        return [k for k in prepared if k is not None]

    def found(self, key: Key, text: Text, matcher: Matcher) -> bool:
        if key.kind == "plain":  # most keys: kept off the matcher's path, as every call tries every key
            return key.text in (text.text if self.case else text.folded)
        return matcher.found(key, text, case_sensitive=self.case, entry=self.entry)

    def fires(self, text: Text, matcher: Matcher) -> bool:
        entry = self.entry
        if not any(self.found(k, text, matcher) for k in self.primary):
            return False
        if not entry.selective or not self.secondary:
            return True
        hits = [self.found(k, text, matcher) for k in self.secondary]
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
             chosen: dict[int, tuple[Lorebook, LoreEntry]], matcher: Matcher) -> None:
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
            if scan.fires(text, matcher):
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
    matcher = Matcher()
    chosen: dict[int, tuple[Lorebook, LoreEntry]] = {}
    for book, scan, index in candidates:
        entry = scan.entry
        if entry.constant or (not entry.delay_until_recursion and scan.fires(history.scanned_by(book, entry), matcher)):
            chosen[index] = (book, entry)
    _recurse(books, candidates, chosen, matcher)
    picked = [(index, book, entry) for index, (book, entry) in chosen.items()
              if _chance(entry, seed, moment, index)]
    for _, entry in _within_budget(_one_per_group(picked), books, budget_tokens, out):
        _place(entry, out)
    out.notes = matcher.notes
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
