"""Replies that are data from a model on a server of one's own: sent the schema, stepping down when refused.

The stub server plays servers that refuse a JSON schema (as llama-cpp-python does) or any response_format;
tests/test_served_real.py runs the same roads against llama-cpp-python's real server.
"""

from __future__ import annotations

import asyncio
import json

import pytest

from stub_server import Reply, Status, StubServer
from studio import structured
from studio.llm import CallContext, CallSettings, Gateway, ModelError
from studio.llm.requests import build_request
from studio.llm.sampling import is_small, settings_for
from test_cli import bad, studio

MOVE = '{"move": "C", "reason": "Trust is worth a try."}'
SCHEMA = structured.reply_schema({"type": "object", "properties": {"move": {"type": "string", "enum": ["C", "D"]},
                                                                  "reason": {"type": "string", "maxLength": 120}}})


def _refusing(*refused: str):
    """A server that answers a response_format of a refused type with an error naming it, as real ones do."""

    def answer(body: dict):
        kind = (body.get("response_format") or {}).get("type")
        if kind in refused:
            code = 500 if kind == "json_schema" else 400  # llama-cpp-python's own answer to json_schema is a 500
            return Status(code, body=f"response_format: Input should be 'text' or 'json_object', got {kind!r}")
        return Reply(MOVE)

    return answer


def _ask(server: StubServer, gateway: Gateway, **options) -> object:
    settings = CallSettings(model="openai/stub", temperature=0.2, max_tokens=40, api_base=server.url, retries=0,
                            schema=SCHEMA, small=False, **options)
    return asyncio.run(gateway.complete(settings, [{"role": "user", "content": "Your move?"}],
                                        CallContext("ego", "move", "Ada")))


def _formats(server: StubServer) -> list[str | None]:
    return [(r.get("response_format") or {}).get("type") for r in server.requests]


def test_a_server_that_refuses_a_schema_is_asked_in_json_mode_and_remembered_for_the_run():
    gateway = Gateway(backoff=0)
    with StubServer(default=_refusing("json_schema"), max_requests=10, lifetime=30) as server:
        first = _ask(server, gateway)
        second = _ask(server, gateway)
    assert _formats(server) == ["json_schema", "json_object", "json_object"]
    assert first.text == MOVE and first.structured == "json" and first.attempts == 1  # a refusal is no fault
    assert "refused a JSON schema" in first.notices[0] and server.url in first.notices[0]
    assert second.structured == "json" and not second.notices  # said once, remembered after
    # JSON mode carries the schema, which llama.cpp's servers hold the reply to
    assert server.requests[1]["response_format"]["schema"]["properties"]["move"]["enum"] == ["C", "D"]


def test_a_server_that_refuses_every_response_format_is_asked_in_words():
    gateway = Gateway(backoff=0)
    with StubServer(default=_refusing("json_schema", "json_object"), max_requests=10, lifetime=30) as server:
        reply = _ask(server, gateway)
    assert _formats(server) == ["json_schema", "json_object", None]
    assert reply.structured == "words" and len(reply.notices) == 2


def test_a_way_chosen_outright_is_not_changed_behind_the_players_back():
    with StubServer(default=_refusing("json_schema"), max_requests=10, lifetime=30) as server:
        with pytest.raises(ModelError) as caught:
            _ask(server, Gateway(backoff=0), structured="schema")
        reply = _ask(server, Gateway(backoff=0), structured="words")
    assert 'structured = "json" or "words"' in str(caught.value)
    assert _formats(server) == ["json_schema", None] and reply.structured == "words"


def test_a_server_error_that_is_not_about_the_format_is_still_retried_as_a_fault():
    with StubServer([Status(500, body="out of memory"), Reply(MOVE)], max_requests=10, lifetime=30) as server:
        settings = CallSettings(model="openai/stub", temperature=0.2, max_tokens=40, api_base=server.url,
                                schema=SCHEMA, small=False)
        reply = asyncio.run(Gateway(backoff=0).complete(settings, [{"role": "user", "content": "?"}],
                                                         CallContext("ego", "move", "Ada")))
    assert reply.attempts == 2 and reply.structured == "schema" and not reply.notices


