"""The run screen's controls over the cast and the run as a whole: who plays whom, the superego's
strategies, a character's sheet, export, critiques and the picker. A group of the run screen's controls,
kept apart so the screen's file holds the panes and the engine's workers."""

from __future__ import annotations

from functools import partial
from pathlib import Path
from typing import Any

from studio.present.words import STRATEGY_LABELS
from studio.store import StoreError
from studio.tui.screens.group import ControlGroup
from studio.tui.widgets.panes import CastPane


class CastControls(ControlGroup):
    def action_roles(self) -> None:
        if not self._ready():
            return
        from studio.store.leases import window_name
        from studio.tui.screens.dialogs import RolesScreen
        from studio.tui.views import played_by

        humans = self.engine.humans()
        rows = [(r.key, r.name, played_by(self.engine, r.key) if r.key in humans else "", r.model)
                for r in self.engine.cast.roles]
        me = window_name(self.engine.holder) if self.engine.holder else ""
        self.app.push_screen(RolesScreen(rows, me), self.toggle_role)

    def toggle_role(self, key: str | None) -> None:
        if key is None or self.screen.engine is None:
            return
        role = self.engine.cast.role(key)
        try:
            if key in self.engine.humans():
                self.engine.release(key)
                if self.screen.human.waiting:
                    self.screen.run_worker(self.pause(), group="pause")
                self.notify(f"{role.name} ({key}) goes back to {role.model}.")
            else:
                self.engine.take_over(key)
                self.notify(f"You play {role.name} ({key}) now: an input box opens on their turn.")
        except ValueError as refused:  # another window holds it
            self.notify(str(refused), title="Played elsewhere", severity="warning", markup=False)
            return
        except StoreError as error:  # another window wrote first: the run is reread as it is now
            self.report(error, "take the role")
            return
        self.refresh_panes()
        self._set_activity(self._idle_hint())

    def action_strategies(self) -> None:
        if not self._ready():
            return
        from studio.tui.ensemble_views import is_ensemble
        from studio.tui.screens.dialogs import StrategiesScreen

        if is_ensemble(self.engine):
            self.screen.ensemble.voices_dialog()  # each inner voice's switches
            return
        if not (self.engine.cast.has("superego") and self.engine.cast.superego.enabled):
            self.notify("This run has no superego.", severity="warning")
            return
        states = {name: self.engine.state.strategy_on(name) for name in STRATEGY_LABELS}
        self.app.push_screen(StrategiesScreen(states, self.switch_strategy))

    def switch_strategy(self, name: str, enabled: bool) -> None:
        self.engine.switch_strategy(name, enabled)
        self.refresh_panes()
        self.notify(f"Superego {name.replace('_', ' ')} {'on' if enabled else 'off'} from the next step.")

    def action_edit_character(self) -> None:
        """A picker of the characters with a sheet, the cast pane's highlighted one first in line."""
        if not self._ready():
            return
        from studio.tui.screens.dialogs import CharactersScreen

        sheets = self.sheet_files()
        if not sheets:
            self.notify("No character in this run has a sheet file here.", severity="warning")
            return
        cast = self.screen.query_one(CastPane)
        rows = [(key, self.engine.cast.role(key).name, path.name) for key, path in sheets.items()]
        self.app.push_screen(CharactersScreen(rows, cast.role_key or "ego"), self._edit_chosen)

    def _edit_chosen(self, key: str | None) -> None:
        if key is not None and self.screen.engine is not None:
            self.edit_character(key)

    def sheet_files(self) -> dict[str, Path]:
        """Each role whose character is a file on disk, by role key, in cast order: what `c` can edit."""
        from studio.model.loading import character_path, members

        cast = self.engine.cast
        files = {}
        for key, _kind, member, _field in members(cast.play):
            path = character_path(member.character, Path(cast.play_path))
            if path is not None and cast.has(key):
                files[key] = path
        return files

    def edit_character(self, key: str) -> None:
        from studio.model import load_character
        from studio.tui.screens.character import CharacterScreen

        cast = self.engine.cast
        path = self.sheet_files().get(key)
        if path is None:
            self.notify(f"No character file found for {cast.role(key).name}.", severity="error")
            return
        cast_pane = self.screen.query_one(CastPane)
        if not cast_pane.display:
            self.screen.room.show_pane("cast")
        cast_pane.highlight_role(key)
        if not cast_pane.has_focus:
            cast_pane.focus()
        try:
            sheet = load_character(path)
        except Exception as exc:  # noqa: BLE001
            self.report(exc, "open the sheet")
            return
        role = cast.role(key)

        def saved(result: Path | None) -> None:
            if result is not None:
                self.notify(f"Saved {result}. This run keeps its cast; new runs use the new sheet.",
                            title="Character saved")

        self.app.push_screen(CharacterScreen(sheet, path, f"{role.name} ({key})"), saved)

    def action_lorebook(self) -> None:
        if not self._ready():
            return
        cast = self.screen.query_one(CastPane)
        key = cast.role_key or "ego"
        self.lorebook(key if self.engine.cast.has(key) else self.engine.cast.roles[0].key)

    def lorebook(self, key: str) -> None:
        """The World Info dialog on one character's books, read from their files as saved now."""
        from studio.model import load_character
        from studio.model.book_edit import character_books
        from studio.tui.screens.lore import LorebookScreen

        role = self.engine.cast.role(key)
        path = self.sheet_files().get(key)
        if path is None:
            self.notify(f"No character file found for {role.name}: World Info lives with a sheet.",
                        severity="warning", markup=False)
            return
        try:
            books = character_books(load_character(path), path)
        except Exception as exc:  # noqa: BLE001
            self.report(exc, "open the World Info")
            return
        self.app.push_screen(LorebookScreen(role.name, path, books))

    def living_roles(self) -> list[Any]:
        """The characters with an inner life (moods, knowledge or goals on their sheet): what `m` acts on."""
        engine = self.engine
        if engine is None:
            return []
        return [r for r in engine.cast.characters if r.sheet.has_inner_life]

    def action_mind(self) -> None:
        """The Mind dialog on the highlighted character (or the first with an inner life); what it hands
        back is committed as a human event and the cast pane shows it at once."""
        if not self._ready():
            return
        from studio.engine.minds import world
        from studio.mind.moments import current_goals
        from studio.tui.screens.mind import MindScreen

        engine = self.engine
        lives = self.living_roles()
        if not lives:
            self.notify("No character in this run has an inner life: give a sheet moods, knowledge or goals "
                        "(docs/living-characters.md).", severity="warning")
            return
        if self.busy:
            self.notify("Pause first (p): a change made mid-turn would land inside it.", severity="warning")
            return
        cast = self.screen.query_one(CastPane)
        if not cast.display:
            self.screen.room.show_pane("cast")
        role = next((r for r in lives if r.key == cast.role_key), lives[0])
        folded = world(engine)
        mind = folded.mind(role.name)
        at = {"scene": engine.state.scene or 1, "turn": engine.state.turn}

        def chosen(fields: dict[str, Any] | None) -> None:
            if fields is None or self.screen.engine is not engine:
                return
            if fields.get("open") == "lorebook":
                self.lorebook(role.key)
                return
            event = engine.mind_event(fields)
            self.refresh_panes()
            self.notify(event.text, title=f"Your event #{event.id}", markup=False)

        lore = sum(len(book.entries) for book in role.lore)
        self.app.push_screen(MindScreen(role.sheet, role.name, mind, current_goals(role.sheet, mind, at["scene"]),
                                        dict(folded.facts), at, lore=lore), chosen)

    def action_export(self) -> None:
        if not self._ready():
            return
        try:
            from studio.export import export_run  # noqa: F401
        except ImportError:
            self.notify("Export is not available yet.", title="Export", severity="warning")
            return
        from studio.tui.screens.dialogs import ExportScreen

        def chosen(choice: dict[str, Any] | None) -> None:
            if choice is not None:
                self.screen.run_worker(partial(self._export, choice), thread=True, group="export",
                                       exit_on_error=False, name="export")

        self.app.push_screen(ExportScreen(ask_path=not self.studio.delivers_files), chosen)

    def _export(self, choice: dict[str, Any]) -> Path:
        """In a thread with a store of its own: a long export must not hold the screen's."""
        from studio.export import export_run
        from studio.store import Store

        store = Store(self.engine.store.path)
        # where the file goes to the playwright as a download, it is written in the app's own folder
        out = self.studio.export_folder() or choice["out"]
        try:
            return export_run(store, self.engine.run_id, choice["fmt"], out, choice["backstage"])
        finally:
            store.close()

    def action_critiques(self) -> None:
        if not self._ready():
            return
        self.studio.show_critiques(self.engine)

    async def action_open(self) -> None:
        await self.pause()
        self.studio.show_picker()

    async def action_new_run(self) -> None:
        """A fresh run of the play this run was made from, read from its file as saved now; this run stays."""
        if not self._ready():
            return
        from pathlib import Path

        source = str(self.engine.cast.play_path or "")
        if not source or not Path(source).is_file():
            self.notify(f"This run's play is not a file here ({source or 'made by the lab'}); o opens another.",
                        severity="warning")
            return
        await self.pause()
        run = self.engine.run_id
        stays = (f"run {run} stays, o lists it" if self.engine.store.events(run)
                 else f"run {run} held no line yet and is cleared away")
        self.notify(f"A new run of {Path(source).name}; {stays}.")
        self.studio.pane_layout = self.screen.room.layout()  # the panes open now stay open
        self.studio.open_play(Path(source))

