"""The studio in a browser tab: each tab runs the app in a process of its own, through textual-serve.

The page, its script and its fonts all come from this server: a tab asks nothing of any other host. The
token is printed once, in the address to open; the page keeps it in the tab (sessionStorage, which only
pages of this very server, port included, can read), takes it out of the address bar, and sends it on
the socket that drives the tab and on each download. No cookie carries it: a browser sends a cookie for
127.0.0.1 to every port of 127.0.0.1, so another local server could read it. The page and its files hold
no secret and are served to anyone who asks; the socket and downloads are refused without the token, and
a wrong token is answered more slowly each time (studio/serve/door.py, which also caps the connections a
stranger may hold). Off loopback the server speaks TLS (`--cert`, `--key`), or plain HTTP only when
`--insecure` says so (docs/serving.md).
"""

from __future__ import annotations

import asyncio
import hmac
import html
import ipaddress
import json
import secrets
import shlex
import ssl
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from aiohttp import WSMsgType, web
from textual_serve.app_service import AppService
from textual_serve.server import Server

from studio.serve.door import Door

PAGE = Path(__file__).with_name("page.html")
TABS = 8
"""Tabs open at once by default: each is a process of its own, about 60 MB before a model is loaded."""
COLUMNS = (20, 400)
ROWS = (8, 200)
"""The terminal sizes a tab may ask for: a browser window of 100,000 columns would ask the app to lay out
(and the server to hold) a screen of billions of cells."""
HEARTBEAT = 2.0
"""Seconds between pings on a tab's socket: a tab that stops answering (killed, its machine asleep) is
closed within about twice this, and its place among the tabs freed."""
STOPPING = 5.0
"""Seconds a closed tab's app has to quit before it is killed."""


def is_loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def bounded(value: Any, limits: tuple[int, int]) -> int:
    """A terminal's width or height as a tab gives it, kept within `limits`."""
    try:
        number = int(value)
    except (TypeError, ValueError):
        number = limits[0]
    return max(limits[0], min(limits[1], number))


class TabService(AppService):
    """textual-serve's process for one tab, told the name its playwright gave (STUDIO_NAME, which `studio
    open` reads as --name), and stopped for good: a tab's app that does not quit when asked is killed."""

    def __init__(self, command: str, *, name: str, **kwargs: Any) -> None:
        super().__init__(command, **kwargs)
        from studio.store.leases import person

        self.name = person(name)

    def _build_environment(self, width: int = 80, height: int = 24) -> dict[str, str]:
        environment = super()._build_environment(width, height)
        environment.pop("STUDIO_NAME", None)
        if self.name:
            environment["STUDIO_NAME"] = self.name
        return environment

    async def halt(self) -> None:
        try:
            await asyncio.wait_for(self.stop(), STOPPING)
        except (TimeoutError, ConnectionError, RuntimeError):
            pass
        process = self._process
        if process is not None and process.returncode is None:
            process.kill()
            await process.wait()


