"""The stage printed to a plain terminal with rich: the face of `studio run` and `studio show`.

How each kind of event reads is `studio.present`'s, shared with the app; this module adds what only a
terminal needs: streaming a line as it is written, and saying whom it waits for."""

from __future__ import annotations

import threading
from typing import Any

from rich.console import Console
from rich.markup import escape

from studio.present.stage import NOTICE_KINDS, backstage_label, line_style
from studio.store import events as ev
from studio.store.events import Event

# Seconds without a token before `studio run` says whom it is waiting for.
WAIT_NOTICE = 3.0

PALETTE = ("cyan", "magenta", "green", "yellow", "bright_blue", "bright_red", "bright_green", "orange3")

class StagePrinter:
    def __init__(self, console: Console, cast: Any, backstage: bool = False):
        self.console = console
        self.backstage = backstage
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
            self.console.print(self._lead(step.kind, character, role), end="")
            self.streaming = step
        self.console.print(escape(token), end="", style=self._style(step.kind, step.role))

    def retry(self, step: Any, attempt: int, reason: str) -> None:
        """A call starts over: close the void partial line and say so, so no text is shown twice.
        Said even before any token came: a wait of seconds must not look like a hang."""
        self.quiet()
        broke = self.streaming is step
        self.end_line()
        what = "that line broke off" if broke else f"{self._who(step)} is not answering yet"
        self.console.print(f"[dim]  ({what}: {escape(reason)})[/]")
        self.calling(step, "")

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
            self.console.print(" [dim]… (cut off here; not saved)[/]")
            self.streaming = None

    def end_line(self) -> None:
        if self.streaming is not None:
            self.console.print()
            self.streaming = None

    def event(self, event: Event) -> None:
        self.quiet()
        streamed = self.streaming is not None
        self.end_line()
        if streamed and event.origin == "model":
            # The stream showed the model's raw words; say what the line guard kept of them.
            cuts = event.data.get("guard") or []
            if "asked again" in cuts:
                cuts = cuts[len(cuts) - cuts[::-1].index("asked again") :]
            if cuts and self._visible(event.kind):
                self.console.print(f"[dim]  (kept: {escape(event.text)})[/]")
            return
        self.print_event(event)

    def print_event(self, event: Event) -> None:
        kind = event.kind
        if kind == ev.SCENE:
            self.console.rule(f"[bold]{escape(event.text)}[/]")
            return
        if kind in NOTICE_KINDS:
            self.console.print(f"[dim]  ({escape(event.text)})[/]")
            return
        if kind == ev.ERROR:
            self.console.print(f"[red]  error: {escape(event.text)}[/]")
            return
        if not self._visible(kind):
            return
        lead = self._lead(kind, event.character, event.role)
        self.console.print(lead + f"[{self._style(kind, event.role) or 'default'}]{escape(event.text)}[/]")

    def replay(self, events: list[Event]) -> None:
        for event in events:
            self.print_event(event)
