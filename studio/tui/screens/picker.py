"""The first screen of a bare `studio`: the plays to start and the runs to resume."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.widgets import Input, Label, OptionList
from textual.widgets.option_list import Option

from studio.present.words import shown_path
from studio.tui.controls import PICKER
from studio.tui.widgets.footer import StudioFooter
from studio.tui.studio_view import StudioScreen


class PickerScreen(StudioScreen[None]):
    BINDINGS = [Binding("escape", "back", "Back", id="picker-back"), *(c.binding() for c in PICKER),
                Binding("q", "app.quit", "Quit", id="picker-quit"),
                Binding("down", "to_list", "Matches", show=False, id="picker-filter-down")]
    DEFAULT_CSS = """
    #run-name { display: none; }
    #run-name.-open { display: block; }
    #picker-filter { display: none; }
    #picker-filter.-open { display: block; }
    """

    def __init__(self, plays_dir: Path, can_go_back: bool = False) -> None:
        super().__init__()
        self._plays_dir = plays_dir
        self._can_go_back = can_go_back
        self._archived = False
        self._naming: int | None = None
        self._filter = ""

    def footer_actions(self) -> list[str]:
        """The footer's keys, most needed first: at 80 columns only the first few fit, and a playwright
        looking for how to filter, delete or leave found none of the three there."""
        first = ["new_play", "filter", "delete_run", "app.quit"]
        return [*first, *(c.action for c in PICKER if c.show and c.action not in first), "back"]

    def compose(self) -> ComposeResult:
        back = " · Esc back to the open run" if self._can_go_back else ""
        with Vertical(id="picker"):
            yield Label("studio · open a play or resume a run", classes="dialog-title")
            yield Input(placeholder="type to filter plays and runs (Enter keeps it, Esc clears it)", id="picker-filter")
            yield OptionList(id="picker-list")
            yield Input(placeholder="a name for this run (Enter saves, empty clears, Esc cancels)", id="run-name")
            yield Label("Enter opens · Tab goes to the runs · / filters · n new play · c new character · m renames a run · a archives it · d deletes it · "
                        f"h shows archived runs · l the lab{back} · q quits · ? every key.", classes="dialog-help")
        yield StudioFooter()  # the keys that fit, Help and the palette always

    def on_mount(self) -> None:
        self.call_after_refresh(self.studio.first_frame)
        self.reload()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Esc is offered only when it does something: back to an open run, or closing the filter or the
        name box; a bare `studio` has no run behind the picker."""
        if action == "back":
            return self._can_go_back or self._naming is not None or self.query_one("#picker-filter").has_class("-open")
        return True

    def reload(self, keep: str | None = None, focus: bool = True) -> None:
        """The lists again; `focus=False` leaves the focus where it is (the filter box while typing: a focus
        handed to the list and back lets a key typed in between land in the list)."""
        from studio.present.runs import summaries

        options: list[Option | None] = []
        wanted = self._filter.lower()
        plays = sorted(self._plays_dir.glob("*.toml")) if self._plays_dir.is_dir() else []
        options.append(Option(Text("New run of a play", style="bold"), disabled=True))
        shown = 0
        for path in plays:
            card = _play_card(path)
            if wanted in card.plain.lower():
                options.append(Option(card, id=f"play:{path}"))
                shown += 1
        if not shown:
            said = f"  no play matches “{self._filter}”" if plays else f"  no plays in {shown_path(self._plays_dir)}/"
            options.append(Option(Text(said, style="dim"), disabled=True))
        options.append(None)
        heading = "Resume a run (archived ones shown)" if self._archived else "Resume a run"
        options.append(Option(Text(heading, style="bold"), disabled=True))
        trials = _trial_runs(self.studio.store)
        runs = summaries(self.studio.store, archived=self._archived)
        mine = [run for run in runs if run.id not in trials]
        for run in mine:
            card = _run_card(run)
            if wanted in card.plain.lower():
                options.append(Option(card, id=f"run:{run.id}"))
        if not mine:
            hidden = "" if self._archived else " (h shows archived ones)"
            options.append(Option(Text(f"  no saved runs yet{hidden}", style="dim"), disabled=True))
        lab = len(runs) - len(mine)
        if lab:  # a lab's trials are many runs alike: the lab screen lists them by experiment
            options.append(Option(Text(f"  and {lab} run{'s' if lab != 1 else ''} of lab trials: l opens the lab",
                                       style="dim"), disabled=True))
        picker = self.query_one("#picker-list", OptionList)
        picker.clear_options()
        picker.add_options(options)
        ids = [o.id for o in options if o is not None]
        if keep is not None and keep in ids:  # a heading's id is None too: no keep is not a heading kept
            picker.highlighted = ids.index(keep)
        else:
            first = next((i for i, o in enumerate(options) if o is not None and not o.disabled), None)
            if first is not None:
                picker.highlighted = sum(1 for o in options[:first] if o is not None)
        if focus:
            picker.focus()

    @on(OptionList.OptionSelected, "#picker-list")
    def _open(self, event: OptionList.OptionSelected) -> None:
        kind, _, value = (event.option.id or "").partition(":")
        if kind == "play":
            self.studio.open_play(Path(value))
        elif kind == "run":
            self.studio.open_run(int(value))

    def _highlighted_run(self, does: str) -> int | None:
        """The run under the highlight, or None with a word on why `does` (what the key does to a run) did not
        happen and how to reach a run."""
        picker = self.query_one("#picker-list", OptionList)
        option = picker.get_option_at_index(picker.highlighted) if picker.highlighted is not None else None
        kind, _, value = ((option.id if option else None) or "").partition(":")
        if kind == "run":
            return int(value)
        if not self._run_rows():
            hidden = "" if self._archived else " (h shows archived ones)"
            self.notify(f"{does} a saved run, and there is none yet{hidden}.", severity="warning")
        else:
            row = "a play" if kind == "play" else "not a run"
            self.notify(f"{does} a saved run; this row is {row}: Tab goes to the runs.", severity="warning")
        return None

    def _run_rows(self) -> list[int]:
        """Where each run is in the list, top to bottom."""
        picker = self.query_one("#picker-list", OptionList)
        return [i for i in range(picker.option_count) if (picker.get_option_at_index(i).id or "").startswith("run:")]

    def _play_rows(self) -> list[int]:
        picker = self.query_one("#picker-list", OptionList)
        return [i for i in range(picker.option_count) if (picker.get_option_at_index(i).id or "").startswith("play:")]

    def action_to_runs(self) -> None:
        """Tab: from the plays (or the filter box) to the first run, from a run back to the first play."""
        picker = self.query_one("#picker-list", OptionList)
        runs, plays = self._run_rows(), self._play_rows()
        on_run = picker.has_focus and picker.highlighted in runs
        rows = plays if on_run else runs
        if not rows:
            rows = runs or plays
        if rows:
            picker.highlighted = rows[0]
            picker.scroll_to_highlight()
        picker.focus()

    def action_to_list(self) -> None:
        """↓ in the filter box goes on to the matches, so the filter never traps the keys that pick."""
        if not self.query_one("#picker-filter", Input).has_focus:
            return
        picker = self.query_one("#picker-list", OptionList)
        picker.focus()
        rows = self._play_rows() + self._run_rows()
        if rows and picker.highlighted not in rows:
            picker.highlighted = min(rows)

    def action_rename_run(self) -> None:
        run_id = self._highlighted_run("m renames")
        if run_id is None:
            return
        box = self.query_one("#run-name", Input)
        info = self.studio.store.run(run_id)
        box.value = info.name
        # the run named in the box itself: at 80x24 the highlighted row may be scrolled out of sight
        box.placeholder = f"a name for run {run_id} (Enter saves, empty clears, Esc cancels)"
        box.border_title = f"Renaming run {run_id}"
        self.query_one("#picker-list", OptionList).scroll_to_highlight()
        box.add_class("-open")
        self._naming = run_id
        box.focus()
        self.refresh_bindings()

    @on(Input.Submitted, "#run-name")
    def _named(self, event: Input.Submitted) -> None:
        from studio.present.runs import rename

        if self._naming is not None:
            try:
                said = rename(self.studio.store, self._naming, event.value)
            except ValueError as exc:  # the box stays open with what was typed, to mend
                self.notify(str(exc), title="Not renamed", severity="error", timeout=10)
                return
            self.notify(said)
            keep = f"run:{self._naming}"
            self._close_name()
            self.reload(keep)

    def _close_name(self) -> None:
        self._naming = None
        self.query_one("#run-name", Input).remove_class("-open")
        self.query_one("#picker-list", OptionList).focus()
        self.refresh_bindings()

    def action_archive_run(self) -> None:
        from studio.present.runs import archive

        run_id = self._highlighted_run("a archives")
        if run_id is None:
            return
        store = self.studio.store
        undo = store.run(run_id).archived
        self.notify(archive(store, run_id, undo))
        self.reload(f"run:{run_id}")

    def action_delete_run(self) -> None:
        """Delete the highlighted run for good, once the playwright has confirmed it by name."""
        from studio.present.runs import delete, describe
        from studio.store import StoreError
        from studio.tui.screens.dialogs import ConfirmScreen

        run_id = self._highlighted_run("d deletes")
        if run_id is None:
            return
        store = self.studio.store
        engine = self.studio.engine
        if engine is not None and engine.run_id == run_id:
            self.notify(f"Run {run_id} is the run open behind the picker; open another first.", severity="warning")
            return
        said = describe(store, run_id)

        def decided(yes: bool | None) -> None:
            if not yes:
                self.notify(f"Run {run_id} is kept.")
                return
            try:
                self.notify(delete(store, run_id))
            except StoreError as exc:
                self.notify(str(exc), severity="error")
            self.reload()

        self.app.push_screen(ConfirmScreen(f"Delete run {run_id}?",
                                           f"Delete {said} for good? Every take, take name and critique of "
                                           "it goes; this cannot be undone. (a archives it instead: hidden, "
                                           "nothing deleted.)"), decided)

    def action_show_archived(self) -> None:
        self._archived = not self._archived
        self.reload()

    @property
    def _root(self) -> Path:
        """The folder holding plays/ and characters/."""
        return self._plays_dir.parent

    def action_new_play(self) -> None:
        from studio.tui.screens.new import NewPlayScreen

        def created(written: tuple[Path, list[Path]] | None) -> None:
            if written is not None:
                path, sheets = written
                files = ", ".join(str(f) for f in (path, *sheets))
                self.notify(f"Wrote {files}; the run opens ready to step (s). P edits the play, c a sheet.")
                self.studio.open_play(path)

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

    def action_filter(self) -> None:
        box = self.query_one("#picker-filter", Input)
        box.add_class("-open")
        box.focus()
        self.refresh_bindings()

    @on(Input.Changed, "#picker-filter")
    def _filtered(self, event: Input.Changed) -> None:
        self._filter = event.value.strip()
        self.reload(focus=False)

    @on(Input.Submitted, "#picker-filter")
    def _filter_kept(self) -> None:
        self.query_one("#picker-list", OptionList).focus()

    def action_back(self) -> None:
        box = self.query_one("#picker-filter", Input)
        if box.has_class("-open"):
            box.value = ""
            box.remove_class("-open")
            self._filter = ""
            self.reload()
            self.refresh_bindings()
            return
        if self._naming is not None:
            self._close_name()
            return
        if self._can_go_back:
            self.studio.back_to_run()


def _play_card(path: Path) -> Text:
    """A play by its title, the file beside it: read with the standard library alone, so the picker opens
    as fast as before; a file that does not parse is still listed, by its name."""
    from studio.model.errors import InputError
    from studio.model.toml_file import read_toml

    try:
        title = str(read_toml(path, "play").get("title") or "").strip()
    except InputError:  # a pipe or a device among the plays is listed too, never read
        title = ""
    text = Text("  ")
    text.append(title or path.stem, style="bold")
    text.append(f"  {path}", style="dim")
    return text


def _trial_runs(store: Any) -> set[int]:
    """The runs the lab's trials made, which the lab screen lists by experiment."""
    from studio.tui.screens.lab import read_experiments

    return {t.run for e in read_experiments(store, tokens=False) for t in e.trials if t.run is not None}


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
