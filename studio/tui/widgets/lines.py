"""The one-line widgets around the panes: where the run stands, what is happening now, and, in a run
another window plays too, what a key is about to do to the stage."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual.message import Message
from textual.widgets import Static

from studio.present.words import TASK_VERBS
from studio.tui import views
from studio.tui.messages import EventCommitted, RunRedrawn, TokenStreamed
from studio.tui.widgets.panes import RunPane

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView


class StatusLine(RunPane, Static):
    """Play, scene, turn, the next step, the strategies on and the run's cost: redrawn from the engine
    after every event; the character the run is viewed as (V, its `lens`) is marked first so it cannot be
    missed."""

    def redraw(self, latest: bool = True) -> None:
        if self.engine is not None:
            self.show(self.engine)

    def show(self, engine: EngineView) -> None:
        self.engine = engine
        width = self.content_region.width or None  # before the first layout: the whole line, as before
        self.update(views.status(engine, self.lens, width), layout=False)

    def on_resize(self) -> None:
        if self.engine is not None:
            self.show(self.engine)


class ActivityLine(RunPane, Static):
    """What the engine is doing this second (who writes, how far) or, when idle, the next key to press.
    It hears the tokens and the commits itself; what it says between them the screen tells it."""

    class Say(Message, bubble=False):
        """Words for the line, queued behind the tokens already on their way, so that none of them can
        overwrite what is said after the line they belong to is done. `reset`: that line is over."""

        def __init__(self, text: str | None, reset: bool = False) -> None:
            super().__init__()
            self.text = text
            self.reset = reset

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.tokens = 0
        self.writing = ""

    def on_activity_line_say(self, message: Say) -> None:
        if message.reset:
            self.reset()
        if message.text is not None:
            self.say(message.text)

    def say(self, text: str) -> None:
        self.update(Text(text), layout=False)

    def reset(self) -> None:
        """A line was committed or abandoned: the count and the tail start over for the next one."""
        self.tokens = 0
        self.writing = ""

    def on_token_streamed(self, message: TokenStreamed) -> None:
        if message.engine is not None:
            self.token(message.engine, message.step, message.token)

    def on_event_committed(self, message: EventCommitted) -> None:
        self.reset()

    def on_run_redrawn(self, message: RunRedrawn) -> None:
        self.engine = message.engine

    def token(self, engine: EngineView, step: Any, token: str) -> None:
        self.tokens += 1
        self.writing += token
        role = engine.cast.role(step.role) if step.role else None
        name = role.name if role else "The studio"
        verb = TASK_VERBS.get(step.task, step.task)
        said = " ".join(self.writing.split())
        count = f"{self.tokens} token{'' if self.tokens == 1 else 's'}"
        if said[:1] in ("{", "["):  # an answer read as data (a move, a vote): the stage shows it once read
            self.say(f"● {name} {verb} · {count}")
            return
        self.say(f"● {name} {verb} · {count} · {said[-60:]}")

    def idle(self, engine: EngineView) -> None:
        self.say(idle_hint(engine))


class AskLine(Static):
    """Hidden until a key that changes the stage is pressed in a shared run: what it will do, and that
    Enter does it (studio/tui/screens/shared.py)."""

    def on_mount(self) -> None:
        self.display = False


def idle_hint(engine: EngineView | None) -> str:
    if engine is None:
        return ""
    if engine.finished:
        return "The play is finished: r rewinds, e edits a line, g writes a new take, x exports."
    pending = engine.pending()
    if pending is not None and pending.human and pending.role is not None:
        if views.played_by(engine, pending.role.key) != "you":
            return f"{views.next_step(engine)}: their line comes from there; s waits for it · ? lists every key"
        return f"{views.next_step(engine)}: s opens your input box · ? lists every key"
    if pending is not None and pending.human:
        return f"{views.next_step(engine)} · w or s opens the choice · E enters/exits · ? every key"
    if views.ens.is_ensemble(engine):
        return f"{views.next_step(engine)} · s steps a turn · w picks who speaks · E enters/exits · ? every key"
    from studio.present.game import is_game

    stretch = "round" if is_game(engine) else "scene"  # a game is told in rounds everywhere
    return f"{views.next_step(engine)} · s steps a turn · p plays the {stretch} · ? lists every key"
