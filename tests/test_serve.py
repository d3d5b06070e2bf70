"""`studio serve` over plain HTTP, without a browser: the token on every request, refusals that slow
down, sockets only from the studio's own page, the cap on tabs, and what the command prints."""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.error
import urllib.request
from http.client import HTTPResponse

import pytest

from conftest import ROOT


from browser import app_command, served  # noqa: E402
from studio.serve import StudioServer  # noqa: E402


class NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args, **kwargs):  # type: ignore[no-untyped-def]
        return None


def get(url: str, headers: dict[str, str] | None = None) -> tuple[int, dict[str, str], str]:
    opener = urllib.request.build_opener(NoRedirect)
    request = urllib.request.Request(url, headers=headers or {})
    try:
        response: HTTPResponse = opener.open(request, timeout=30)
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode("utf-8", "replace")
    return response.status, dict(response.headers), response.read().decode("utf-8", "replace")


@pytest.fixture
def server(tmp_path):
    with served(app_command(tmp_path / "studio.db"), tabs=1, max_requests=60, lifetime=60) as running:
        yield running


def test_nothing_that_drives_a_tab_is_served_without_the_token(server):
    base = server.address().split("?", 1)[0]
    for path in ("ws", "download/anything", f"?token={server.token[:-1]}", f"ws?token={server.token[:-1]}"):
        status, _, body = get(base + path)
        assert status == 403, path
        assert server.token not in body
    # the page and its files hold no secret: served to anyone, and the page holds no token either
    status, _, page = get(base)
    assert status == 200 and server.token not in page
    assert get(base + "static/js/textual.js")[0] == 200


def test_no_cookie_carries_the_token_and_the_page_names_no_other_host(server):
    status, headers, page = get(server.address())
    assert status == 200, "the first address opens the page itself (its script takes the token out of the bar)"
    assert "Set-Cookie" not in headers, "a cookie for 127.0.0.1 reaches every port of 127.0.0.1"
    assert server.token not in page
    assert "sessionStorage" in page and "history.replaceState" in page
    assert "googleapis" not in page and "https://" not in page and "//" + "fonts" not in page
    assert "default-src 'self'" in headers["Content-Security-Policy"]
    base = server.address().split("?", 1)[0]
    assert get(base + "static/fonts/RobotoMono-VariableFont_wght.ttf")[0] == 200
    assert get(base + "static/", {})[0] in (403, 404), "the folder of assets is not listed"
    # a token in a cookie opens nothing: only the one the page sends on the socket does
    assert get(base + "ws", {"Cookie": f"studio_token={server.token}"})[0] == 403


def test_each_wrong_token_waits_longer_than_the_one_before(server):
    base = server.address().split("?", 1)[0]
    waits = []
    for guess in range(3):
        started = time.monotonic()
        assert get(f"{base}?token=guess{guess}")[0] == 403
        waits.append(time.monotonic() - started)
    assert waits[0] >= 0.2 and waits[1] > waits[0] * 1.5 and waits[2] > waits[1] * 1.5, waits


def test_a_socket_from_another_sites_page_is_refused(server):
    base = server.address().split("?", 1)[0]
    headers = {"Origin": "http://elsewhere.example", "Connection": "Upgrade", "Upgrade": "websocket",
               "Sec-WebSocket-Version": "13", "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
    status, _, body = get(base + f"ws?token={server.token}", headers)
    assert status == 403 and "own page" in body


def test_past_the_cap_on_tabs_a_new_tab_is_told_why(server):
    base = server.address().split("?", 1)[0]
    server.open_tabs = server.tabs  # the one tab this server allows is open
    status, _, body = get(base + f"ws?token={server.token}")
    assert status == 503 and "1 tabs open" in body


def test_the_address_and_the_warning_off_loopback():
    said: list[str] = []
    here = StudioServer(["true"], host="127.0.0.1", port=8123, token="t0k3n", say=said.append)
    here._announce(here)
    assert "http://127.0.0.1:8123/?token=t0k3n" in said[0]
    assert not any("not encrypted" in line for line in said)
    said.clear()
    wide = StudioServer(["true"], host="0.0.0.0", port=8123, say=said.append)
    wide._announce(wide)
    assert any("not encrypted" in line for line in said)


def test_serve_refuses_a_bad_port_tab_count_or_host_with_exit_2(tmp_path):
    cases = ((["--port", "70000"], "--port"), (["--tabs", "0"], "--tabs"), (["--host", ""], "not an IP address"),
             (["--host", "every.where"], "not an IP address"), (["--host", "0.0.0.0"], "--insecure"),
             (["--cert", "c.pem"], "--cert and --key go together"),
             (["--cert", "missing.pem", "--key", "missing.pem"], "could not be read"))
    for args, words in cases:
        done = subprocess.run([sys.executable, "-m", "studio", "serve", *args, "--db", str(tmp_path / "s.db")],
                              capture_output=True, text=True, timeout=60, cwd=ROOT)
        assert done.returncode == 2, done.stderr
        assert words in done.stderr and "Traceback" not in done.stderr


@pytest.mark.server
async def test_the_tabs_call_one_embedded_model_served_for_all(monkeypatch):
    """With `studio serve`'s shared model named, a `local/smollm2` call is answered by that server and
    loads no copy of the model in the calling process."""
    import asyncio

    from studio.llm import CallContext, CallSettings, Gateway, local
    from studio.serve.model import SharedModel, unavailable

    why = unavailable()
    if why:
        pytest.skip(why)
    monkeypatch.delenv("STUDIO_EMBEDDED_SERVER", raising=False)
    loads = []
    monkeypatch.setattr(local, "load", lambda: loads.append(1) or pytest.fail("the tab loaded its own copy"))
    shared = SharedModel(threads=1)
    shared.start()
    try:
        deadline = time.monotonic() + 120
        while not shared.answers():
            assert time.monotonic() < deadline, "the shared model never answered"
            await asyncio.sleep(0.3)
        settings = CallSettings(model="local/smollm2", temperature=0, max_tokens=8)
        reply = await asyncio.wait_for(
            Gateway().complete(settings, [{"role": "user", "content": "Say yes."}], CallContext("ego", "speak", "A")),
            120)
        assert reply.text.strip()
        assert loads == [], "the tab loaded its own copy of the model"
    finally:
        shared.stop()
    import os

    assert "STUDIO_EMBEDDED_SERVER" not in os.environ


@pytest.mark.server
def test_the_shared_model_answers_only_its_own_key_on_loopback(monkeypatch):
    """Another process of the machine can reach the port, but without the key drawn for this start its
    calls are refused; HOST in the environment does not move it off loopback."""
    import json

    from studio.serve.model import SharedModel, unavailable

    why = unavailable()
    if why:
        pytest.skip(why)
    monkeypatch.setenv("HOST", "0.0.0.0")
    shared = SharedModel(threads=1, lifetime=180)
    shared.start()
    try:
        deadline = time.monotonic() + 120
        while not shared.answers():
            assert time.monotonic() < deadline, "the shared model never answered"
            time.sleep(0.3)
        body = json.dumps({"model": "smollm2", "messages": [{"role": "user", "content": "hi"}], "max_tokens": 1})
        for headers in ({}, {"Authorization": "Bearer not-the-key"}):
            request = urllib.request.Request(shared.url + "/chat/completions", data=body.encode(),
                                             headers={"Content-Type": "application/json", **headers})
            with pytest.raises(urllib.error.HTTPError) as refused:
                urllib.request.urlopen(request, timeout=30)  # noqa: S310 - 127.0.0.1
            assert refused.value.code in (401, 403)
        from pathlib import Path

        listening = [line.split()[1] for table in ("tcp", "tcp6") for line in
                     Path(f"/proc/net/{table}").read_text().splitlines()[1:] if line.split()[3] == "0A"]
        ours = [address for address in listening if int(address.rsplit(":", 1)[1], 16) == shared.port]
        assert ours == ["0100007F:" + f"{shared.port:04X}"], ours  # 127.0.0.1 alone
        command = Path(f"/proc/{shared.process.pid}/cmdline").read_bytes()
        assert shared.key.encode() not in command, "the key is on a command line any user can list"
    finally:
        shared.stop()