class StudioServer(Server):
    """textual-serve's server, with the token on the socket, a cap on tabs, only local assets, and a door
    that counts connections before any token is read.

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
        tls: ssl.SSLContext | None = None,
        door: Door | None = None,
    ) -> None:
        super().__init__(shlex.join(command), host=host, port=port, title="studio")
        self.token = token or secrets.token_urlsafe(24)
        self.tabs = tabs
        self.open_tabs = 0
        self.max_requests = max_requests
        self.lifetime = lifetime
        self.requests = 0
        self.say = say
        self.tls = tls
        self.door = door or Door(say)
        self.bound_port = port
        self._stop = asyncio.Event()

    # -- the token -------------------------------------------------------------------------------

    def _carries_token(self, request: web.Request) -> bool:
        given = request.query.get("token") or ""
        return hmac.compare_digest(given.encode(), self.token.encode())

    @web.middleware
    async def _guard(self, request: web.Request, handler: Any) -> web.StreamResponse:
        self.requests += 1
        if self.max_requests is not None and self.requests >= self.max_requests:
            self._stop.set()
        if request.transport is not None:
            self.door.arrived(request.transport)
        public = request.path.startswith("/static/") or request.path == "/favicon.ico" or (
            request.path == "/" and "token" not in request.query)
        if not public and not self._carries_token(request):
            # the page and its files are the same for everyone; what drives a tab needs the token
            await self.door.refuse(request.remote or "?")
            return web.Response(
                status=403,
                text="This studio needs the address with its token, as `studio serve` printed it.\n",
            )
        if request.path == "/ws" and not self._same_origin(request):
            return web.Response(status=403, text="The studio's tabs open from the studio's own page.\n")
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
        """One tab: its app, in a process of its own, for as long as its socket answers."""
        if self.open_tabs >= self.tabs:
            raise web.HTTPServiceUnavailable(
                text=f"The studio has {self.tabs} tabs open, as many as it serves; close one and reload.\n"
            )
        self.open_tabs += 1
        try:
            return await self._tab(request)
        finally:
            self.open_tabs -= 1

    async def _tab(self, request: web.Request) -> web.WebSocketResponse:
        websocket = web.WebSocketResponse(heartbeat=HEARTBEAT)
        width, height = bounded(request.query.get("width"), COLUMNS), bounded(request.query.get("height"), ROWS)
        await websocket.prepare(request)
        service = TabService(
            self.command, name=request.query.get("name", ""), write_bytes=websocket.send_bytes,
            write_str=websocket.send_str, close=websocket.close, download_manager=self.download_manager,
            debug=False,
        )
        await service.start(width, height)
        try:
            await self._relay(websocket, service)
        except (asyncio.CancelledError, ConnectionError):
            pass
        finally:
            await service.halt()
            if not websocket.closed:
                await websocket.close()
        return websocket

    @staticmethod
    async def _relay(websocket: web.WebSocketResponse, service: AppService) -> None:
        """What the tab sends, to its app: keys, a new size (kept within COLUMNS and ROWS), focus."""
        async for message in websocket:
            if message.type != WSMsgType.TEXT:
                continue
            try:
                kind, data = json.loads(message.data)
            except (ValueError, TypeError):
                continue  # not the page's: dropped
            if kind == "stdin" and isinstance(data, str):
                await service.send_bytes(data.encode("utf-8"))
            elif kind == "resize" and isinstance(data, dict):
                await service.set_terminal_size(bounded(data.get("width"), COLUMNS), bounded(data.get("height"), ROWS))
            elif kind == "ping":
                await websocket.send_json(["pong", data])
            elif kind == "blur":
                await service.blur()
            elif kind == "focus":
                await service.focus()

    # -- running ---------------------------------------------------------------------------------

    def address(self) -> str:
        host = self.host if ":" not in self.host else f"[{self.host}]"
        scheme = "https" if self.tls is not None else "http"
        return f"{scheme}://{host}:{self.bound_port}/?token={self.token}"

    async def run(self, started: Callable[[StudioServer], None] | None = None) -> None:
        """Serve until stopped (`stop()`, a signal), or until `max_requests` or `lifetime` runs out."""
        from studio.serve.door import IDLE

        # No access log: the first request's address carries the token.
        runner = web.AppRunner(await self._make_app(), access_log=None, handle_signals=False,
                               keepalive_timeout=IDLE)
        await runner.setup()
        assert runner.server is not None
        listening = await asyncio.get_running_loop().create_server(
            self.door.wrap(runner.server), self.host, self.port, ssl=self.tls, reuse_address=True)
        if listening.sockets:  # the port the system gave for port 0
            self.bound_port = listening.sockets[0].getsockname()[1]
        if started is not None:
            started(self)
        try:
            await asyncio.wait_for(self._stop.wait(), self.lifetime)
        except TimeoutError:
            pass
        finally:
            listening.close()
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
        if not is_loopback(self.host) and self.tls is None:
            self.say(
                f"Listening on {self.host}, beyond this machine. The connection is not encrypted (--insecure): "
                "anyone on the network path can read the token and the play. Give --cert and --key, or put a "
                "TLS proxy in front (docs/serving.md), on any network you do not trust."
            )
        self.say(f"At most {self.tabs} tabs at once. Ctrl+C stops the studio and every tab.")


def app_command(db: str | None) -> list[str]:
    """The command each tab runs: this Python's studio app, on the same run store."""
    command = [sys.executable, "-m", "studio", "open"]
    if db:
        command += ["--db", str(Path(db).resolve())]
    return command
