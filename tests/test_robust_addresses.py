"""Addresses of servers: the keys they carry are never shown, stored or logged, they reach the server as
the server expects them, and a malformed or hostile address is refused at once with its field."""

from __future__ import annotations

import base64
import json

import pytest

from conftest import ROOT
from test_cli import bad, studio, workdir  # noqa: F401  (fixture)

SECRETS = ("hunter2secret", "QUERYKEY77", "AZCODE55", "FRAGTOKEN33", "ENCODEDKEY11")


def _address(url: str) -> str:
    """`url` carrying a key every way an address can: a user and password, a query field plain, Azure
    Functions' `code`, a percent-encoded name and a fragment."""
    return (url.replace("http://", "http://reader:hunter2secret@")
            + "?key=QUERYKEY77&code=AZCODE55&ke%79=ENCODEDKEY11#access_token=FRAGTOKEN33")


@pytest.mark.parametrize("text", [
    "http://reader:hunter2secret@host/v1", "http://host/v1?key=QUERYKEY77", "https://fn.example/api/x?code=AZCODE55",
    "http://host/v1?ke%79=ENCODEDKEY11", "http://host/v1#access_token=FRAGTOKEN33",
    "failed at http://host/v1?x=1&api%5Fkey=QUERYKEY77: refused",
])
def test_the_masker_hides_every_kind_of_key_an_address_carries(text):
    from studio.clean import redact_url_credentials, shown_value

    masked = redact_url_credentials(text)
    assert not any(secret in masked for secret in SECRETS), masked
    assert "host" in masked or "fn.example" in masked  # where it points is still said
    assert "not shown" in shown_value(text)


def test_models_reaches_a_server_whose_address_carries_keys_and_never_prints_them():
    from stub_server import Reply, StubServer

    with StubServer([Reply('{"ok": true}')], max_requests=10, lifetime=30) as server:
        env = {"STUDIO_API_BASE": _address(server.url), "OLLAMA_API_BASE": "http://127.0.0.1:9"}
        shown = studio("models", env=env)
        listed = studio("models", "--json", env=env)
        paths = list(server.paths)
        headers = [{k.lower(): v for k, v in h.items()} for h in server.headers]
    for out in (shown, listed):
        assert out.returncode == 0, out.stderr
        assert not any(secret in out.stdout + out.stderr for secret in SECRETS), out.stdout
    assert "openai/stub" in shown.stdout  # it answered: the survey reached it
    data = json.loads(listed.stdout)
    assert data["servers"][-1]["answered"] and "***" in data["servers"][-1]["url"]
    # the path goes after the path, the query after it, the password as Basic credentials
    assert paths[0].startswith("/v1/models?key=QUERYKEY77&code=AZCODE55"), paths
    assert headers and headers[0]["authorization"] == "Basic " + base64.b64encode(b"reader:hunter2secret").decode()


def test_a_call_sends_an_address_query_after_the_path_and_its_password_as_basic_credentials():
    import asyncio

    from stub_server import Reply, StubServer

    from studio.llm import CallContext, CallSettings, Gateway

    with StubServer([Reply("Here I am.")], max_requests=3, lifetime=30) as server:
        address = server.url.replace("http://", "http://reader:hunter2secret@") + "?key=QUERYKEY77&code=AZCODE55"
        settings = CallSettings(model="openai/stub", temperature=0.2, max_tokens=20, retries=0, api_base=address)
        ctx = CallContext(role="other", task="line", character="Jenny")
        reply = asyncio.run(Gateway(backoff=0.001).complete(settings, [{"role": "user", "content": "Speak."}], ctx))
        assert reply.text == "Here I am."
        assert server.paths == ["/v1/chat/completions?key=QUERYKEY77&code=AZCODE55"]
        sent = {k.lower(): v for k, v in server.headers[0].items()}
    assert sent["authorization"] == "Basic " + base64.b64encode(b"reader:hunter2secret").decode()


@pytest.mark.parametrize("address, sent", [(lambda url: url + "?key=QUERYKEY77", "key=QUERYKEY77"),
                                           (_address, "code=AZCODE55")], ids=["a query key", "every kind of key"])
def test_no_key_of_an_address_reaches_the_store_or_an_export(workdir, address, sent):
    from stub_server import Reply, StubServer

    with StubServer([Reply("Tell me where you grew up.")], max_requests=20, lifetime=120) as server:
        sheet = workdir / "characters" / "jenny.toml"
        sheet.write_text(f'api_base = "{address(server.url)}"\nmodel = "openai/stub"\n' + sheet.read_text())
        play = workdir / "plays" / "interview.toml"
        play.write_text(play.read_text().replace("turns = 10", "turns = 1"))
        db = workdir / "s.db"
        run = studio("run", play, "--role", "superego=scripted", "--role", "other=scripted", db=db)
        assert run.returncode == 0, run.stdout + run.stderr
        assert server.paths and all(p.startswith("/v1/chat/completions?") and sent in p for p in server.paths)
        outs = [studio(*command, db=db) for command in (["show", "1"], ["show", "1", "--json", "--all"],
                                                        ["runs", "--json"], ["export", "1", "-o", workdir / "out.md"])]
    stored = b"".join(p.read_bytes() for p in workdir.glob("s.db*")) + b"".join(
        p.read_bytes() for p in workdir.glob("out*"))
    for secret in SECRETS:
        assert secret.encode() not in stored, secret
        assert not any(secret in out.stdout + out.stderr for out in outs), secret


@pytest.mark.parametrize("address", ["localhost:8080", "http//127.0.0.1:8080/v1", "http://127.0.0.1:99999/v1",
                                     "http://127.0.0.1:8080/v1\x1b]0;pwned\x07", "ftp://host/v1"])
def test_a_malformed_api_base_is_refused_at_once_with_its_field(workdir, address):
    sheet = workdir / "characters" / "jenny.toml"
    sheet.write_text(f'api_base = {json.dumps(address)}\nmodel = "openai/stub"\n' + sheet.read_text())
    result = studio("run", workdir / "plays" / "interview.toml", db=workdir / "s.db")
    message = bad(result, "jenny.toml", "api_base", "fix:")
    assert "\x1b" not in result.stdout + result.stderr and "retry" not in message.lower()


def test_a_malformed_studio_api_base_is_refused_with_its_name(workdir):
    result = studio("run", workdir / "plays" / "interview.toml", "--model", "openai/stub", db=workdir / "s.db",
                    env={"STUDIO_API_BASE": "localhost:8080?key=QUERYKEY77"})
    message = bad(result, "STUDIO_API_BASE", "fix:")
    assert "QUERYKEY77" not in message


@pytest.mark.parametrize("endpoint", ["http://127.0.0.1:8000/v1\x1b]0;pwned\x07", "http://127.0.0.1:8000/\x1b[2Jv1",
                                      "http://127.0.0.1:8000/v1\u202e"])
def test_lab_run_refuses_an_endpoint_holding_escape_codes(tmp_path, endpoint):
    experiment = ROOT / "experiments" / "pd_small.toml"
    result = studio("lab", "run", experiment, "--model", "openai/stub", "--endpoint", endpoint, db=tmp_path / "s.db")
    bad(result, "--endpoint", "control characters")
    assert "\x1b" not in result.stdout + result.stderr and "\u202e" not in result.stdout + result.stderr
