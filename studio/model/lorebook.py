"""Lorebooks (a card's `character_book`, or SillyTavern's standalone World Info file) as typed data.

A lorebook is someone else's file: what it holds is read, kept and written back exactly as it came,
so the typed view here never replaces the original. `Lorebook` and `LoreEntry` accept every field a
card or SillyTavern writes (fields this module does not name are kept as extras), and the properties
give the SillyTavern settings that live in an entry's `extensions` with the defaults SillyTavern
applies when they are absent. What the entries *do* in a prompt is for the studio's engine to decide;
this module only says what they are.

The names and meanings follow the Character Card V2 specification (Malfoy's Last Name and
contributors, 2023, "Character Card V2") and the World Info settings SillyTavern documents and writes.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator

from studio.model.errors import InputError
from studio.model.outside_file import read_outside

MAX_LOREBOOK_BYTES = 8 * 1024 * 1024
MAX_ENTRIES = 2000

# SillyTavern's numbered positions (extensions.position): where an activated entry is inserted.
POSITIONS = {
    0: "before_char",  # before the character's description
    1: "after_char",  # after it
    2: "author_note_top",  # above the author's note
    3: "author_note_bottom",  # below it
    4: "at_depth",  # into the history, `depth` messages from the end, as `role`
    5: "examples_top",  # above the example dialogue
    6: "examples_bottom",  # below it
    7: "outlet",  # only where a prompt names the entry's outlet
}
# extensions.selectiveLogic: how secondary keys combine with a primary key that matched.
Logic = Literal["and_any", "not_all", "not_any", "and_all"]
LOGIC: dict[int, Logic] = {
    0: "and_any",  # and any secondary key matches
    1: "not_all",  # and not every secondary key matches
    2: "not_any",  # and no secondary key matches
    3: "and_all",  # and every secondary key matches
}
# extensions.role, for an entry at a depth: who appears to say it.
ROLES = {0: "system", 1: "user", 2: "assistant"}
# extensions.match_NAME: texts besides the lines that an entry's keys are also matched in.
SOURCES = ("character_description", "character_personality", "scenario", "persona_description",
           "character_depth_prompt", "creator_notes")


def _opt_bool(value: Any) -> bool | None:
    return None if value is None else bool(value)


class LoreEntry(BaseModel):
    """One entry: text the model is shown when the story mentions one of its keys.

    The top-level fields are the card specification's; SillyTavern's own settings are read from
    `extensions` (see the properties), where SillyTavern writes them on export.
    """

    model_config = ConfigDict(extra="allow")

    keys: list[str] = Field(default_factory=list, description="primary keys: any one found activates the entry")
    content: str = Field(default="", description="the text inserted when it activates; never cut here")
    extensions: dict[str, Any] = Field(default_factory=dict, description="other apps' settings, kept as written")
    enabled: bool = Field(default=True, description="false: kept in the book, never activated")
    insertion_order: float = Field(default=100, description="lower goes first among activated entries")
    case_sensitive: bool | None = Field(default=None, description="keys match case exactly (None: the book's default)")
    use_regex: bool | None = Field(default=None, description="keys written /like this/flags are regular expressions")
    constant: bool | None = Field(default=None, description="always active, keys or not")
    name: str | None = Field(default=None, description="a label for people; never sent")
    priority: float | None = Field(default=None, description="kept first when the lore budget is full (higher first)")
    id: int | str | None = Field(default=None, description="the entry's identity in its book")
    comment: str | None = Field(default=None, description="a note for people (SillyTavern shows it as the title)")
    selective: bool | None = Field(default=None, description="secondary keys are checked (with selectiveLogic)")
    secondary_keys: list[str] | None = Field(default=None, description="optional filter keys, combined by logic")
    position: str | int | None = Field(default=None, description="'before_char' or 'after_char' the description")

    @field_validator("keys", "secondary_keys", mode="before")
    @classmethod
    def _key_list(cls, value: Any) -> Any:
        if value is None:
            return value
        if not isinstance(value, list) or not all(isinstance(k, str) for k in value):
            raise ValueError("must be a list of words or phrases, e.g. [\"castle\", \"the old king\"]")
        return value

    @field_validator("extensions", mode="before")
    @classmethod
    def _extensions(cls, value: Any) -> Any:
        return {} if value is None else value

    def _ext(self, key: str, default: Any = None) -> Any:
        value = self.extensions.get(key)
        return default if value is None else value

    @property
    def active(self) -> bool:
        """Whether the entry can activate at all (disabled entries stay in the book, unused)."""
        return bool(self.enabled) and bool(self.content.strip())

    @property
    def logic(self) -> Logic:
        """How the secondary keys combine (SillyTavern's selectiveLogic; AND ANY when unset)."""
        number = self._ext("selectiveLogic", 0)
        return LOGIC.get(number if isinstance(number, int) else 0, "and_any")

    @property
    def place(self) -> str:
        """Where it goes: one of POSITIONS' names; SillyTavern's number wins over the spec's word."""
        number = self.extensions.get("position")
        if isinstance(number, int) and number in POSITIONS:
            return POSITIONS[number]
        return "after_char" if self.position in ("after_char", 1) else "before_char"

    @property
    def depth(self) -> int:
        """For `at_depth`: how many messages from the end of the history (SillyTavern's default 4)."""
        value = self._ext("depth", 4)
        return value if isinstance(value, int) and value >= 0 else 4

    @property
    def role(self) -> str:
        """For `at_depth`: who appears to say it (system, user or assistant)."""
        value = self._ext("role", 0)
        return ROLES.get(value if isinstance(value, int) else 0, "system")

    @property
    def scan_depth(self) -> int | None:
        """How many recent messages are searched for its keys (None: the book's setting)."""
        value = self._ext("scan_depth")
        return value if isinstance(value, int) and value >= 0 else None

    @property
    def match_whole_words(self) -> bool | None:
        """Keys match only as whole words (None: the book's default)."""
        return _opt_bool(self._ext("match_whole_words"))

    @property
    def case_sensitive_keys(self) -> bool | None:
        """Case sensitivity from the spec's field or SillyTavern's extension (None: the book's default)."""
        if self.case_sensitive is not None:
            return self.case_sensitive
        return _opt_bool(self._ext("case_sensitive"))

    @property
    def probability(self) -> int:
        """Percent chance it is used once activated (100 when unset or when useProbability is off)."""
        if self.extensions.get("useProbability") is False:
            return 100
        value = self._ext("probability", 100)
        return max(0, min(100, int(value))) if isinstance(value, int | float) else 100

    @property
    def exclude_recursion(self) -> bool:
        """Its keys are not searched for in other entries' text."""
        return bool(self._ext("exclude_recursion", False))

    @property
    def prevent_recursion(self) -> bool:
        """Its own text does not activate other entries."""
        return bool(self._ext("prevent_recursion", False))

    @property
    def delay_until_recursion(self) -> int:
        """0, or the recursion level from which it may activate: only from other entries' text, never from
        the history (SillyTavern writes `true` for level 1, or the level's number)."""
        value = self._ext("delay_until_recursion", False)
        if value is True:
            return 1
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    def _count(self, key: str) -> int:
        value = self._ext(key, 0)
        return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else 0

    @property
    def sticky(self) -> int:
        """Once activated, it stays active for this many more lines of the chat (0: not sticky)."""
        return self._count("sticky")

    @property
    def cooldown(self) -> int:
        """Once activated (after its sticky lines, if any), it cannot activate for this many lines."""
        return self._count("cooldown")

    @property
    def delay(self) -> int:
        """It cannot activate before the chat has this many lines."""
        return self._count("delay")

    @property
    def group(self) -> str:
        """Inclusion group(s), comma-separated: of the activated entries sharing a group, one is used."""
        value = self._ext("group", "")
        return value if isinstance(value, str) else ""

    @property
    def groups(self) -> list[str]:
        return [g for g in re.split(r",\s*", self.group.strip()) if g]

    @property
    def group_override(self) -> bool:
        """Wins its group outright (the highest insertion order among such entries)."""
        return bool(self._ext("group_override", False))

    @property
    def group_weight(self) -> float:
        """Its weight in its group's draw (SillyTavern's default 100)."""
        value = self._ext("group_weight", 100)
        return abs(float(value)) if isinstance(value, int | float) and not isinstance(value, bool) else 100.0

    @property
    def use_group_scoring(self) -> bool | None:
        """In its group, only the entries whose keys matched most stay in the draw (None: the book's default)."""
        return _opt_bool(self._ext("use_group_scoring"))

    @property
    def also_scans(self) -> list[str]:
        """Which of the character's texts its keys are matched in besides the lines: among `SOURCES`."""
        return [name for name in SOURCES if self._ext(f"match_{name}")]

    @property
    def label(self) -> str:
        """A name for people: the comment, the name, or the first key."""
        return (self.comment or self.name or (self.keys[0] if self.keys else "") or f"entry {self.id}").strip()


class Lorebook(BaseModel):
    """A set of entries with the book's own settings; a card's `character_book` in the spec's shape."""

    model_config = ConfigDict(extra="allow")

    name: str | None = Field(default=None, description="the book's name")
    description: str | None = Field(default=None, description="a note for people")
    scan_depth: int | None = Field(default=None, description="recent messages searched for keys")
    token_budget: int | None = Field(default=None, description="tokens lore may use in a prompt")
    recursive_scanning: bool | None = Field(default=None, description="activated entries' text activates others")
    extensions: dict[str, Any] = Field(default_factory=dict, description="other apps' settings, kept as written")
    entries: list[LoreEntry] = Field(default_factory=list, max_length=MAX_ENTRIES)

    @field_validator("extensions", mode="before")
    @classmethod
    def _extensions(cls, value: Any) -> Any:
        return {} if value is None else value

    @property
    def active_entries(self) -> list[LoreEntry]:
        return [e for e in self.entries if e.active]


# -- SillyTavern's standalone World Info file ------------------------------------------------------

# World Info field -> card entry field (the renames SillyTavern itself applies when it embeds a world
# in a card); everything else of the entry goes into the card entry's extensions.
_WORLD_TOP = {"uid": "id", "key": "keys", "keysecondary": "secondary_keys", "comment": "comment",
              "content": "content", "constant": "constant", "selective": "selective", "order": "insertion_order"}
_WORLD_EXT = {"excludeRecursion": "exclude_recursion", "displayIndex": "display_index",
              "outletName": "outlet_name", "groupOverride": "group_override", "groupWeight": "group_weight",
              "preventRecursion": "prevent_recursion", "delayUntilRecursion": "delay_until_recursion",
              "scanDepth": "scan_depth", "matchWholeWords": "match_whole_words", "useGroupScoring": "use_group_scoring",
              "caseSensitive": "case_sensitive", "automationId": "automation_id",
              "matchPersonaDescription": "match_persona_description",
              "matchCharacterDescription": "match_character_description",
              "matchCharacterPersonality": "match_character_personality",
              "matchCharacterDepthPrompt": "match_character_depth_prompt", "matchScenario": "match_scenario",
              "matchCreatorNotes": "match_creator_notes", "ignoreBudget": "ignore_budget"}


def is_world_info(data: Any) -> bool:
    """SillyTavern's World Info file: an object whose `entries` is an object keyed by uid, not a card."""
    return isinstance(data, dict) and isinstance(data.get("entries"), dict) and "spec" not in data


def world_to_book(data: dict[str, Any], name: str) -> dict[str, Any]:
    """A World Info file's data in a card's `character_book` shape (the file itself is kept unchanged)."""
    entries = []
    for raw in data["entries"].values():
        if not isinstance(raw, dict):
            entries.append(raw)  # let validation name it
            continue
        entry: dict[str, Any] = {}
        extensions = dict(raw.get("extensions") or {}) if isinstance(raw.get("extensions"), dict) else {}
        for key, value in raw.items():
            if key in _WORLD_TOP:
                entry[_WORLD_TOP[key]] = value
            elif key == "disable":
                entry["enabled"] = not value
            elif key == "position":
                extensions["position"] = value
                entry["position"] = "before_char" if value == 0 else "after_char"
            elif key != "extensions":
                extensions[_WORLD_EXT.get(key, key)] = value
        entry["extensions"] = extensions
        entries.append(entry)
    book = {k: v for k, v in data.items() if k != "entries"}
    book.setdefault("name", name)
    book["entries"] = entries
    return book


# -- reading --------------------------------------------------------------------------------------


def _where(loc: tuple[Any, ...]) -> str:
    parts: list[str] = []
    for item in loc:
        if isinstance(item, int) and parts:
            parts[-1] += f"[{item}]"
        else:
            parts.append(str(item))
    return ".".join(parts)


def book_from_data(data: Any, source: str, field: str) -> Lorebook:
    """A validated Lorebook from a `character_book` object; a wrong field is one message naming it."""
    if not isinstance(data, dict):
        raise InputError(source, field, "is not an object with a list of entries", "give { \"entries\": [ ... ] }")
    if not isinstance(data.get("entries", []), list):
        raise InputError(source, f"{field}.entries", "is not a list", "give the entries as a list, [ ... ]")
    try:
        return Lorebook.model_validate(data)
    except ValidationError as exc:
        err = exc.errors()[0]
        where = f"{field}.{_where(err['loc'])}"
        raise InputError(source, where, f"is invalid: {err['msg']}", "fix that field in the card or lorebook") from None


def read_json(path: Path, limit: int = MAX_LOREBOOK_BYTES) -> Any:
    """A JSON file someone else wrote, within a size limit; every failure is one InputError."""
    try:
        text = read_outside(path, "lorebook", limit, fix="check the path").decode("utf-8-sig")
    except UnicodeDecodeError:
        raise InputError(str(path), None, "is not UTF-8 text", "save it as UTF-8 JSON") from None
    return loads(text, str(path))


# No card or lorebook nests this deep (SillyTavern's deepest, regex scripts in extensions, is about ten);
# past it, every reader that walks the data would run out of stack.
MAX_JSON_DEPTH = 100


def _too_deep(value: Any) -> bool:
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, dict | list):
            if depth > MAX_JSON_DEPTH:
                return True
            stack.extend((child, depth + 1) for child in (item.values() if isinstance(item, dict) else item))
    return False


