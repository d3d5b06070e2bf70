"""The run screen: four panes over one engine, every control a binding, all engine work in workers.

Model calls run in async workers on the app's loop (the gateway streams without blocking it); opening
a run and exporting run in thread workers. One worker at a time drives the engine: controls that move
the run's head (rewind, regenerate, edit, takes) first pause whatever is being written, and
`on_worker_state_changed` is the one place where a failed worker becomes a notification.

The screen keeps the stage in step with the take it follows; every other pane hears the committed
events and redraws of the run itself (`RunPane`), so the screen never names them one by one. The
controls live in groups (turns, lines, desk, ensemble, cast, the panes' room), each owning its actions;
the bindings stay the one table's, and the screen finds each action on the group that has it.
"""

from __future__ import annotations

import gc
from collections.abc import Callable
from contextlib import suppress
from typing import TYPE_CHECKING, Any

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widget import AwaitMount, Widget
from textual.widgets import Input
from textual.worker import Worker, WorkerState

from studio.present.stage import tag, take_counts
from studio.present.words import TASK_VERBS
from studio.store import RunGone, StoreError
from studio.store import events as ev
from studio.tui.controls import MAIN
from studio.tui.messages import (
    EngineRelay,
    EventCommitted,
    LineSelected,
    ModelCalled,
    RetryStarted,
    RunRedrawn,
    TokenStreamed,
)
from studio.tui.screens.cast_actions import CastControls
from studio.tui.screens.desk import DeskControls
from studio.tui.screens.ensemble import EnsembleControls
from studio.tui.screens.failures import report
from studio.tui.screens.group import FOLLOW_EVERY
from studio.tui.screens.line_controls import LineControls
from studio.tui.screens.pen import PenControls
from studio.tui.screens.room import PaneRoom
from studio.tui.screens.shared import SharedStage
from studio.tui.screens.turns import TurnControls
from studio.tui.widgets.footer import StudioFooter
from studio.tui.widgets.game import GamePane
from studio.tui.widgets.lines import ActivityLine, AskLine, StatusLine, idle_hint
from studio.tui.widgets.panes import (
    BackstagePane,
    CastPane,
    HumanInput,
    NotesPane,
    RunPane,
)
from studio.tui.studio_view import StudioScreen
from studio.tui.widgets.stage import Entry, StageView, entry_for, palette

if TYPE_CHECKING:
    from studio.tui.engine_view import EngineView

WIDE = 150  # columns from which the cast pane is shown from the start
WIDE_FOOTER = ("continue_line", "direct", "take_tree", "diff_takes", "search", "jump", "export",
               "insert_line(False)", "undo")
"""Keys the footer names after the rest, where a wide terminal leaves it room."""
ON_LINES = ("rewind", "regenerate", "take(-1)", "take(1)", "edit_line", *WIDE_FOOTER)
"""Keys that act on lines already written: the footer leaves them out until there is one."""


