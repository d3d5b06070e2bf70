"""What each kind of server is sent for one call, how a reply that is data is asked of it (and asked
more plainly once it refuses), and how a line that goes on is put to it."""

from __future__ import annotations

import asyncio
import base64
import json

import pytest

from studio.llm import continuation, structured_replies
from studio.llm.call_settings import CallSettings
from studio.llm.errors import ModelError
from studio.llm.requests import MAX_REMOTE_STOPS, build_request, whole

SCHEMA = json.dumps({"type": "object", "properties": {"move": {"type": "string", "enum": ["C", "D"]}},
                     "required": ["move"]})
MESSAGES = [{"role": "system", "content": "You are Jenny."}, {"role": "user", "content": "Say your line."}]


def settings(**changes) -> CallSettings:
    return CallSettings(**{"model": "openai/gpt-4o-mini", "temperature": 0.4, "max_tokens": 60, **changes})


# -- the request ---------------------------------------------------------------------------------------


def test_a_hosted_api_is_sent_a_stream_with_usage_and_no_retries_of_its_own():
    request = build_request("openai/gpt-4o-mini", settings(stop=("\n", "A:", "B:", "C:", "D:", "E:")), MESSAGES)
    assert request["stream"] is True and request["stream_options"] == {"include_usage": True}
    assert request["num_retries"] == 0 and request["max_retries"] == 0  # the gateway counts and reports them
    assert request["stop"] == ["\n", "A:", "B:", "C:"] and len(request["stop"]) == MAX_REMOTE_STOPS
    assert not {"api_base", "api_key", "extra_headers", "extra_body", "response_format"} & set(request)


def test_a_small_models_sampling_goes_only_to_a_server_of_ones_own():
    small = settings(repeat_penalty=1.3, min_p=0.05, top_p=0.9)
    own = build_request("openai/smollm2", small, MESSAGES, own_server=True)
    hosted = build_request("openai/smollm2", small, MESSAGES, own_server=False)
    assert own["extra_body"] == {"repeat_penalty": 1.3, "min_p": 0.05}
    assert "extra_body" not in hosted and hosted["top_p"] == own["top_p"] == 0.9


def test_the_shared_embedded_model_is_sent_the_calls_seed_and_grammar_and_a_hosted_api_neither():
    shaped = settings(seed=1234, grammar='root ::= [A-Za-z ,]+ "?"')
    own = build_request("openai/smollm2", shaped, MESSAGES, own_server=True)
    hosted = build_request("openai/gpt-4o-mini", shaped, MESSAGES, own_server=False)
    assert own["extra_body"] == {"seed": 1234, "grammar": 'root ::= [A-Za-z ,]+ "?"'}
    assert "extra_body" not in hosted


