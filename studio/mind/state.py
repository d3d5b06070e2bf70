"""What each character is inside at a given event: folded from the run's committed mind events.

The state at an event is a pure function of the events on the path to it, so a rewind, another take
or a resume sees exactly the moods, unlocks, scores, impressions, goals and facts that were committed
on that path, and nothing from an abandoned take. `fold` walks a path whole; `fold_into` carries on
from a world already folded, which is how the runner (studio/mind/runner.py) keeps a long run's
per-turn cost flat.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

MOOD = "mind.mood"
UNLOCK = "mind.unlock"
IMPORTANCE = "mind.importance"
REFLECTION = "mind.reflection"
GOALS = "mind.goals"
FACT = "mind.fact"
MIND_KINDS = (MOOD, UNLOCK, IMPORTANCE, REFLECTION, GOALS, FACT)


@dataclass(frozen=True)
class Impression:
    """What one character makes of another: trust and liking from -5 to 5, and what it thinks they want."""

    trust: int = 0
    liking: int = 0
    wants: str = ""
    event: int | None = None  # the reflection that set it


@dataclass
class MindState:
    mood: str | None = None
    mood_voice: str = ""
    mood_event: int | None = None
    mood_at: tuple[int, int] | None = None  # (scene, turn) of the draw
    unlocked: dict[int, int] = field(default_factory=dict)  # knowledge index -> unlock event id
    importance: dict[int, float] = field(default_factory=dict)  # stage event id -> 1..10
    scored: set[int] = field(default_factory=set)  # lines asked about, valid reply or not
    impressions: dict[str, Impression] = field(default_factory=dict)
    reflections: list[tuple[int, str]] = field(default_factory=list)  # (event id, private thoughts)
    last_reflection_turn: int | None = None
    goals: list[str] | None = None  # None: the sheet's goals still stand
    goals_event: int | None = None


@dataclass
class World:
    facts: dict[str, Any] = field(default_factory=dict)
    fact_events: dict[str, int] = field(default_factory=dict)
    minds: dict[str, MindState] = field(default_factory=dict)

    def mind(self, name: str) -> MindState:
        """A character's inner life; an empty one (not stored) for a character no event has touched, so
        reading a world never changes it."""
        return self.minds.get(name) or MindState()


def fold(events: Iterable[Any], facts: Mapping[str, Any] | None = None) -> World:
    """The world after `events` (in path order), starting from a play's declared `facts`."""
    world = World(facts=dict(facts or {}))
    fold_into(world, events)
    return world


def fold_into(world: World, events: Iterable[Any]) -> None:
    """Fold more events onto `world` in place: folding a path in two parts gives what one fold gives."""
    for event in events:
        kind = event.kind
        data = event.data or {}
        # Any event may set facts (the engine's convention): later events win, None removes one.
        for fact, value in (data.get("facts") or {}).items():
            if value is None:
                world.facts.pop(fact, None)
            else:
                world.facts[fact] = value
            world.fact_events[fact] = event.id
        if kind not in MIND_KINDS or kind == FACT:
            continue
        mind = world.minds.setdefault(event.character or "", MindState())
        if kind == MOOD:
            mind.mood, mind.mood_voice, mind.mood_event = data.get("mood"), data.get("voice", ""), event.id
            mind.mood_at = (int(event.scene or 0), int(event.turn or 0))
        elif kind == UNLOCK:
            mind.unlocked.setdefault(int(data["item"]), event.id)
        elif kind == IMPORTANCE:
            line = int(data["line"])
            mind.scored.add(line)
            if data.get("importance") is not None:
                mind.importance[line] = float(data["importance"])
        elif kind == REFLECTION:
            if data.get("thoughts"):
                mind.reflections.append((event.id, str(data["thoughts"])))
            mind.last_reflection_turn = int(event.turn or 0)
            for name, imp in (data.get("impressions") or {}).items():
                mind.impressions[name] = Impression(
                    int(imp.get("trust", 0)), int(imp.get("liking", 0)), str(imp.get("wants", "")), event.id
                )
            if data.get("goals") is not None:
                mind.goals, mind.goals_event = [str(g) for g in data["goals"]], event.id
        elif kind == GOALS:
            mind.goals, mind.goals_event = [str(g) for g in data.get("goals", [])], event.id