def loads(text: str, source: str) -> Any:
    """json.loads with its failures (bad syntax, nesting deeper than any card) as one message."""
    too_deep = InputError(source, None, f"holds JSON nested more than {MAX_JSON_DEPTH} levels deep",
                          "export it again from its app; no card nests that deep")
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise InputError(
            source,
            None,
            f"is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})",
            "export it again from its app",
        ) from None
    except RecursionError:
        raise too_deep from None
    if _too_deep(value):
        raise too_deep
    return value


def read_lorebook(path: Path) -> Lorebook:
    """A lorebook from a World Info JSON file, a bare `character_book` object, or a card holding one."""
    data = read_json(path)
    if is_world_info(data):
        return book_from_data(world_to_book(data, path.stem), str(path), "entries")
    if isinstance(data, dict) and isinstance(data.get("data"), dict) and "character_book" in data["data"]:
        return book_from_data(data["data"]["character_book"], str(path), "data.character_book")
    if isinstance(data, dict) and isinstance(data.get("entries"), list):
        return book_from_data(data, str(path), "character_book")
    raise InputError(str(path), "entries", "is not a lorebook (no 'entries')",
                     "give a SillyTavern World Info JSON file or a card's character_book")


# -- template code from other apps -----------------------------------------------------------------

# Code other apps run inside card text (EJS templates, variable macros): kept in the card, never
# shown to a model as if it were prose. A piece is its opener and the first closer after it ('%>' for
# '<%', '}}' for '{{'); pieces are found by `spans`, in one pass however many openers are never closed.
_TEMPLATE_OPEN = re.compile(
    r"<%"
    r"|\{\{\s*(?:format_message_variable|format_global_variable|setvar|getvar|addvar|incvar|decvar|"
    r"setglobalvar|getglobalvar|addglobalvar|incglobalvar|decglobalvar|var|if|else|each|/if|/each|#if|#each|"
    r"trim|banned|inject|execute)\b",
    re.IGNORECASE,
)
_CLOSERS = {"<%": "%>", "{{": "}}"}


