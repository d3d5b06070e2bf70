"""A small OpenAI-compatible server that misbehaves on request, for tests and benchmarks.

It listens on 127.0.0.1 only, on a free port, answers at most ``max_requests`` requests and shuts
itself down after ``lifetime`` seconds, whichever comes first; used as a context manager it is
always stopped when the block ends.

    with StubServer([Status(429, retry_after=2), Reply("Hello.")]) as server:
        ... model "openai/stub", api_base server.url ...
        assert len(server.requests) == 2

Each request to ``/v1/chat/completions`` takes the next behaviour from the list given (the last one
repeats when the list runs out; a callable ``default`` can decide instead). Behaviours:

- ``Reply(text, latency=0.0, chunks=4)``: a normal answer, streamed in ``chunks`` pieces when the
  request asks for a stream, with a finish reason and usage; ``latency`` seconds before the first byte.
- ``Status(code, retry_after=None, body=None)``: an HTTP error (429, 500, 503...).
- ``Hang(seconds)``: say nothing for that long (past the caller's timeout), then close.
- ``Reset(text, chunked=True)``: stream ``text`` and then cut the connection (TCP reset), without a finish
  reason; ``chunked=False`` sends the stream as a close-delimited body, whose end is the connection's.
- ``Malformed(text)``: stream ``text`` and then a data line that is not JSON.
- ``Empty()``: a well-formed answer with no content.
- ``BadJSON()``: status 200 with a body that is not JSON (non-streamed) or a stream of garbage.
- ``Huge(chars)``: a well-formed answer of that many characters.

``port`` 0 takes a free port; give the port of an earlier server to stand in for it (a restart).
``concurrency`` N serves at most N chat requests at once, as a real server with N slots does: the
rest wait their turn inside the server. ``peak`` is the most chat requests that were open at once
(arrived and not yet answered, waiting ones included): what a client's own limit has to keep down.
``GET /v1/models`` lists ``models``, each with ``meta`` (a dict: llama.cpp's server puts `n_params` there)
when given. Every request body received is kept in ``requests``, every path asked
(with its query) in ``paths``.
"""

from __future__ import annotations

import json
import socket
import struct
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


@dataclass
class Reply:
    text: str
    latency: float = 0.0
    chunks: int = 4


@dataclass
class Status:
    code: int
    retry_after: float | None = None
    body: str | None = None


@dataclass
class Hang:
    seconds: float = 30.0


@dataclass
class Reset:
    text: str = "Half a line and"
    chunked: bool = True  # False: a close-delimited body (no length, no chunks), as some servers send


@dataclass
class Malformed:
    text: str = "Some words"


@dataclass
class Empty:
    pass


@dataclass
class BadJSON:
    pass


@dataclass
class Huge:
    chars: int = 100_000


Behaviour = Reply | Status | Hang | Reset | Malformed | Empty | BadJSON | Huge


