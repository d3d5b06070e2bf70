"""How a model is asked to go on from a line: the request carries the line so far, in the form its provider takes."""

from __future__ import annotations

import asyncio

import pytest

from stub_server import Reply, StubServer

from studio.llm.continuation import continued, takes_prefill
from studio.llm.gateway import CallContext, CallSettings, Gateway
from studio.llm.litellm_loader import warm_up

CTX = CallContext(role="other", task="speak", character="Jenny", scene=1, turn=2)
MESSAGES = [{"role": "system", "content": "You are Jenny."}, {"role": "user", "content": "Say your line."}]
SO_FAR = "I kept the receipt, and the"


def test_a_served_model_is_told_the_line_so_far_and_its_answer_follows_it():
    tokens: list[str] = []
    settings = CallSettings(model="openai/stub", temperature=0.4, max_tokens=60, timeout=30, api_base="",
                            retries=0, prefill=SO_FAR)
    with StubServer([Reply("tram fare, too.")], max_requests=2, lifetime=30) as server:
        settings = CallSettings(**{**settings.__dict__, "api_base": server.url})
        completion = asyncio.run(Gateway(backoff=0.01).complete(settings, MESSAGES, CTX, on_token=tokens.append))
        sent = server.requests[0]["messages"]
    # the conversation as for the line, then the line so far, to go on from; nothing else is changed
    assert sent[0] == MESSAGES[0]
    assert sent[-1]["role"] == "user" and sent[-1]["content"].startswith("Say your line.")
    assert SO_FAR in sent[-1]["content"] and "Go on from exactly where it stops" in sent[-1]["content"]
    # a new message is a new word after the line's last: the stream and the text agree on the space
    assert completion.text == " tram fare, too." and "".join(tokens) == completion.text
    # the line so far is not a setting of the take: the event says which line it continues instead
    assert "prefill" not in settings.public()


def test_a_provider_that_takes_a_prefill_is_handed_the_line_as_the_start_of_its_reply():
    asked = continued(MESSAGES, SO_FAR, native=True)
    assert asked[:-1] == MESSAGES and asked[-1] == {"role": "assistant", "content": SO_FAR, "prefix": True}
    warm_up()  # litellm's bundled model map says who takes one; nothing is fetched
    assert takes_prefill("anthropic/claude-sonnet-4-5") and takes_prefill("deepseek/deepseek-chat")
    assert not takes_prefill("openai/gpt-4o-mini")


def test_studio_continue_goes_on_from_a_line_and_refuses_a_heading(tmp_path):
    import json

    from conftest import PLAYS
    from test_cli import studio

    db = tmp_path / "s.db"
    studio("run", PLAYS / "interview.toml", "--model", "scripted", "--turns", "2", "--strategies", "none", db=db)
    lines = [json.loads(x) for x in studio("show", "1", "--json", db=db).stdout.splitlines()]
    first_ego = next(e for e in lines if e["role"] == "ego" and e["kind"] == "stage")
    result = studio("continue", "1", first_ego["id"], db=db)
    assert result.returncode == 0, result.stderr
    assert "goes on" in result.stdout and "a new take; the old line stays" in result.stdout
    now = [json.loads(x) for x in studio("show", "1", "--json", db=db).stdout.splitlines()]
    continued = now[-1]
    assert continued["text"].startswith(first_ego["text"]) and continued["data"]["continues"] == first_ego["id"]
    heading = next(e for e in lines if e["kind"] == "scene")
    refused = studio("continue", "1", heading["id"], db=db)
    assert refused.returncode == 2 and "only a character's spoken line can be continued" in refused.stderr
    assert "Traceback" not in refused.stderr


@pytest.mark.parametrize("answer", [" the tram fare, too.", SO_FAR + " the tram fare, too."],
                         ids=["what comes next", "the whole reply again"])
def test_a_provider_that_takes_a_prefill_gets_the_line_as_its_reply_begun(monkeypatch, answer):
    tokens: list[str] = []
    with StubServer([Reply(answer)], max_requests=2, lifetime=30) as server:
        # DeepSeek's own road (its model map says it takes a prefill), pointed at the stub by its variable
        monkeypatch.setenv("DEEPSEEK_API_BASE", server.url)
        monkeypatch.setenv("DEEPSEEK_API_KEY", "not-a-key")
        settings = CallSettings(model="deepseek/deepseek-chat", temperature=0.4, max_tokens=60, timeout=30,
                                retries=0, prefill=SO_FAR)
        completion = asyncio.run(Gateway(backoff=0.01).complete(settings, MESSAGES, CTX, on_token=tokens.append))
        sent = server.requests[0]["messages"]
    assert sent[:-1] == MESSAGES
    assert sent[-1]["role"] == "assistant" and sent[-1]["content"] == SO_FAR and sent[-1].get("prefix") is True
    # what is kept is what comes after the line, even from a provider that sends the whole reply back
    assert completion.text == " the tram fare, too." and "".join(tokens).endswith(completion.text)
