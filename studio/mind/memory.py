"""A character's memory: what it witnessed and thought, and which of it comes back when the prompt is full.

Past its context budget a character cannot be shown every line it heard, so the lines that return are
ranked by a weighted sum of recency, importance and relevance, each scaled to [0, 1] over the memories
ranked (rules.memory_score, after Park et al., 2023, Generative Agents). Relevance is BM25 over the character's
own memories, kept as an inverted index that grows one memory at a time: a turn adds a line and asks one
question, so the index must neither be rebuilt per line nor scan every memory per query word (rank-bm25's
BM25Okapi does both; bench/bench_memory.py measures the difference). An embedding model, when the sheet
names one, replaces BM25 as the relevance; it is reached through litellm and imported only then.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass


# Words that match everything say nothing about what a memory is about.
_STOP = frozenset(
    """a an and are as at be been but by do does did for from had has have he her hers him his i if in into is
    it its me my no not of on or our she so than that the their them then there these they this those to too
    us was we were what when where which who why will with would you your yours am can could just very""".split()
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)
MAX_QUERY_TERMS = 32


def terms(text: str) -> list[str]:
    """Lower-cased words without the commonest ones; the same rule indexes memories and reads queries."""
    return [w for w in (m.group(0).casefold() for m in _WORD.finditer(text)) if len(w) > 1 and w not in _STOP]


@dataclass(frozen=True)
class Memory:
    """One thing the character keeps: a line it witnessed (event_id of the stage line) or a reflection."""

    event_id: int
    turn: int
    text: str
    speaker: str | None = None
    kind: str = "line"  # line | reflection


@dataclass(frozen=True)
class Recall:
    """A memory brought back, with the three factors that ranked it, so the backstage can say why."""

    memory: Memory
    score: float
    recency: float
    importance: float
    relevance: float

    def as_data(self) -> dict[str, object]:
        return {
            "event": self.memory.event_id,
            "turn": self.memory.turn,
            "score": round(self.score, 4),
            "recency": round(self.recency, 4),
            "importance": self.importance,
            "relevance": round(self.relevance, 4),
        }


class _Column:
    """A growing numeric column with amortised appends, viewed as a numpy array without copying."""

    def __init__(self, dtype, fill: float = 0.0, start: int = 64):
        import numpy as np

        self._np = np
        self.fill = fill
        self.data = np.full(start, fill, dtype=dtype)
        self.size = 0

    def append(self, value: float) -> None:
        if self.size == len(self.data):
            grown = self._np.full(len(self.data) * 2, self.fill, dtype=self.data.dtype)
            grown[: self.size] = self.data[: self.size]
            self.data = grown
        self.data[self.size] = value
        self.size += 1

    def view(self):
        return self.data[: self.size]


class MemoryIndex:
    """Okapi BM25 (k1, b) over one character's memories, with document frequencies updated on add.

    Postings are kept per word in growing numpy columns, so adding a memory appends in place and a query
    scores each of its words with one vectorised step instead of a Python loop over the memories.
    Importance lives beside the memories (set_importance), defaulting to 5: a line not yet scored
    neither buries nor promotes itself.
    """

    def __init__(self, k1: float = 1.5, b: float = 0.75):
        import numpy as np

        self._np = np
        self.k1, self.b = k1, b
        self.memories: list[Memory] = []
        self._postings: dict[str, tuple[_Column, _Column]] = {}
        self._lengths = _Column(np.float64)
        self._turns = _Column(np.float64)
        self._importance = _Column(np.float64, 5.0)
        self._total_length = 0
        self._ids: dict[int, int] = {}

    def __len__(self) -> int:
        return len(self.memories)

    def add(self, memory: Memory, importance: float | None = None) -> None:
        """Adding a memory twice (a replay) keeps one copy, so rebuilding from events is idempotent."""
        if memory.event_id in self._ids:
            if importance is not None:
                self.set_importance(memory.event_id, importance)
            return
        doc = len(self.memories)
        self._ids[memory.event_id] = doc
        self.memories.append(memory)
        counts: dict[str, int] = {}
        words = terms(memory.text)
        for word in words:
            counts[word] = counts.get(word, 0) + 1
        for word, tf in counts.items():
            columns = self._postings.get(word)
            if columns is None:
                columns = self._postings[word] = (_Column(self._np.int64, 0, 4), _Column(self._np.float64, 0.0, 4))
            columns[0].append(doc)
            columns[1].append(tf)
        self._lengths.append(len(words))
        self._turns.append(memory.turn)
        self._importance.append(5.0 if importance is None else importance)
        self._total_length += len(words)

    def extend(self, memories: Iterable[Memory]) -> None:
        for memory in memories:
            self.add(memory)

    def set_importance(self, event_id: int, importance: float) -> None:
        doc = self._ids.get(event_id)
        if doc is not None:
            self._importance.data[doc] = max(0.0, min(float(importance), 10.0))

    def bm25(self, query: str):
        """Raw BM25 per memory (a numpy array, 0 where no word is shared)."""
        np = self._np
        n = len(self.memories)
        scores = np.zeros(n)
        if not n:
            return scores
        avg = self._total_length / n or 1.0
        k1, b = self.k1, self.b
        lengths = self._lengths.view()
        wanted = [w for w in dict.fromkeys(terms(query)) if w in self._postings]
        # Rarest words first; a long query keeps only the words that can tell memories apart.
        wanted.sort(key=lambda w: self._postings[w][0].size)
        for word in wanted[:MAX_QUERY_TERMS]:
            docs, tfs = (column.view() for column in self._postings[word])
            df = len(docs)
            idf = math.log(1.0 + (n - df + 0.5) / (df + 0.5))
            scores[docs] += idf * tfs * (k1 + 1.0) / (tfs + k1 * (1.0 - b + b * lengths[docs] / avg))
        return scores

    def relevance(self, query: str) -> dict[int, float]:
        """BM25 scaled so the best match is 1 (memory position -> relevance), for callers that want a map."""
        raw = self.bm25(query)
        top = float(raw.max()) if len(raw) else 0.0
        if top <= 0:
            return {}
        hits = self._np.nonzero(raw)[0]
        return {int(doc): float(raw[doc] / top) for doc in hits}

    def recall(
        self,
        query: str,
        *,
        now_turn: int,
        half_life: float,
        k: int,
        importance: Mapping[int, float] | None = None,
        exclude: Iterable[int] = (),
        relevance: Callable[[str], Mapping[int, float]] | None = None,
        weights: tuple[float, float, float] = (1.0, 1.0, 1.0),
    ) -> list[Recall]:
        """The k best memories for `query` at `now_turn`, best first; `exclude` names event ids already shown.

        Every memory not excluded is a candidate, ranked by rules.memory_score: the weighted sum of its
        recency, importance and relevance, each min-max scaled over the candidates (Park et al., 2023),
        computed here over all of them at once. `importance` (event id -> 1..10) updates the stored scores
        first; `relevance` replaces BM25 (embeddings). A Recall keeps the raw factors (recency as the
        decay, importance 0-10, relevance with the best match 1) so the backstage can say why.
        """
        from studio.mind.rules import memory_score, normalise
        from studio.mind.rules import recency as decay

        np = self._np
        if k <= 0 or not self.memories:
            return []
        for event_id, value in (importance or {}).items():
            self.set_importance(event_id, value)
        n = len(self.memories)
        if relevance is None:
            rel = self.bm25(query)
            top = float(rel.max())
            if top > 0:
                rel = rel / top
        else:
            rel = np.zeros(n)
            for doc, value in relevance(query).items():
                rel[doc] = max(0.0, min(float(value), 1.0))
        fresh = decay(now_turn - self._turns.view(), half_life)
        imp = self._importance.view()
        keep = np.ones(n, dtype=bool)
        for event_id in exclude:
            shown = self._ids.get(event_id)
            if shown is not None:
                keep[shown] = False
        docs = np.nonzero(keep)[0]
        if not len(docs):
            return []
        score = memory_score(recency=normalise(fresh[docs]), importance=normalise(imp[docs]),
                             relevance=normalise(rel[docs]), weights=weights)
        if len(docs) > k:
            best = np.argpartition(-score, k - 1)[:k]
            docs, score = docs[best], score[best]
        found = [Recall(self.memories[d], float(s), float(fresh[d]), float(imp[d]), float(rel[d]))
                 for d, s in zip(docs, score)]
        found.sort(key=lambda item: (-item.score, -item.memory.turn, item.memory.event_id))
        return found


class EmbeddingRelevance:
    """Cosine similarity from an embedding model the play names (litellm is imported only when one is).

    Vectors of memories are cached by event id, so each memory is embedded once per process. Cosine in
    [-1, 1] is mapped to [0, 1] to stand where BM25's scaled score stands.
    """

    def __init__(self, model: str, index: MemoryIndex, *, api_base: str | None = None):
        self.model = model
        self.index = index
        self.api_base = api_base
        self._vectors: dict[int, list[float]] = {}

    def _embed(self, texts: list[str]) -> list[list[float]]:
        from studio.llm import embed

        return embed(self.model, texts, self.api_base)

    def __call__(self, query: str) -> dict[int, float]:
        import numpy as np

        missing = [m for m in self.index.memories if m.event_id not in self._vectors]
        if missing:
            for memory, vector in zip(missing, self._embed([m.text for m in missing])):
                self._vectors[memory.event_id] = vector
        (q,) = self._embed([query])
        matrix = np.asarray([self._vectors[m.event_id] for m in self.index.memories], dtype=float)
        if not len(matrix):
            return {}
        qv = np.asarray(q, dtype=float)
        norms = np.linalg.norm(matrix, axis=1) * (np.linalg.norm(qv) or 1.0)
        cos = matrix @ qv / np.where(norms == 0, 1.0, norms)
        return {doc: float((c + 1.0) / 2.0) for doc, c in enumerate(cos)}
