"""The run screen: four panes over one engine, every control a binding, all engine work in workers.

Model calls run in async workers on the app's loop (the gateway streams without blocking it); opening
a run and exporting run in thread workers. One worker at a time drives the engine: controls that move
the run's head (rewind, regenerate, edit, takes) first pause whatever is being written, and
`on_worker_state_changed` is the one place where a failed worker becomes a notification.
"""

from __future__ import annotations

import asyncio
import gc
from contextlib import suppress
from pathlib import Path
from typing import Any, Callable

from rich.text import Text
from textual import on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.reactive import reactive
from textual.screen import Screen
from textual.widgets import Footer, Input
from textual.worker import Worker, WorkerState

from studio.store import events as ev
from studio.store.takes import marks as take_marks
from studio.tui import views
from studio.tui.controls import MAIN
from studio.tui.screens.cast_actions import CastActions
from studio.tui.screens.desk import DeskActions
from studio.tui.screens.ensemble import EnsembleActions
from studio.tui.messages import EngineRelay, EventCommitted, HumanTurn, ModelCalled, RetryStarted, TokenStreamed
from studio.tui.widgets.lines import ActivityLine, StatusLine, idle_hint
from studio.tui.widgets.game import GamePane
from studio.tui.widgets.panes import BackstagePane, CastPane, HumanInput, NotesPane
from studio.tui.widgets.stage import Entry, StageView, entry_for, palette

PANES = ("stage", "backstage", "notes", "cast", "game")
WIDE = 150  # columns from which the cast pane is shown from the start


