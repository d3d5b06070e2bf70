"""The studio in a browser tab: each tab runs the app in a process of its own, through textual-serve.

The page, its script and its fonts all come from this server: a tab asks nothing of any other host. Every
request carries the serving token (in the first address, then in a cookie the first page sets), so a
stranger who can reach the port, or a page on another site in the same browser, gets nothing but a
refusal, and a wrong token is answered more slowly each time. The token is printed once, in the address
to open, and never written to a log or a file. The connection is plain HTTP: off this machine, it is
only as private as the network unless a TLS proxy stands in front (docs/serving.md).
"""

from __future__ import annotations

import asyncio
import hmac
import html
import ipaddress
import secrets
import shlex
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from aiohttp import web
from textual_serve.server import Server

PAGE = Path(__file__).with_name("page.html")
COOKIE = "studio_token"
TABS = 8
"""Tabs open at once by default: each is a process of its own, about 60 MB before a model is loaded."""
SLOWEST_REFUSAL = 8.0
"""Seconds the slowest refusal waits: a wrong token waits a quarter second, then twice as long each time."""
QUIET_FORGIVES = 600.0
"""Seconds without a wrong token after which a client's count of them starts again."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


class StudioServer(Server):
    """textual-serve's server, with the token on every request, a cap on tabs and only local assets.

    `max_requests` and `lifetime` bound a server a test starts: past either it stops by itself."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        host: str = "127.0.0.1",
        port: int = 8000,
        tabs: int = TABS,
        token: str | None = None,
        max_requests: int | None = None,
        lifetime: float | None = None,
        say: Callable[[str], None] = print,
    ) -> None:
        super().__init__(shlex.join(command), host=host, port=port, title="studio")
        self.token = token or secrets.token_urlsafe(24)
        self.tabs = tabs
        self.open_tabs = 0
        self.max_requests = max_requests
        self.lifetime = lifetime
        self.requests = 0
        self.say = say
        self.bound_port = port
        self._failures: dict[str, tuple[int, float]] = {}
        self._stop = asyncio.Event()

    # -- the token -------------------------------------------------------------------------------

    def _carries_token(self, request: web.Request) -> bool:
        given = request.query.get("token") or request.cookies.get(COOKIE) or ""
        return hmac.compare_digest(given.encode(), self.token.encode())

    def _refusal_wait(self, client: str) -> float:
        """How long this client's refusal waits: it doubles with each wrong token, up to SLOWEST_REFUSAL."""
        now = time.monotonic()
        count, last = self._failures.get(client, (0, now))
        if now - last > QUIET_FORGIVES:
            count = 0
        self._failures[client] = (count + 1, now)
        if len(self._failures) > 10_000:  # many clients guessing: forget the oldest, keep the table small
            for stale in sorted(self._failures, key=lambda key: self._failures[key][1])[:5_000]:
                del self._failures[stale]
        return min(SLOWEST_REFUSAL, 0.25 * 2 ** min(count, 8))

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self.requests += 1
        if self.max_requests is not None and self.requests >= self.max_requests:
            self._stop.set()
        if not self._carries_token(request):
            await asyncio.sleep(self._refusal_wait(request.remote or "?"))
            return web.Response(
                status=403,
                text="This studio needs the address with its token, as `studio serve` printed it.\n",
            )
        if request.path == "/ws" and not self._same_origin(request):
            return web.Response(status=403, text="The studio's tabs open from the studio's own page.\n")
        if request.path == "/" and "token" in request.query:
            # The token moves into a cookie, and out of the address bar the page would otherwise keep.
            response = web.Response(status=302, headers={"Location": "/"})
            response.set_cookie(COOKIE, self.token, httponly=True, samesite="Strict", path="/")
            return self._hardened(response)
        return self._hardened(await handler(request))

    @staticmethod
    def _same_origin(request: web.Request) -> bool:
        """A socket opened by a page from another site carries that site's origin: it is refused."""
        origin = request.headers.get("Origin")
        if origin is None:
            return True  # not a browser page: the token alone decides
        return origin.split("://", 1)[-1] == request.host

    @staticmethod
    def _hardened(response: web.StreamResponse) -> web.StreamResponse:
        response.headers.setdefault("Referrer-Policy", "no-referrer")
        response.headers.setdefault("X-Frame-Options", "DENY")
        response.headers.setdefault("X-Content-Type-Options", "nosniff")
        response.headers.setdefault("Cache-Control", "no-store")
        return response

    # -- the routes ------------------------------------------------------------------------------

    async def _make_app(self) -> web.Application:
        app = web.Application(middlewares=[self._guard])
        app.add_routes([
            web.get("/", self.handle_page, name="index"),
            web.get("/ws", self.handle_websocket, name="websocket"),
            web.get("/download/{key}", self.handle_download, name="download"),
            web.static("/static", self.statics_path, show_index=False, name="static"),
            web.get("/favicon.ico", self.handle_no_icon),
        ])
        return app

    async def handle_page(self, request: web.Request) -> web.Response:
        nonce = secrets.token_urlsafe(16)
        size = request.query.get("fontsize", "16")
        text = (
            PAGE.read_text(encoding="utf-8")
            .replace("{{ title }}", html.escape(self.title))
            .replace("{{ nonce }}", nonce)
            .replace("{{ font_size }}", size if size.isdigit() and len(size) < 3 else "16")
        )
        response = web.Response(text=text, content_type="text/html")
        # Everything the page loads or connects to is this server's.
        response.headers["Content-Security-Policy"] = (
            f"default-src 'self'; script-src 'self' 'nonce-{nonce}'; style-src 'self' 'unsafe-inline'; "
            f"img-src 'self' data: blob:; font-src 'self'; connect-src 'self' ws://{request.host} "
            f"wss://{request.host}; frame-ancestors 'none'; base-uri 'none'; form-action 'none'"
        )
        return response

    async def handle_no_icon(self, request: web.Request) -> web.Response:
        return web.Response(status=204)

    async def handle_websocket(self, request: web.Request) -> web.WebSocketResponse:
        if self.open_tabs >= self.tabs:
            raise web.HTTPServiceUnavailable(
                text=f"The studio has {self.tabs} tabs open, as many as it serves; close one and reload.\n"
            )
        self.open_tabs += 1
        try:
            return await super().handle_websocket(request)
        finally:
            self.open_tabs -= 1

    # -- running ---------------------------------------------------------------------------------

    def address(self) -> str:
        host = self.host if ":" not in self.host else f"[{self.host}]"
        return f"http://{host}:{self.bound_port}/?token={self.token}"

    async def run(self, started: Callable[[StudioServer], None] | None = None) -> None:
        """Serve until stopped (`stop()`, a signal), or until `max_requests` or `lifetime` runs out."""
        # No access log: the first request's address carries the token.
        runner = web.AppRunner(await self._make_app(), access_log=None, handle_signals=False)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        await site.start()
        sockets = getattr(site._server, "sockets", None) or []  # the port the system gave for port 0
        if sockets:
            self.bound_port = sockets[0].getsockname()[1]
        if started is not None:
            started(self)
        try:
            await asyncio.wait_for(self._stop.wait(), self.lifetime)
        except TimeoutError:
            pass
        finally:
            await runner.cleanup()

    def stop(self) -> None:
        self._stop.set()

    def serve(self, debug: bool = False) -> None:
        import signal

        async def main() -> None:
            loop = asyncio.get_running_loop()
            for signum in (signal.SIGINT, signal.SIGTERM):
                try:
                    loop.add_signal_handler(signum, self.stop)
                except NotImplementedError:
                    pass
            await self.run(self._announce)

        asyncio.run(main())

    def _announce(self, server: StudioServer) -> None:
        self.say(f"The studio is served at:\n\n    {self.address()}\n")
        self.say("Open that address in a browser; the token in it is the key, so share it only with the room.")
        if not is_loopback(self.host):
            self.say(
                f"Listening on {self.host}, beyond this machine. The connection is not encrypted: anyone on "
                "the network path can read the token and the play. Put a TLS proxy in front "
                "(docs/serving.md) on any network you do not trust."
            )
        self.say(f"At most {self.tabs} tabs at once. Ctrl+C stops the studio and every tab.")


def app_command(db: str | None) -> list[str]:
    """The command each tab runs: this Python's studio app, on the same run store."""
    command = [sys.executable, "-m", "studio", "open"]
    if db:
        command += ["--db", str(Path(db).resolve())]
    return command
