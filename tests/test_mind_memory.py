"""Memory retrieval and importance scores: what a character recalls, and why, replays the same."""

from __future__ import annotations

from studio.llm import CallSettings, scripted
from studio.mind.importance import event_fields, score_line
from studio.mind.memory import Memory, MemoryIndex, terms
from studio.mind.state import IMPORTANCE, fold
from studio.store.events import STAGE

SETTINGS = CallSettings(model="scripted", temperature=0.2, max_tokens=60)


def _index(lines):
    index = MemoryIndex()
    for turn, text in enumerate(lines):
        index.add(Memory(event_id=100 + turn, turn=turn, text=text, speaker="Stranger"))
    return index


def test_relevant_old_memory_is_recalled_beside_recent_irrelevant_ones():
    lines = ["The Aurelia went down on the rocks below the lamp."] + [
        f"Pass the bread, the kettle is boiling again, number {i}." for i in range(30)
    ]
    index = _index(lines)
    found = index.recall("What happened to the Aurelia that night?", now_turn=31, half_life=40, k=3)
    # the oldest memory, but the only one about the wreck: its relevance carries it into the three
    wreck = next(r for r in found if r.memory.event_id == 100)
    assert wreck.relevance == 1.0 and 0 < wreck.recency < 1
    # with nothing relevant asked, the old wreck does not come back
    assert all(r.memory.event_id != 100 for r in index.recall("bread kettle", now_turn=31, half_life=40, k=3))


def test_importance_and_recency_rank_equally_relevant_memories():
    index = _index(["The logbook is in the drawer.", "The logbook is in the stove."])
    plain = index.recall("logbook", now_turn=2, half_life=10, k=2)
    assert [r.memory.event_id for r in plain] == [101, 100]  # the same words: the newer one first
    # scaled over two memories, fresh-but-slight and old-but-weighty tie; a heavier importance decides
    weighted = index.recall("logbook", now_turn=2, half_life=10, k=2, importance={100: 10, 101: 2},
                            weights=(1.0, 2.0, 1.0))
    assert [r.memory.event_id for r in weighted] == [100, 101]
    assert weighted[0].importance == 10 and weighted[1].importance == 2


def test_recall_skips_lines_already_in_the_prompt_and_replays_are_idempotent():
    index = _index(["The storm is rising.", "The storm broke the shutters."])
    index.add(Memory(event_id=100, turn=0, text="The storm is rising."))  # a replay adds nothing
    assert len(index) == 2
    found = index.recall("storm shutters", now_turn=3, half_life=10, k=3, exclude=[101])
    assert [r.memory.event_id for r in found] == [100]


def test_terms_drop_common_words_and_fold_case():
    assert terms("The LAMP failed, and I saw it!") == ["lamp", "failed", "saw"]
    assert terms("Ölwechsel über Nacht") == ["ölwechsel", "über", "nacht"]


async def test_importance_is_a_structured_reply(gateway):
    answer = await score_line(gateway, SETTINGS, "Mara", "Stranger", "I know what you did to the lamp.")
    assert answer.value is not None and 1 <= answer.value.importance <= 10
    assert [c.task for c, _ in gateway.calls] == ["importance"]
    assert "Mara" in gateway.calls[0][1][0]["content"]
    fields = event_fields(answer, "Mara", line_event=7)
    assert fields["kind"] == IMPORTANCE and fields["data"]["importance"] == answer.value.importance


async def test_invalid_importance_is_asked_again_then_kept_as_unscored(gateway):
    scripted.queue("very important!", task="importance")
    scripted.queue('{"importance": "11/10"}', task="importance")
    answer = await score_line(gateway, SETTINGS, "Mara", "Stranger", "Hello.")
    assert answer.value is None and len(answer.replies) == 2
    assert "importance" in answer.error
    fields = event_fields(answer, "Mara", line_event=7)
    assert fields["data"]["importance"] is None and fields["text"].startswith("unscored")


