"""One reader for every reply that is data: lenient about the wrapping, strict about the meaning."""

import pytest
from pydantic import BaseModel, Field, field_validator

from studio import structured
from studio.critic import parse_verdict


class Vote(BaseModel):
    vote: str = Field(min_length=1)
    reason: str

    _words = field_validator("reason")(classmethod(lambda cls, v: structured.words(v)))


@pytest.mark.parametrize("reply", [
    '{"vote": "Ben", "reason": "He lied to me."}',
    'Sure! ```json\n{"vote": "Ben", "reason": "He lied to me."}\n``` Hope that helps.',
    'I think {"note": 1} and then {"vote": "Ben", "reason": "He lied to me."}',
])
def test_the_first_valid_object_is_read_wherever_it_sits(reply):
    vote, error = structured.read(reply, Vote)
    assert error is None and vote.vote == "Ben"


@pytest.mark.parametrize("reply, says", [
    ('{"vote": "Ben", "reason": "10"}', "not words"),
    ('{"vote": "Ben", "reason": "<one or two sentences>"}', "placeholder"),
    ('{"vote": "Ben"}', "reason is missing"),
    ("no braces at all", "no JSON object"),
])
def test_an_invalid_reply_says_what_is_wrong_in_one_line(reply, says):
    vote, error = structured.read(reply, Vote)
    assert vote is None and says in error and "\n" not in error


def test_plain_words_can_be_read_by_a_fallback():
    vote, error = structured.read("I vote for Ben because he lied.", Vote,
                                  fallback=lambda t: {"vote": "Ben", "reason": t} if "Ben" in t else None)
    assert error is None and vote.vote == "Ben"


def test_whole_numbers_however_written():
    assert structured.whole_number("7/10", out_of=10) == 7
    assert structured.whole_number(7.0) == 7
    assert structured.whole_number("seven") == "seven"
    assert structured.key("Behavioral Change", {"behavioral_change": "behavioural_change"}) == "behavioural_change"


def test_a_critique_of_zeros_with_numbers_for_interpretations_is_invalid():
    """Seen on the embedded model: every score 0 and every interpretation the string "10"."""
    reply = ('{"behavioural_change": {"score": 0, "interpretation": "10"}, "introspection": {"score": 0, '
             '"interpretation": "10"}, "narrative_divergence": {"score": 0, "interpretation": "10"}, '
             '"successful_adaptation": {"score": 0, "interpretation": "10"}}')
    verdict, error = parse_verdict(reply)
    assert verdict is None and "not words" in error


def test_an_interpretation_that_loops_is_not_an_answer():
    looping = "The story was a story, and the story was a story, and the story was a story, and the story"
    with pytest.raises(ValueError, match="loop"):
        structured.words(looping)
    assert structured.words("She lies to protect him, and the lie costs her the one person she trusts.")


def test_a_reply_schema_can_be_held_by_a_grammar_and_closes_within_a_budget():
    import json

    class Rated(BaseModel):
        score: int = Field(ge=0, le=10)
        reason: str
        note: str = ""

    schema = json.loads(structured.reply_schema(Rated, max_text=50))
    props = schema["properties"]
    assert schema["required"] == ["score", "reason", "note"]      # a grammar cannot stop at "{}"
    assert props["score"]["enum"] == list(range(11))              # a grammar ignores min/max; it holds enums
    assert props["reason"]["maxLength"] == 50 and props["note"]["maxLength"] == 50


def test_a_provider_that_takes_a_schema_is_sent_it_and_the_take_records_it():
    import json

    from studio.llm import litellm_loader, structured_replies
    from studio.llm.call_settings import CallSettings
    from studio.llm.requests import build_request

    litellm_loader.load()
    held = CallSettings(model="openai/gpt-4o-mini", temperature=0.2, max_tokens=50,
                        schema=structured.reply_schema({"type": "object", "properties": {"move": {"enum": ["C", "D"]}}}))

    def way(settings, route, endpoint):  # as a gateway that was told no way of its own asks
        return structured_replies.mode(settings, route, endpoint, chosen=None, held={})

    request = build_request("openai/gpt-4o-mini", held, [], way(held, "openai/gpt-4o-mini", None))
    assert request["response_format"]["json_schema"]["schema"]["properties"]["move"]["enum"] == ["C", "D"]
    assert held.public()["schema"]["required"] == ["move"]
    # a hosted model litellm's bundled map does not know is asked in words only (the reader still checks it)
    assert way(held, "openai/some-hosted-model", None) == "words"
    # a server of one's own is sent the schema: vLLM, llama.cpp, Ollama, LM Studio and SGLang hold one
    own = CallSettings(model="openai/some-local-server-model", temperature=0.2, max_tokens=50,
                       api_base="http://127.0.0.1:9/v1", schema=held.schema)
    assert way(own, "openai/some-local-server-model", None) == "schema"
    assert json.dumps(CallSettings(model="scripted", temperature=0, max_tokens=5).public())  # no schema: none recorded
