"""World Info: which lorebook entries a character is given for one call, evaluated as SillyTavern does.

An entry activates when one of its primary keys is found in the lines scanned (the newest `scan_depth`
lines the character witnessed, as it heard them: the caller passes them from its lens, so lore never
fires on words a character did not hear); a selective entry then also asks its secondary keys, by its
logic (AND ANY, NOT ALL, NOT ANY, AND ALL). A key is plain text, matched case-sensitively or not and as
a whole word or not, unless it is written `/pattern/flags`: then it is a regular expression, whatever the
entry's `use_regex` says (SillyTavern writes that flag on every entry it exports and reads keys this
way). A lorebook is someone else's file and a pattern can be built to take forever, so patterns run in
RE2, in time that grows with the text alone; the few RE2 cannot run go to the `regex` package with a time
limit, and a key that does not finish is skipped with a note. Compiling costs too (the `regex` package
writes out every counted repeat, so `/a{999999999}/` asks for gigabytes before the first match): a key is
measured before either engine sees it, by its length, its nesting and its size with every repeat written
out, and one past those bounds is never compiled (it stays plain text, as a key that does not compile).
The patterns of one call's books share a budget too, spent in the books' order, so a book of a thousand
costly keys costs what one book may, and the same keys are patterns on every call and every replay.
Flagged entries also scan the character's own texts (its card's description, scenario...). Scanning
goes in passes: constant and sticky entries need no key; entries on cooldown or delayed wait; of the
entries found in a pass that share an inclusion group, one stays; with recursive scanning, the text of what activated is scanned again, the
lines with it, for further entries, a bounded number of times, entries delayed until recursion waiting
for their level. What activated is then held to a token budget, most important first, and never cut: an
entry fits whole or waits for a later call. The survivors are placed before or after the character's
definition, or into the history at a depth, in their insertion order.

Everything here is a pure function of the lines, the books and the timed effects, which the caller reads
back from the run's events, so a replay gives the same lore; probabilities and group draws come from the
run's seed and the moment, never from the clock. Only a key RE2 cannot run may come out differently, on
a machine too slow to finish it in time.
"""

from __future__ import annotations

import hashlib
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
MAX_PASSES = 50  # passes of one call at most, whatever a book asks
MAX_SCANNED = 50_000  # characters of history one key is matched against
CHARS_PER_TOKEN = 4
MATCH_SECONDS = 0.05  # all matches of one call of a key only the `regex` package runs (back-references...)
SLOW_SECONDS = 1.0  # all such keys of one call together; past it, the rest are skipped

# SillyTavern reads a key as a regular expression only when it is written /pattern/flags, with every `/`
# inside escaped and JavaScript's flags after it; anything else, `use_regex` or not, is plain text.
_REGEX_KEY = re.compile(r"^/([\s\S]+?)/([gimsuy]*)$")
_BARE_SLASH = re.compile(r"(?:^|[^\\])/")
_NAMED_BACKREF = re.compile(r"(?<!\\)\\k<(\w+)>")  # JavaScript's \k<name>, in `regex` (?P=name)
_RE2_OPTIONS = re2.Options()
_RE2_OPTIONS.log_errors = False  # a key RE2 cannot run is expected (it goes to `regex`), not an error
_RE2_OPTIONS.max_mem = 8 << 20
# What a key may cost to compile: RE2 refuses repeats past 1,000, and a key past these is not compiled at all.
MAX_PATTERN_CHARS = 1_000
MAX_PATTERN_NESTING = 32
MAX_PATTERN_SIZE = 1_000  # atoms once every counted repeat is written out: (ab){3} is 6, (a{10}){100} 1,000
MAX_CALL_PATTERN_SIZE = 50_000  # atoms of all the patterns of one call's books: about 10 MB compiled
_COUNTED = re.compile(r"\{(\d*)(?:,(\d*))?\}")
_NAMED_ESCAPE = re.compile(r"\\[pPNxu]\{[^}]{0,64}\}")  # \p{L}, \N{name}, \x{263a}: one atom, not a repeat


