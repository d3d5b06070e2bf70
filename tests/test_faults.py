"""Every kind of provider fault, through the real litellm road, against a stub server on 127.0.0.1."""

from __future__ import annotations

import asyncio
import sqlite3
import time

import pytest

from conftest import ROOT
from stub_server import BadJSON, Empty, Hang, Huge, Malformed, Reply, Reset, Status, StubServer
from test_cli import studio, workdir  # noqa: F401  (fixture)

from studio.llm.faults import MAX_PAUSE
from studio.llm.gateway import CallContext, CallSettings, Gateway, ModelError

CTX = CallContext(role="other", task="line", character="Jenny", scene=1, turn=1)
MESSAGES = [{"role": "user", "content": "Say a line."}]


def ask(server: StubServer, *, retries: int = 2, timeout: float = 30.0, backoff: float = 0.01):
    retries_seen: list[str] = []
    tokens: list[str] = []
    settings = CallSettings(model="openai/stub", temperature=0.4, max_tokens=60, timeout=timeout,
                            api_base=server.url, retries=retries)
    gateway = Gateway(backoff=backoff)

    async def go():
        return await gateway.complete(settings, MESSAGES, CTX, on_token=tokens.append,
                                      on_retry=lambda n, why: retries_seen.append(why))
    return asyncio.run(go()), retries_seen, tokens


FAULTS = [
    (Status(429), "rate limited"),
    (Status(500), "unavailable"),
    (Status(503), "unavailable"),
    (Status(502), "unavailable"),
    (Reset("Half a line and"), "cut off"),
    (Reset(""), "cut off"),
    (Reset("Half a line and", chunked=False), "cut off"),
    (Reset("", chunked=False), "no text"),
    (Malformed("Some words"), "malformed"),
    (Empty(), "no text"),
    (BadJSON(), "no text"),
]


@pytest.mark.parametrize("fault, words", FAULTS, ids=lambda x: type(x).__name__ if not isinstance(x, str) else x)
def test_a_fault_is_retried_and_only_the_whole_answer_is_kept(fault, words):
    with StubServer([fault, Reply("A whole line, finished.")], max_requests=5, lifetime=30) as server:
        completion, reasons, tokens = ask(server)
    assert completion.text == "A whole line, finished."
    assert completion.attempts == 2 and len(server.requests) == 2
    assert words in reasons[0] and "trying again" in reasons[0]


@pytest.mark.parametrize("fault, words", FAULTS, ids=lambda x: type(x).__name__ if not isinstance(x, str) else x)
def test_a_fault_that_persists_is_an_error_not_a_line(fault, words):
    with StubServer([fault], max_requests=5, lifetime=30) as server:
        with pytest.raises(ModelError) as caught:
            ask(server, retries=1)
    assert words in str(caught.value) and "after 2 attempts" in str(caught.value)
    assert "could not reach" not in str(caught.value)  # a broken reply is not a network failure


def test_a_hang_past_the_timeout_is_retried():
    with StubServer([Hang(10), Reply("Late, but whole.")], max_requests=5, lifetime=30) as server:
        completion, reasons, _ = ask(server, timeout=1.0)
    assert completion.text == "Late, but whole." and "no answer within 1s" in reasons[0]


def test_retry_after_is_honoured_and_capped():
    with StubServer([Status(429, retry_after=1.5), Reply("Now then.")], max_requests=5, lifetime=30) as server:
        started = time.monotonic()
        completion, reasons, _ = ask(server)
        waited = time.monotonic() - started
    assert completion.text == "Now then." and waited >= 1.4  # backoff alone would be 0.01 s
    assert "in 2 s" in reasons[0]  # the wait is said, rounded
    gateway = Gateway(backoff=0.01)

    class Told(Exception):
        litellm_response_headers = {"retry-after": "86400"}
    assert gateway._pause(1, Told()) == MAX_PAUSE


def test_escape_sequences_and_a_huge_reply_arrive_as_plain_bounded_text():
    nasty = "\x1b]0;pwned\x07Hello \x1b[2J\x1b[?1049hthere \x1b]8;;http://x\x1b\\link\x1b]8;;\x1b\\."
    with StubServer([Reply(nasty), Huge(100_000)], max_requests=5, lifetime=30) as server:
        completion, _, tokens = ask(server)
        assert completion.text == "Hello there link."
        assert not any("\x1b" in t for t in tokens)
        huge, _, _ = ask(server)
    assert len(huge.text) == 100_000


def _events(db):
    with sqlite3.connect(db) as con:
        return con.execute("SELECT kind, text FROM events ORDER BY id").fetchall()


def test_a_run_keeps_no_broken_line_and_resumes_where_it_stopped(workdir):
    db = workdir / "s.db"
    env = {"STUDIO_API_BASE": "", "STUDIO_RETRY_BACKOFF": "0.01"}
    play = ROOT / "plays" / "interview.toml"
    # a good line, then a stream cut mid-line on every attempt
    with StubServer([Reply("Tell me where you grew up."), Reset("Half a line and")], max_requests=20, lifetime=60) as s:
        env["STUDIO_API_BASE"] = s.url
        first = studio("run", play, "--model", "openai/stub", "--no-superego", "--turns", "2", db=db, env=env)
        port = s._server.server_address[1]
    assert first.returncode == 1, first.stdout + first.stderr
    assert "cut off" in first.stdout and "Traceback" not in first.stderr
    events = _events(db)
    assert ("stage", "Tell me where you grew up.") in events
    assert not any("Half a line and" == text for kind, text in events if kind == "stage")
    assert events[-1][0] == "error" and "cut off" in events[-1][1]
    with StubServer([Reply("By the harbour, mostly.")], max_requests=20, lifetime=60, port=port):
        again = studio("resume", "1", db=db, env=env)
    assert again.returncode == 0, again.stdout + again.stderr
    lines = [text for kind, text in _events(db) if kind == "stage"]
    assert lines[:2] == ["Tell me where you grew up.", "By the harbour, mostly."]


def test_the_wait_is_said_before_any_token(workdir, monkeypatch):
    from studio.present import terminal

    monkeypatch.setattr(terminal, "WAIT_NOTICE", 0.2)
    db = workdir / "s.db"
    with StubServer([Reply("Slow, but here.", latency=1.0)], max_requests=20, lifetime=60) as s:
        env = {"STUDIO_API_BASE": s.url, "STUDIO_RETRY_BACKOFF": "0.01"}
        done = studio("run", ROOT / "plays" / "interview.toml", "--model", "openai/stub", "--no-superego",
                      "--turns", "1", db=db, env=env)
    assert done.returncode == 0, done.stderr
    assert "waiting for" in done.stdout and "openai/stub" in done.stdout
