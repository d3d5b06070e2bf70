"""The one object an engine talks to about its characters' inner lives, turn by turn.

It holds no state that the run's events do not. The world, the lines still to be scored and the
memory indexes are caches of the path prefix they were folded from: each call folds only the events
added since, and a rewind or another take (the prefix is no longer the path's) starts them again from
the play's facts. A path is a chain of parents and event ids are never reused, so the prefix is known
by its length and its last id alone, and the check costs nothing.

The engine commits what `moment` returns before a character speaks, asks for importance and
reflections where `pending_scores` and `reflections_due` say, and writes `shaping(...)` into the
line's data, so the backstage can say which mind events and memories shaped it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from studio.mind.memory import Memory, MemoryIndex, Recall
from studio.mind.moments import mind_text, mood_event, unlock_events
from studio.mind.rules import Tally
from studio.mind.reflection import due
from studio.model.inner_life import MindFields
from studio.mind.state import IMPORTANCE, MOOD, REFLECTION, UNLOCK, World, fold_into

SPOKEN = ("stage", "direction")


class MindRunner:
    def __init__(self, sheets: Mapping[str, MindFields], *, seed: int, facts: Mapping[str, Any] | None = None,
                 keys: Mapping[str, str] | None = None):
        self.sheets = dict(sheets)
        self.keys = dict(keys or {})  # character name -> seat key, to read who witnessed an event
        self.seed = seed
        self.facts = dict(facts or {})
        self._indexes: dict[str, MemoryIndex] = {}
        self._indexed: tuple[int, int | None] = (0, None)  # the prefix the indexes hold: (length, last id)
        self._embedders: dict[str, Any] = {}
        self._world = World(facts=dict(self.facts))
        self._folded: tuple[int, int | None] = (0, None)  # the prefix the world holds
        self._unscored: dict[tuple[str, int], Any] = {}  # (character, line id) -> the line, in path order
        self._met: dict[str, set[str]] = {}  # character -> who it has seen speak or act on stage
        self._tallies: dict[str, Tally] = {}  # character -> lines spoken, heard from each, counted keywords heard
        # The keywords some condition counts (`times`), per character: only those are counted.
        self._counted = {name: sorted({w.casefold() for item in sheet.knowledge if item.when and item.when.times
                                       for w in ([item.when.keyword] if item.when.keyword else [])
                                       + list(item.when.keywords or [])})
                         for name, sheet in self.sheets.items()}

    @staticmethod
    def _holds(prefix: tuple[int, int | None], path: Sequence[Any]) -> bool:
        """Whether `path` begins with the prefix a cache was folded from."""
        n, last = prefix
        return n <= len(path) and (n == 0 or path[n - 1].id == last)

    def world(self, path: Sequence[Any]) -> World:
        """The world at the end of `path`: the cached one with only the new events folded in. Read it, do
        not change it; the next call may carry on from it."""
        if not self._holds(self._folded, path):
            self._world, self._folded, self._unscored, self._met = World(facts=dict(self.facts)), (0, None), {}, {}
            self._tallies = {}
        start = self._folded[0]
        if start < len(path):
            new = path[start:]
            fold_into(self._world, new)
            for event in new:
                self._track_scores(event)
            self._folded = (len(path), path[-1].id)
        return self._world

    def met(self, path: Sequence[Any], name: str) -> set[str]:
        """Everyone `name` has witnessed saying or doing something on this path (itself included)."""
        self.world(path)
        return set(self._met.get(name, ()))

    def tally(self, path: Sequence[Any], name: str) -> Tally:
        """What `name` has spoken and heard so far on this path, for the conditions that count."""
        self.world(path)
        return self._tallies.get(name) or Tally()

    def _track_scores(self, event: Any) -> None:
        if event.kind in SPOKEN and event.character:
            for name in self.sheets:
                if self._saw(name, event, None):
                    self._met.setdefault(name, set()).add(event.character)
        if event.kind == "stage" and event.character:
            self._tallies.setdefault(event.character, Tally()).spoken += 1
            said = event.text.casefold()
            for name in self.sheets:
                if name == event.character or not self._saw(name, event, None):
                    continue
                tally = self._tallies.setdefault(name, Tally())
                speaker = event.character.casefold()
                tally.heard_from[speaker] = tally.heard_from.get(speaker, 0) + 1
                for word in self._counted.get(name, ()):
                    if word in said:
                        tally.keywords[word] = tally.keywords.get(word, 0) + said.count(word)
        if event.kind == "stage":
            for name, sheet in self.sheets.items():
                if (sheet.memory.recall > 0 and name != event.character and self._saw(name, event, None)
                        and event.id not in self._world.mind(name).scored):
                    self._unscored[(name, event.id)] = event
        elif event.kind == IMPORTANCE:
            self._unscored.pop((event.character or "", int((event.data or {}).get("line", -1))), None)

    def moment(self, path: Sequence[Any], *, scene: int, turn: int, present: Sequence[str],
               heard: str = "", line_event: int | None = None, who: Sequence[str] | None = None,
               lines: Sequence[tuple[int, str]] = ()) -> list[dict[str, Any]]:
        """Events due now for `who` (default: every sheet), moods then unlocks: commit each as returned."""
        world = self.world(path)
        out: list[dict[str, Any]] = []
        names = [n for n in (who if who is not None else self.sheets) if n in self.sheets]
        for name in present:
            sheet = self.sheets.get(name) if name in names else None
            if sheet is not None:
                fields = mood_event(sheet, name, world.mind(name), seed=self.seed, scene=scene, turn=turn)
                if fields:
                    out.append(fields)
        for name in names:
            sheet = self.sheets[name]
            out += unlock_events(sheet, name, world.mind(name), heard=heard, present=present, scene=scene,
                                 turn=turn, facts=world.facts, line_event=line_event, lines=lines,
                                 tally=self._tallies.get(name))
        return out

    def _saw(self, name: str, event: Any, present_at: Mapping[int, Sequence[str]] | None) -> bool:
        """Who witnessed a line: the given map, else the event's own presence record (None: everyone)."""
        if present_at is not None:
            return name in present_at.get(event.id, ())
        key = self.keys.get(name)
        witnessed = getattr(event, "witnessed_by", None)
        return True if key is None or witnessed is None else bool(witnessed(key))

    def pending_scores(self, path: Sequence[Any], present_at: Mapping[int, Sequence[str]] | None) -> list[tuple[str, Any]]:
        """(character, line event) pairs still needing an importance score; `present_at` maps line id -> who saw
        it (None: each event's own presence record). Sheets with `memory.recall = 0` never recall, so are never asked."""
        world = self.world(path)
        if present_at is None:  # kept up to date as the world is folded
            return [(name, line) for (name, _), line in self._unscored.items()]
        wanted = []
        for event in path:
            if event.kind != "stage":
                continue
            for name in self.sheets:
                if self._saw(name, event, present_at) and self.sheets[name].memory.recall > 0 and name != event.character and event.id not in world.mind(name).scored:
                    wanted.append((name, event))
        return wanted

    def reflections_due(self, path: Sequence[Any], *, turn: int, scene_ended: bool) -> list[str]:
        world = self.world(path)
        return [name for name, sheet in self.sheets.items()
                if due(sheet.reflect_every, turn, world.mind(name).last_reflection_turn, scene_ended)]

    def _index(self, name: str, path: Sequence[Any], present_at: Mapping[int, Sequence[str]] | None) -> MemoryIndex:
        if not self._holds(self._indexed, path):  # a rewind or another take: start again
            self._indexes.clear()
            self._indexed = (0, None)
        for event in path[self._indexed[0]:]:
            if event.kind == IMPORTANCE:  # a score follows its line, so the memory is there to take it
                value = (event.data or {}).get("importance")
                if value is not None and event.character in self._indexes:
                    self._indexes[event.character].set_importance(int(event.data["line"]), float(value))
                continue
            for who in self.sheets:
                index = self._indexes.setdefault(who, MemoryIndex())
                seen = self._saw(who, event, present_at)
                if event.kind in SPOKEN and (seen or event.character == who):
                    index.add(Memory(event.id, int(event.turn or 0), event.text, event.character))
                elif event.kind == REFLECTION and event.character == who:
                    index.add(Memory(event.id, int(event.turn or 0), event.text, None, "reflection"), 8.0)
        if path:
            self._indexed = (len(path), path[-1].id)
        return self._indexes.setdefault(name, MemoryIndex())

    def recall(self, name: str, path: Sequence[Any], present_at: Mapping[int, Sequence[str]] | None, *, query: str,
               turn: int, shown: Sequence[int]) -> list[Recall]:
        """Memories past the prompt's window (`shown` = event ids already in it) worth bringing back.

        `present_at` maps a line's id to who witnessed it; None means everyone on the cast saw everything.
        """
        sheet = self.sheets[name]
        index = self._index(name, path, present_at)
        relevance = None
        if sheet.memory.embedding_model:  # the play named one: litellm is imported only now
            from studio.mind.memory import EmbeddingRelevance

            embedder = self._embedders.get(name)
            if embedder is None or embedder.index is not index:
                embedder = self._embedders[name] = EmbeddingRelevance(sheet.memory.embedding_model, index)
            relevance = embedder
        return index.recall(query, now_turn=turn, half_life=sheet.memory.half_life_turns, k=sheet.memory.recall,
                            exclude=shown, relevance=relevance, weights=sheet.memory.weights)

    def prompt_text(self, name: str, path: Sequence[Any], *, scene: int, recalled: Sequence[Recall] = ()) -> str:
        return mind_text(self.sheets[name], self.world(path).mind(name), scene, recalled)

    def shaping(self, name: str, path: Sequence[Any], recalled: Sequence[Recall] = ()) -> dict[str, Any]:
        """What to store on the character's next line: the mind events it is the first line after, and recalls."""
        since: list[int] = []
        for event in reversed(path):
            if event.kind in SPOKEN and event.character == name:
                break
            if event.kind in (MOOD, UNLOCK, REFLECTION) and event.character == name:
                since.append(event.id)
        return {"mind": sorted(since), "recalled": [r.as_data() for r in recalled]}