def pattern_size(body: str) -> int | None:
    """How many atoms `body` holds with every counted repeat written out (`(ab){3}` is 6), as the `regex`
    package compiles it; None when it nests deeper than MAX_PATTERN_NESTING or is longer than
    MAX_PATTERN_CHARS. One pass, and the count stops at MAX_PATTERN_SIZE + 1, so no key costs more to
    measure than its length."""
    if len(body) > MAX_PATTERN_CHARS:
        return None
    groups = [0]  # the size so far of each open group, outermost first
    last = 0  # the size of the atom or group a quantifier after it repeats
    at = 0
    while at < len(body):
        char = body[at]
        if char == "\\":
            named = _NAMED_ESCAPE.match(body, at)
            at = named.end() if named else at + 2
            last = 1
        elif char == "[":
            at = _class_end(body, at)
            last = 1
        elif char == "(":
            groups.append(0)
            if len(groups) > MAX_PATTERN_NESTING:
                return None
            at += 1
            last = 0
            continue
        elif char == ")" and len(groups) > 1:
            last = groups.pop()
            groups[-1] += last
            at += 1
            continue
        elif char == "{" and (counted := _COUNTED.match(body, at)) and (counted.group(1) or counted.group(2)):
            times = max(1, *(int(n[:9]) for n in counted.groups() if n))
            groups[-1] += last * (times - 1)
            last *= times
            at = counted.end()
            if groups[-1] > MAX_PATTERN_SIZE:
                return MAX_PATTERN_SIZE + 1
            continue
        else:
            at += 1
            last = 1
        groups[-1] += last
        if groups[-1] > MAX_PATTERN_SIZE:
            return MAX_PATTERN_SIZE + 1
    return sum(groups)


def _class_end(body: str, at: int) -> int:
    """Where the character class opening at `at` ends (past its `]`; a `]` first in it is a member)."""
    at += 1
    if at < len(body) and body[at] == "^":
        at += 1
    if at < len(body) and body[at] == "]":
        at += 1
    while at < len(body) and body[at] != "]":
        at += 2 if body[at] == "\\" else 1
    return at + 1


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
def regex_size(key: str) -> int | None:
    """The size of `key` as a pattern (`pattern_size`) when it is written /pattern/flags within the bounds;
    otherwise None, and the key is plain text. Measured, never compiled."""
    found = _REGEX_KEY.match(key)
    if not found or _BARE_SLASH.search(found.group(1)):
        return None
    size = pattern_size(found.group(1))
    return size if size is not None and size <= MAX_PATTERN_SIZE else None


@lru_cache(maxsize=256)  # at most 256 compiled keys of at most MAX_PATTERN_SIZE atoms held: about 50 MB at worst
def regex_key(key: str) -> Key | None:
    """`key` as a regular expression when it is written /pattern/flags within the bounds and compiles;
    otherwise None, and the key is plain text, as SillyTavern treats it. Its own flags rule its case,
    never the entry's."""
    if regex_size(key) is None:
        return None
    found = _REGEX_KEY.match(key)
    if found is None:
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
        # not in the package's own cache of 500 patterns: regex_key's cache is the one bound on what is held
        return Key(key, "slow", regex.compile(_NAMED_BACKREF.sub(r"(?P=\1)", body), options, cache_pattern=False))
    except (regex.error, RecursionError, OverflowError, ValueError):
        return None


@lru_cache(maxsize=8192)
def _word(key: str) -> re.Pattern[str]:
    return re.compile(rf"(?:^|\W){re.escape(key)}(?:$|\W)")


def prepare(key: str, *, case_sensitive: bool, whole_words: bool, pattern: bool = True) -> Key | None:
    """`key` ready to match, or None when it is empty; with `pattern` False, as plain text whatever it is.
    Compiled patterns are held by `regex_key`'s cache alone, so its bound is the bound on their memory."""
    key = key.strip()
    if not key:
        return None
    compiled = regex_key(key) if pattern and key.startswith("/") else None
    if compiled is not None:
        return compiled
    return _plain(key, case_sensitive, whole_words)


