"""The embedded model served once for every tab of `studio serve`.

Each tab is a process of its own; loaded in each, the embedded model took about 300 MB per tab. Served
once on 127.0.0.1 by llama-cpp-python's own OpenAI-compatible server (its `[server]` extra), every tab's
`local/smollm2` calls go there instead (studio.settings.shared_embedded). The server starts with `studio
serve` and stops with it; where the extra is not installed, each tab loads its own copy as before.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import urllib.request
from typing import IO

from studio.settings import SHARED_EMBEDDED, SHARED_EMBEDDED_KEY, SHARED_EMBEDDED_NAME

SERVER_MODULES = ("llama_cpp", "fastapi", "uvicorn", "sse_starlette", "starlette_context", "pydantic_settings")


def unavailable() -> str | None:
    """Why the model cannot be served once here, or None."""
    for module in SERVER_MODULES:
        if importlib.util.find_spec(module) is None:
            return f"{module} is not installed (llama-cpp-python's [server] extra)"
    try:
        from studio.llm.local import gguf_path

        gguf_path()
    except Exception as exc:  # noqa: BLE001 - any reason the weights are absent means no shared copy
        return str(exc)
    return None


def _die_with_parent() -> None:
    """On Linux the model server is told to stop when `studio serve` dies, however it dies."""
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG


class SharedModel:
    """llama-cpp-python's server on 127.0.0.1, loading while the first tabs open, answering only calls
    that carry the key drawn for it (`key`), which reaches it and the tabs in their environment, never on
    a command line that any user of the machine can list.

    `port` 0 takes a free one. A `lifetime` (seconds) stops the server then, even when the process that
    started it dies without stopping it: a server started for a bounded task never outlives it. `log`
    keeps what the server prints (its access log counts the requests it served); by default nothing is
    kept."""

    def __init__(self, threads: int | None = None, *, port: int = 0, lifetime: float | None = None,
                 log: IO[bytes] | None = None, keyed: bool = True) -> None:
        if not port:
            with socket.socket() as probe:
                probe.bind(("127.0.0.1", 0))
                port = int(probe.getsockname()[1])
        self.port = port
        self.threads = threads or max(1, (os.cpu_count() or 2) - 1)
        self.lifetime = lifetime
        self.log = log
        self.process: subprocess.Popen[bytes] | None = None
        self.key = os.urandom(24).hex() if keyed else ""  # unkeyed: a stand-in for a server a user runs
        self._timer: threading.Timer | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def launch(self) -> str:
        """Start the server without naming it to anyone; its address."""
        from studio.llm.local import N_CTX, gguf_path

        command = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf_path()),
                   "--model_alias", SHARED_EMBEDDED_NAME, "--host", "127.0.0.1", "--port", str(self.port),
                   "--n_ctx", str(N_CTX), "--n_threads", str(self.threads), "--verbose", "False"]
        if self.lifetime is not None and shutil.which("timeout"):
            command = ["timeout", "--signal=TERM", "--kill-after=10", f"{self.lifetime:.0f}", *command]
        # keys for hosted models are no business of a local model server
        env = {k: v for k, v in os.environ.items() if not k.endswith("_API_KEY")}
        # its own key, and the loopback address even where HOST or PORT in the environment say otherwise
        # (llama-cpp-python's server reads both over its own arguments)
        env |= {"HOST": "127.0.0.1", "PORT": str(self.port)}
        env.pop(SHARED_EMBEDDED_KEY, None)
        env.pop("API_KEY", None)
        if self.key:
            env["API_KEY"] = self.key
        out = self.log if self.log is not None else subprocess.DEVNULL
        self.process = subprocess.Popen(command, stdout=out, stderr=subprocess.STDOUT, env=env,
                                        start_new_session=True, preexec_fn=_die_with_parent)
        if self.lifetime is not None:
            self._timer = threading.Timer(self.lifetime, self.stop)
            self._timer.daemon = True
            self._timer.start()
        return self.url

    def start(self) -> str:
        """Start the server and name it to the tabs to come (they inherit the environment); its address."""
        os.environ[SHARED_EMBEDDED] = self.launch()
        os.environ[SHARED_EMBEDDED_KEY] = self.key
        return self.url

    def answers(self) -> bool:
        """Whether the server has loaded the model and lists it (it takes a while to load)."""
        try:
            asked = urllib.request.Request(self.url + "/models",
                                           headers={"Authorization": f"Bearer {self.key}"} if self.key else {})
            with urllib.request.urlopen(asked, timeout=1) as reply:  # noqa: S310 - 127.0.0.1
                return bool(json.loads(reply.read())["data"])
        except (OSError, ValueError, KeyError, TypeError):
            return False

    def stop(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        if os.environ.get(SHARED_EMBEDDED) == self.url:
            del os.environ[SHARED_EMBEDDED]
            os.environ.pop(SHARED_EMBEDDED_KEY, None)
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(10)
