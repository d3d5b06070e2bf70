"""llama-cpp-python's own OpenAI-compatible server, with the bundled SmolLM2, for tests of the HTTP road.

A real server with a real model behind it: it validates requests, refuses what it does not take, streams,
counts tokens and holds replies to a schema the way servers users run do, where tests/stub_server.py only
answers what it was written to answer. It listens on 127.0.0.1 on a free port, lives at most `lifetime`
seconds (a timer stops it if a test forgets), and is stopped when the `with` block ends.

    with LlamaServer() as server:
        ... model "openai/smollm2", api_base server.url ...
        server.chat_requests()  # how many chat completions it served
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
from pathlib import Path

ALIAS = "smollm2"


def missing() -> str | None:
    """Why the server cannot run here, or None."""
    for module in ("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings"):
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (llama-cpp-python's [server] extra)"
    try:
        from studio.llm.local import gguf_path

        gguf_path()
    except Exception as exc:  # noqa: BLE001 - any reason the model is absent is a reason to skip
        return f"the bundled model is not installed ({exc})"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class LlamaServer:
    def __init__(self, *, lifetime: float = 600.0, n_ctx: int = 2048, startup: float = 120.0, threads: int = 1):
        self.lifetime = lifetime
        self.n_ctx = n_ctx
        self.startup = startup
        self.threads = threads
        self.port = _free_port()
        self.process: subprocess.Popen[bytes] | None = None
        self._log = tempfile.NamedTemporaryFile(prefix="llama-server-", suffix=".log", delete=False)
        self._timer: threading.Timer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def start(self) -> LlamaServer:
        from studio.llm.local import gguf_path

        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path()), "--model_alias", ALIAS,
                   "--host", "127.0.0.1", "--port", str(self.port), "--n_ctx", str(self.n_ctx), "--n_threads", str(self.threads),
                   "--verbose", "False"]
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        self.process = subprocess.Popen(command, stdout=self._log, stderr=subprocess.STDOUT, env=env,
                                        start_new_session=True)
        self._timer = threading.Timer(self.lifetime, self.stop)
        self._timer.daemon = True
        self._timer.start()
        deadline = time.monotonic() + self.startup
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"llama-cpp-python's server exited at start:\n{self.log()[-2000:]}")
            with contextlib.suppress(OSError, ValueError):
                with urllib.request.urlopen(self.url + "/models", timeout=1) as reply:  # noqa: S310 - 127.0.0.1
                    if json.loads(reply.read())["data"]:
                        return self
            time.sleep(0.2)
        self.stop()
        raise RuntimeError(f"llama-cpp-python's server did not answer within {self.startup:g} s")

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)

    def log(self) -> str:
        return Path(self._log.name).read_text(encoding="utf-8", errors="replace")

    def chat_requests(self) -> int:
        """Chat completions the server answered (its access log's lines)."""
        return sum("POST /v1/chat/completions" in line for line in self.log().splitlines())

    def __enter__(self) -> LlamaServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        with contextlib.suppress(OSError):
            os.unlink(self._log.name)