@lru_cache(maxsize=8192)
def _plain(key: str, case_sensitive: bool, whole_words: bool) -> Key:
    """A key read as text: folded when the entry ignores case, a whole word when the entry asks it."""
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
    """Matches keys for one call, and keeps the time each slow key may still take and what was skipped."""

    def __init__(self) -> None:
        self.notes: list[str] = []
        self.slow_left = SLOW_SECONDS
        self.key_left: dict[str, float] = {}  # each slow key's own time, by its text, for all its matches

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
        """A key's time is its own: one that runs long is skipped for the rest of the call (named once for
        each entry it stands in), while the other keys keep theirs; the call's limit only stops a book
        full of slow keys."""
        left = self.key_left.setdefault(key.text, MATCH_SECONDS)
        if left > 0 and self.slow_left > 0:
            limit = min(left, self.slow_left)
            start = time.perf_counter()
            try:
                return key.pattern.search(text.text, timeout=limit) is not None
            except TimeoutError:
                pass
            finally:
                spent = time.perf_counter() - start
                self.slow_left -= spent
                self.key_left[key.text] = left - spent
            if limit == left:
                self.key_left[key.text] = 0.0
        entry = of.label if of is not None else "a lorebook entry"
        if self.key_left[key.text] <= 0:
            self._note(f"skipped: the key {key.text} of {entry}, which did not finish matching in time")
        else:
            self._note(f"skipped: the key {key.text} of {entry}, as this call's time for slow keys was spent")
        return False

    def _note(self, note: str) -> None:
        if note not in self.notes:
            self.notes.append(note)


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
    names: list[str] = field(default_factory=list)  # their names (`named`), as the line records them
    skipped: list[LoreEntry] = field(default_factory=list)  # activated but over the budget
    notes: list[str] = field(default_factory=list)  # keys that could not be matched in time, each once

    @property
    def texts(self) -> list[str]:
        return [e.content.strip() for e in self.entries]

    @property
    def recorded(self) -> list[str]:
        """What the line records as the lore that shaped it: the entries' names, then any key skipped (a
        note names no entry, so it never counts in the timed effects read back from these)."""
        return [*self.names, *self.notes]


def named(books: Sequence[Lorebook]) -> list[tuple[Lorebook, LoreEntry, str]]:
    """Every entry of `books`, with its book and a name for people that no other entry of them shares:
    its label, with " (2)", " (3)" after a label met before. A line records the entries it was given by
    these names, and the timed effects of later calls are read back from them."""
    seen: dict[str, int] = {}
    out = []
    for book in books:
        for entry in book.entries:
            label = entry.label
            seen[label] = seen.get(label, 0) + 1
            out.append((book, entry, label if seen[label] == 1 else f"{label} ({seen[label]})"))
    return out


@dataclass(frozen=True)
class Timed:
    """What earlier calls leave for this one: SillyTavern's timed effects, read from the run's events (the
    lines the character witnessed and the entries each of its lines was given), never kept aside, so a
    rewind, a take or a resumed run sees exactly what it saw the first time."""

    lines: int = 0  # lines the character has witnessed so far: SillyTavern's length of the chat
    sticky: frozenset[str] = frozenset()  # entries held active, by name
    cooldown: frozenset[str] = frozenset()  # entries that may not activate yet, by name


def timed(books: Sequence[Lorebook], calls: Sequence[tuple[int, Sequence[str]]], lines: int) -> Timed:
    """The timed effects now, after `calls` (oldest first: how many lines the character had witnessed at
    each of its earlier lines, and the names of the entries that line was given) and `lines` witnessed.

    An entry given while it is not already sticky starts its time: `sticky` lines active whatever its
    keys, then `cooldown` lines when it may not activate; given again while sticky, it keeps its time."""
    spans = {name: (e.sticky, e.cooldown) for _, e, name in named(books) if e.sticky or e.cooldown}
    if not spans:
        return Timed(lines=lines)
    began: dict[str, int] = {}
    for at, names in calls:
        for name in names:
            if name in spans and not (name in began and at < began[name] + spans[name][0]):
                began[name] = at
    sticky = frozenset(n for n, at in began.items() if lines < at + spans[n][0])
    cooldown = frozenset(n for n, at in began.items() if n not in sticky and lines < at + sum(spans[n]))
    return Timed(lines=lines, sticky=sticky, cooldown=cooldown)


