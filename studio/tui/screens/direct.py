"""`G`: regenerate the selected line with a direction, a short note and a temperature for that take, or let
the model go on from where the line stops with the note alone (as `studio continue --direction`)."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.widgets import Button, Checkbox, Input, Label, Static

from studio.engine.steer import MAX_NOTE, Direction
from studio.tui.screens.modal import Dialog


class DirectScreen(Dialog):
    """Returns (a Direction, whether to continue the line rather than write it anew), checked as you type;
    the line's old take stays."""

    def __init__(self, title: str, temperature: float) -> None:
        super().__init__()
        self._title = title
        self._temperature = temperature
        self.direction: Direction | None = None

    def compose(self) -> ComposeResult:
        with Vertical(classes="dialog", id="direct-dialog"):
            yield Label(Text(self._title), classes="dialog-title")
            yield Label("Your direction for the new take, as you would give it to an actor")
            yield Input(placeholder="e.g. angrier · she lies here · shorter, colder", id="direct-note",
                        max_length=MAX_NOTE)
            yield Label(f"Temperature 0-2 for this take (empty: the role's {self._temperature:g})")
            yield Input(placeholder=f"{self._temperature:g}", id="direct-temperature")
            yield Checkbox("Go on from where the line stops instead (as C does), with the note", id="direct-continue")
            yield Static(id="direct-problem")
            with Horizontal(classes="buttons"):
                yield Button("Write the take", variant="primary", id="direct-go")
            yield Label("Enter writes a new take of the line, or its continuation; the old one stays. Esc cancels.",
                        classes="dialog-help")

    def on_mount(self) -> None:
        self.query_one("#direct-note", Input).focus()
        self._check()

    @property
    def go_on(self) -> bool:
        return self.query_one("#direct-continue", Checkbox).value

    @on(Input.Changed)
    @on(Checkbox.Changed)
    def _check(self) -> None:
        note = self.query_one("#direct-note", Input).value.strip()
        raw = self.query_one("#direct-temperature", Input).value.strip()
        problem = ""
        temperature = None
        if raw:
            try:
                temperature = float(raw)
            except ValueError:
                problem = "temperature: write it as a number, e.g. 1.2"
        try:
            self.direction = None if problem else Direction(note or None, temperature)
        except ValueError as exc:
            problem = f"temperature: {exc}"
            self.direction = None
        if self.direction is not None and self.direction.empty:
            problem = "Give a note, a temperature or both (g regenerates without a direction)."
            self.direction = None
        elif self.direction is not None and self.go_on and (temperature is not None or not note):
            problem = ("A continuation takes a note alone: it goes on at the role's temperature."
                       if temperature is not None else "Give a note for the continuation (C continues without one).")
            self.direction = None
        self.query_one("#direct-problem", Static).update(Text(problem, style="yellow"))
        self.query_one("#direct-temperature").set_class(problem.startswith("temperature"), "-invalid")
        self.query_one("#direct-go", Button).disabled = self.direction is None

    @on(Input.Submitted)
    @on(Button.Pressed, "#direct-go")
    def _go(self) -> None:
        self._check()
        if self.direction is None:
            return
        self.dismiss((self.direction, self.go_on))
