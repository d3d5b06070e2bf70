"""The run screen's pen: the playwright's own lines put into the take (a line added, cut or moved), the
undo and redo of what the playwright did in this window, and a draft of a played role's line.

Each edit is the engine's (`insert`, `cut`, `move`): a new take from the edited line, the lines after it
copied as written and marked "kept", the old take left standing. Undo shows exactly the take that was on
stage before the action; nothing is deleted, so redo can go forward again.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from studio.store import events as ev
from studio.tui.screens.group import ControlGroup

IN_A_BOX = ("Input", "TextArea", "LongText")
"""Text boxes: ctrl+z and ctrl+y there undo and redo the typing, never the run."""


class PenControls(ControlGroup):
    # -- a line of the playwright's own ------------------------------------------------------------

    def action_insert_line(self, before: bool) -> None:
        event = self._selected_event()
        if event is None:
            return
        from studio.tui.screens.insert import InsertLineScreen

        names = [role.name for role in self.engine.cast.characters]
        speaker = event.character if event.kind == ev.STAGE and event.character else (names[0] if names else "")
        where = "before" if before else "after"
        whose = f"{event.character}'s line" if event.character else "the line"
        title = f"A line of yours {where} {whose} · turn {event.turn}"

        def written(choice: dict[str, Any] | None) -> None:
            if choice is None:
                return
            text = choice.pop("text")
            self._edit("add the line", lambda: self.engine.insert(event.id, text, before=before, **choice),
                       "Your line is in, on a new take; the lines after it are kept as written. u undoes it.")

        self.app.push_screen(InsertLineScreen(title, names, speaker), written)

    def action_cut_line(self) -> None:
        event = self._selected_event()
        if event is None:
            return
        index = self._stage_index(event.id)
        self._edit("cut the line", lambda: self.engine.cut(event.id),
                   "Cut, on a new take; the lines after it are kept as written. u brings it back.", index=index)

    def action_move_line(self, delta: int) -> None:
        event = self._selected_event()
        if event is None:
            return
        lines = self.screen.ensemble.stage_events()
        index = self._stage_index(event.id)
        neighbour = index + delta
        if index < 0 or not 0 <= neighbour < len(lines):
            self.notify("The line is already the " + ("first." if delta < 0 else "last."), severity="warning")
            return
        anchor = lines[neighbour]
        self._edit("move the line", lambda: self.engine.move(event.id, anchor.id, before=delta < 0),
                   "Moved, on a new take; the old order stays a take. u puts it back.")

    def _stage_index(self, event_id: int) -> int:
        ids = [e.id for e in self.screen.ensemble.stage_events()]
        return ids.index(event_id) if event_id in ids else -1

    def _edit(self, what: str, do: Callable[[], Any], said: str, index: int | None = None) -> None:
        self.screen.run_worker(self._do(what, do, said, index), group="pen", exit_on_error=False)

    async def _do(self, what: str, do: Callable[[], Any], said: str, index: int | None) -> None:
        await self.pause()
        try:
            new = do()
        except Exception as exc:  # noqa: BLE001 - shown to the playwright
            self.report(exc, what)
            return
        self._shown(new, index)
        self.notify(said)

    def _shown(self, new: Any, index: int | None = None) -> None:
        """The stage shows the take the engine follows now, the line just written selected (after a cut,
        the line that took the cut one's place)."""
        from studio.tui.widgets.stage import StageView

        self.screen.recount_takes()
        select = new.id if new is not None and getattr(new, "on_stage", False) else None
        self.resync(select=select)
        if select is None and index is not None and index >= 0:
            self.screen.query_one("#stage", StageView).select_index(index)

    # -- undo and redo ------------------------------------------------------------------------

    async def action_undo(self) -> None:
        await self._history("undo")

    async def action_redo(self) -> None:
        await self._history("redo")

    async def _history(self, which: str) -> None:
        focused = self.screen.focused
        if focused is not None and type(focused).__name__ in IN_A_BOX:
            # ctrl+z in a box is the box's own: in the line's box, it gives back the text a draft replaced
            if which == "undo" and focused.id == "human-line":
                self.screen.human.drop_draft()
            return
        if not self._ready():
            return
        engine = self.engine
        if not (engine.can_undo() if which == "undo" else engine.can_redo()):
            self.notify("Nothing of yours to undo in this window." if which == "undo"
                        else "Nothing to redo: u undoes, then U does it again.", severity="warning")
            return
        await self.pause()
        try:
            said = engine.undo() if which == "undo" else engine.redo()
        except Exception as exc:  # noqa: BLE001 - shown to the playwright
            self.report(exc, which)
            return
        self._shown(None)
        if said:  # "Undid the cut of event 12"
            self.notify(f"{said}. U does it again." if which == "undo" else f"{said}.", markup=False)

    # -- a draft of a played role's line ------------------------------------------------------------

    def action_impersonate(self) -> None:
        human = self.screen.human
        if not self._ready():
            return
        if not human.waiting:
            self.notify("ctrl+g drafts your line once it is your turn: t takes over a role, s steps to its line.",
                        severity="warning")
            return
        human.draft(self.engine)