def _draw(seed: int, moment: tuple[int, int], what: str) -> float:
    """A number in [0, 1) from the run's seed, the moment and what is drawn: the same on every replay."""
    key = f"{seed}:{moment}:{what}"
    return random.Random(int.from_bytes(hashlib.sha256(key.encode()).digest()[:8], "big")).random()


class _Scan:
    """One entry's keys, prepared once per call, with its book, its place among all entries and its name."""

    def __init__(self, book: Lorebook, entry: LoreEntry, name: str, index: int, patterns: _Patterns):
        self.book, self.entry, self.name, self.index = book, entry, name, index
        self.patterns = patterns
        ext = book.extensions or {}
        case, whole = entry.case_sensitive_keys, entry.match_whole_words
        self.case = bool(ext.get("case_sensitive", False)) if case is None else case
        self.whole = bool(ext.get("match_whole_words", False)) if whole is None else whole
        scoring = entry.use_group_scoring
        self.scored = bool(ext.get("use_group_scoring", False)) if scoring is None else scoring
        self.primary = self._prepare(entry.keys)
        self.secondary = self._prepare(entry.secondary_keys or [])
        # the settings every pass asks, read once from the entry's extensions
        depth = entry.scan_depth if entry.scan_depth is not None else book.scan_depth
        self.depth = max(DEFAULT_SCAN_DEPTH if depth is None else depth, 0)
        self.also = tuple(entry.also_scans)
        self.constant = bool(entry.constant)
        self.delay, self.delayed, self.excluded = entry.delay, entry.delay_until_recursion, entry.exclude_recursion

    def _prepare(self, keys: list[str]) -> list[Key]:
        prepared = (prepare(k, case_sensitive=self.case, whole_words=self.whole,
                            pattern=self.patterns.allows(k, self.entry)) for k in keys)
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

    def score(self, text: Text, matcher: Matcher) -> int:
        """For group scoring: how many of its keys are found; secondary ones count under AND ANY, and
        under AND ALL when all of them are found."""
        if not self.primary:
            return 0
        primary = sum(self.found(k, text, matcher) for k in self.primary)
        secondary = sum(self.found(k, text, matcher) for k in self.secondary)
        if self.secondary and (self.entry.logic == "and_any" or
                               (self.entry.logic == "and_all" and secondary == len(self.secondary))):
            return primary + secondary
        return primary


class _History:
    """The text each entry scans: the newest lines by its scan depth, the character's texts its flags
    name, and in a recursive pass the text of what activated before. Joined once per kind of entry."""

    def __init__(self, lines: Sequence[str], sources: dict[str, str]):
        self.lines = lines
        self.sources = sources
        self.recursed: list[str] = []
        self.scanned: dict[tuple[int, tuple[str, ...], int], Text] = {}

    def text(self, scan: _Scan, recursing: bool) -> Text:
        depth = scan.depth
        extra = tuple(name for name in scan.also if self.sources.get(name, "").strip()) if scan.also else ()
        recursed = len(self.recursed) if recursing else 0
        key = (depth, extra, recursed)
        if key not in self.scanned:
            parts = [*(self.lines[-depth:] if depth > 0 else []), *(self.sources[n] for n in extra),
                     *self.recursed[:recursed]]
            self.scanned[key] = Text("\n".join(parts))
        return self.scanned[key]


class _Patterns:
    """The budget of one call's patterns (MAX_CALL_PATTERN_SIZE atoms), spent key by key in the books'
    order: a key past it is read as plain text, and said once."""

    def __init__(self) -> None:
        self.left = MAX_CALL_PATTERN_SIZE
        self.notes: list[str] = []

    def allows(self, key: str, entry: LoreEntry) -> bool:
        key = key.strip()
        size = regex_size(key) if key.startswith("/") else None
        if size is None:
            return True  # plain text, or a pattern past the bounds: nothing to compile either way
        if size <= self.left:
            self.left -= size
            return True
        note = f"read as plain text: the key {key[:60]} of {entry.label}, past this call's budget for patterns"
        if note not in self.notes:
            self.notes.append(note)
        return False