def test_credentials_in_a_servers_address_travel_as_a_header_not_in_the_address(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    request = build_request("openai/llama", settings(api_base="http://reader:hunter2@127.0.0.1:8000/v1"), MESSAGES)
    assert request["api_base"] == "http://127.0.0.1:8000/v1"
    assert request["extra_headers"] == {"Authorization": "Basic " + base64.b64encode(b"reader:hunter2").decode()}
    assert request["api_key"] == "none"  # the OpenAI client insists on a key a server of one's own ignores


def test_a_key_in_the_environment_is_left_for_the_client_to_send(monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-set-by-the-playwright")
    request = build_request("openai/llama", settings(api_base="http://127.0.0.1:8000/v1"), MESSAGES)
    assert "api_key" not in request and "extra_headers" not in request


@pytest.mark.parametrize("mode, kind", [("schema", "json_schema"), ("json", "json_object"), ("words", None)])
def test_a_reply_that_is_data_is_asked_for_in_the_way_chosen(mode, kind):
    request = build_request("openai/gpt-4o-mini", settings(schema=SCHEMA), MESSAGES, mode)
    sent = request.get("response_format")
    assert (sent or {}).get("type") == kind
    if kind == "json_schema":
        assert sent["json_schema"]["schema"]["properties"]["move"]["enum"] == ["C", "D"]


def test_a_batch_call_nobody_watches_is_asked_for_whole():
    request = whole(build_request("openai/gpt-4o-mini", settings(), MESSAGES))
    assert request["stream"] is False and "stream_options" not in request


# -- the way a reply that is data is asked for ----------------------------------------------------------


def test_a_server_of_ones_own_is_sent_the_schema_and_an_unknown_hosted_model_is_asked_in_words():
    own = settings(model="openai/served", schema=SCHEMA, api_base="http://127.0.0.1:9/v1")
    assert structured_replies.mode(own, "openai/served", None, None, {}) == "schema"
    hosted = settings(model="openai/not-in-the-map", schema=SCHEMA)
    assert structured_replies.mode(hosted, "openai/not-in-the-map", None, None, {}) == "words"
    assert structured_replies.mode(settings(), "openai/gpt-4o-mini", None, None, {}) is None  # not data


def test_a_server_that_refuses_a_schema_is_asked_in_json_mode_from_then_on_and_its_key_is_not_shown():
    own = settings(model="openai/served", schema=SCHEMA, api_base="http://u:secretkey@127.0.0.1:9/v1")
    held: dict[str, str] = {}
    notice = structured_replies.step_down(own, "openai/served", None, "schema", 1, None, held)
    assert structured_replies.mode(own, "openai/served", None, None, held) == "json"
    assert "refused a JSON schema" in notice and "JSON mode" in notice and "secretkey" not in notice
    structured_replies.step_down(own, "openai/served", None, "json", 1, None, held)
    assert structured_replies.mode(own, "openai/served", None, None, held) == "words"


def test_a_way_chosen_outright_is_not_changed_behind_the_choosers_back():
    chosen = settings(model="openai/served", schema=SCHEMA, api_base="http://127.0.0.1:9/v1")
    held: dict[str, str] = {}
    assert structured_replies.mode(chosen, "openai/served", None, "schema", held) == "schema"
    with pytest.raises(ModelError) as caught:
        structured_replies.step_down(chosen, "openai/served", None, "schema", 2, "schema", held)
    assert 'set structured = "json" or "words"' in str(caught.value) and caught.value.attempts == 2
    assert held == {}


class Refused(Exception):
    def __init__(self, message: str, status_code: int):
        super().__init__(message)
        self.status_code = status_code


@pytest.mark.parametrize("exc, refused", [
    (Refused("response_format json_schema is not supported", 400), True),
    (Refused("Unrecognized request argument: response_format", 422), True),
    (Refused("failed to parse json_schema", 500), True),        # llama-cpp-python's server
    (Refused("rate limited: response_format jobs queue", 429), False),
    (Refused("the model is overloaded", 400), False),
])
def test_only_a_refusal_of_the_replys_format_steps_down(exc, refused):
    assert structured_replies.format_refused(exc) is refused


# -- a line that goes on ---------------------------------------------------------------------------------


def test_a_server_of_ones_own_is_told_the_line_in_words_and_its_answer_is_spaced_after_it():
    asked, spaced = continuation.going_on(MESSAGES, "I kept the", "openai/served", own_server=True)
    assert spaced and asked[-1]["role"] == "user" and "I kept the" in asked[-1]["content"]
    assert MESSAGES[-1]["content"] == "Say your line."  # the caller's messages are left as they were

    async def pieces():
        for piece in ("receipt", ", too."):
            yield piece, None

    async def read():
        return [piece async for piece, _ in continuation.after_the_line(pieces())]

    assert asyncio.run(read()) == [" receipt", ", too."]


def test_a_prefilled_reply_that_repeats_the_line_keeps_only_what_is_new():
    assert continuation.answer_only("I kept the receipt.", "I kept the") == " receipt."
    assert continuation.answer_only("receipt.", "I kept the") == "receipt."
