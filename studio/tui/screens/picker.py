"""The first screen of a bare `studio`: the plays to start and the runs to resume."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Label, OptionList
from textual.widgets.option_list import Option

from studio.tui.controls import PICKER


class PickerScreen(Screen[None]):
    BINDINGS = [Binding("escape", "back", "Back", id="picker-back"), *(c.binding() for c in PICKER)]

    def __init__(self, plays_dir: Path, can_go_back: bool = False) -> None:
        super().__init__()
        self._plays_dir = plays_dir
        self._can_go_back = can_go_back

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Label("studio · open a play or resume a run", classes="dialog-title")
            yield OptionList(id="picker-list")
            yield Label("Enter opens · n starts a new play · c a new character · Esc goes back to the open run · "
                        "? shows every key.", classes="dialog-help")
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self.app.first_frame)  # type: ignore[attr-defined]
        self.reload()

    def reload(self) -> None:
        options: list[Option | None] = []
        plays = sorted(self._plays_dir.glob("*.toml")) if self._plays_dir.is_dir() else []
        options.append(Option(Text("New run of a play", style="bold"), disabled=True))
        for path in plays:
            options.append(Option(Text(f"  {path}"), id=f"play:{path}"))
        if not plays:
            options.append(Option(Text(f"  no plays in {self._plays_dir}/", style="dim"), disabled=True))
        options.append(None)
        options.append(Option(Text("Resume a run", style="bold"), disabled=True))
        runs = self.app.store.runs()  # type: ignore[attr-defined]
        for info in reversed(runs):
            started = datetime.fromtimestamp(info.created).strftime("%Y-%m-%d %H:%M")
            text = Text(f"  run {info.id}  ")
            text.append(info.title, style="bold")
            text.append(f"  · {info.events} events · started {started}", style="dim")
            options.append(Option(text, id=f"run:{info.id}"))
        if not runs:
            options.append(Option(Text("  no saved runs yet", style="dim"), disabled=True))
        picker = self.query_one("#picker-list", OptionList)
        picker.clear_options()
        picker.add_options(options)
        first = next((i for i, o in enumerate(options) if o is not None and not o.disabled), None)
        if first is not None:
            picker.highlighted = sum(1 for o in options[:first] if o is not None)
        picker.focus()

    @on(OptionList.OptionSelected, "#picker-list")
    def _open(self, event: OptionList.OptionSelected) -> None:
        kind, _, value = (event.option.id or "").partition(":")
        if kind == "play":
            self.app.open_play(Path(value))  # type: ignore[attr-defined]
        elif kind == "run":
            self.app.open_run(int(value))  # type: ignore[attr-defined]

    @property
    def _root(self) -> Path:
        """The folder holding plays/ and characters/."""
        return self._plays_dir.parent

    def action_new_play(self) -> None:
        from studio.tui.screens.new import NewPlayScreen

        def created(path: Path | None) -> None:
            if path is not None:
                self.notify(f"Wrote {path}; the run opens ready to step (s). P edits the play, c a sheet.")
                self.app.open_play(path)  # type: ignore[attr-defined]

        self.app.push_screen(NewPlayScreen(self._root), created)

    def action_new_character(self) -> None:
        from studio.model import load_character
        from studio.tui.screens.character import CharacterScreen
        from studio.tui.screens.new import NewCharacterScreen

        def created(path: Path | None) -> None:
            if path is not None:
                sheet = load_character(path)
                self.app.push_screen(CharacterScreen(sheet, path, f"{sheet.name} (new)"))

        self.app.push_screen(NewCharacterScreen(self._root), created)

    def action_back(self) -> None:
        if self._can_go_back:
            self.app.back_to_run()  # type: ignore[attr-defined]