def spans(text: str, opener: re.Pattern[str]) -> Iterator[tuple[int, int]]:
    """Where each piece of `text` lies that `opener` starts (`<%...` or `{{...`) and the first closer after
    it ends, in order and never overlapping: what a lazy `open[\\s\\S]*?close` pattern finds, without its
    cost. That pattern reads to the end of the text again for every opener left unclosed (quadratic, and
    cubic with the spaces a macro may hold); here, once no closer is left, openers of its kind are passed
    over unread."""
    at, unclosed = 0, set()
    while (found := opener.search(text, at)) is not None:
        closer = _CLOSERS[found.group(0)[:2]]
        end = -1 if closer in unclosed else text.find(closer, found.end())
        if end < 0:
            unclosed.add(closer)
            at = found.start() + 1
            continue
        yield found.start(), end + len(closer)
        at = end + len(closer)


def without_spans(text: str, pieces: Iterable[tuple[int, int]]) -> str:
    """`text` with the pieces `spans` found taken out."""
    out, at = [], 0
    for start, end in pieces:
        out.append(text[at:start])
        at = end
    out.append(text[at:])
    return "".join(out)


def template_code(text: str) -> list[str]:
    """The pieces of other apps' template code in a text, in order (empty when there is none)."""
    return [text[start:end] for start, end in spans(text, _TEMPLATE_OPEN)]


