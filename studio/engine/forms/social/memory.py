"""What a player of the social game remembers, and which of it comes back for a question.

What a player is shown of the past is chosen by memory retrieval (studio.mind.memory: the weighted sum of
normalised recency, importance and relevance to the question at hand), not the latest lines; and only
what its lens saw is there to recall."""

from __future__ import annotations

import math
from typing import TYPE_CHECKING

from studio.engine.forms.social import prompts
from studio.engine.forms.social.state import MEMORY, REFLECTION, SocialState
from studio.engine.lens import Lens
from studio.store import events as ev
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.mind.memory import MemoryIndex
    from studio.model.play import ResolvedRole

RECALL = 8  # memories retrieval brings into a prompt
REFLECTION_RECALL = 25  # memories each reflection question brings back (the paper's repository: 25)
# Recency halves every ~13.5 memories: the repository's decay of 0.95 per memory (Park et al.'s is per hour).
HALF_LIFE = math.log(0.5) / math.log(0.95)

REMEMBERED = {"act": ev.DIRECTION, "talk": ev.STAGE, "summary": MEMORY, "reflect": REFLECTION, "tally": ev.DIRECTION}
# How much a kind of memory weighs (1-10) when retrieval ranks them. The paper has a model rate every
# memory; the studio weighs them by what they are, so a game costs no extra call per memory.
IMPORTANCE = {"act": 4.0, "talk": 5.0, "summary": 6.0, "reflect": 8.0, "tally": 8.0}


def remembered(event: Event) -> tuple[str, float] | None:
    """What a game event leaves in a witness's memory, and how much it weighs; None for nothing."""
    task = event.data.get("task", "")
    if REMEMBERED.get(task) != event.kind:
        return None
    text = f"{event.character} said: {event.text}" if event.kind == ev.STAGE else event.text
    weight = IMPORTANCE.get(task, 5.0)
    outcome = event.data.get("outcome") or {}
    if outcome.get("found"):
        weight = 10.0  # finding the idol, as the repository weighs it
    elif outcome.get("ok") is False:
        weight = 3.0
    return text, weight


def recollections(path: list[Event], key: str) -> list[str]:
    """What a player remembers of the game, oldest first: through its lens, the actions it saw, the talk
    it heard, the readings of the votes, and its own notes of conversations and reflections."""
    lens = Lens(path)
    return [found[0] for event in path if (found := remembered(event)) and lens.knows(key, event)]


def recall(state: SocialState, path: list[Event], key: str, query: str, k: int) -> tuple[str, ...]:
    """The k memories retrieval ranks highest for `query`, least relevant first (the most relevant closest to
    the question, as the paper's action prompt orders them).

    Each player's index grows with the take and is rebuilt only when the path is not the one it was
    built from (a rewind, another take). Recency counts memories, not turns: the repository decays by
    0.95 per memory. The weights, and an embedding model for relevance, are the player's sheet's
    (`[memory]`); without one, relevance is word overlap (BM25).
    """
    index = _index(state, path, key)
    settings = state.cast.role(key).sheet.memory
    relevance = None
    if settings.embedding_model:  # the sheet names one: cosine similarity, as the paper's (litellm only now)
        from studio.mind.memory import EmbeddingRelevance

        embedder = state.memory.get(("embedder", key))
        if embedder is None or embedder.index is not index:
            embedder = state.memory[("embedder", key)] = EmbeddingRelevance(settings.embedding_model, index)
        relevance = embedder
    hits = index.recall(query, now_turn=len(index), half_life=HALF_LIFE, k=k, relevance=relevance,
                        weights=settings.weights)
    return tuple(r.memory.text for r in reversed(hits))


def _index(state: SocialState, path: list[Event], key: str) -> MemoryIndex:
    """The player's retrieval index brought up to the end of `path`: the cached one grown by the events
    since, or a new one when the path is not the one it was built from."""
    from studio.mind.memory import Memory, MemoryIndex

    cached = state.memory.get(key)
    if cached is not None:
        index, count, last = cached
        if count > len(path) or (count and path[count - 1].id != last):
            cached = None
    if cached is None:
        index, count = MemoryIndex(), 0
    lens = Lens(path[count:])
    for event in path[count:]:
        found = remembered(event)
        if found and lens.knows(key, event):
            index.add(Memory(event.id, len(index), found[0], event.character), importance=found[1])
    state.memory[key] = (index, len(path), path[-1].id if path else None)
    return index


def reflection_memories(state: SocialState, path: list[Event], role: ResolvedRole) -> tuple[str, ...]:
    """What the reflection questions bring back: up to 25 memories each (the repository's figure), taken
    in turns from each question's most relevant down, each once, until half the role's prompt budget is
    used, so a small model's reflection is not cut in the middle. Least relevant first, as elsewhere."""
    lists = [list(reversed(recall(state, path, role.key, q, REFLECTION_RECALL))) for q in prompts.REFLECTION_QUESTIONS]
    room = max(800, (role.context_tokens - role.max_tokens) * 2)  # characters: half the budget at ~4 a token
    chosen: dict[str, None] = {}
    used = 0
    for rank in range(REFLECTION_RECALL):
        for found in lists:
            if rank < len(found) and found[rank] not in chosen:
                if used + len(found[rank]) > room:
                    return tuple(reversed(chosen))
                chosen[found[rank]] = None
                used += len(found[rank]) + 3
    return tuple(reversed(chosen))


def round_actions(path: list[Event], key: str, scene: int) -> list[str]:
    """What the player did this round, as the auditor reads it: its own actions' outcomes."""
    return [e.text for e in path if e.scene == scene and e.role == key and e.kind == ev.DIRECTION
            and e.data.get("task") == "act"]
