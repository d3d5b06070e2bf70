from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PLAYS = ROOT / "plays"
STUDIO = [sys.executable, "-m", "studio.cli"]

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")


def _brisk_pilot() -> None:
    """Textual's pilot waits after every key until the process has used under 1 ms of CPU in a 20 ms
    sleep, twice: 60 ms a key, most of the app tests' time, spent asleep. The same rule over 10 ms
    windows (under 0.5 ms of CPU) still waits for the app to finish what a key started, at half the wait."""
    import textual._wait as wait

    wait.SLEEP_GRANULARITY = 1 / 100
    wait.SLEEP_IDLE = wait.SLEEP_GRANULARITY / 20


_brisk_pilot()


def pytest_configure(config):
    config.addinivalue_line("markers", "typed_braces: a character's name or title may hold '{{' as typed text, "
                            "which reaches the model as it is")


@pytest.fixture
def store(tmp_path):
    from studio.store import Store

    s = Store(tmp_path / "studio.db")
    yield s
    s.close()


@pytest.fixture(autouse=True)
def _private_settings(tmp_path_factory, monkeypatch):
    """The app remembers its theme under $XDG_CONFIG_HOME: never the tester's own, never shared by tests."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path_factory.mktemp("config")))


@pytest.fixture(autouse=True)
def _fresh_script():
    from studio.llm import scripted

    scripted.reset()
    yield
    scripted.reset()


@pytest.fixture(autouse=True)
def _no_macro_reaches_a_model(monkeypatch, request):
    """A card's macros are filled, and other apps' template code removed, before any model is asked: every
    call the scripted model answers in any test fails if a `{{` is left in what it is sent. A test marked
    `typed_braces` gives characters names a playwright typed, which may hold `{{` as text."""
    from studio.llm import scripted

    if request.node.get_closest_marker("typed_braces"):
        return

    perform = scripted.perform

    def checked(model, messages, *args, **kwargs):
        for message in messages:
            content = message.get("content")
            if isinstance(content, str) and "{{" in content:
                at = content.index("{{")
                raise AssertionError(f"a macro reached the model's prompt: {content[max(at - 60, 0):at + 60]!r}")
        return perform(model, messages, *args, **kwargs)

    monkeypatch.setattr(scripted, "perform", checked)


@pytest.fixture
def ctrl_c_mid_line(monkeypatch):
    """Ctrl-C pressed while a line streams, once its third piece is on screen: the pieces shown, which
    the interrupted command must mark as never saved."""
    from studio.present import terminal

    shown = terminal.StagePrinter.token
    pieces: list[str] = []

    def token(self, step, piece):
        shown(self, step, piece)
        pieces.append(piece)
        if len(pieces) == 3:
            raise KeyboardInterrupt

    monkeypatch.setattr(terminal.StagePrinter, "token", token)
    return pieces


class RecordingGateway:
    """The real gateway, with a note of every call: who was asked, for what, shown which messages."""

    def __init__(self):
        from studio.llm import Gateway

        self.inner = Gateway(backoff=0.001)
        self.calls: list[tuple[object, list[dict]]] = []

    async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
        self.calls.append((ctx, [dict(m) for m in messages]))
        return await self.inner.complete(settings, messages, ctx, on_token=on_token, on_retry=on_retry)

    def tasks(self):
        return [(c.role, c.task) for c, _ in self.calls]

    def shown(self, role=None, task=None):
        """All the text one role was shown, calls joined."""
        out = []
        for ctx, messages in self.calls:
            if (role is None or ctx.role == role) and (task is None or ctx.task == task):
                out.append("\n".join(m["content"] for m in messages))
        return out


@pytest.fixture
def gateway():
    return RecordingGateway()


def settings_seen(gateway):
    """Record the call settings next to the messages the recording gateway keeps."""
    seen = []
    inner = gateway.complete

    async def complete(settings, messages, ctx, on_token=None, on_retry=None):
        seen.append(settings)
        return await inner(settings, messages, ctx, on_token=on_token, on_retry=on_retry)

    gateway.complete = complete
    return seen


def make_cast(play="interview.toml", **kwargs):
    from studio.engine.forms import load_play, resolve_cast

    path = PLAYS / play
    p = load_play(path)
    updates = {k: kwargs.pop(k) for k in ("turns", "scenes", "epilogue", "seed") if k in kwargs}
    if updates:
        p = p.model_copy(update=updates)
    kwargs.setdefault("model", "scripted")
    return resolve_cast(p, path, **kwargs)


@pytest.fixture
def engine_for(store, gateway):
    from studio.engine import Engine

    def make(play="interview.toml", **kwargs):
        return Engine.create(store, make_cast(play, **kwargs), {}, gateway=gateway)

    return make


@pytest.fixture(scope="module")
def bench(request):
    """The bench script the test module names in its BENCH (a path under bench/), loaded as a module of
    its own for the module's tests and unloaded after them."""
    import importlib.util

    path = request.module.BENCH
    spec = importlib.util.spec_from_file_location(f"_{path.stem}", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up by name
    spec.loader.exec_module(module)
    yield module
    sys.modules.pop(spec.name, None)
