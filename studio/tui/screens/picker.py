"""The first screen of a bare `studio`: the plays to start and the runs to resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import Screen
from textual.widgets import Footer, Input, Label, OptionList
from textual.widgets.option_list import Option

from studio.tui.controls import PICKER


class PickerScreen(Screen[None]):
    BINDINGS = [Binding("escape", "back", "Back", id="picker-back"), *(c.binding() for c in PICKER)]
    DEFAULT_CSS = """
    #run-name { display: none; }
    #run-name.-open { display: block; }
    """

    def __init__(self, plays_dir: Path, can_go_back: bool = False) -> None:
        super().__init__()
        self._plays_dir = plays_dir
        self._can_go_back = can_go_back
        self._archived = False
        self._naming: int | None = None

    def compose(self) -> ComposeResult:
        with Vertical(id="picker"):
            yield Label("studio · open a play or resume a run", classes="dialog-title")
            yield OptionList(id="picker-list")
            yield Input(placeholder="a name for this run (Enter saves, empty clears, Esc cancels)", id="run-name")
            yield Label("Enter opens · n new play · c new character · m renames a run · a archives it · "
                        "h shows archived runs · l the lab · Esc back to the open run · ? every key.", classes="dialog-help")
        yield Footer()

    def on_mount(self) -> None:
        self.call_after_refresh(self.app.first_frame)  # type: ignore[attr-defined]
        self.reload()

    def reload(self, keep: str | None = None) -> None:
        from studio.present.runs import summaries

        options: list[Option | None] = []
        plays = sorted(self._plays_dir.glob("*.toml")) if self._plays_dir.is_dir() else []
        options.append(Option(Text("New run of a play", style="bold"), disabled=True))
        for path in plays:
            options.append(Option(Text(f"  {path}"), id=f"play:{path}"))
        if not plays:
            options.append(Option(Text(f"  no plays in {self._plays_dir}/", style="dim"), disabled=True))
        options.append(None)
        heading = "Resume a run (archived ones shown)" if self._archived else "Resume a run"
        options.append(Option(Text(heading, style="bold"), disabled=True))
        runs = summaries(self.app.store, archived=self._archived)  # type: ignore[attr-defined]
        for run in runs:
            options.append(Option(_run_card(run), id=f"run:{run.id}"))
        if not runs:
            hidden = "" if self._archived else " (h shows archived ones)"
            options.append(Option(Text(f"  no saved runs yet{hidden}", style="dim"), disabled=True))
        picker = self.query_one("#picker-list", OptionList)
        picker.clear_options()
        picker.add_options(options)
        ids = [o.id for o in options if o is not None]
        if keep in ids:
            picker.highlighted = ids.index(keep)
        else:
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

    def _highlighted_run(self) -> int | None:
        picker = self.query_one("#picker-list", OptionList)
        option = picker.get_option_at_index(picker.highlighted) if picker.highlighted is not None else None
        kind, _, value = ((option.id if option else None) or "").partition(":")
        if kind != "run":
            self.notify("Highlight a run first.", severity="warning")
            return None
        return int(value)

    def action_rename_run(self) -> None:
        run_id = self._highlighted_run()
        if run_id is None:
            return
        box = self.query_one("#run-name", Input)
        box.value = self.app.store.run(run_id).name  # type: ignore[attr-defined]
        box.add_class("-open")
        self._naming = run_id
        box.focus()

    @on(Input.Submitted, "#run-name")
    def _named(self, event: Input.Submitted) -> None:
        from studio.present.runs import rename

        if self._naming is not None:
            self.notify(rename(self.app.store, self._naming, event.value))  # type: ignore[attr-defined]
            keep = f"run:{self._naming}"
            self._close_name()
            self.reload(keep)

    def _close_name(self) -> None:
        self._naming = None
        self.query_one("#run-name", Input).remove_class("-open")
        self.query_one("#picker-list", OptionList).focus()

    def action_archive_run(self) -> None:
        from studio.present.runs import archive

        run_id = self._highlighted_run()
        if run_id is None:
            return
        store = self.app.store  # type: ignore[attr-defined]
        undo = store.run(run_id).archived
        self.notify(archive(store, run_id, undo))
        self.reload(f"run:{run_id}")

    def action_show_archived(self) -> None:
        self._archived = not self._archived
        self.reload()

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

    def action_lab(self) -> None:
        from studio.tui.screens.lab import LabScreen

        self.app.push_screen(LabScreen())

    def action_back(self) -> None:
        if self._naming is not None:
            self._close_name()
            return
        if self._can_go_back:
            self.app.back_to_run()  # type: ignore[attr-defined]


def _run_card(run: Any) -> Text:
    """Two lines a playwright can pick from: what it is called and how far it got; who played it and when."""
    text = Text(f"  run {run.id}  ")
    text.append(run.title, style="bold")
    if run.title != run.play:
        text.append(f"  ({run.play})", style="dim")
    done = run.status == "finished"
    text.append(f"  · {run.status}", style="green" if done else "yellow")
    if run.archived:
        text.append("  · archived", style="dim italic")
    text.append(f"\n        {', '.join(run.models) or 'no models'} · last line {run.when} · {run.events} events",
                style="dim")
    return text