def _candidates(books: Sequence[Lorebook], patterns: _Patterns) -> list[_Scan]:
    """Every entry that may activate, its keys prepared, highest insertion order first (the order
    SillyTavern rolls, draws and spends its budget in)."""
    scans = [_Scan(book, entry, name, index, patterns) for index, (book, entry, name) in enumerate(named(books))
             if entry.active]
    scans.sort(key=lambda s: (-s.entry.insertion_order, s.index))
    return scans


def _suppressed(scan: _Scan, timed: Timed, recursing: bool, level: int) -> bool:
    """Whether the entry may not activate in this pass, whatever its keys (SillyTavern's checks, in its
    order: a delay holds even a sticky entry; a sticky one passes every other check)."""
    if scan.delay and timed.lines < scan.delay:
        return True
    if scan.name in timed.sticky:
        return False
    if scan.name in timed.cooldown:
        return True
    if scan.delayed and (not recursing or scan.delayed > level):
        return True
    return recursing and (scan.excluded or not scan.book.recursive_scanning)


def _steps(books: Sequence[Lorebook]) -> int:
    """How many passes one call may make, the first over the lines included: the books' own
    `max_recursion_steps` (SillyTavern's setting: 1 scans once, 0 has no limit of its own), else one
    pass and MAX_RECURSION more."""
    limits = [b.extensions.get("max_recursion_steps") for b in books if b.recursive_scanning]
    set_ = [n for n in limits if isinstance(n, int) and not isinstance(n, bool) and n > 0]
    if set_:
        return min([*set_, MAX_PASSES])
    if any(n is None for n in limits):
        return 1 + MAX_RECURSION
    return MAX_PASSES


def _by_group(found: list[_Scan], used: list[_Scan], history: _History, recursing: bool, timed: Timed,
              matcher: Matcher, seed: int, moment: tuple[int, int]) -> list[_Scan]:
    """Of the entries found in one pass that share an inclusion group, one: a sticky one holds its group;
    with group scoring, only those whose keys matched most stay; a group used in an earlier pass takes
    no more; then an override entry wins (the highest insertion order among them), else one is drawn by
    the entries' weights, from the run's seed and the moment."""
    groups: dict[str, list[_Scan]] = {}
    for scan in found:
        for group in scan.entry.groups:
            groups.setdefault(group, []).append(scan)
    if not groups:
        return found
    done = {group for scan in used for group in scan.entry.groups}
    out: set[int] = set()
    for group, members in groups.items():
        held = [m for m in members if m.name in timed.sticky]
        if held:
            out.update(m.index for m in members if m not in held)
            continue
        if any(m.scored for m in members):
            scores = [m.score(history.text(m, recursing), matcher) for m in members]
            out.update(m.index for m, score in zip(members, scores) if m.scored and score < max(scores))
        members = [m for m in members if m.index not in out]
        if group in done:
            out.update(m.index for m in members)
            continue
        if len(members) < 2:
            continue
        winner = next((m for m in members if m.entry.group_override), None)  # found: highest order first
        if winner is None:
            total = sum(m.entry.group_weight for m in members)
            if total <= 0:
                continue
            roll, reached = _draw(seed, moment, f"group:{group}") * total, 0.0
            for member in members:
                reached += member.entry.group_weight
                if roll < reached:
                    winner = member
                    break
            winner = winner or members[-1]
        out.update(m.index for m in members if m is not winner)
    return [scan for scan in found if scan.index not in out]


def _passes(entry: LoreEntry, seed: int, moment: tuple[int, int], index: int) -> bool:
    """The entry's probability, drawn from the run's seed and the moment, never the clock."""
    return entry.probability >= 100 or _draw(seed, moment, f"{index}:{entry.id}") * 100 < entry.probability