async def test_importance_reads_wrapped_replies(gateway):
    scripted.queue('Sure! ```json\n{"Score": "8", "reason": "a threat"}\n```', task="importance")
    answer = await score_line(gateway, SETTINGS, "Mara", "Stranger", "I will burn the lighthouse.")
    assert answer.value.importance == 8 and answer.value.why == "a threat"


def test_committed_scores_fold_back_per_take():
    from studio.store.events import Event

    line = Event(id=5, run_id=1, parent=None, kind=STAGE, text="x", character="Stranger")
    scored = Event(id=6, run_id=1, parent=5, kind=IMPORTANCE, text="9/10", character="Mara",
                   data={"line": 5, "importance": 9})
    unscored = Event(id=7, run_id=1, parent=6, kind=IMPORTANCE, text="unscored", character="Mara",
                     data={"line": 6, "importance": None})
    world = fold([line, scored, unscored])
    assert world.mind("Mara").importance == {5: 9.0}
    assert world.mind("Mara").scored == {5, 6}
    assert fold([line]).mind("Mara").importance == {}  # a take without the score has none


def test_embedding_relevance_asks_the_model_through_the_gateway_once_per_memory(monkeypatch):
    """A play that names an embedding model reaches it through studio.llm, like every other call out."""
    from studio.llm import litellm_loader
    from studio.mind.memory import EmbeddingRelevance

    asked: list[dict] = []

    class Litellm:
        @staticmethod
        def embedding(**kwargs):
            asked.append(kwargs)
            # "wreck" points one way, anything else the other
            return {"data": [{"embedding": [1.0, 0.0] if "wreck" in t else [0.0, 1.0]} for t in kwargs["input"]]}

    monkeypatch.setattr(litellm_loader, "load", lambda: Litellm)
    index = _index(["The wreck on the rocks.", "Pass the bread."])
    relevance = EmbeddingRelevance("ollama/nomic-embed-text", index, api_base="http://localhost:11434")
    assert relevance("the wreck") == {0: 1.0, 1: 0.5}
    relevance("the bread")
    assert [a["input"] for a in asked] == [["The wreck on the rocks.", "Pass the bread."], ["the wreck"], ["the bread"]]
    assert {a["model"] for a in asked} == {"ollama/nomic-embed-text"}
    assert {a["api_base"] for a in asked} == {"http://localhost:11434"}


def test_a_memory_sharing_no_word_is_recalled_on_recency_and_importance():
    index = _index(["The lamp went dark at midnight.", "Pass the bread.", "The harbour master lied to me."])
    index.set_importance(102, 10)
    found = index.recall("Where is the logbook?", now_turn=3, half_life=10, k=1)
    # no memory shares a word with the question: the newest and weightiest comes back, not nothing
    assert [r.memory.event_id for r in found] == [102] and found[0].relevance == 0


def test_the_sheets_weights_decide_between_fresh_and_relevant():
    lines = ["The Aurelia struck the rocks."] + [f"Kettle talk, number {i}." for i in range(20)]
    index = _index(lines)
    ask = dict(now_turn=21, half_life=5, k=1)
    assert index.recall("the Aurelia", **ask)[0].memory.event_id == 100  # equal weights: relevance wins
    fresh_only = index.recall("the Aurelia", weights=(1.0, 0.0, 0.1), **ask)
    assert fresh_only[0].memory.event_id == 120
    assert fresh_only[0].score == 1.0  # the newest, scaled to 1, times its weight


def test_memory_weights_are_read_from_the_sheet():
    from pydantic import ValidationError

    from studio.model.inner_life import MemorySettings

    assert MemorySettings().weights == (1.0, 1.0, 1.0)
    assert MemorySettings(relevance_weight=2).weights == (1.0, 1.0, 2.0)
    try:
        MemorySettings(recency_weight=-1)
    except ValidationError as err:
        assert "recency_weight" in str(err)
    else:
        raise AssertionError("a negative weight was accepted")
