"""The shared reader of structured replies: lenient about wrapping, strict about meaning."""

import asyncio
import json
from dataclasses import dataclass

import pytest
from pydantic import BaseModel, field_validator

from studio import structured
from studio.critic import parse_verdict


def _verdict(score, text):
    keys = ["behavioural_change", "introspection", "narrative_divergence", "successful_adaptation"]
    return json.dumps({k: {"score": score, "interpretation": text if isinstance(text, str) else text[i]}
                       for i, k in enumerate(keys)})


def test_the_score_written_where_the_interpretation_goes_is_invalid():
    # The reported bug: a tiny model answered score 0 and interpretation "10" everywhere and it passed.
    verdict, error = parse_verdict(_verdict(0, "10"))
    assert verdict is None
    assert "not an interpretation" in error and "behavioural_change.interpretation" in error


@pytest.mark.parametrize("text", ["10", "7/10", " 3.5 ", "(8)", "...", "<one or two sentences>", "ok"])
def test_numbers_placeholders_and_single_words_are_not_interpretations(text):
    with pytest.raises(ValueError):
        structured.check_prose(text)


def test_real_words_are_an_interpretation():
    assert structured.check_prose("He softens towards Ada by the end.") == "He softens towards Ada by the end."


def test_the_same_text_for_every_criterion_is_refused():
    verdict, error = parse_verdict(_verdict(5, "The character changes somewhat."))
    assert verdict is None and "same interpretation" in error


def test_a_fenced_reply_in_prose_with_scores_as_text_is_read():
    texts = ["He grows kinder.", "She looks inward often.", "It breaks the usual arc.", "He copes well in the end."]
    reply = "Here is my critique:\n```json\n" + _verdict("7/10", texts) + "\n```\nThanks!"
    verdict, error = parse_verdict(reply)
    assert error is None and verdict.behavioural_change.score == 7


class Pair(BaseModel):
    answer: int
    why: str

    @field_validator("why")
    @classmethod
    def _prose(cls, value):
        return structured.check_prose(value)


def test_read_returns_the_first_valid_object_and_the_first_error_otherwise():
    value, error = structured.read('{"answer": 1, "why": "2"} then {"answer": 2, "why": "because it adds up"}', Pair)
    assert error is None and value.answer == 2
    value, error = structured.read('{"answer": "x", "why": "fine words here"}', Pair)
    assert value is None and error.startswith("answer:")
    assert structured.read("no braces at all", Pair) == (None, "no JSON object could be read from the reply")


@dataclass
class _Completion:
    text: str


class _Gateway:
    def __init__(self, replies):
        self.replies = list(replies)
        self.seen = []

    async def complete(self, settings, messages, ctx, on_token=None):
        self.seen.append(messages)
        return _Completion(self.replies.pop(0))


def _parse(text):
    return structured.read(text, Pair)


def test_ask_shows_the_error_and_asks_once_more():
    gateway = _Gateway(['{"answer": 3, "why": "3"}', '{"answer": 3, "why": "three is the count"}'])
    result = asyncio.run(structured.ask(gateway, None, [{"role": "user", "content": "q"}], None, _parse, "{...}"))
    assert result.valid and result.value.answer == 3 and result.attempts == 2
    retry = gateway.seen[1][-1]["content"]
    assert "not an interpretation" in retry and "{...}" in retry


def test_ask_stores_invalid_rather_than_guessing():
    gateway = _Gateway(["nonsense", '{"answer": 1}'])
    result = asyncio.run(structured.ask(gateway, None, [], None, _parse, "{...}"))
    assert not result.valid and result.value is None
    assert result.replies == ["nonsense", '{"answer": 1}'] and "why is missing" in result.error
