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
