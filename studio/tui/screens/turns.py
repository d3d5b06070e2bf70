"""The run screen's controls that write: a step, the rest of the scene, a new take of a line. Each runs
as the screen's one engine worker, and a human role's line or a playwright's pick is awaited inside it;
a role another window holds is that window's to write, and this one waits for the line to land."""

from __future__ import annotations

from typing import Any

from textual.worker import Worker

from studio.store import events as ev
from studio.tui.screens.failures import finished
from studio.tui.screens.group import FOLLOW_EVERY, ControlGroup
from studio.tui.widgets.stage import StageView


class TurnControls(ControlGroup):
    def action_step(self) -> None:
        if not self._ready():
            return
        if self.busy:
            self.notify("Already writing; p pauses.", severity="warning")
            return
        if self.engine.finished:
            self.report(finished())
            return
        self._start(self.step_turn())

    async def action_play(self) -> None:
        if not self._ready():
            return
        if self.busy:
            await self.pause()
            return
        if self.engine.finished:
            self.report(finished())
            return
        self._start(self._worker(self._play_scene(), "play"))

    def _worker(self, work: Any, name: str) -> Worker[Any]:
        return self.screen.run_worker(work, group="engine", exclusive=True, exit_on_error=False, name=name)

    def step_turn(self) -> Worker[Any]:
        return self._worker(self._step(), "step")

    async def _step(self) -> None:
        from studio.engine import HeldElsewhere

        try:
            await self.engine.play_turn(human=self.ask_human)
        except HeldElsewhere as held:
            await self.wait_for(held)

    def write_take(self, event_id: int, direction: Any = None, go_on: bool = False) -> Worker[Any]:
        """A new take of a line, steered by a `direction` (a note and a temperature) when one is given;
        with `go_on`, the line so far and what the model adds to it."""
        return self._worker(self._write_take(event_id, direction, go_on), "continue" if go_on else "regenerate")

    async def _play_scene(self) -> None:
        from studio.engine import HeldElsewhere

        engine = self.engine
        first = True
        while not engine.finished:
            pending = engine.pending()
            if pending is None:
                break
            if not first and pending.step.kind in (ev.SCENE, ev.EPILOGUE):
                break
            first = False
            try:
                await engine.play_turn(human=self.ask_human)
            except HeldElsewhere as held:
                await self.wait_for(held)

    async def _write_take(self, event_id: int, direction: Any, go_on: bool = False) -> None:
        from studio.engine import NeedsHuman

        engine = self.engine
        steer = {"direction": direction.note, "temperature": direction.temperature} if direction else {}
        try:
            if go_on:
                event = await engine.continue_line(event_id, direction=steer.get("direction"))
            else:
                event = await engine.regenerate(event_id, **steer)
        except NeedsHuman as need:
            text = await self.ask_human(engine.pending() or need)
            event = await engine.step(text)
        self.screen.call_later(self.screen.query_one("#stage", StageView).select_event, event.id)

    async def wait_for(self, held: Any) -> None:
        """The next line is a role another window holds: this window asks no one, shows whose line it is,
        and rereads the run until that line lands (or the role is handed back, or its window goes)."""
        import asyncio

        engine = self.engine
        # through the screen's queue, behind the tokens of the line just written, so none of them covers it
        self.screen.call_later(self._set_activity, f"… {held.role.name}'s line is {held.window}'s to write: "
                               "waiting for it; p stops waiting")
        while True:
            await asyncio.sleep(FOLLOW_EVERY)
            self.screen.catch_up()
            pending = engine.pending()
            if pending is None or pending.step != held.step or engine.seat_holder(held.role.key) is None:
                return

    async def ask_human(self, pending: Any) -> str:
        if pending.role is None:  # the policy leaves the next speaker to the playwright
            return await self.screen.ensemble.ask_pick(pending)
        try:
            text = await self.screen.human.ask(self.engine, pending)
            self.screen.shared.unsent = text  # until it is in: a run moved on elsewhere keeps it (failures.py)
            return text
        finally:
            self.screen.query_one("#stage", StageView).focus()
