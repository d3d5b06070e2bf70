"""The stage printed to a plain terminal with rich: the face of `studio run` and `studio show`.

How each kind of event reads is `studio.present`'s, shared with the app; this module adds what only a
terminal needs: streaming a line as it is written, and saying whom it waits for.

What streams is the model's raw answer, not yet the line: the guard may cut it, or drop it and ask
again. So nothing streamed stays on screen as said unless it was: on a terminal the streamed rows are
erased and the line is printed as kept, a dropped attempt struck through and dim with why; printed to a
pipe or a file, which cannot be erased, a line is printed once it is committed."""

from __future__ import annotations

import threading
from typing import Any

from rich.cells import cell_len
from rich.console import Console
from rich.control import Control
from rich.markup import escape
from rich.segment import ControlType
from rich.text import Text

from studio.present.stage import NOTICE_KINDS, backstage_label, line_style
from studio.store import events as ev
from studio.store.events import Event

# Seconds without a token before `studio run` says whom it is waiting for.
WAIT_NOTICE = 3.0

PALETTE = ("cyan", "magenta", "green", "yellow", "bright_blue", "bright_red", "bright_green", "orange3")

class StagePrinter:
    def __init__(self, console: Console, cast: Any, backstage: bool = False, live: bool | None = None,
                 ids: bool = False):
        self.console = console
        self.backstage = backstage
        self.ids = ids  # each printed event led by its id, the number `studio insert`, `cut` and `move` take
        # stream a line as it is written and erase it in place; False: print each line once committed
        self.live = console.is_terminal if live is None else live
        self.shown = ""  # the raw words of the answer streaming now
        self._lead_now = ""
        self.colours = {role.name: PALETTE[i % len(PALETTE)] for i, role in enumerate(cast.roles)}
        self.role_names = {role.key: role.name for role in cast.roles}
        from studio.engine.lens import voice_owners

        # an inner voice's rewrite is heard by the character the voice belongs to, not by the voice
        self.hearers = {voice: self.role_names.get(owner, owner) for voice, owner in voice_owners(cast).items()}
        self.streaming: Any = None
        self._timer: threading.Timer | None = None
        self._model = ""

    def _visible(self, kind: str) -> bool:
        return kind in ev.ON_STAGE or (self.backstage and kind in ev.BACKSTAGE)

    def _lead(self, kind: str, character: str | None, role: str | None) -> str:
        colour = self.colours.get(character or "", "white")
        name = escape(character or "")
        if kind == ev.REWRITE_SPEECH and role in self.hearers:
            return f"[dim]  ┆ {name} makes {escape(self.hearers[role])} hear it as:[/] "
        if kind in ev.BACKSTAGE:
            return f"[dim]  ┆ {name} {escape(backstage_label(kind))}:[/] "
        if kind == ev.EPILOGUE:
            return f"\n[bold {colour}]{name}, afterwards:[/] "
        if kind == ev.DIRECTION or role == "director":
            return "  "
        return f"[bold {colour}]{name.upper()}[/]  "

    def _style(self, kind: str, role: str | None) -> str:
        return line_style(kind, role)

    def token(self, step: Any, token: str) -> None:
        self.quiet()
        if not self._visible(step.kind):
            return
        if self.streaming is not step:
            self.end_line()
            role = step.role
            character = self.role_names.get(role) if role else None
            self._lead_now = self._lead(step.kind, character, role)
            if self.live:
                self.console.print(self._lead_now, end="")
            self.streaming = step
        self.shown += token
        if self.live:
            self.console.print(escape(token), end="", style=self._style(step.kind, step.role))

    def retry(self, step: Any, attempt: int, reason: str) -> None:
        """A call starts over: what it streamed is void, so it is struck through with why, never left as
        said. Said even before any token came: a wait of seconds must not look like a hang."""
        self.quiet()
        if self.streaming is step and self.shown.strip():
            self.dropped(reason)
        else:
            self.end_line()
            self.console.print(f"[dim]  ({escape(self._who(step))} is not answering yet: {escape(reason)})[/]")
        self.calling(step, "")

    def dropped(self, reason: str) -> None:
        """The answer streaming now is void: off the screen, and back struck through and dim, with why."""
        text = self.shown.strip()
        self._erase()
        who = Text.from_markup(self._lead_now).plain.strip()
        self.console.print(f"[dim]  ✗ {escape(who)} [strike]{escape(text)}[/strike] (dropped: {escape(reason)})[/]")

    def _erase(self) -> None:
        """Take the streaming answer off the screen: its rows are cleared from the last up (a terminal
        only; printed elsewhere, it was never shown)."""
        if self.streaming is not None and self.live:
            width = max(self.console.width, 1)
            written = Text.from_markup(self._lead_now).plain + self.shown
            rows = sum(max(1, -(-cell_len(part) // width)) for part in written.split("\n"))
            clear = Control((ControlType.ERASE_IN_LINE, 2))
            codes = [Control.move_to_column(0), clear]
            for _ in range(rows - 1):
                codes += [Control.move(0, -1), clear]
            self.console.control(*codes)
        self.streaming = None
        self.shown = ""

    def calling(self, step: Any, model: str) -> None:
        """A model is asked. If nothing has come back after WAIT_NOTICE seconds, say whom we wait for."""
        self.quiet()
        if model:
            self._model = model
        timer = threading.Timer(WAIT_NOTICE, self._still_waiting, args=(step, self._model))
        timer.daemon = True
        self._timer = timer
        timer.start()

    def _still_waiting(self, step: Any, model: str) -> None:
        if self.streaming is None and self._timer is not None:
            self.console.print(f"[dim]  (waiting for {escape(self._who(step))}'s model, {escape(model)}…)[/]")

    def quiet(self) -> None:
        timer, self._timer = getattr(self, "_timer", None), None
        if timer is not None:
            timer.cancel()

    def _who(self, step: Any) -> str:
        return self.role_names.get(step.role, "the model") if step.role else "the model"

    def broke_off(self) -> None:
        """The stream stopped mid-line (Ctrl-C, an error): the words shown were never saved, and the
        half line says so instead of standing on screen as if it had been said."""
        if self.streaming is not None:
            if not self.live:  # never shown yet: the half line, marked
                self.console.print(self._lead_now + f"[dim]{escape(self.shown)}[/]", end="")
            self.console.print(" [dim]… (cut off here; not saved)[/]")
            self.streaming = None
            self.shown = ""

    def end_line(self) -> None:
        if self.streaming is not None and self.live:
            self.console.print()
        self.streaming = None
        self.shown = ""

    def event(self, event: Event) -> None:
        self.quiet()
        if self.streaming is not None and event.origin == "model":
            if self.live and self.shown.strip() == event.text.strip() and self._visible(event.kind):
                self.end_line()  # the line is what streamed, word for word
                return
            # the guard cut the raw words the stream showed: the line as kept stands in their place
            self._erase()
        self.end_line()
        self.print_event(event)

    def print_event(self, event: Event) -> None:
        kind = event.kind
        number = f"[dim]#{event.id}[/] " if self.ids else ""
        if kind == ev.SCENE:
            if self.ids:
                self.console.print(f"{number}[bold]{escape(event.text)}[/]")
            else:
                self.console.rule(f"[bold]{escape(event.text)}[/]")
            return
        if kind in NOTICE_KINDS:
            self.console.print(f"{number}[dim]  ({escape(event.text)})[/]")
            return
        if kind == ev.ERROR:
            self.console.print(f"{number}[red]  error: {escape(event.text)}[/]")
            return
        if not self._visible(kind):
            return
        lead = self._lead(kind, event.character, event.role)
        if kind == ev.STAGE and event.data:
            extension = " ".join(str(event.data.get("extension") or "").split())
            parenthetical = " ".join(str(event.data.get("parenthetical") or "").split())
            if extension:
                lead = lead.rstrip() + f" [dim]({escape(extension)})[/]  "
            if parenthetical:
                lead += f"[italic]({escape(parenthetical)})[/] "
        if lead.startswith("\n"):  # the epilogue stands apart: its id goes with it, not on the blank line
            lead, number = "\n" + number + lead[1:], ""
        self.console.print(number + lead + f"[{self._style(kind, event.role) or 'default'}]{escape(event.text)}[/]")

    def replay(self, events: list[Event]) -> None:
        for event in events:
            self.print_event(event)
