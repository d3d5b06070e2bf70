"""A served studio and Debian's chromium driven by playwright-python, for the browser test and the bench.

The browser is the system's (/usr/bin/chromium): nothing is downloaded. The server runs in a thread of the
test's own process, on 127.0.0.1 only, bounded in requests and lifetime, and is stopped when done.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import sys
import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
        "--disable-component-update", "--disable-sync"]


def missing() -> str | None:
    """Why the browser test cannot run here, or None."""
    if CHROMIUM is None:
        return "chromium is not installed (apt-get install chromium; .ci/run does)"
    try:
        import playwright.sync_api  # noqa: F401
        import textual_serve  # noqa: F401
    except ImportError as exc:
        return f"{exc.name} is not installed (pip install -e '.[test]')"
    return None


@contextmanager
def served(command: Sequence[str], *, tabs: int = 4, max_requests: int = 400, lifetime: float = 240.0,
           **options: Any) -> Iterator[Any]:
    from studio.serve import StudioServer

    ready = threading.Event()
    loop = asyncio.new_event_loop()
    server = StudioServer(command, host="127.0.0.1", port=0, tabs=tabs, max_requests=max_requests,
                          lifetime=lifetime, **({"say": lambda _: None} | options))
    failure: list[BaseException] = []

    def run() -> None:
        try:
            loop.run_until_complete(server.run(lambda _: ready.set()))
        except BaseException as exc:  # noqa: BLE001 - handed to the test below
            failure.append(exc)
            ready.set()

    thread = threading.Thread(target=run, daemon=True, name="studio-serve")
    thread.start()
    if not ready.wait(30) or failure:
        raise RuntimeError(f"the server did not start: {failure}")
    try:
        yield server
    finally:
        loop.call_soon_threadsafe(server.stop)
        thread.join(30)


def app_command(db: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "studio", "open", *args, "--db", str(db)]


@contextmanager
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            yield chromium
        finally:
            chromium.close()


ESCAPES = re.compile(r"\x1b(\[[0-9;?<>=]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)|[()][0-9A-Za-z]|[=>78])")


class Tab:
    """One browser tab on the studio, with the text the app has sent it (escape codes taken out)."""

    def __init__(self, context: Any, address: str, name: str | None = "Ana") -> None:
        """`name`: the playwright's name the tab would ask for, given as if asked before (None: the tab asks)."""
        import json

        self.page = context.new_page()
        if name is not None:
            self.page.add_init_script(f"sessionStorage.setItem('studio-name', {json.dumps(name)});")
        self.received: list[str] = []
        self.page.on("websocket", lambda ws: ws.on("framereceived", self._frame))
        self.response = self.page.goto(address)

    def _frame(self, payload: Any) -> None:
        if isinstance(payload, bytes):
            self.received.append(payload.decode("utf-8", "replace"))

    def text(self) -> str:
        return ESCAPES.sub(" ", "".join(self.received))

    def wait_for(self, *texts: str, timeout: float = 60.0) -> None:
        import time

        deadline = time.monotonic() + timeout
        while not all(t in self.text() for t in texts):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {texts}; the tab's last text:\n{self.text()[-2000:]}")
            self.page.wait_for_timeout(100)

    def since(self) -> int:
        """A mark: `wait_for_new` looks only at what arrives after it."""
        return len(self.received)

    def wait_for_new(self, mark: int, *texts: str, timeout: float = 60.0) -> None:
        import time

        deadline = time.monotonic() + timeout
        while True:
            later = ESCAPES.sub(" ", "".join(self.received[mark:]))
            if all(t in later for t in texts):
                return
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {texts}; the tab's newest text:\n{later[-2000:]}")
            self.page.wait_for_timeout(100)

    def wait_for_words(self, mark: int, words: str, timeout: float = 60.0) -> None:
        """Like `wait_for_new`, with the spaces left out of both sides: a toast drawn in pieces (a cursor
        move between them) reads whole."""
        import time

        wanted = "".join(words.split())
        deadline = time.monotonic() + timeout
        while wanted not in "".join(ESCAPES.sub("", "".join(self.received[mark:])).split()):
            if time.monotonic() > deadline:
                raise AssertionError(f"timed out waiting for {words!r} in the tab")
            self.page.wait_for_timeout(100)

    def press(self, *keys: str) -> None:
        for key in keys:
            self.page.keyboard.press(key)