class MainScreen(EnsembleActions, DeskActions, CastActions, Screen[None]):
    BINDINGS = [control.binding() for control in MAIN]

    side_width: reactive[int] = reactive(40, init=False)

    def __init__(self, opener: Callable[[], Any], after_open: Callable[[Any], list[str]] | None = None) -> None:
        super().__init__()
        self._opener = opener
        self._after_open = after_open
        self.engine: Any = None
        self.job: Worker[Any] | None = None
        self._human: asyncio.Future[str] | None = None
        self._view_head: int | None = None
        self._takes: dict[int, tuple[int, int]] = {}
        self._relay: EngineRelay | None = None
        self._backstage_timer: Any = None
        self._settling = False

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        yield StatusLine("Opening…", id="status")
        with Horizontal(id="panes"):
            with Vertical(id="stage-pane", classes="pane"):
                yield StageView(id="stage")
                yield HumanInput(id="human")
            with Vertical(id="side"):
                yield BackstagePane(id="backstage-pane", classes="pane")
                yield NotesPane(id="notes-pane", classes="pane")
                yield GamePane(id="game-pane", classes="pane")
            yield CastPane(id="cast-pane", classes="pane")
        yield ActivityLine("", id="activity")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        titles = {"stage-pane": "Stage", "backstage-pane": "Backstage", "notes-pane": "Director's notes",
                  "cast-pane": "Cast", "game-pane": "Game"}
        for pane, title in titles.items():
            self.query_one(f"#{pane}").border_title = title
        self.query_one(HumanInput).display = False
        self.query_one("#cast-pane").display = self.app.size.width >= WIDE
        self.query_one("#game-pane").display = False
        self._fix_side()
        self.query_one("#stage", StageView).focus()
        self.call_after_refresh(self._first_frame)

    def _first_frame(self) -> None:
        if not self.app.first_frame():  # type: ignore[attr-defined]
            self._open(self.query_one("#stage", StageView).wrap_width)

    def watch_side_width(self, width: int) -> None:
        self._fix_side()

    # -- opening -----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="open", name="open", exit_on_error=False)
    def _open(self, width: int) -> None:
        """Read the run off the loop: a thousand-turn take is a few thousand rows to parse and lay out."""
        # Thousands of new objects that live as long as the screen, and not one cycle among them: a
        # collection now would walk the whole heap with the GIL held and stall the screen, so none runs,
        # and the objects are frozen out of every later full collection.
        collecting = gc.isenabled()
        gc.disable()
        try:
            engine = self._opener()
            said = self._after_open(engine) if self._after_open else []
            takes = _take_counts(engine.store.events(engine.run_id))
            self._marks = take_marks(engine.store, engine.run_id)
            entries = [entry_for(e, _tag(e, takes, self._marks)) for e in engine.stage()]
            colours = palette((role.name for role in engine.cast.roles), self.app.current_theme.dark)
            if entries:
                entries[0].first = True
            for entry in entries:
                entry.layout(width, colours)
        finally:
            gc.freeze()
            if collecting:
                gc.enable()
        self.app.call_from_thread(self._install, engine, takes, entries, said)

    def _install(
        self, engine: Any, takes: dict[int, tuple[int, int]], entries: list[Entry], said: list[str]
    ) -> None:
        self.engine = engine
        self.app.engine = engine  # type: ignore[attr-defined]
        self._takes = takes
        self._view_head = engine.head
        stage = self.query_one("#stage", StageView)
        stage.set_cast(role.name for role in engine.cast.roles)
        self._relay = EngineRelay(engine, self)
        for message in said:
            self.notify(message)
        self.query_one(StatusLine).show(engine)
        self._set_activity(self._idle_hint())
        # the stage in one frame, the side panes in the next: each half repaints in time
        self._settling = True
        stage.replace(entries)
        self._settling = False
        # a reopened run picks up where it stopped: its newest line, once the stage knows its height
        self.call_after_refresh(stage.action_last)
        self.call_after_refresh(self.refresh_panes, None, False)
        from studio.llm import local
        from studio.llm.gateway import needs_litellm

        local.sharing_with_ui()  # the embedded model leaves the UI a core while it writes
        if needs_litellm(engine.cast):
            self.app.warm_up()  # type: ignore[attr-defined]

    def on_unmount(self) -> None:
        if self._relay is not None:
            self._relay.close()

    # -- keeping the panes in step with the run ------------------------------------------------

    def refresh_panes(self, select: int | None = None, latest: bool = True) -> None:
        engine = self.engine
        if engine is None:
            return
        self.query_one(StatusLine).show(engine)
        self.query_one(NotesPane).show(engine, latest)
        self.query_one(CastPane).show(engine)
        if self.query_one("#game-pane").display:
            self.query_one(GamePane).show(engine)
        if select is not None:
            self.query_one("#stage", StageView).select_event(select)
        self._show_backstage()

    def resync(self, select: int | None = None) -> None:
        """After the head jumped (rewind, a take, an edit): show the take the engine now follows."""
        engine = self.engine
        self._view_head = engine.head
        entries = [entry_for(e, _tag(e, self._takes, self._marks)) for e in self.stage_events()]
        self.query_one("#stage", StageView).replace(entries, select=select)
        self.refresh_panes(select)
        if not self.busy:
            self._set_activity(self._idle_hint())

    def _show_backstage(self, soon: bool = False) -> None:
        """`soon`: while the engine writes, explain at most a few times a second; each explanation
        reflows the side pane, and a frame spent there is a frame late for the next token."""
        if soon and self.busy:
            if self._backstage_timer is None:
                self._backstage_timer = self.set_timer(0.2, self._show_backstage_now)
            return
        self._show_backstage_now()

    def _show_backstage_now(self) -> None:
        self._backstage_timer = None
        if self.engine is None or self._settling or not self.query_one("#backstage-pane").display:
            return
        stage = self.query_one("#stage", StageView)
        self.query_one(BackstagePane).show(self.engine, stage.selected_id, self._takes, self.lens)

    @on(StageView.Selected)
    def _selected(self, message: StageView.Selected) -> None:
        self._show_backstage(soon=message.followed)

    @on(TokenStreamed)
    def _token(self, message: TokenStreamed) -> None:
        step = message.step
        if step.kind in ev.ON_STAGE and step.kind != ev.SCENE and not self.lens_blind():
            role = self.engine.cast.role(step.role) if step.role else None
            name = role.name if role else None
            self.query_one("#stage", StageView).stream(step.kind, step.role, name, message.token)
        self.query_one(ActivityLine).token(self.engine, step, message.token)

    @on(ModelCalled)
    def _called(self, message: ModelCalled) -> None:
        """A model is asked: until its first token, say whom the studio waits for."""
        step = message.step
        role = self.engine.cast.role(step.role) if step.role else None
        name = role.name if role else "The model"
        verb = views.TASK_VERBS.get(step.task, step.task)
        self._set_activity(f"… {name} {verb}: waiting for {message.model}")

    @on(RetryStarted)
    def _retry(self, message: RetryStarted) -> None:
        """The model's attempt broke off and starts over: what it streamed so far is void."""
        self.query_one("#stage", StageView).drop_live()
        activity = self.query_one(ActivityLine)
        activity.reset()
        role = self.engine.cast.role(message.step.role) if message.step.role else None
        name = role.name if role else "The model"
        activity.say(f"↻ {name}: {message.reason}")

    @on(EventCommitted)
    def _committed(self, message: EventCommitted) -> None:
        event = message.event
        self.query_one(ActivityLine).reset()
        if event.id not in self.engine.by_id or event.id == self._view_head:
            # a take left behind, or a head the screen already shows (an edit resyncs at once)
            self.query_one(StatusLine).show(self.engine)
            return
        if event.parent != self._view_head:
            self._note_take(event)
            self.resync(select=event.id if event.on_stage else None)
            return
        self._view_head = event.id
        stage = self.query_one("#stage", StageView)
        if self.lens is not None:
            self.lens_committed(event)
        elif event.on_stage:
            self._note_take(event)
            stage.append(entry_for(event, _tag(event, self._takes)))
        else:
            stage.drop_live()
        self.query_one(StatusLine).show(self.engine)
        if event.kind in (ev.NOTE, ev.CONTROL, ev.ERROR, ev.SCENE) or event.role == "director":
            self.query_one(NotesPane).show(self.engine)
        if event.kind in (ev.REWRITE_PROMPT, ev.CONTROL):
            self.query_one(CastPane).show(self.engine)
        if self.query_one("#game-pane").display:
            self.query_one(GamePane).show(self.engine)
        if not event.on_stage:
            self._show_backstage(soon=True)

    def _note_take(self, event: Any) -> None:
        """Keep the take counts true for the line just written and its siblings."""
        if not event.on_stage or event.kind == ev.SCENE:
            return
        with suppress(Exception):
            siblings = self.engine.takes(event.id)
            for index, sibling in enumerate(siblings):
                self._takes[sibling.id] = (index + 1, len(siblings))
                if sibling.id != event.id:
                    self.query_one("#stage", StageView).retag(sibling.id, _tag(sibling, self._takes, self._marks))

    # -- the activity line ---------------------------------------------------------------------

    def _set_activity(self, text: str) -> None:
        self.query_one(ActivityLine).say(text)

    def _idle_hint(self) -> str:
        return idle_hint(self.engine)

    # -- workers -------------------------------------------------------------------------------

    @property
    def busy(self) -> bool:
        return self.job is not None and self.job.state in (WorkerState.PENDING, WorkerState.RUNNING)

    def _ready(self) -> bool:
        if self.engine is None:
            self.notify("The run is still opening.", severity="warning")
            return False
        return True

    def _start(self, worker: Worker[Any]) -> None:
        self.job = worker

    async def pause(self) -> bool:
        """Stop whatever is being written; nothing half-written is kept. True if something was stopped."""
        job = self.job
        if job is None or job.state not in (WorkerState.PENDING, WorkerState.RUNNING):
            return False
        job.cancel()
        with suppress(BaseException):
            await job.wait()
        return True

    @work(group="engine", exclusive=True, exit_on_error=False, name="step")
    async def _step_turn(self) -> list[Any]:
        return await self.engine.play_turn(human=self._ask_human)

    @work(group="engine", exclusive=True, exit_on_error=False, name="play")
    async def _play_scene(self) -> None:
        engine = self.engine
        first = True
        while not engine.finished:
            pending = engine.pending()
            if pending is None:
                break
            if not first and pending.step.kind in (ev.SCENE, ev.EPILOGUE):
                break
            first = False
            await engine.play_turn(human=self._ask_human)

    @work(group="engine", exclusive=True, exit_on_error=False, name="regenerate")
    async def _regenerate(self, event_id: int, direction: Any = None) -> None:
        from studio.engine import NeedsHuman

        engine = self.engine
        steer = {"direction": direction.note, "temperature": direction.temperature} if direction else {}
        try:
            event = await engine.regenerate(event_id, **steer)
        except NeedsHuman as need:
            text = await self._ask_human(engine.pending() or need)
            event = await engine.step(text)
        self.call_later(self._select, event.id)

    @work(thread=True, group="export", exit_on_error=False, name="export")
    def _export(self, choice: dict[str, Any]) -> Path:
        from studio.export import export_run
        from studio.store import Store

        store = Store(self.engine.store.path)
        try:
            return export_run(store, self.engine.run_id, choice["fmt"], choice["out"], choice["backstage"])
        finally:
            store.close()

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        state = event.state
        if state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        if worker.name == "open":
            if state == WorkerState.ERROR:
                self.app.open_failed(worker.error)  # type: ignore[attr-defined]
            return
        if worker.group == "engine":
            stage = self.query_one("#stage", StageView)
            stage.drop_live()
            self.query_one(HumanInput).close()
            self.query_one(ActivityLine).reset()
            if self.engine is not None:
                self.refresh_panes()
            if state == WorkerState.CANCELLED:
                self._set_activity("Paused. Nothing half-written was kept. " + self._idle_hint())
            elif state == WorkerState.SUCCESS:
                self._set_activity(self._idle_hint())
        if state == WorkerState.ERROR:
            self.report(worker.error, worker.name)
        elif state == WorkerState.SUCCESS and worker.name == "export":
            self.notify(f"Exported to {worker.result}", title="Export")

    def report(self, error: BaseException | None, where: str = "") -> None:
        """The one place a failure becomes words on screen: what happened and what to do."""
        from studio.engine import EngineError, RunFinished
        from studio.model import InputError
        from studio.store import HeadMoved, StoreError

        if isinstance(error, EngineError):
            self._set_activity("Model error: the run is kept where it was.")
            self.notify(
                f"{error}\nThe run is kept where it was: s tries again, t takes the role over, q quits and "
                f"'studio open {self.engine.run_id}' resumes later.",
                title="Model error",
                severity="error",
                timeout=12,
            )
        elif isinstance(error, RunFinished):
            self.notify("The play is finished: r rewinds, e edits a line, g writes a new take.", title="Finished")
        elif isinstance(error, HeadMoved):
            self.engine.reload()
            self.resync()
            self.notify(f"{error}. Reloaded the run as it is now.", title="The run moved on", severity="warning")
        elif isinstance(error, InputError):
            self.notify(error.message, title="Cannot do that", severity="error", timeout=10)
        elif isinstance(error, StoreError):
            self.notify(str(error), title="Run store", severity="error", timeout=10)
        elif isinstance(error, ImportError) and where == "export":
            self.notify("Export is not available yet.", title="Export", severity="warning")
        elif error is not None:
            self.notify(f"{type(error).__name__}: {error}", title=f"Could not {where or 'do that'}", severity="error",
                        timeout=12)

    def _select(self, event_id: int) -> None:
        self.query_one("#stage", StageView).select_event(event_id)

    # -- the human's turn ----------------------------------------------------------------------

    async def _ask_human(self, pending: Any) -> str:
        if pending.role is None:  # the policy leaves the next speaker to the playwright
            return await self.ask_pick(pending)
        loop = asyncio.get_running_loop()
        self._human = loop.create_future()
        self.post_message(HumanTurn(pending))
        try:
            return await self._human
        finally:
            self._human = None
            self.query_one(HumanInput).close()
            self.query_one("#stage", StageView).focus()

    @on(HumanTurn)
    def _human_turn(self, message: HumanTurn) -> None:
        if self._human is None or self._human.done():
            return  # paused before the box could open
        role = message.pending.role
        task = message.pending.step.task
        label = f"{role.name.upper()} ({role.key}) · {views.TASK_VERBS.get(task, task)} · your line"
        self._set_activity(f"Your turn as {role.name} ({role.key}): type the line, Enter sends, Esc pauses.")
        choices = self.engine.form.choices(self.engine.state, message.pending.step, role)
        if choices:  # a move or a vote: say what the rules allow rather than let the player guess
            self._set_activity(f"Your turn as {role.name}: one of " + " · ".join(choices) + ". Enter sends, Esc pauses.")
        hint = ("one of: " + " · ".join(choices)) if choices else f"{role.name}'s line"
        self.query_one(HumanInput).open(label, f"{hint} (Enter sends, Esc pauses)")
        # the box takes rows from the stage: keep the line being answered in sight above it
        stage = self.query_one("#stage", StageView)
        self.call_after_refresh(stage.action_last)

    @on(Input.Submitted, "#human-line")
    def _human_line(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text:
            self.notify("Type the line first; Esc pauses instead.", severity="warning")
            return
        if self._human is not None and not self._human.done():
            self._human.set_result(text)

    @on(Input.Submitted, "#note-input")
    def _note(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or not self._ready():
            return
        self.engine.note(text)
        event.input.value = ""
        # back to the stage, so the next key is a control again, not a letter of another note
        self.query_one("#stage", StageView).focus()
        self.notify("Noted: the director and the characters hear it next turn.")

    def key_escape(self) -> None:
        if self._human is None and not self.busy and self.end_search():
            return
        if self._human is not None or self.busy:
            self.run_worker(self.pause(), group="pause")
        elif self.focused is not None and self.focused.id == "note-input":
            self.query_one("#stage", StageView).focus()

    # -- controls ------------------------------------------------------------------------------

    def action_step(self) -> None:
        if not self._ready():
            return
        if self.busy:
            self.notify("Already writing; p pauses.", severity="warning")
            return
        if self.engine.finished:
            self.report(_finished())
            return
        self._start(self._step_turn())

    async def action_play(self) -> None:
        if not self._ready():
            return
        if self.busy:
            await self.pause()
            return
        if self.engine.finished:
            self.report(_finished())
            return
        self._start(self._play_scene())

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
        event = self._selected_event()
        if event is None:
            return
        if event.kind == ev.SCENE:
            self.notify("A scene heading has only one take; select a line.", severity="warning")
            return
        await self.pause()
        self._start(self._regenerate(event.id))

    async def action_take(self, delta: int) -> None:
        event = self._selected_event()
        if event is None:
            return
        if event.kind == ev.SCENE:
            self.notify("A scene heading has only one take; select a line.", severity="warning")
            return
        takes = self.engine.takes(event.id)
        ids = [t.id for t in takes]
        index = ids.index(event.id) if event.id in ids else 0
        stage_lines = self.engine.stage()
        if delta > 0 and index == len(ids) - 1 and stage_lines and stage_lines[-1].id == event.id:
            # swiping past the newest line's last take writes a new one, as chat front-ends do
            await self.pause()
            self._start(self._regenerate(event.id))
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

        open_diff(self, self.engine, event.id)

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
        self.run_worker(self._override(event_id, text), group="edit", exit_on_error=False)

    async def _override(self, event_id: int, text: str) -> None:
        await self.pause()
        try:
            new = self.engine.override(event_id, text)
        except Exception as exc:  # noqa: BLE001 - shown to the playwright
            self.report(exc, "edit the line")
            return
        self._note_take(new)
        self.resync(select=new.id)
        self.notify("Your line is in; the run branches from it and the old future stays a take.")

    def action_note(self) -> None:
        if self._search is not None:
            self.action_search_move(1)
            return
        self._show_pane("notes")
        self.query_one("#note-input", Input).focus()

    @on(CastPane.OptionSelected, "#cast-pane")
    def _cast_chosen(self, event: CastPane.OptionSelected) -> None:
        if event.option.id:
            self.edit_character(event.option.id)

    def action_toggle_pane(self, name: str) -> None:
        widget = self.query_one(f"#{name}-pane")
        if widget.display and sum(self.query_one(f"#{p}-pane").display for p in PANES) == 1:
            self.notify("One pane stays open.", severity="warning")
            return
        if widget.display:
            widget.display = False
        else:
            self._show_pane(name)
            return
        self._fix_side()

    def _show_pane(self, name: str) -> None:
        self.query_one(f"#{name}-pane").display = True
        self._fix_side()
        if name == "backstage":
            self._show_backstage()
        if name == "game" and self.engine is not None:
            self.query_one(GamePane).show(self.engine)

    def _fix_side(self) -> None:
        """Share the width: the stage keeps what the side panes leave, and never less than 45%."""
        side = self.query_one("#side")
        cast = self.query_one("#cast-pane")
        side.display = any(self.query_one(f"#{p}-pane").display for p in ("backstage", "notes", "game"))
        stage_shown = self.query_one("#stage-pane").display
        width = self.side_width
        if side.display and cast.display:
            room = min(width + 15, 80)
            side.styles.width = f"{room * 55 // 100}%"
            cast.styles.width = f"{room - room * 55 // 100}%"
        else:
            side.styles.width = f"{width}%"
            cast.styles.width = f"{width}%"
        side.set_class(not stage_shown and not cast.display, "-alone")
        cast.set_class(not stage_shown and not side.display, "-alone")

    def action_resize(self, delta: int) -> None:
        self.side_width = max(20, min(75, self.side_width + delta))

    def _selected_event(self) -> Any:
        if not self._ready():
            return None
        event_id = self.query_one("#stage", StageView).selected_id
        event = self.engine.by_id.get(event_id) if event_id is not None else None
        if event is None:
            self.notify("Select a line on the stage first.", severity="warning")
        return event


def _finished() -> Exception:
    from studio.engine import RunFinished

    return RunFinished("finished")


def _take_counts(events: list[Any]) -> dict[int, tuple[int, int]]:
    """Which take of its line each on-stage event is: one pass over every take of the run."""
    groups: dict[tuple[Any, ...], list[int]] = {}
    for event in events:
        if event.kind in (ev.STAGE, ev.DIRECTION, ev.EPILOGUE):
            slot = "line" if event.kind in (ev.STAGE, ev.DIRECTION) else event.kind
            groups.setdefault((event.parent, event.role, slot), []).append(event.id)
    counts: dict[int, tuple[int, int]] = {}
    for ids in groups.values():
        if len(ids) > 1:
            for index, event_id in enumerate(ids):
                counts[event_id] = (index + 1, len(ids))
    return counts


def _tag(event: Any, takes: dict[int, tuple[int, int]], marks: dict[int, Any] | None = None) -> str:
    tags = []
    mark = marks.get(event.id) if marks else None
    if mark is not None and mark.starred:
        tags.append("★")
    if mark is not None and mark.name:
        tags.append(f"“{mark.name}”")
    if event.origin == "human":
        tags.append("yours")
    elif event.origin == "override":
        tags.append("edited")
    if event.data.get("heard_as"):
        tags.append(f"as {event.data['heard_as']} heard it")
    index, count = takes.get(event.id, (1, 1))
    if count > 1:
        tags.append(f"take {index}/{count}")
    return " · ".join(tags)