def _within_budget(picked: list[_Scan], books: Sequence[Lorebook], budget_tokens: int, timed: Timed,
                   out: Activated) -> list[_Scan]:
    """The picked entries that fit the budget whole, in insertion order; the rest go to `out.skipped`.
    The budget goes to sticky entries first, then constant ones, then by priority, then by insertion
    order (higher first)."""
    ranked = sorted(picked, key=lambda s: (s.name not in timed.sticky, not s.entry.constant,
                                           -(s.entry.priority or 0), -s.entry.insertion_order, s.index))
    budgets = [b.token_budget for b in books if b.token_budget]
    room = min([*budgets, budget_tokens]) * CHARS_PER_TOKEN if budget_tokens > 0 else 0
    kept: list[_Scan] = []
    for scan in ranked:
        size = len(scan.entry.content.strip()) + 1
        free = bool(scan.entry.extensions.get("ignore_budget"))
        if free or size <= room:
            room -= 0 if free else size
            kept.append(scan)
        else:
            out.skipped.append(scan.entry)
    kept.sort(key=lambda s: (s.entry.insertion_order, s.index))
    return kept


def _place(scan: _Scan, out: Activated) -> None:
    """Put an entry where its position says, and count it as used; an outlet is shown only where a prompt
    names it, and no studio prompt does, so it is left out."""
    entry = scan.entry
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
    out.names.append(scan.name)


def activate(books: Sequence[Lorebook], lines: Sequence[str], *, budget_tokens: int, seed: int = 0,
             moment: tuple[int, int] = (0, 0), timed: Timed | None = None,
             sources: dict[str, str] | None = None) -> Activated:
    """The entries of `books` that `lines` (oldest first, as the character heard them) bring into play,
    after the timed effects `timed` (none: a chat of `lines` alone); `sources` are the character's own
    texts (`SOURCES`' names) that flagged entries also scan.

    Pass by pass, as SillyTavern scans: the entries found in a pass (constant and sticky ones without
    looking) are narrowed by inclusion group, then drawn by probability; the text of those that passed
    and allow it is added to what the next pass scans, until nothing new is found, the passes run out,
    and no delayed level waits."""
    out = Activated()
    patterns = _Patterns()
    scans = _candidates(books, patterns)
    if not scans:
        return out
    now = timed if timed is not None else Timed(lines=len(lines))
    history = _History(lines, sources or {})
    matcher = Matcher()
    recursive = any(b.recursive_scanning for b in books)
    levels = sorted({s.delayed for s in scans if s.delayed})
    level = levels.pop(0) if levels else 0
    used: list[_Scan] = []
    tried: set[int] = set()  # used, or drawn and failed: never tried again in this call
    recursing = False
    for _ in range(_steps(books)):
        found = [s for s in scans if s.index not in tried and not _suppressed(s, now, recursing, level)
                 and (s.constant or s.name in now.sticky or s.fires(history.text(s, recursing), matcher))]
        found.sort(key=lambda s: s.name not in now.sticky)  # stable: sticky first, then insertion order
        found = _by_group(found, used, history, recursing, now, matcher, seed, moment)
        passed = [s for s in found if s.name in now.sticky or _passes(s.entry, seed, moment, s.index)]
        tried.update(s.index for s in found)
        used.extend(passed)
        feed = "\n".join(s.entry.content for s in passed if not s.entry.prevent_recursion)
        if not (recursive and feed):
            if not levels:
                break
            level = levels.pop(0)
        if feed:
            history.recursed.append(feed)
        recursing = True
    for scan in _within_budget(used, books, budget_tokens, now, out):
        _place(scan, out)
    out.notes = patterns.notes + matcher.notes
    return out


def at_depth(messages: list[dict[str, str]], inserts: Sequence[tuple[int, str, str]]) -> list[dict[str, str]]:
    """`messages` (a chat after its system message) with each (depth, role, text) placed `depth` messages
    from the end: depth 0 after the newest, 4 before the fourth newest. Same depth: in the order given."""
    out = list(messages)
    for depth, role, text in sorted(inserts, key=lambda t: t[0], reverse=True):  # deepest first: counts hold
        at = max(len(out) - depth, 0)
        out.insert(at, {"role": role, "content": text})
    return out
