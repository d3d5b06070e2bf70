"""How a failed call is judged, one failure at a time: what is tried again, after how long, and what the
person at the keyboard is told to do. The road through a real server is tests/test_faults.py."""

from __future__ import annotations

import json

import pytest

from studio.llm import faults, litellm_loader
from studio.llm.call_settings import CallSettings
from studio.llm.errors import BrokenReply, ModelError

SETTINGS = CallSettings("openai/gpt-4o-mini", 0.7, 10, timeout=5)


class Said(Exception):
    """A failure as an SDK raises it: words and, maybe, a status, with none of litellm's classes."""

    def __init__(self, message: str = "", status_code: int | None = None):
        super().__init__(message)
        self.status_code = status_code


@pytest.fixture(scope="module")
def litellm():
    return litellm_loader.load()


@pytest.mark.parametrize("exc, retry, reason, fix", [
    (TimeoutError(), True, "no answer within 5s", "raise the timeout"),
    (BrokenReply("the reply held no text"), True, "the reply held no text", "try again later"),
    (Said("slow down", 429), True, "rate limited (429)", "try again later"),
    (Said("request timeout", 408), True, "no answer within 5s", "raise the timeout"),
    (Said("Connection reset by peer"), True, "cut off", "try again later"),
    (json.JSONDecodeError("Expecting value", "{", 0), True, "malformed data", "try again later"),
    (Said("Connection refused"), True, "could not reach the provider", "check the network"),
    (Said("upstream broke", 503), True, "unavailable (503", "try again later"),
    (Said("no such model", 404), False, "does not know this model", "check the model name"),
    (Said("bad field", 422), False, "rejected the request", "check the model name and settings"),
    (ValueError("what now"), False, "unexpected error: ValueError", "report this"),
])
def test_each_kind_of_failure_is_tried_again_or_not_with_its_fix(litellm, exc, retry, reason, fix):
    verdict = faults.judge(litellm, exc, SETTINGS)
    assert verdict.retry is retry
    assert reason in verdict.reason and fix in verdict.fix


def test_a_plain_500_that_says_the_key_is_missing_is_a_key_to_set_not_a_server_to_wait_for(litellm, monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    verdict = faults.judge(litellm, Said("Missing credentials. Please pass an api_key", 500), SETTINGS)
    assert not verdict.retry and verdict.fix == "set OPENAI_API_KEY"


def test_a_prompt_too_long_is_not_tried_again(litellm):
    exc = litellm.ContextWindowExceededError(message="too long", model="gpt-4o-mini", llm_provider="openai")
    verdict = faults.judge(litellm, exc, SETTINGS)
    assert not verdict.retry and "shorten" in verdict.fix


def test_an_unreachable_server_of_ones_own_is_named_without_its_credentials(litellm):
    settings = CallSettings("openai/llama", 0.7, 10, api_base="http://reader:hunter2secret@10.0.0.2:8000/v1")
    verdict = faults.judge(litellm, Said("Connection refused"), settings)
    assert verdict.retry and "check the server at http://***@10.0.0.2:8000/v1 is running" in verdict.fix
    assert "hunter2secret" not in verdict.reason + verdict.fix


def test_a_routed_call_names_the_endpoint_that_failed(litellm):
    verdict = faults.judge(litellm, Said("Connection refused"), SETTINGS).at("http://10.0.0.3:8000/v1")
    assert verdict.reason.endswith("at http://10.0.0.3:8000/v1")
    assert verdict.fix.startswith("check the server at http://10.0.0.3:8000/v1 is running")


def test_a_key_in_the_environment_never_reaches_the_words_shown(monkeypatch):
    monkeypatch.setenv("SOME_PROVIDER_API_KEY", "abcd-1234-efgh-5678")
    shown = faults.scrub("litellm.AuthenticationError: AuthenticationError: key abcd-1234-efgh-5678 refused")
    assert shown == "key *** refused"


def test_a_fault_mid_stream_is_judged_by_what_the_provider_said_not_by_litellms_wrapping(litellm):
    class MidStreamFallbackError(Exception):
        status_code = 503

        def __init__(self, original):
            super().__init__("fallback")
            self.original_exception = original

    said = Said("slow down", 429)
    cause = faults.unwrap(MidStreamFallbackError(said), builtin=False)
    assert cause is said and faults.judge(litellm, cause, SETTINGS).reason == "rate limited (429)"


def _disguised(error: Exception, disguise: Exception) -> Exception:
    """`disguise` raised while `error` was being handled, as litellm raises a built-in voice's failure."""
    try:
        try:
            raise error
        except Exception:
            raise disguise from None
    except Exception as exc:  # noqa: BLE001 - the disguise is what the gateway catches
        return exc


def test_a_built_in_voices_own_bug_is_not_taken_for_a_dropped_connection(litellm):
    def disguised() -> Exception:
        dropped = litellm.APIConnectionError(message="Connection error", llm_provider="x", model="y")
        return _disguised(KeyError("a bug in the voice"), dropped)

    assert isinstance(faults.unwrap(disguised(), builtin=True), KeyError)
    # a hosted model's connection error is what it says
    assert isinstance(faults.unwrap(disguised(), builtin=False), litellm.APIConnectionError)


def test_a_model_error_anywhere_in_the_chain_is_the_answer():
    given = ModelError("local/smollm2", "local/smollm2: the prompt is too long")
    assert faults.unwrap(_disguised(given, ConnectionError("disguised")), builtin=False) is given


def test_pauses_double_with_a_little_jitter_and_never_pass_the_cap():
    assert 1.0 <= faults.pause(1.0, 1, Exception()) <= 1.1
    assert 4.0 <= faults.pause(1.0, 3, Exception()) <= 4.4
    assert faults.pause(1.0, 12, Exception()) == faults.MAX_PAUSE


def test_a_provider_that_says_how_long_to_wait_is_waited_for():
    class Told(Exception):
        litellm_response_headers = {"retry-after": "5"}

    assert faults.pause(0.01, 1, Told()) == 5.0


def test_giving_up_says_how_often_it_was_tried_only_when_more_than_once():
    verdict = faults.Verdict(True, "rate limited (429)", faults.FALLBACK_HINT)
    assert str(faults.given_up("openai/x", verdict, 1)) == f"openai/x: rate limited (429); {faults.FALLBACK_HINT}"
    assert "after 3 attempts" in str(faults.given_up("openai/x", verdict, 3))
    assert faults.retrying(verdict, 2.4, 1, 3) == "rate limited (429); trying again in 2 s, attempt 2 of 4"
