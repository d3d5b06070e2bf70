"""The playwright's desk on the run screen: search, jump, the take tree, directed takes, the play editor.

A group of the run screen's controls, kept apart so the run screen's own file stays about running;
every action here ends in the same engine calls and screen refreshes the other controls use. The
finding functions are imported where they are used: none is needed before the app's first frame.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

from textual.widgets import Input

from studio.tui.screens.group import ControlGroup
from studio.tui.widgets.stage import StageView


class DeskControls(ControlGroup):
    _search: Any = None  # the last SearchChoice while its matches are highlighted
    _tree_nodes: list[Any] | None = None  # every event of the run as the take tree reads it, kept

    # -- search -------------------------------------------------------------------------------

    def _stage(self) -> StageView:
        return self.screen.query_one("#stage", StageView)

    def run_search(self, query: str, all_takes: bool) -> list[Any]:
        from studio.tui.finding import search_all, search_take

        engine = self.engine
        if all_takes:
            return search_all(engine.store, engine.run_id, query)
        ids = search_take(self.screen.ensemble.stage_events(), query)  # what a "view as" shows
        return [engine.by_id[i] for i in ids]

    def take_namer(self, hits: list[Any]) -> Callable[[Any], str]:
        """For a search over every take: names the take each hit is in, read from the same light rows the
        take tree keeps."""
        from studio.tui.finding import take_labeller, tree_events

        engine = self.engine
        known = self._tree_nodes or []
        known = known + tree_events(engine.store, engine.run_id, known[-1].id if known else 0)
        self._tree_nodes = known
        names = {event_id: mark.name for event_id, mark in self.screen.marks.items() if mark.name}
        label = take_labeller(known, engine.by_id, names)
        return lambda event: label(event.id)

    def action_search(self) -> None:
        if not self._ready():
            return
        from studio.tui.screens.finding import SearchScreen

        last = self._search
        screen = SearchScreen(self.run_search, last.query if last else "", last.all_takes if last else False,
                              self.take_namer)
        self.app.push_screen(screen, self._searched)

    def _searched(self, choice: Any) -> None:
        if choice is None:
            return
        from studio.tui.finding import pattern

        self._search = choice
        self._stage().set_highlight(pattern(choice.query))
        self._go_to_hit(choice.chosen)

    def _go_to_hit(self, index: int) -> None:
        choice = self._search
        hits = choice.hits
        index %= len(hits)
        self._search = type(choice)(choice.query, choice.all_takes, hits, index)
        event = hits[index]
        engine = self.engine
        if event.id not in engine.by_id:
            # a line of another take: follow that take, as choosing it in the take tree would
            self.screen.run_worker(self._follow(event.id, event.id), group="follow", exit_on_error=False)
        else:
            self._stage().select_event(event.id)
        self._set_activity(
            f"Match {index + 1} of {len(hits)} for “{choice.query}” · n next · N previous · Esc ends the search"
        )

    def action_search_move(self, delta: int) -> None:
        if self._search is None:
            self.notify("Search first: / then the words.", severity="warning")
            return
        self._go_to_hit(self._search.chosen + delta)

    def end_search(self) -> bool:
        if self._search is None:
            return False
        self._search = None
        self._stage().set_highlight(None)
        self._set_activity(self._idle_hint())
        return True

    # -- jump ---------------------------------------------------------------------------------

    def _jump_target(self, jump: Any) -> int | None:
        from studio.tui.finding import jump_index

        return jump_index(self._stage().entries, self.engine.by_id, jump)

    def action_jump(self) -> None:
        if not self._ready():
            return
        from studio.tui.screens.finding import JumpScreen

        def preview(jump: Any) -> str | None:
            index = self._jump_target(jump)
            if index is None:
                return None
            entry = self._stage().entries[index]
            event = self.engine.by_id.get(entry.event_id) if entry.event_id is not None else None
            where = f"scene {event.scene}, turn {event.turn}" if event is not None else ""
            text = " ".join(entry.text.split())[:400]
            return f"→ {where} · {(entry.character or '').upper()} {text}".strip()

        def chosen(jump: Any) -> None:
            if jump is not None:
                index = self._jump_target(jump)
                if index is not None:
                    self._stage().select_index(index)

        self.app.push_screen(JumpScreen(preview), chosen)

    # -- the take tree -------------------------------------------------------------------------

    def action_take_tree(self) -> None:
        if not self._ready():
            return
        from studio.store.takes import marks
        from studio.tui.finding import take_tree, tree_events
        from studio.tui.screens.takes import TakeTreeScreen

        engine = self.engine
        known = self._tree_nodes or []
        known = known + tree_events(engine.store, engine.run_id, known[-1].id if known else 0)
        self._tree_nodes = known
        roots = take_tree(known, engine.head)
        if not roots:
            self.notify("Nothing written yet: s plays the first turn.", severity="warning")
            return

        def chosen(result: Any) -> None:
            self.screen.recount_takes()  # stars, names and hidden takes set in the tree
            if result is not None and result[0] == "diff":
                from studio.tui.screens.diff import open_diff

                self.resync(select=self._stage().selected_id)
                open_diff(self.screen, engine, result[1])
            elif result is not None:
                self.screen.run_worker(self._follow(result[1]), group="follow", exit_on_error=False)
            else:
                self.resync(select=self._stage().selected_id)

        screen = TakeTreeScreen(roots, marks(engine.store, engine.run_id), engine.store, engine.run_id)
        self.app.push_screen(screen, chosen)

    async def _follow(self, event_id: int, select: int | None = None) -> None:
        """Follow the newest take through an event, and show its first line (or `select`)."""
        await self.pause()
        engine = self.engine
        engine.choose_take(event_id)
        self.screen.recount_takes()  # a hidden take followed again counts while it is on stage
        target = select
        if target is None:
            event = engine.by_id.get(event_id)
            while event is not None and not event.on_stage:
                nxt = [e for e in engine.path if e.parent == event.id]
                event = nxt[0] if nxt else None
            target = event.id if event is not None else None
        self.resync(select=target)

    # -- a directed take ------------------------------------------------------------------------

    def action_direct(self) -> None:
        event = self._selected_take()
        if event is None:
            return
        from studio.tui.screens.direct import DirectScreen

        role = self.engine.cast.role(event.role) if event.role else None
        title = f"A new take of {event.character or 'the line'}'s line · turn {event.turn}"

        def chosen(choice: tuple[Any, bool] | None) -> None:
            if choice is None:
                return
            direction, go_on = choice
            if go_on and not self.screen.lines.continuable(event):
                return
            self.screen.run_worker(self._directed(event.id, direction, go_on), group="direct", exit_on_error=False)

        self.app.push_screen(DirectScreen(title, role.temperature if role else 1.0), chosen)

    async def _directed(self, event_id: int, direction: Any, go_on: bool = False) -> None:
        await self.pause()
        self._start(self.screen.turns.write_take(event_id, direction, go_on=go_on))

    # -- one-line boxes out to an editor ----------------------------------------------------------

    def action_editor_line(self) -> None:
        """ctrl+e in the note box or a human role's box: the text goes out to an editor and is sent back."""
        focused = self.screen.focused
        if not isinstance(focused, Input) or focused.id not in ("note-input", "human-line"):
            self.notify("ctrl+e works in a text box: n for a note, or your line when you play a role.")
            return

        # ctrl+e is a priority key: it runs as it arrives, while letters typed just before it may still wait
        # in the box's own queue. Read the box once they are in, or the editor gets the line short.
        focused.call_later(self._editor_line_for, focused)

    def _editor_line_for(self, focused: Input) -> None:
        def send(text: str) -> None:
            if not text.strip():
                return
            if focused.id == "note-input":
                if self._ready():
                    self.engine.note(text)
                    focused.value = ""
                    self.notify("Noted: the director and the characters hear it next turn.")
            else:
                self.screen.human.give(text.strip())

        # ctrl+e is bound ahead of the box, so it runs while the letters typed just before it still wait in
        # the box's queue: the text is read behind them, or the last few would be left out of the editor
        focused.call_later(lambda: self.studio.edit_text(focused.value, send))

    # -- the play itself -------------------------------------------------------------------------

    def action_edit_play(self) -> None:
        if not self._ready():
            return
        from studio.engine.forms import load_play
        from studio.tui.screens.play import PlayScreen

        path = Path(self.engine.cast.play_path)
        try:
            play = load_play(path)
        except Exception as exc:  # noqa: BLE001 - shown to the playwright
            self.report(exc, "open the play")
            return

        def saved(result: Path | None) -> None:
            if result is not None:
                self.notify(f"Saved {result}. This run keeps its play; new runs use the new one.",
                            title="Play saved")

        self.app.push_screen(PlayScreen(play, path), saved)