class MainScreen(StudioScreen[None]):
    BINDINGS = [control.binding() for control in MAIN]

    def __init__(
        self, opener: Callable[[], Any], after_open: Callable[[Any], list[str]] | None = None, opening: str = "Opening…"
    ) -> None:
        super().__init__()
        self._opening = opening  # the status line until the run is read: the play's title, as plain text
        self._opener = opener
        self._after_open = after_open
        self.engine: EngineView | None = None
        self.job: Worker[Any] | None = None
        self._view_head: int | None = None
        self._restored = False  # the panes were laid out as the run before this one left them (R)
        self.takes: dict[int, tuple[int, int]] = {}
        self.marks: dict[int, Any] = {}  # names and stars by the line a take starts at, shown as its tag
        self.hidden: set[int] = set()  # the events of hidden takes, left out of the take counts
        self._relay: EngineRelay | None = None
        self._later: dict[str, Widget] = {}  # panes mounted after the first frame, by where they go
        self._mounting: list[AwaitMount] = []
        self.lines = LineControls(self)
        self.desk = DeskControls(self)
        self.ensemble = EnsembleControls(self)
        self.cast_controls = CastControls(self)
        self.room = PaneRoom(self)
        self.turns = TurnControls(self)
        self.shared = SharedStage(self)
        self.pen = PenControls(self)
        self.control_groups = (self.turns, self.lines, self.pen, self.desk, self.ensemble, self.cast_controls,
                               self.room)

    def __getattr__(self, name: str) -> Any:
        """A binding's action that the screen does not have is on the group of controls that owns it."""
        if name.startswith("action_"):
            for group in self.__dict__.get("control_groups", ()):
                if hasattr(type(group), name):
                    return getattr(group, name)
        raise AttributeError(f"{type(self).__name__!r} object has no attribute {name!r}")

    # -- layout ----------------------------------------------------------------------------

    def compose(self) -> ComposeResult:
        human, game = HumanInput(id="human"), GamePane(id="game-pane", classes="pane")
        cast = CastPane(id="cast-pane", classes="pane")
        cast.display = self.app.size.width >= WIDE
        # What the first frame does not show is mounted after it (`mount_later`), by where it goes: the
        # human's box and the game pane, hidden until asked for, and the cast on a narrow terminal. Panes
        # laid out as the run before left them (R) are all mounted at once, as any of them may be open.
        if self.studio.pane_layout is None:
            self._later = {"#stage-pane": human, "#side": game} | ({} if cast.display else {"#panes": cast})
        later = self._later.values()
        # The stage is focused before it mounts, so it is styled once, focused: focused after its mount,
        # Textual styles it and its parts again, twice. Its pane is styled before the stage is in it, so
        # the pane alone is styled again once both are mounted (`on_mount`).
        stage = StageView(id="stage")
        stage.set_reactive(StageView.has_focus, True)
        self.set_focus(stage)
        yield StatusLine(Text(self._opening), id="status")
        with Horizontal(id="panes"):
            with Vertical(id="stage-pane", classes="pane"):
                yield stage
                if human not in later:
                    yield human
            with Vertical(id="side"):
                yield BackstagePane(id="backstage-pane", classes="pane")
                yield NotesPane(id="notes-pane", classes="pane")
                if game not in later:
                    yield game
            if cast not in later:
                yield cast
        ask = AskLine(id="ask")
        ask.display = False
        yield ask
        yield ActivityLine("", id="activity")
        yield StudioFooter(compact=True)

    def mount_later(self) -> None:
        """Mount the panes kept off the first frame, hidden, each last in its place as composed; at once
        if a key wants one before the first frame is out. A mounted widget is in the screen's queries at
        once and what it holds a moment later: the run's opening waits for `_mounting`."""
        later, self._later = self._later, {}
        for parent, widget in later.items():
            widget.display = False  # not for one frame before its own mount hides it
            self._mounting.append(self.query_one(parent).mount(widget))

    def on_mount(self) -> None:
        stage_pane = self.query_one("#stage-pane")
        stage_pane.border_title = "Stage"
        self.app.stylesheet.update_nodes([stage_pane])  # now it holds the focus (`compose`)
        layout, self.studio.pane_layout = self.studio.pane_layout, None
        self._restored = layout is not None
        if layout is not None:
            self.room.restore(layout)
        self.room.fit()
        self.call_after_refresh(self._first_frame)
        self._controls_seen: int | None = None
        self.set_interval(FOLLOW_EVERY, self._follow_others)

    def _follow_others(self) -> None:
        if not self.busy:  # while it writes, its own commit is the check (below)
            self.catch_up()

    def catch_up(self) -> bool:
        """Another window, tab or terminal on this run wrote to it (a line, a take, a role taken over or
        handed back): this one rereads the run and shows it. Called while idle, and by a step waiting for a
        line another window holds; while this window writes, its own commit is the check: the head moved
        elsewhere, so the commit is refused and the run reloaded (failures.py). A role held by a window
        that has gone is handed back here too. True when the run was reread."""
        engine = self.engine
        if engine is not None and self._controls_seen is None:  # the first look: what the run opened with
            self._controls_seen = len(engine.store.controls(engine.run_id))
        if engine is None:
            return False
        humans, holders = engine.humans(), engine.holders()
        reread = False
        before = engine.head
        news = None
        if engine.store.changed_elsewhere():
            store, run = engine.store, engine.run_id
            controls = len(store.controls(run))
            try:
                head = store.head(run)
            except StoreError:  # deleted elsewhere, past a lease that ran out: said once, back to the picker
                self.report(store.gone(run))
                return False
            if head != engine.head or controls != self._controls_seen:
                self._controls_seen = controls
                seen = set(engine.by_id)
                engine.reload()
                news = self.shared.news(before, seen)
                self.resync()
                reread = True
        freed = []
        if any(holder != engine.holder for holder in engine.holders().values()):
            try:
                freed = engine.free_gone()
            except StoreError:
                pass  # another window handed them back first, or wrote meanwhile: the next look rereads
        if news:
            self.notify(news, title="From another window", markup=False)
        if reread or freed:
            self._say_who_plays(humans, holders)
        # Only a run brought forward to this window's line opens its box: a rewind or a new take elsewhere
        # never opens it, nor takes the key its playwright is about to press.
        if reread and (before is None or (before in engine.by_id and engine.head != before)):
            self.ask_if_mine()
        return reread

    def ask_if_mine(self) -> None:
        """Another window brought the run to a line of a role this window holds: the other windows wait for
        it, so this one opens its input box at once, unless its playwright is busy with a dialog or a box."""
        engine = self.engine
        if engine is None or engine.holder is None or self.busy or engine.finished or self.app.screen is not self \
                or isinstance(self.focused, Input):
            return
        pending = engine.pending()
        if pending is None or not pending.human or pending.role is None \
                or engine.holders().get(pending.role.key) != engine.holder:
            return
        self.turns.action_step()  # the box, opening, is what the playwright sees: toasts make way for it

    def _say_who_plays(self, humans: set[str], holders: dict[str, str]) -> None:
        """Who plays which role, for everyone on the run: a role taken or handed back elsewhere is said here."""
        from studio.store.leases import window_name

        engine = self.engine
        if engine is None:
            return
        now, held = engine.humans(), engine.holders()
        for key in sorted(humans | now):
            name = f"{engine.cast.role(key).name} ({key})"
            before, after = holders.get(key), held.get(key)
            if key in now and (key not in humans or before != after) and after != engine.holder:
                self.notify(f"{name} is played by {window_name(after)} now." if after
                            else f"{name} is played by a playwright now.", title="From another window",
                            markup=False)
            elif key in humans and key not in now:  # in the words of the hand-back: why, if it says
                said = next((e.text for e in reversed(engine.store.controls(engine.run_id))
                             if key in (e.data.get("human") or {})), f"{name} goes back to the model.")
                self.notify(said, title="From another window", markup=False)

    async def _first_frame(self) -> None:
        if self.studio.first_frame():
            return
        self.mount_later()
        while self._mounting:  # in place before the run can open a box or show a pane
            await self._mounting.pop()
        self._open(self.query_one("#stage", StageView).wrap_width)

    def footer_actions(self) -> list[str]:
        """The footer's keys, most important first; an ensemble's own keys come right after step and play,
        since nothing else on screen says they exist. The keys kept to the help screen at 80 columns follow
        where the width has room for them; before the first line, the keys that act on lines are left out."""
        actions = [control.action for control in MAIN if control.show] + [
            a for a in WIDE_FOOTER if a not in (c.action for c in MAIN if c.show)]
        if self.engine is not None and self.engine.head is None:
            actions = [a for a in actions if a not in ON_LINES]
        if isinstance(self.focused, Input):  # ctrl+z there is the box's, not the run's undo
            actions = [a for a in actions if a != "undo"]
        if self.engine is not None and not self._has_inner_voice():
            actions.remove("strategies")  # no superego, no inner voices: v has nothing to switch
        if self.engine is not None and self.ensemble_run:
            at = actions.index("play") + 1
            actions[at:at] = ["who_next", "enter_exit"]
            at = actions.index("regenerate") + 1 if "regenerate" in actions else actions.index("enter_exit") + 1
            actions[at:at] = ["view_as"]
        if self.engine is not None and self.cast_controls.living_roles():
            # m only where a character has an inner life to set by hand; elsewhere it only says so
            after = next((a for a in ("view_as", "regenerate", "play") if a in actions), None)
            at = actions.index(after) + 1 if after is not None else len(actions)
            actions[at:at] = ["mind"]
        return actions + ["help"]

    def _has_inner_voice(self) -> bool:
        engine = self.engine
        return engine is not None and any(r.kind == "superego" for r in engine.cast.roles)

    @property
    def ensemble_run(self) -> bool:
        from studio.tui import views

        return self.engine is not None and views.ens.is_ensemble(self.engine)

    # -- opening -----------------------------------------------------------------------------

    @work(thread=True, exclusive=True, group="open", name="open", exit_on_error=False)
    def _open(self, width: int) -> None:
        """Read the run off the loop: a thousand-turn take is a few thousand rows to parse and lay out."""
        # Thousands of new objects that live as long as the screen, and not one cycle among them: a
        # collection now would walk the whole heap with the GIL held and stall the screen, so none runs,
        # and the objects are frozen out of every later full collection.
        from studio.store.takes import hidden_events
        from studio.store.takes import marks as take_marks

        collecting = gc.isenabled()
        gc.disable()
        try:
            engine = self._opener()
            self.studio.seat(engine)  # before any role is taken: they are held in this window's name
            said = self._after_open(engine) if self._after_open else []
            self.hidden = hidden_events(engine.store, engine.run_id)
            takes = take_counts(engine.store.events(engine.run_id), self.hidden)
            self.marks = take_marks(engine.store, engine.run_id)
            entries = [entry_for(e, tag(e, takes, self.marks)) for e in engine.stage()]
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
        self, engine: EngineView, takes: dict[int, tuple[int, int]], entries: list[Entry], said: list[str]
    ) -> None:
        self.engine = engine
        self.studio.engine = engine
        self.takes = takes
        self._view_head = engine.head
        stage = self.query_one("#stage", StageView)
        stage.set_cast(role.name for role in engine.cast.roles)
        self._relay = EngineRelay(engine, self)
        for message in said:
            self.notify(message)
        self.query_one(StatusLine).show(engine)
        # the footer names an ensemble's keys, and drops v where nothing has an inner voice, once it knows
        self.query_one(StudioFooter).refresh_keys()
        from studio.present.game import is_game

        if is_game(engine) and not self._restored:  # a game's map, alliances and votes: in sight from the start
            self.room.show_pane("game")
        self.set_activity(self.idle_hint())
        # the stage in one frame, the side panes in the next: each half repaints in time
        stage.replace(entries)
        # a reopened run picks up where it stopped: its newest line, once the stage knows its height
        self.call_after_refresh(stage.action_last)
        self.call_after_refresh(self.refresh_panes, None, False)
        from studio.llm import local
        from studio.llm.gateway import needs_litellm

        local.sharing_with_ui()  # the embedded model leaves the UI a core while it writes
        if needs_litellm(engine.cast):
            self.studio.warm_up()

    def on_unmount(self) -> None:
        if self._relay is not None:
            self._relay.close()

    # -- keeping the stage in step with the run, and telling the panes ---------------------------

    def run_panes(self) -> list[RunPane]:
        """Found afresh each time (a walk over a few dozen widgets), so a pane mounted later hears too."""
        return [w for w in self.walk_children() if isinstance(w, RunPane)]

    def tell_panes(self, make: Callable[[], Message], only: Callable[[RunPane], bool] | None = None) -> None:
        """Each pane gets a message of its own: a message is handled once, by the one it was posted to."""
        for pane in self.run_panes():
            if only is None or only(pane):
                pane.post_message(make())

    def refresh_panes(self, select: int | None = None, latest: bool = True) -> None:
        engine = self.engine
        if engine is None:
            return
        if select is not None:
            self.query_one("#stage", StageView).select_event(select)
        self.tell_panes(lambda: RunRedrawn(engine, self.takes, latest, self.ensemble.lens))

    def resync(self, select: int | None = None) -> None:
        """After the head jumped (rewind, a take, an edit): show the take the engine now follows."""
        engine = self.engine
        if engine is None:
            return
        self._view_head = engine.head
        entries = [entry_for(e, tag(e, self.takes, self.marks)) for e in self.ensemble.stage_events()]
        self.query_one("#stage", StageView).replace(entries, select=select)
        self.refresh_panes(select)
        self.query_one(StudioFooter).refresh_keys()  # rewound to before the first line, or away from it
        if not self.busy:
            self.set_activity(self.idle_hint())

    @on(StageView.Selected)
    def _selected(self, message: StageView.Selected) -> None:
        soon = message.followed and self.busy
        self.tell_panes(lambda: LineSelected(message.event_id, soon))

    @on(TokenStreamed)
    def _token(self, message: TokenStreamed) -> None:
        step, engine = message.step, self.engine
        if engine is None:
            return
        if step.kind in ev.ON_STAGE and step.kind != ev.SCENE and not self.ensemble.lens_blind():
            role = engine.cast.role(step.role) if step.role else None
            name = role.name if role else None
            self.query_one("#stage", StageView).stream(step.kind, step.role, name, message.token)
        self.tell_panes(lambda: TokenStreamed(step, message.token, engine),
                        only=lambda pane: hasattr(pane, "on_token_streamed"))

    @on(ModelCalled)
    def _called(self, message: ModelCalled) -> None:
        """A model is asked: until its first token, say whom the studio waits for."""
        step = message.step
        role = self.engine.cast.role(step.role) if self.engine is not None and step.role else None
        name = role.name if role else "The model"
        verb = TASK_VERBS.get(step.task, step.task)
        self.set_activity(f"… {name} {verb}: waiting for {message.model}")

    @on(RetryStarted)
    def _retry(self, message: RetryStarted) -> None:
        """The model's attempt broke off and starts over: what it streamed so far is void."""
        self.query_one("#stage", StageView).drop_live()
        role = self.engine.cast.role(message.step.role) if self.engine is not None and message.step.role else None
        name = role.name if role else "The model"
        self.set_activity(f"↻ {name}: {message.reason}", reset=True)

    @on(EventCommitted)
    def _committed(self, message: EventCommitted) -> None:
        event, engine = message.event, self.engine
        if engine is None:
            return
        if event.id in engine.by_id and event.id != self._view_head:
            # else a take left behind, or a head the screen already shows (an edit resyncs at once)
            if event.parent != self._view_head:
                self.note_take(event)
                self.resync(select=event.id if event.on_stage else None)
            else:
                self._view_head = event.id
                stage = self.query_one("#stage", StageView)
                if self.ensemble.lens is not None:
                    self.ensemble.lens_committed(event)
                elif event.on_stage:
                    self.note_take(event)
                    stage.append(entry_for(event, tag(event, self.takes)))
                else:
                    stage.drop_live()
        soon = self.busy
        self.tell_panes(lambda: EventCommitted(event, engine, self.takes, soon))
        if event.parent is None:  # the run's first event: the keys that act on lines have something to act on
            self.query_one(StudioFooter).refresh_keys()

    def recount_takes(self) -> None:
        """After takes were hidden or shown again: the counts on stage from the store afresh."""
        engine = self.engine
        if engine is None:
            return
        from studio.store.takes import hidden_events
        from studio.store.takes import marks as take_marks

        self.marks = take_marks(engine.store, engine.run_id)
        self.hidden = hidden_events(engine.store, engine.run_id)
        self.takes = take_counts(engine.store.events(engine.run_id), self.hidden)

    def note_take(self, event: Any) -> None:
        """Keep the take counts true for the line just written and its siblings."""
        if not event.on_stage or event.kind == ev.SCENE or self.engine is None:
            return
        with suppress(Exception):
            siblings = [t for t in self.engine.takes(event.id) if t.id not in self.hidden or t.id == event.id]
            for index, sibling in enumerate(siblings):
                self.takes[sibling.id] = (index + 1, len(siblings))
                if sibling.id != event.id:
                    self.query_one("#stage", StageView).retag(sibling.id, tag(sibling, self.takes, self.marks))

    # -- the activity line ---------------------------------------------------------------------

    def set_activity(self, text: str | None, reset: bool = False) -> None:
        self.query_one(ActivityLine).post_message(ActivityLine.Say(text, reset))

    def idle_hint(self) -> str:
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

    async def pause(self) -> bool:
        """Stop whatever is being written; nothing half-written is kept. True if something was stopped."""
        job = self.job
        if job is None or job.state not in (WorkerState.PENDING, WorkerState.RUNNING):
            return False
        job.cancel()
        with suppress(BaseException):
            await job.wait()
        return True

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        worker = event.worker
        state = event.state
        if state not in (WorkerState.SUCCESS, WorkerState.ERROR, WorkerState.CANCELLED):
            return
        if worker.name == "open":
            if state == WorkerState.ERROR and worker.error is not None:
                self.studio.open_failed(worker.error)
            return
        if worker.group == "engine":
            if state != WorkerState.ERROR:
                self.shared.unsent = None  # in, or paused by its own playwright
            self.query_one("#stage", StageView).drop_live()
            self.query_one(HumanInput).close()
            self.set_activity(None, reset=True)
            if not isinstance(worker.error, RunGone):  # nothing is left of a deleted run to show
                self.refresh_panes()
            if state == WorkerState.CANCELLED:
                self.set_activity("Paused. Nothing half-written was kept. " + self.idle_hint())
            elif state == WorkerState.SUCCESS:
                self.set_activity(self.idle_hint())
        if state == WorkerState.ERROR:
            self.report(worker.error, worker.name)
        elif state == WorkerState.SUCCESS and worker.name == "export" and worker.result is not None:
            self.studio.deliver(worker.result)

    def report(self, error: BaseException | None, where: str = "") -> None:
        report(self, error, where)

    # -- the human's turn ----------------------------------------------------------------------

    @on(HumanInput.Opened)
    def _human_turn(self, message: HumanInput.Opened) -> None:
        self.set_activity(message.say)
        self.shared.give_way()
        draft = self.shared.take_draft()
        if draft:  # typed before the box was open, or a line whose cue changed under it: in the box again
            line = self.query_one("#human-line", Input)
            line.value = draft
            line.cursor_position = len(draft)
        # the box takes rows from the stage: keep the line being answered in sight above it
        self.call_after_refresh(self.query_one("#stage", StageView).action_last)

    @on(Input.Submitted, "#note-input")
    def _note(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        if not text or not self._ready() or self.engine is None:
            return
        self.engine.note(text)
        event.input.value = ""
        # back to the stage, so the next key is a control again, not a letter of another note
        self.query_one("#stage", StageView).focus()
        self.notify("Noted: the director and the characters hear it next turn.")

    @property
    def human(self) -> HumanInput:
        self.mount_later()  # Esc before the first frame asks whether the box waits
        return self.query_one(HumanInput)

    def on_key(self, event: events.Key) -> None:
        """In a run another window plays, a key that changes the stage asks first (shared.py)."""
        if self.shared.intercept(event):
            event.stop()
            event.prevent_default()

    def key_escape(self) -> None:
        if self.human.drop_draft():  # the box's own text back; the next Esc pauses
            return
        if not self.human.waiting and not self.busy and self.desk.end_search():
            return
        if self.human.waiting or self.busy:
            self.run_worker(self.pause(), group="pause")
        elif self.focused is not None and self.focused.id == "note-input":
            self.query_one("#stage", StageView).focus()

    # -- the notes box and the cast pane ---------------------------------------------------------

    def action_note(self) -> None:
        if self.desk._search is not None:
            self.desk.action_search_move(1)
            return
        self.room.show_pane("notes")
        self.query_one("#note-input", Input).focus()

    @on(CastPane.OptionSelected, "#cast-pane")
    def _cast_chosen(self, event: CastPane.OptionSelected) -> None:
        if event.option.id:
            self.cast_controls.edit_character(event.option.id)

    def selected_event(self) -> Any:
        if not self._ready() or self.engine is None:
            return None
        event_id = self.query_one("#stage", StageView).selected_id
        event = self.engine.by_id.get(event_id) if event_id is not None else None
        if event is None:
            self.notify("Select a line on the stage first.", severity="warning")
        return event