def without_template_code(text: str) -> str:
    """The text with other apps' template code taken out, for a prompt."""
    return without_spans(text, spans(text, _TEMPLATE_OPEN))


# -- finding the lorebooks a sheet or play names -----------------------------------------------------


def _inside(path: Path, folder: Path) -> bool:
    """Whether `path` lies in `folder`, judged on the written path with `..` folded (a link someone put
    there on purpose is theirs to follow)."""
    return Path(os.path.normpath(path.absolute())).is_relative_to(os.path.normpath(folder.absolute()))


def lorebook_path(ref: str, near: Path, field: str = "lorebooks") -> Path | None:
    """Where a named lorebook lives: a path (relative to the file naming it), or a stem looked up in the
    lorebooks/ folder beside that file's folder (characters/ and plays/ sit beside lorebooks/), beside
    the file itself, or here.

    The names come from sheets and cards, which are other people's files: a path is followed only to a
    file beside the one naming it or in the project's lorebooks/ folder, never elsewhere on the machine."""
    folders = (near.parent.parent / "lorebooks", near.parent / "lorebooks", Path("lorebooks"))
    if ref.endswith(".json") or "/" in ref or "\\" in ref:
        candidate = Path(ref) if Path(ref).is_absolute() else near.parent / ref
        if not any(_inside(candidate, folder) for folder in (near.parent, *folders)):
            raise InputError(str(near), field, f"names {ref!r}, outside this file's folder and the project's lorebooks/",
                             "put the lorebook in lorebooks/ and name it by its stem, e.g. lorebooks = [\"eldoria\"]")
        return candidate if candidate.is_file() else None
    for folder in folders:
        candidate = folder / f"{ref}.json"
        if candidate.is_file():
            return candidate
    return None


def load_lorebooks(refs: list[str], near: Path) -> list[Lorebook]:
    """The lorebooks a sheet or play names, read and checked; a missing one is one message naming it."""
    books = []
    for ref in refs:
        path = lorebook_path(ref, near)
        if path is None:
            fix = ("check the path, relative to this file" if ref.endswith(".json") or "/" in ref
                   else f"`studio import {ref}.json` puts a World Info file in lorebooks/, or give its path")
            raise InputError(str(near), "lorebooks", f"names {ref!r}, which is not in lorebooks/ or beside the file", fix)
        books.append(read_lorebook(path))
    return books