class StubServer:
    def __init__(
        self,
        behaviours: list[Behaviour] | None = None,
        *,
        default: Callable[[dict], Behaviour] | None = None,
        models: tuple[str, ...] = ("stub",),
        max_requests: int = 200,
        lifetime: float = 60.0,
        port: int = 0,
        concurrency: int | None = None,
        meta: dict[str, Any] | None = None,
    ):
        self.port = port
        self.meta = meta
        self.slots = threading.BoundedSemaphore(concurrency) if concurrency else None
        self.open = 0
        self.peak = 0
        # with only a `default`, it decides every request from the first
        self.behaviours = list(behaviours) if behaviours else ([] if default else [Reply("A line from the stub.")])
        self.default = default
        self.models = models
        self.max_requests = max_requests
        self.lifetime = lifetime
        self.requests: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []  # each chat request's headers, in the order they came
        self.paths: list[str] = []  # every request's path and query, as the server was asked, in order
        self._lock = threading.Lock()
        self._stopped = threading.Event()
        self._server: ThreadingHTTPServer | None = None
        self._threads: list[threading.Thread] = []

    # -- lifecycle ---------------------------------------------------------------------------

    @property
    def url(self) -> str:
        assert self._server is not None, "start the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def start(self) -> StubServer:
        stub = self

        class Handler(_Handler):
            server_stub = stub

        self._server = _Server(("127.0.0.1", self.port), Handler)
        self._server.daemon_threads = True
        # a client that hangs up mid-answer (a timeout, a reset we asked for) is expected, not news
        self._server.handle_error = lambda request, client_address: None
        serve = threading.Thread(target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        serve.start()
        timer = threading.Thread(target=self._expire, daemon=True)
        timer.start()
        self._threads = [serve, timer]
        return self

    def stop(self) -> None:
        if self._server is not None and not self._stopped.is_set():
            self._stopped.set()
            self._server.shutdown()
            self._server.server_close()

    def _expire(self) -> None:
        if not self._stopped.wait(self.lifetime):
            self.stop()

    def __enter__(self) -> StubServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- behaviour ---------------------------------------------------------------------------

    def next_behaviour(self, body: dict[str, Any]) -> Behaviour | None:
        with self._lock:
            if len(self.requests) >= self.max_requests:
                return None
            self.requests.append(body)
            if self.default is not None and len(self.requests) > len(self.behaviours):
                return self.default(body)
            index = min(len(self.requests), len(self.behaviours)) - 1
            return self.behaviours[index]


class _Server(ThreadingHTTPServer):
    # a batch opens dozens of connections at once; the default backlog of 5 would drop some (a 1 s retry)
    request_queue_size = 128


class _Handler(BaseHTTPRequestHandler):
    server_stub: StubServer
    protocol_version = "HTTP/1.1"
    # as real servers do: a stream's small writes go out at once, not after the client's delayed ACK (~40 ms)
    disable_nagle_algorithm = True

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        with self.server_stub._lock:
            self.server_stub.paths.append(self.path)
        if self.path.split("?")[0].split("#")[0].rstrip("/").endswith("/models"):
            meta = self.server_stub.meta
            data = {"object": "list", "data": [{"id": m, "object": "model", **({"meta": meta} if meta else {})}
                                               for m in self.server_stub.models]}
            self._json(200, data)
        else:
            self._json(404, {"error": {"message": "not found"}})

    def do_POST(self) -> None:
        stub = self.server_stub
        with stub._lock:
            stub.paths.append(self.path)
            stub.open += 1
            stub.peak = max(stub.peak, stub.open)
        try:
            if stub.slots is None:
                self._post()
            else:
                with stub.slots:
                    self._post()
        finally:
            with stub._lock:
                stub.open -= 1

    def _post(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            body = {}
        with self.server_stub._lock:
            self.server_stub.headers.append(dict(self.headers.items()))
        behaviour = self.server_stub.next_behaviour(body)
        if behaviour is None:
            self._json(503, {"error": {"message": "stub server: request limit reached"}})
            return
        stream = bool(body.get("stream"))
        model = str(body.get("model") or "stub")
        if isinstance(behaviour, Status):
            headers = {"Retry-After": f"{behaviour.retry_after:g}"} if behaviour.retry_after is not None else {}
            message = behaviour.body or f"stub says {behaviour.code}"
            self._json(behaviour.code, {"error": {"message": message, "type": "stub", "code": behaviour.code}}, headers)
        elif isinstance(behaviour, Hang):
            self.server_stub._stopped.wait(behaviour.seconds)
            self.close_connection = True
        elif isinstance(behaviour, BadJSON):
            self._raw(200, b"<html>this is not json", "text/event-stream" if stream else "application/json")
        elif isinstance(behaviour, Reply):
            if behaviour.latency:
                time.sleep(behaviour.latency)
            self._answer(model, behaviour.text, stream, behaviour.chunks)
        elif isinstance(behaviour, Huge):
            self._answer(model, ("word " * (behaviour.chars // 5 + 1))[: behaviour.chars], stream, 50)
        elif isinstance(behaviour, Empty):
            self._answer(model, "", stream, 1)
        elif isinstance(behaviour, Reset) and not behaviour.chunked:
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.send_header("Connection", "close")
            self.end_headers()
            self.wfile.write(b"data: " + json.dumps(_chunk(model, behaviour.text)).encode() + b"\n\n")
            self.wfile.flush()
            self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True
        elif isinstance(behaviour, (Reset, Malformed)):
            self._start_stream()
            self._event(_chunk(model, behaviour.text))
            if isinstance(behaviour, Malformed):
                self._write(b"data: {\"choices\": [{\"delta\": {\"content\": \"brok\n\n")
                self._write(b"data: [DONE]\n\n")
                self._write(b"0\r\n\r\n")
            else:
                # an abortive close: the client sees a connection reset mid-stream
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            self.close_connection = True

    # -- writing -------------------------------------------------------------------------------

    def _answer(self, model: str, text: str, stream: bool, chunks: int) -> None:
        usage = {"prompt_tokens": 11, "completion_tokens": len(text.split()), "total_tokens": 11 + len(text.split())}
        if not stream:
            self._json(200, {
                "id": "stub-1", "object": "chat.completion", "created": int(time.time()), "model": model,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
                "usage": usage,
            })
            return
        self._start_stream()
        step = max(1, -(-len(text) // max(1, chunks)))
        for i in range(0, len(text), step):
            self._event(_chunk(model, text[i : i + step]))
        self._event(_chunk(model, None, finish="stop"))
        self._event({**_chunk(model, None), "choices": [], "usage": usage})
        self._write(b"data: [DONE]\n\n")
        self._write(b"0\r\n\r\n")

    def _start_stream(self) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()

    def _event(self, data: dict) -> None:
        self._write(b"data: " + json.dumps(data).encode() + b"\n\n")

    def _write(self, payload: bytes) -> None:
        if payload == b"0\r\n\r\n":
            self.wfile.write(payload)
        else:
            self.wfile.write(f"{len(payload):x}\r\n".encode() + payload + b"\r\n")
        self.wfile.flush()

    def _json(self, code: int, data: dict, headers: dict[str, str] | None = None) -> None:
        self._raw(code, json.dumps(data).encode(), "application/json", headers)

    def _raw(self, code: int, payload: bytes, kind: str, headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(payload)))
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(payload)
        self.wfile.flush()


def _chunk(model: str, text: str | None, finish: str | None = None) -> dict:
    delta = {"content": text} if text is not None else {}
    return {
        "id": "stub-1", "object": "chat.completion.chunk", "created": int(time.time()), "model": model,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }
