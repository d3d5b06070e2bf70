"""`studio serve` in a real browser: Debian's chromium, driven by playwright-python, on 127.0.0.1.

It skips, saying why, where chromium or playwright is missing; .ci/run installs chromium as it does tmux.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import urlsplit

import pytest

from browser import Tab, app_command, browser, missing, served
from conftest import ROOT

pytestmark = [pytest.mark.slow, pytest.mark.skipif(missing() is not None, reason=missing() or "")]


@pytest.fixture
def chromium():
    with browser() as launched:
        yield launched


def test_a_tab_loads_from_the_studio_alone_steps_and_downloads_an_export(chromium, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    db = tmp_path / "studio.db"
    with served(app_command(db, "plays/interview.toml", "--model", "scripted")) as server:
        context = chromium.new_context(viewport={"width": 1200, "height": 800}, accept_downloads=True)
        hosts: set[str] = set()
        context.on("request", lambda request: hosts.add(urlsplit(request.url).netloc))
        tab = Tab(context, server.address())
        assert tab.response is not None and tab.response.ok
        tab.wait_for("The Interview", "Next: scene 1 opens")
        tab.page.mouse.click(600, 400)
        mark = tab.since()
        tab.press("s")
        tab.wait_for_new(mark, "JENNY", "turn 1/10")  # a line streamed from the model, drawn in the tab
        tab.press("x")
        tab.wait_for("Export the current take", "comes to you as a download")
        with tab.page.expect_download(timeout=30_000) as download:
            tab.press("Tab", "Tab", "Enter")  # past the formats and the backstage box, to Export: Fountain
        got = download.value
        assert got.suggested_filename == "the-interview-run1.fountain"
        script = Path(got.path()).read_text(encoding="utf-8")
        assert script.startswith("Title: The Interview") and "JENNY" in script
        tab.wait_for("the-interview-run1.fountain: your browser")
        context.close()
    assert hosts == {f"127.0.0.1:{server.bound_port}"}, f"the page reached other hosts: {hosts}"
    assert not (ROOT / "exports" / "the-interview-run1.fountain").exists() or (
        (ROOT / "exports" / "the-interview-run1.fountain").read_text(encoding="utf-8") != script
    ), "the served export was written into the studio's folder"


def test_a_wrong_token_is_refused_and_opens_no_tab(chromium, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    with served(app_command(tmp_path / "studio.db")) as server:
        context = chromium.new_context()
        base = server.address().split("?", 1)[0]
        page = context.new_page()
        response = page.goto(f"{base}?token=not-the-token")
        assert response is not None and response.status == 403
        assert "needs the address with its token" in page.content()
        page = context.new_page()  # the bare page, in a tab that was never given the token
        page.goto(base)
        page.wait_for_selector(".no-token-dialog", state="visible")
        assert server.open_tabs == 0
        context.close()


def test_the_token_leaves_the_address_and_travels_in_no_cookie(chromium, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)
    with served(app_command(tmp_path / "studio.db")) as server:
        context = chromium.new_context(viewport={"width": 1200, "height": 800})
        tab = Tab(context, server.address())
        tab.wait_for("plays")  # the picker, drawn in the tab
        assert server.token not in tab.page.url
        assert context.cookies() == [], "a cookie for 127.0.0.1 would reach every local server's port"
        tab.page.reload()  # the tab kept its token: a reload opens the studio again
        tab.wait_for("plays")
        context.close()


def test_two_named_tabs_on_one_run_see_each_others_lines_and_ask_before_changing_them(chromium, tmp_path,
                                                                                      monkeypatch):
    import time

    from conftest import make_cast
    from studio.engine import Engine
    from studio.store import Store

    monkeypatch.chdir(ROOT)
    db = tmp_path / "studio.db"
    store = Store(db)
    run = Engine.create(store, make_cast()).run_id
    store.close()
    with served(app_command(db, str(run))) as server:
        context = chromium.new_context(viewport={"width": 1200, "height": 800})
        first = Tab(context, server.address(), name=None)
        first.page.fill("#who-name", "Ana")  # the tab asks its playwright's name first
        first.page.press("#who-name", "Enter")
        second = Tab(context, server.address(), name="Ben")
        for tab in (first, second):
            tab.wait_for("The Interview", "Next: scene 1 opens")
        first.page.bring_to_front()
        first.page.mouse.click(600, 400)
        mark = second.since()
        first.press("s")
        first.wait_for("Ben is on this run too", "Enter does it")  # a shared run: the step asks first
        first.press("Enter")
        first.wait_for("JENNY")
        stepped = time.monotonic()
        second.wait_for_new(mark, "JENNY", timeout=10)
        assert time.monotonic() - stepped < 3.0, "the other tab showed the line late"
        assert server.open_tabs == 2
        # Ben types a sentence while his box is closed: nothing happens to the run
        second.page.bring_to_front()
        second.page.mouse.click(600, 400)
        second.page.keyboard.type("g. The voice is mine.")
        second.press("Enter")
        second.wait_for_words(0, "Kept what you typed")
        # Ana rewinds (asked, and answered); Ben hears it by name
        first.page.bring_to_front()
        mark = second.since()
        first.press("r")
        first.wait_for("r rewinds one turn")
        first.press("Enter")
        second.wait_for_words(mark, "Ana rewound to the start", timeout=15)
        context.close()
    store = Store(db)
    try:
        assert not [e for e in store.events(run) if "voice is mine" in e.text], "the typed sentence got in"
    finally:
        store.close()
