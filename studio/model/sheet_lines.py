"""A character's moods, knowledge and goals as lines a playwright can edit, one item to a line.

The sheet editor shows each list as plain text rather than as rows of boxes, because a playwright
drafts these as they would a cast list: a line added, a line cut, a line moved. Each line keeps the
parts the sheet models, in the order a reader says them:

    moods       weary 3: sighs, answers late          name, weight (optional, 1), ": " voice (optional)
    knowledge   The lamp failed that night.           known from the start
                when { keyword = "logbook" }: ...     unlocked by a condition, written as in the file
    goals       Keep the lamp's failure secret.       for the whole play
                scene 2: Find out what he knows.      for one scene

A condition is written as the TOML inline table the sheet file itself would hold, so there is one
spelling of it, not a second small language to learn.

Reading a list back from lines that were not changed gives the items the sheet had, untouched, so an
entry these lines cannot show whole (knowledge over several lines, from a lorebook) survives a save
of another field.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from typing import Any

import tomlkit
from pydantic import BaseModel, ValidationError

from studio.model.inner_life import Goal, KnowledgeItem, Mood

LISTS = ("moods", "knowledge", "goals")

_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
_SCENE = re.compile(r"scene\s+(\S+?)\s*:\s*(.*)", re.IGNORECASE | re.DOTALL)


class LineProblem(ValueError):
    """One line that does not read: its number (from 1) and how to write it."""

    def __init__(self, line: int, message: str) -> None:
        super().__init__(f"line {line}: {message}")
        self.line = line


def _mood_line(mood: Mood) -> str:
    head = f"{mood.name} {mood.weight:g}"
    return f"{head}: {mood.voice}" if mood.voice else head


def _knowledge_line(item: KnowledgeItem) -> str:
    if item.when is None:
        return item.text
    table = tomlkit.inline_table()
    table.update(item.when.model_dump(exclude_none=True))
    return f"when {table.as_string().strip()}: {item.text}"


def _goal_line(goal: Goal) -> str:
    return goal.text if goal.scene is None else f"scene {goal.scene}: {goal.text}"


def shown(item: Any) -> bool:
    """Whether an item fits on one line (a lorebook entry over many lines does not)."""
    text = item.voice if isinstance(item, Mood) else item.text
    return "\n" not in text and "\r" not in text


def to_lines(field: str, items: list[Any]) -> str:
    """The editable text of one list; items that do not fit on a line are left out (see `from_lines`)."""
    renders: dict[str, Callable[[Any], str]] = {"moods": _mood_line, "knowledge": _knowledge_line,
                                                "goals": _goal_line}
    render = renders[field]
    return "\n".join(render(item) for item in items if shown(item))


def _read_mood(line: str) -> dict[str, Any]:
    head, sep, voice = line.partition(":")
    words = head.split()
    weight: float | None = None
    if len(words) > 1 and _NUMBER.fullmatch(words[-1]):
        weight = float(words.pop())
    name = " ".join(words)
    if not name:
        raise ValueError('begins with no mood; write it as: wary 2: short, guarded answers')
    mood: dict[str, Any] = {"name": name}
    if weight is not None:
        if weight <= 0:
            raise ValueError(f"{name}'s weight {weight:g} must be above 0; write e.g. {name} 1")
        mood["weight"] = int(weight) if weight.is_integer() else weight
    if sep and voice.strip():
        mood["voice"] = voice.strip()
    return mood


_LATE_CONDITION = re.compile(r"\bwhen\s*\{[^{}]*=[^{}]*\}", re.IGNORECASE)
"""A condition written after the fact (`She paid. when { keyword = "logbook" }`): a TOML table with a key."""


def _read_knowledge(line: str) -> dict[str, Any]:
    if not line.lower().startswith("when") or not line[4:].lstrip().startswith("{"):
        if _LATE_CONDITION.search(line):  # read as plain text it would be known from the start, condition and all
            raise ValueError('has its condition at the end; a condition comes first: when { keyword = "logbook" }: '
                             'what they know')
        return {"text": line}
    rest = line[4:].lstrip()
    # the condition ends at the first closing brace that makes a whole inline table followed by ':'
    for end in (i for i, ch in enumerate(rest) if ch == "}"):
        after = rest[end + 1:].lstrip()
        if not after.startswith(":"):
            continue
        try:
            when = tomllib.loads(f"when = {rest[:end + 1]}")["when"]
        except tomllib.TOMLDecodeError:
            continue
        return {"text": after[1:].strip(), "when": when}
    raise ValueError('has a condition that does not read; write it as: when { keyword = "logbook" }: what they know')


def _read_goal(line: str) -> dict[str, Any]:
    match = _SCENE.fullmatch(line)
    if not match:
        return {"text": line}
    scene, text = match.groups()
    if not scene.isdigit() or int(scene) < 1:
        raise ValueError(f"names scene {scene!r}; write a scene number from 1, e.g. scene 2: {text or 'the goal'}")
    return {"text": text.strip(), "scene": int(scene)}


def from_lines(field: str, text: str, items: list[Any]) -> list[dict[str, Any]]:
    """The list `field` as plain data from the edited `text`, given the `items` the sheet had.

    Unchanged text gives the items back as they were. Items `to_lines` could not show are kept, after
    the edited ones. Raises LineProblem naming the first line that does not read.
    """
    kept = [item.model_dump(exclude_none=True) for item in items if not shown(item)]
    if text.strip() == to_lines(field, items).strip():
        return [item.model_dump(exclude_none=True) for item in items]
    read = {"moods": _read_mood, "knowledge": _read_knowledge, "goals": _read_goal}[field]
    models: dict[str, type[BaseModel]] = {"moods": Mood, "knowledge": KnowledgeItem, "goals": Goal}
    model = models[field]
    out: list[dict[str, Any]] = []
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        try:
            item = read(line.strip())
            model.model_validate(item)
        except ValidationError as exc:
            err = exc.errors()[0]
            where = ".".join(str(part) for part in err["loc"])
            raise LineProblem(number, f"{where}: {err['msg'].lower()}" if where else err["msg"].lower()) from None
        except ValueError as exc:
            raise LineProblem(number, str(exc)) from None
        out.append(item)
    return out + kept
