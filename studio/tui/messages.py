"""What the engine tells the app, as typed Textual messages.

The engine calls plain listeners from whatever thread drives it (the app's loop for model calls, a
thread worker for opening or batch work). Posting a message is safe from any thread and lands in the
screen's own queue, so handlers never need to ask which thread they are on, and a handler that is slow
delays only the next message, never the engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TypeVar

from textual.message import Message
from textual.message_pump import MessagePump

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView


class EventCommitted(Message, bubble=False):
    """An event reached the store. The engine's relay tells the screen; the screen, once it has placed
    the event on its stage, tells every pane, each of which decides for itself whether it has to redraw.
    `engine`, `takes` and `soon` are set on the panes' copy: the run, which take of its line each stage
    line is, and whether the engine is still writing (a pane that is slow to redraw may wait a moment)."""

    def __init__(
        self, event: Any, engine: EngineView | None = None, takes: dict[int, tuple[int, int]] | None = None,
        soon: bool = False,
    ) -> None:
        super().__init__()
        self.event = event
        self.engine = engine
        self.takes = takes
        self.soon = soon


class RunRedrawn(Message, bubble=False):
    """The run as a whole has to be drawn again: it was opened, its head jumped (rewind, a take, an edit),
    or a control changed what the panes say (a role taken over, a strategy switched, the run viewed as one
    character). `latest`: scroll to the newest of what changed, which a run just opened does not. `lens`:
    the character the run is viewed as (V), or None for everyone."""

    def __init__(
        self, engine: EngineView, takes: dict[int, tuple[int, int]], latest: bool = True, lens: str | None = None
    ) -> None:
        super().__init__()
        self.engine = engine
        self.takes = takes
        self.latest = latest
        self.lens = lens


class LineSelected(Message, bubble=False):
    """The stage's cursor is on another line (None: on none); `soon` while the engine writes."""

    def __init__(self, event_id: int | None, soon: bool = False) -> None:
        super().__init__()
        self.event_id = event_id
        self.soon = soon


class TokenStreamed(Message, bubble=False):
    """A piece of the line being written, for the live stage entry and the activity line."""

    def __init__(self, step: Any, token: str, engine: EngineView | None = None) -> None:
        super().__init__()
        self.step = step
        self.token = token
        self.engine = engine


class ModelCalled(Message):
    """A model has been asked for a step; nothing has streamed yet."""

    def __init__(self, step: Any, model: str) -> None:
        super().__init__()
        self.step = step
        self.model = model


class RetryStarted(Message):
    """The model's attempt broke off: what it streamed so far is void and it starts over."""

    def __init__(self, step: Any, attempt: int, reason: str) -> None:
        super().__init__()
        self.step = step
        self.attempt = attempt
        self.reason = reason


class HumanTurn(Message):
    """A human role's step has come; queued behind the tokens and events before it, so the input box
    and its prompt appear only once the screen shows everything that led to the line being answered."""

    def __init__(self, pending: Any, engine: EngineView | None = None) -> None:
        super().__init__()
        self.pending = pending
        self.engine = engine


class EngineRelay:
    """Subscribes to one engine on behalf of one widget and turns each callback into a message."""

    def __init__(self, engine: EngineView, target: MessagePump) -> None:
        self.engine = engine
        self.target = target
        engine.event_listeners.append(self._event)
        engine.token_listeners.append(self._token)
        engine.retry_listeners.append(self._retry)
        engine.call_listeners.append(self._call)

    def _event(self, event: Any) -> None:
        self.target.post_message(EventCommitted(event))

    def _token(self, step: Any, token: str) -> None:
        self.target.post_message(TokenStreamed(step, token))

    def _call(self, step: Any, model: str) -> None:
        self.target.post_message(ModelCalled(step, model))

    def _retry(self, step: Any, attempt: int, reason: str) -> None:
        self.target.post_message(RetryStarted(step, attempt, reason))

    def close(self) -> None:
        """Stop relaying: a screen that is gone must not keep the engine calling into it."""
        _unhook(self.engine.event_listeners, self._event)
        _unhook(self.engine.token_listeners, self._token)
        _unhook(self.engine.retry_listeners, self._retry)
        _unhook(self.engine.call_listeners, self._call)


Listener = TypeVar("Listener")


def _unhook(listeners: list[Listener], callback: Listener) -> None:
    if callback in listeners:
        listeners.remove(callback)