@pytest.mark.parametrize("model, small", [
    ("openai/smollm2", True), ("ollama_chat/qwen2.5:0.5b", True), ("openai/SmolLM2-360M-Instruct", True),
    ("openai/llama-3.2-1b-instruct", True), ("ollama_chat/llama3:8b", False), ("openai/gpt-4o-mini", False),
    ("openai/qwen2.5-7b-instruct", False), ("local/smollm2", True),
])
def test_a_served_model_is_taken_for_small_by_its_name(model, small):
    assert is_small(model) is small
    assert is_small(model, False) is (model.startswith("local/"))  # the setting wins, but not for the embedded


def test_a_small_model_on_its_own_server_gets_the_embedded_sampling_and_words_first_schema():
    settings = settings_for(model="openai/smollm2", temperature=0.8, max_tokens=300, task="speak",
                            names=["Ada", "Ben"], speaker="Ada", api_base="http://127.0.0.1:9/v1")
    assert settings.repeat_penalty and settings.stop == ("\n",) and settings.max_tokens <= 64
    assert settings.temperature == 0.4
    request = build_request("openai/smollm2", settings, [], None, own_server=True)
    assert request["extra_body"]["repeat_penalty"] == settings.repeat_penalty and "min_p" in request["extra_body"]
    big = settings_for(model="openai/smollm2", temperature=0.8, max_tokens=300, task="speak", small=False)
    assert big.repeat_penalty is None and big.max_tokens == 300
    held = CallSettings(model="openai/smollm2", temperature=0.2, max_tokens=40, schema=SCHEMA,
                        repeat_penalty=1.3)
    sent = build_request("openai/smollm2", held, [], "json", own_server=True)["response_format"]["schema"]
    assert sent["properties"]["reason"]["pattern"].startswith("^[A-Za-z]")
    hosted = build_request("openai/smollm2", held, [], "json", own_server=False)
    assert "extra_body" not in hosted  # a hosted API is not sent fields it may refuse


def test_the_lab_over_a_refusing_server_records_the_step_down_in_each_runs_notes(tmp_path):
    # the server lists its model's size (llama.cpp's n_params), which the lab needs before it plays
    with StubServer(default=_refusing("json_schema"), max_requests=100, lifetime=60,
                    meta={"n_params": 8_000_000_000}) as server:
        done = studio("lab", "run", "experiments/pd_small.toml", "--model", "openai/stub", "--endpoint", server.url,
                      "--json", db=tmp_path / "s.db")
    assert done.returncode == 0, done.stderr
    assert not json.loads(done.stdout).get("failed")
    from studio.store import Store

    store = Store(tmp_path / "s.db")
    notes = [e for run in store.runs() for e in store.events(run.id) if e.kind == "control" and "refused" in e.text]
    moves = [e for run in store.runs() for e in store.events(run.id) if (e.settings or {}).get("schema")]
    assert notes and all(server.url in n.text for n in notes)
    assert moves and all(e.settings["structured"] == "json" for e in moves[1:])


def test_an_experiments_structured_setting_is_checked(tmp_path):
    bad_file = tmp_path / "pd.toml"
    bad_file.write_text('kind = "pd"\nmodel = "scripted"\nstructured = "grammar"\n[pd]\ngroups = ["control"]\n')
    bad(studio("lab", "run", str(bad_file), db=tmp_path / "s.db"), "structured", "schema")
    bad_file.write_text('kind = "pd"\nmodel = "scripted"\nsmall = "yes"\n[pd]\ngroups = ["control"]\n')
    bad(studio("lab", "run", str(bad_file), db=tmp_path / "s.db"), "small", "true or false")


@pytest.mark.parametrize("refused, held", [((), "schema"), (("json_schema",), "json"),
                                           (("json_schema", "json_object"), "words")])
def test_models_says_how_each_server_held_a_one_field_schema(tmp_path, refused, held):
    from test_models_usage import _env

    def answer(body: dict):
        if body.get("response_format", {}).get("type") in refused:
            return Status(400, body="response_format is not supported")
        return Reply('{"ok": true}', chunks=1)

    with StubServer(default=answer, max_requests=10, lifetime=30) as server:
        env = _env(STUDIO_API_BASE=server.url, OLLAMA_API_BASE="http://127.0.0.1:9")
        data = json.loads(studio("models", "--json", env=env, db=tmp_path / "x.db").stdout)
        shown = studio("models", env=env, db=tmp_path / "x.db").stdout
    assert data["servers"][-1]["structured"] == held
    assert {"schema": "held a one-field JSON schema", "json": "held one in JSON mode",
            "words": "held no JSON schema"}[held] in shown
