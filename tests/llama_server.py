"""llama-cpp-python's own OpenAI-compatible server, with the bundled SmolLM2, for tests of the HTTP road.

A real server with a real model behind it: it validates requests, refuses what it does not take, streams,
counts tokens and holds replies to a schema the way servers users run do, where tests/stub_server.py only
answers what it was written to answer. It is the one `studio serve` starts (studio.serve.model), on a
free port of 127.0.0.1; it lives at most `lifetime` seconds (stopped then if a test forgets) and is
stopped when the `with` block ends.

    with LlamaServer() as server:
        ... model "openai/smollm2", api_base server.url ...
        server.chat_requests()  # how many chat completions it served
"""

from __future__ import annotations

import contextlib
import os
import tempfile
import time
from pathlib import Path

from studio.serve.model import SharedModel
from studio.settings import SHARED_EMBEDDED_NAME

ALIAS = SHARED_EMBEDDED_NAME


class LlamaServer:
    def __init__(self, *, lifetime: float = 600.0, startup: float = 120.0, threads: int = 1):
        self.startup = startup
        self._log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log", delete=False)
        self.model = SharedModel(threads, lifetime=lifetime, log=self._log, keyed=False)  # as a user runs it

    @property
    def url(self) -> str:
        return self.model.url

    def start(self) -> LlamaServer:
        self.model.launch()
        deadline = time.monotonic() + self.startup
        while time.monotonic() < deadline:
            if self.model.process is not None and self.model.process.poll() is not None:
                raise RuntimeError(f"llama-cpp-python's server exited at start:\n{self.log()[-2000:]}")
            if self.model.answers():
                return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"llama-cpp-python's server did not answer within {self.startup:g} s")

    def stop(self) -> None:
        self.model.stop()

    def log(self) -> str:
        return Path(self._log.name).read_text(encoding="utf-8", errors="replace")

    def chat_requests(self) -> int:
        """Chat completions the server answered (its access log's lines)."""
        return sum("POST /v1/chat/completions" in line for line in self.log().splitlines())

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        self._log.close()
        with contextlib.suppress(OSError):
            os.unlink(self._log.name)
