"""The run screen's controls over its lines: rewind, a new take, the takes of a line side by side, and
the playwright's own edit. Each moves the run's head, so each first pauses what is being written."""

from __future__ import annotations

from typing import Any

from studio.store import events as ev
from studio.tui.screens.group import ControlGroup


class LineControls(ControlGroup):
    async def action_rewind(self) -> None:
        if not self._ready():
            return
        await self.pause()
        if not self.engine.stage():
            self.notify("Nothing to rewind.", severity="warning")
            return
        self.engine.rewind(1)
        self.resync()
        self.notify("Rewound one turn. The lines after it stay as a take: step, then [ and ] compare them.")

    async def action_regenerate(self) -> None:
        event = self._selected_take()
        if event is None:
            return
        await self.pause()
        self._start(self.screen.turns.write_take(event.id))

    def continuable(self, event: Any) -> bool:
        """Whether the model can go on from this line; if not, the playwright is told why and what to do."""
        if event.kind != ev.STAGE or event.role in (None, "director"):
            self.notify("Only a character's spoken line can be continued; select a line of dialogue "
                        "(g writes a new take of any line).", severity="warning")
            return False
        if event.role in self.engine.humans():
            self.notify(f"You play {event.character} now: e edits the line to make it longer, or t hands the role "
                        "back to its model.", severity="warning")
            return False
        return True

    async def action_continue_line(self) -> None:
        event = self._selected_take()
        if event is None or not self.continuable(event):
            return
        await self.pause()
        self._start(self.screen.turns.write_take(event.id, go_on=True))

    async def action_take(self, delta: int) -> None:
        event = self._selected_take()
        if event is None:
            return
        hidden = self.screen.hidden  # a hidden take is skipped; the one on stage always counts
        ids = [t.id for t in self.engine.takes(event.id) if t.id not in hidden or t.id == event.id]
        index = ids.index(event.id) if event.id in ids else 0
        stage_lines = self.engine.stage()
        if delta > 0 and index == len(ids) - 1 and stage_lines and stage_lines[-1].id == event.id:
            # swiping past the newest line's last take writes a new one, as chat front-ends do
            await self.pause()
            self._start(self.screen.turns.write_take(event.id))
            return
        if len(ids) <= 1:
            self.notify("This line has only one take: g writes another.", severity="warning")
            return
        target = ids[(index + delta) % len(ids)]
        await self.pause()
        self.engine.choose_take(target)
        self.resync(select=target)
        self.notify(f"Take {ids.index(target) + 1} of {len(ids)}.")

    def action_diff_takes(self) -> None:
        event = self._selected_event()
        if event is None:
            return
        from studio.tui.screens.diff import open_diff

        open_diff(self.screen, self.engine, event.id)

    def action_edit_line(self) -> None:
        event = self._selected_event()
        if event is None:
            return
        if event.kind == ev.SCENE:
            self.notify("Scene headings come from the play; edit a line instead.", severity="warning")
            return
        from studio.tui.screens.dialogs import EditLineScreen

        title = f"Edit {event.character or 'the line'}'s line · turn {event.turn}"
        self.app.push_screen(EditLineScreen(title, event.text), lambda text: self._edited(event.id, text))

    def _edited(self, event_id: int, text: str | None) -> None:
        if text is None:
            return
        self.screen.run_worker(self._override(event_id, text), group="edit", exit_on_error=False)

    async def _override(self, event_id: int, text: str) -> None:
        await self.pause()
        try:
            new = self.engine.override(event_id, text)
        except Exception as exc:  # noqa: BLE001 - shown to the playwright
            self.report(exc, "edit the line")
            return
        self.screen.note_take(new)
        self.resync(select=new.id)
        self.notify("Your line is in, a new take: the lines after it are kept as written; the old take stays.")
