"""`studio serve` against a stranger on the same machine, with a bounded number of sockets on 127.0.0.x:
connections held idle or half-sent, guesses from many addresses, a tab killed without closing, a tab that
asks for a screen of a hundred thousand columns. Every server here listens on 127.0.0.1 only, stops by
itself after a bounded number of requests and a bounded lifetime, and is stopped by the test."""

from __future__ import annotations

import asyncio
import socket
import time
import urllib.request

import pytest


from browser import app_command, served  # noqa: E402
from studio.serve import COLUMNS, ROWS, TabService, bounded  # noqa: E402
from studio.serve.door import Door  # noqa: E402


def connect(port: int, source: str = "127.0.0.1") -> socket.socket:
    sock = socket.create_connection(("127.0.0.1", port), timeout=5, source_address=(source, 0))
    return sock


def closed(sock: socket.socket, within: float) -> bool:
    """Whether the server closed this connection within `within` seconds."""
    sock.settimeout(within)
    try:
        return sock.recv(1) == b""
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False


def page_answers(port: int, within: float = 5.0) -> bool:
    started = time.monotonic()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/", timeout=within) as reply:  # noqa: S310
        return reply.status == 200 and time.monotonic() - started < within


def test_idle_connections_past_the_cap_are_closed_at_once_said_once_and_the_room_still_gets_in(tmp_path, capfd):
    said: list[str] = []
    door = Door(said.append, per_address=8, all_at_once=24, headers=30)
    with served(app_command(tmp_path / "studio.db"), tabs=1, max_requests=50, lifetime=60, door=door) as server:
        port = server.bound_port
        held = [connect(port, "127.0.0.2") for _ in range(8)]  # idle, never sending a byte
        try:
            extra = [connect(port, "127.0.0.2") for _ in range(40)]
            assert all(closed(sock, 2.0) for sock in extra), "a connection past the cap was kept"
            for sock in extra:
                sock.close()
            assert door.refused >= 40
            refusals = [line for line in said if "Refusing connections from 127.0.0.2" in line]
            assert len(refusals) == 1, said  # once for the address, not once per connection
            # the room's own requests, from another address, are answered at once
            assert page_answers(port)
            # a stranger spreading over many loopback addresses meets the cap on everyone together
            spread = [connect(port, f"127.0.1.{n}") for n in range(1, 40)]
            try:
                assert sum(closed(sock, 1.0) for sock in spread) >= 39 - (24 - 8)
            finally:
                for sock in spread:
                    sock.close()
        finally:
            for sock in held:
                sock.close()
    printed = capfd.readouterr()
    assert "Traceback" not in printed.out + printed.err, "a refused connection printed a traceback"


def test_a_half_sent_request_is_closed_after_the_header_timeout(tmp_path):
    door = Door(lambda _: None, headers=0.5)
    with served(app_command(tmp_path / "studio.db"), tabs=1, max_requests=20, lifetime=60, door=door) as server:
        sock = connect(server.bound_port)
        try:
            sock.sendall(b"GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ")  # and never the rest
            started = time.monotonic()
            assert closed(sock, 5.0), "a half-sent request was kept open"
            assert time.monotonic() - started < 3.0
        finally:
            sock.close()
        assert page_answers(server.bound_port)


async def test_wrong_tokens_from_many_addresses_are_slowed_together():
    door = Door(lambda _: None, first_wait=0.02)
    started = time.monotonic()
    await asyncio.gather(*(door.refuse(f"127.0.2.{n}") for n in range(12)))
    together = time.monotonic() - started
    # twelve addresses, one guess each: answered one at a time, and every fourth doubles the wait
    assert together >= 0.02 * 4 + 0.04 * 4 + 0.08 * 4 - 0.02, together
    assert door.refusal_wait("127.0.2.99") >= 0.16  # a new address waits as long as everyone's count says


def test_a_terminal_size_is_kept_within_bounds():
    assert bounded("100000", COLUMNS) == COLUMNS[1] and bounded(100_000, ROWS) == ROWS[1]
    assert bounded("-5", COLUMNS) == COLUMNS[0] and bounded("wide", ROWS) == ROWS[0]
    assert bounded("120", COLUMNS) == 120


def test_a_tab_is_told_its_playwrights_name_cleaned(monkeypatch):
    monkeypatch.setenv("STUDIO_NAME", "someone else")

    async def nothing(*_):
        return None

    service = TabService("true", name="Ana\x1b[31m: the\nplaywright=", write_bytes=nothing, write_str=nothing,
                         close=nothing, download_manager=None)
    environment = service._build_environment(80, 24)
    assert environment["STUDIO_NAME"] == "Ana 31m the playwright"  # no markup, no separator, one line
    nameless = TabService("true", name="", write_bytes=nothing, write_str=nothing, close=nothing,
                          download_manager=None)
    assert "STUDIO_NAME" not in nameless._build_environment(80, 24)


async def test_a_killed_tab_frees_its_place_within_seconds(tmp_path):
    """A tab whose browser went away without closing its socket: the server's pings find it gone."""
    import aiohttp

    from studio.serve import StudioServer

    server = StudioServer(app_command(tmp_path / "studio.db"), port=0, tabs=1, max_requests=20, lifetime=60,
                          say=lambda _: None)
    ready = asyncio.Event()
    running = asyncio.create_task(server.run(lambda _: ready.set()))
    try:
        await asyncio.wait_for(ready.wait(), 30)
        url = f"http://127.0.0.1:{server.bound_port}/ws?token={server.token}&width=100000&height=100000&name=Ana"
        async with aiohttp.ClientSession() as session:
            socket_ = await session.ws_connect(url, autoping=False)  # it never answers the server's pings
            deadline = time.monotonic() + 10
            while server.open_tabs != 1:
                assert time.monotonic() < deadline, "the tab never opened"
                await asyncio.sleep(0.05)
            opened = time.monotonic()
            while server.open_tabs:
                assert time.monotonic() - opened < 12, "a tab that stopped answering kept its place"
                await asyncio.sleep(0.1)
            await socket_.close()
    finally:
        server.stop()
        await asyncio.wait_for(running, 30)


def test_with_a_certificate_the_studio_speaks_https_and_nothing_else(tmp_path):
    import shutil
    import ssl
    import subprocess

    from studio.commands.serve import tls_context

    if shutil.which("openssl") is None:
        pytest.skip("openssl is not installed")
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj",
                    "/CN=127.0.0.1", "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True,
                   timeout=60)
    with served(app_command(tmp_path / "studio.db"), tabs=1, max_requests=20, lifetime=60,
                tls=tls_context(str(cert), str(key))) as server:
        assert server.address().startswith("https://127.0.0.1:")
        trusting = ssl.create_default_context(cafile=str(cert))
        trusting.check_hostname = False
        with urllib.request.urlopen(server.address(), timeout=10, context=trusting) as reply:  # noqa: S310
            assert reply.status == 200
        with pytest.raises(OSError):  # plain http to the same port is not answered as a page
            urllib.request.urlopen(f"http://127.0.0.1:{server.bound_port}/", timeout=5)  # noqa: S310
