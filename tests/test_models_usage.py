"""`studio models` against servers on 127.0.0.1, and what runs cost in `studio show`, `studio runs --json`
and the app's status line."""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from conftest import PLAYS
from test_cli import studio_process as studio

SECRET = "sk-test-0123456789abcdef"


class _Handler(BaseHTTPRequestHandler):
    """An Ollama and an OpenAI-compatible server in one: model lists, and chat completions streamed."""

    def log_message(self, *args):  # keep the test output clean
        pass

    def _json(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self):
        self.server.seen.append(("GET", self.path, None))  # type: ignore[attr-defined]
        if self.path == "/api/tags":
            self._json({"models": [{"name": "llama3.2:1b"}, {"name": "qwen2.5:0.5b"}]})
        elif self.path == "/v1/models":
            self._json({"object": "list", "data": [{"id": "tiny-1", "object": "model"}]})
        else:
            self.send_error(404)

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        self.server.seen.append(("POST", self.path, body))  # type: ignore[attr-defined]
        n = sum(1 for s in self.server.seen if s[0] == "POST")  # type: ignore[attr-defined]
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()

        def event(payload: dict) -> None:
            self.wfile.write(b"data: " + json.dumps(payload).encode() + b"\n\n")

        base = {"id": f"c{n}", "object": "chat.completion.chunk", "created": 0, "model": body["model"]}
        for piece in (f"Line {n} ", "from the tiny server."):
            event({**base, "choices": [{"index": 0, "delta": {"content": piece}, "finish_reason": None}]})
        event({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
        event({**base, "choices": [], "usage": {"prompt_tokens": 100, "completion_tokens": 6, "total_tokens": 106}})
        self.wfile.write(b"data: [DONE]\n\n")


@pytest.fixture
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.seen = []  # type: ignore[attr-defined]
    thread = threading.Thread(target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def silent():
    """A port that takes connections and never says a word."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    sock.listen(8)
    yield f"http://127.0.0.1:{sock.getsockname()[1]}"
    sock.close()


def _env(**extra: str) -> dict:
    """The environment without any real key or server of the machine running the tests."""
    cleared = {k: "" for k in os.environ if k.endswith("_API_KEY") or k in ("STUDIO_API_BASE", "OLLAMA_API_BASE")}
    return {**cleared, **extra}


def test_models_lists_the_built_ins_the_keys_set_and_what_the_servers_serve(server, tmp_path):
    url = f"http://127.0.0.1:{server.server_address[1]}"
    env = _env(OPENAI_API_KEY=SECRET, OLLAMA_API_BASE=url, STUDIO_API_BASE=url + "/v1")
    done = studio("models", env=env, db=tmp_path / "x.db")
    out = done.stdout
    assert done.returncode == 0, done.stderr
    assert "--model local/smollm2" in out and "--model scripted" in out
    assert "OPENAI_API_KEY is set" in out and "--model openai/gpt-4o-mini" in out
    assert "ANTHROPIC_API_KEY" in out  # named among those not set
    assert SECRET not in out + done.stderr
    assert "--model ollama_chat/llama3.2:1b" in out and "--model ollama_chat/qwen2.5:0.5b" in out
    assert "--model openai/tiny-1" in out
    assert "--role" in out
    data = json.loads(studio("models", "--json", env=env, db=tmp_path / "x.db").stdout)
    assert SECRET not in json.dumps(data)
    assert [s["answered"] for s in data["servers"]] == [True, True]


def test_a_silent_server_costs_at_most_a_second(silent, tmp_path):
    env = _env(OLLAMA_API_BASE=silent, STUDIO_API_BASE=silent + "/v1")
    started = time.monotonic()
    done = studio("models", env=env, db=tmp_path / "x.db")
    assert done.returncode == 0, done.stderr
    # both servers are asked at once, each gets one second; the rest is the interpreter starting
    assert time.monotonic() - started < 1.0 + 4.0
    assert done.stdout.count("no answer within 1 s") == 2


def test_the_line_models_prints_for_a_studio_api_base_server_runs_a_play(server, tmp_path):
    url = f"http://127.0.0.1:{server.server_address[1]}/v1"
    db = tmp_path / "run.db"
    env = _env(STUDIO_API_BASE=url)
    done = studio("run", PLAYS / "interview.toml", "--model", "openai/tiny-1", "--turns", "1", "--strategies", "none",
                  env=env, db=db)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "from the tiny server" in done.stdout
    assert "tiny offline model" not in done.stdout  # the embedded model's hint is for the embedded model
    posts = [body for method, _, body in server.seen if method == "POST"]
    assert posts and all(body["model"] == "tiny-1" for body in posts)
    speak = posts[0]
    assert speak["temperature"] == 0.4 and "\n\n" in speak["stop"]  # the paper's temperature for the other
    # tokens and cost: the server's counts; a model litellm's cost map does not price is "unknown"
    runs = [json.loads(x) for x in studio("runs", "--json", db=db).stdout.splitlines()]
    spent = runs[0]["usage"]
    assert spent["prompt_tokens"] == 100 * len(posts) and spent["completion_tokens"] == 6 * len(posts)
    assert spent["calls"] == len(posts) and spent["cost_usd"] == "unknown"
    assert set(spent["roles"]) == {"other", "ego"}
    show = studio("show", "1", db=db).stdout
    assert "cost unknown" in show and "Sasha (other), openai/tiny-1" in show


def test_usage_is_counted_per_role_and_priced_from_the_local_cost_map():
    from studio import usage
    from studio.store.events import Event

    def call(role, model, prompt, completion, **extra):
        return Event(0, 1, None, "stage", "x", role=role, model=model,
                     usage={"prompt_tokens": prompt, "completion_tokens": completion, **extra})

    priced = usage.tally([call("ego", "openai/gpt-4o-mini", 1_000_000, 0),
                          call("other", "local/smollm2", 500, 50),
                          call("ego", "openai/gpt-4o-mini", 0, 1_000_000, calls=2)])
    mini = usage.prices("openai/gpt-4o-mini")
    assert mini is not None and mini[0] > 0
    assert priced.roles["ego"].cost == pytest.approx(1e6 * mini[0] + 1e6 * mini[1])
    assert priced.roles["other"].cost == 0.0
    assert (priced.total.calls, priced.roles["ego"].calls) == (4, 3)
    unknown = usage.tally([call("ego", "openai/gpt-4o-mini", 10, 10), call("other", "someone/made-up", 10, 10)])
    assert unknown.total.as_dict()["cost_usd"] == "unknown" and unknown.roles["ego"].cost is not None
    assert usage.prices("ollama_chat/llama3") == (0.0, 0.0)  # priced as ollama
    assert usage.prices("anthropic/gpt-4o-mini") is None  # a name priced for another provider is not a price


async def test_the_apps_status_line_counts_tokens_as_the_run_goes(engine_for):
    from studio.tui.views import status

    engine = engine_for(turns=2, strategies=[])
    assert "tokens" not in status(engine).plain
    await engine.play_turn()
    first = status(engine).plain
    await engine.play_turn()
    second = status(engine).plain
    assert "tokens, $0" in first
    count = lambda text: int(text.split(" tokens")[0].rsplit(" ", 1)[1])  # noqa: E731
    spent = engine.usage()
    assert count(first) < count(second) == spent["prompt_tokens"] + spent["completion_tokens"]
