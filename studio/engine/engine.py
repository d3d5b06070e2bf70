"""The engine: one run, held and driven a step at a time, each step one committed event.

The engine holds the run (its take, the form's state folded from it, the checkpoints a rewind restores
from) and is the one door events are committed through, telling its listeners only once they are
stored. A step itself is a pipeline in studio/engine/turn.py. The engine knows nothing of screens, and
nothing of any one form of play: what a form offers (picking a speaker, stage moves, a turn policy,
inner voices) it asks the form for, never the form's state. The CLI, the app and the tests drive the
same calls: step, play_turn, play_to_end, rewind, override, regenerate, continue_line, take_over,
release, note, switch_strategy, pick, stage_move and switch_policy; the playwright's pen (insert, cut,
move: studio/engine/pen.py) and undo and redo over the playwright's actions (studio/engine/history.py).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from studio.clean import clean_text
from studio.engine.checkpoints import Checkpoints
from studio.engine.controls import Controls
from studio.engine.credentials import ADDRESSES, storable, with_credentials
from studio.engine.forms import form_for
from studio.engine.forms.base import Step
from studio.engine.history import History
from studio.engine.pen import Pen, after, checked_text, grown_cast, kept_data, standing
from studio.engine.lines import is_direction, strip_italics
from studio.engine.steer import Direction
from studio.engine.stops import EngineError, HeldElsewhere, NeedsHuman, NeedsPick, RunFinished
from studio.engine.turn import take_step
from studio.model.play import ResolvedCast, ResolvedRole
from studio.store import Store, StoreError, events as ev
from studio.store.events import Event

__all__ = ["Engine", "EngineError", "HeldElsewhere", "NeedsHuman", "NeedsPick", "Pending", "RunFinished"]

TokenListener = Callable[[Step, str], None]
RetryListener = Callable[[Step, int, str], None]
EventListener = Callable[[Event], None]


@dataclass(frozen=True)
class Pending:
    step: Step
    role: ResolvedRole | None
    human: bool


# Addresses with credentials in them (`http://user:KEY@host`) never reach the store: the stored cast says
# `***@host`. This process remembers the full address for the runs it created; a later process reads it
# again from the play file, where the playwright wrote it.
class Engine(Controls, History, Pen):
    _mind_runner: Any  # the inner lives' runner (or None), set by studio.engine.minds when first asked

    def __init__(self, store: Store, run_id: int, gateway: Any = None):
        self.store = store
        self.run_id = run_id
        info = store.run(run_id)
        self._base_cast = with_credentials(run_id, ResolvedCast.model_validate_json(info.cast_json))
        self.cast = self._base_cast
        self._added: tuple[Any, ...] = ()  # the characters the take on stage added to the cast (pen.py)
        self.form = form_for(self.cast)
        self.options = info.options
        if gateway is None:
            from studio.llm import Gateway

            gateway = Gateway()
        self.gateway = gateway
        self.token_listeners: list[TokenListener] = []
        # told when a model call starts over: what was streamed for that step is void
        self.retry_listeners: list[RetryListener] = []
        self.event_listeners: list[EventListener] = []
        # told when a model is asked, before any token: a view can say whom it waits for
        self.call_listeners: list[Callable[[Step, str], None]] = []
        self._sentences: dict[int, list[tuple[str, ...]]] = {}  # a stage line's sentences, split once
        self.holder: str | None = None  # the window this engine plays for, if any (Controls.holder)
        self.reload()

    # -- opening -------------------------------------------------------------------------

    @classmethod
    def create(
        cls, store: Store, cast: ResolvedCast, options: dict[str, Any] | None = None, gateway: Any = None
    ) -> Engine:
        stored = storable(cast)
        run_id = store.create_run(cast.play.title, cast.play_path, stored, options or {})
        ADDRESSES.update({(run_id, r.key): r.api_base for r in cast.roles if r.api_base})
        return cls(store, run_id, gateway)

    def reload(self) -> None:
        """Read the take from the store: after a crash, a rewind, or another process's work."""
        self.path: list[Event] = self.store.take(self.run_id)
        self.by_id: dict[int, Event] = {e.id: e for e in self.path}
        self._controls = self.store.controls(self.run_id)
        self._marks = Checkpoints()
        self._grow_cast()
        self._refold(0, None)

    def _grow_cast(self) -> bool:
        """The cast as the take on stage has it: the play's, and every character a line written into this
        take brought in (studio/engine/pen.py). True if that changed, so the state must be folded afresh."""
        if not self._added and not any("cast" in e.data for e in self._controls):
            return False  # no line of any take brought a character in: nothing to read the take for
        cast, added = grown_cast(self._base_cast, self.path)
        if added == self._added:
            return False
        self.cast, self._added = cast, added
        self.form = form_for(cast)
        self.__dict__.pop("_mind_runner", None)  # the inner lives read the cast: made again when next asked
        return True

    def _fold(self, state: Any, event: Event) -> None:
        """Fold one event of the take into the form's state. A line the playwright wrote in between the
        play's own steps is read by every lens, prompt and export from the take, but is no step of the
        play: the play's turn, scene and next speaker go on as the play's own lines left them."""
        if not event.data.get("inserted"):
            self.form.fold(state, event)

    def _refold(self, start: int, state: Any) -> None:
        """Fold the take from event `start` on, from `state` (None: a fresh state), noting checkpoints."""
        if state is None:
            start, state = 0, self.form.new_state(self.cast)
        for i in range(start, len(self.path)):
            self._fold(state, self.path[i])
            self._marks.note(i + 1, state)
        self.state = state
        # The playwright's controls belong to the run, not to a take: the newest of each stays in force.
        if any(e.id not in self.by_id for e in self._controls):
            for event in self._controls:
                self.form.keep_control(self.state, event)

    def _move_head(self, target: int | None) -> None:
        """Point the run at `target`; within this take (or a short branch off it) without rereading it."""
        self.store.set_head(self.run_id, target)
        branch: list[Event] = []
        tip = target
        while tip is not None and tip not in self.by_id and len(branch) < 256:
            event = self.store.event(tip)
            branch.append(event)
            tip = event.parent
        if tip is not None and tip not in self.by_id:
            self.reload()  # far from this take: read it whole
            return
        keep = 0 if tip is None else next(i for i in range(len(self.path) - 1, -1, -1) if self.path[i].id == tip) + 1
        for event in self.path[keep:]:
            del self.by_id[event.id]
        del self.path[keep:]
        for event in reversed(branch):
            self.path.append(event)
            self.by_id[event.id] = event
        self._settle(keep)

    def _settle(self, keep: int) -> None:
        """Fold the take again after its first `keep` events stayed as they were and the rest changed."""
        if self._grow_cast():
            self._marks = Checkpoints()
            self._refold(0, None)
            return
        start, state = self._marks.restore(keep)
        self._refold(start, state)

    @property
    def head(self) -> int | None:
        return self.path[-1].id if self.path else None

    def _index(self, event_id: int) -> int | None:
        """Where an event stands in the take on stage, or None if it is not on it."""
        if event_id not in self.by_id:
            return None
        return next(i for i in range(len(self.path) - 1, -1, -1) if self.path[i].id == event_id)

    @property
    def finished(self) -> bool:
        return self.form.finished(self.state)

    def role(self, key: str) -> ResolvedRole:
        return self.cast.role(key)

    def _is_human(self, key: str | None) -> bool:
        return key is not None and key in self.form.humans(self.state)

    def pending(self) -> Pending | None:
        step = self.form.next_step(self.state)
        if step is None:
            return None
        if step.role is None:
            return Pending(step, None, step.kind == ev.PICK)  # a pick with no seat is the playwright's
        role = self.cast.role(step.role) if step.role else None
        return Pending(step, role, self._is_human(step.role))

    # -- committing ----------------------------------------------------------------------

    def _commit(self, kind: str, text: str, *, branch_from: Event | None = None, **fields: Any) -> Event:
        # Every line enters the log through here, typed ones too: stored clean (studio/clean.py), so no
        # later `show` replays an escape sequence, and bytes that were not UTF-8 cannot break the write.
        text = clean_text(text)
        parent = branch_from.parent if branch_from is not None else self.head
        if kind not in (ev.CONTROL, ev.NOTE, ev.ERROR):
            data = dict(fields.pop("data", None) or {})
            if "present" not in data:
                present = self.form.present(self.state, kind, fields.get("role"), data)
                if present is not None:
                    data["present"] = present
            fields["data"] = data
        event = self.store.append(self.run_id, parent, kind, text, branch=branch_from is not None, **fields)
        if branch_from is not None:
            self.reload()
        else:
            self.path.append(event)
            self.by_id[event.id] = event
            if kind == ev.CONTROL:
                self._controls.append(event)
            if kind == ev.CONTROL and "cast" in event.data:
                self._settle(len(self.path) - 1)
            else:
                self._fold(self.state, event)
                self._marks.note(len(self.path), self.state)
        for listener in self.event_listeners:
            listener(event)
        return event

    def _rewrite(self, index: int, fresh: list[dict[str, Any]], kept: list[Event]) -> list[Event]:
        """The door for the playwright's edits: the take from its event `index` on becomes the `fresh`
        lines (fields as `_commit` takes them), then a copy of each `kept` event as it was written (its data
        `kept` naming the event it copies), all one new take, written in one transaction. The old take stays.
        Listeners are told of the fresh lines only: the copies say again what was already on stage."""
        parent = self.path[index - 1].id if index else None
        rows: list[dict[str, Any]] = []
        for spec in fresh:
            row = dict(spec)
            row["text"] = clean_text(row["text"])
            rows.append(row)
        for event in kept:
            if standing(event):
                continue
            rows.append({"kind": event.kind, "text": event.text, "role": event.role, "character": event.character,
                         "scene": event.scene, "turn": event.turn, "origin": event.origin,
                         "data": kept_data(event), "model": event.model, "settings": event.settings,
                         "copy_of": event.id})  # no usage: a copy cost no call
        written = self.store.append_chain(self.run_id, parent, rows, remap=_remap)
        for event in self.path[index:]:
            del self.by_id[event.id]
        del self.path[index:]
        for event in written:
            self.path.append(event)
            self.by_id[event.id] = event
            if event.kind == ev.CONTROL:
                self._controls.append(event)
        self._settle(index)
        for event in written[: len(fresh)]:
            for listener in self.event_listeners:
                listener(event)
        return written

    # -- stepping ------------------------------------------------------------------------

    async def step(self, text: str | None = None) -> Event:
        """Take the next step (studio/engine/turn.py). A human role's step needs `text`; a model's may be
        given one (a human line)."""
        return await take_step(self, text)

    async def draft(self, on_token: Callable[[str | None], None]) -> str:
        """The next line as the pending seat's model would write it, for a playwright playing that seat
        to edit before saying it: streamed to `on_token`, committed nowhere (studio/engine/turn.py)."""
        from studio.engine.turn import draft_line

        return await draft_line(self, on_token)

    # -- inner lives (studio/engine/minds.py) -----------------------------------------------

    def _minds(self) -> Any:
        try:  # asked several times a step: the runner, once made, is kept on the engine
            return self._mind_runner
        except AttributeError:
            from studio.engine.minds import minds

            return minds(self)

    def mind_event(self, fields: dict[str, Any]) -> Event:
        """Commit a change to a character's inner life built by studio.mind.moments (a mood set by hand, an
        unlock, goals, a fact): an event like a note, so rewinds and takes keep or drop it with the take."""
        from studio.engine.minds import commit

        return commit(self, fields)

    def head_line_id(self) -> int | None:
        for event in reversed(self.path):
            if event.kind in (ev.STAGE, ev.DIRECTION):
                return event.id
        return None

    async def play_turn(self, human: Callable[[Pending], Any] | None = None) -> list[Event]:
        """Step until the ego's line of this turn is on stage (or the epilogue, or the end).

        `human`, if given, is called for a human role's line (it may be async); without it a human
        step raises NeedsHuman, leaving the run exactly where it was. A role another window holds raises
        HeldElsewhere instead: that window's playwright writes it, never this one's.
        """
        done: list[Event] = []
        while True:
            pending = self.pending()
            if pending is None:
                return done
            text = None
            if pending.human and pending.role is not None:
                holder = self.seat_holder(pending.role.key)
                if holder is not None:
                    raise HeldElsewhere(pending.step, pending.role, holder)
                if not self._is_human(pending.role.key):
                    continue  # its window had gone: the role went back to its model
            if pending.human:
                if human is None and pending.role is None:
                    raise NeedsPick(pending.step, self.stage_choices(), self.suggestion())
                if human is None:
                    assert pending.role is not None  # a human's step without a role was a pick, raised above
                    raise NeedsHuman(pending.step, pending.role)
                text = human(pending)
                if inspect.isawaitable(text):
                    text = await text
            event = await self.step(text)
            done.append(event)
            if self.form.ends_turn(self.state, done):
                return done

    async def play_to_end(self, human: Callable[[Pending], Any] | None = None) -> list[Event]:
        done: list[Event] = []
        while not self.finished:
            done.extend(await self.play_turn(human))
        return done

    # -- the playwright's hand -------------------------------------------------------------

    def rewind(self, turns: int = 1) -> int | None:
        """Move the head back before the last `turns` turns. The abandoned future stays as a take."""
        before = target = self.head
        path = self.path
        for _ in range(turns):
            index = self._turn_start(path, target)
            if index is None:
                break
            target = path[index].parent
        self._move_head(target)
        self._record("rewind", before, f"rewind of {turns} turn{'s' if turns != 1 else ''} (back to event {target})")
        return target

    def _turn_start(self, path: list[Event], head: int | None) -> int | None:
        """Index of the first event of the turn that ends at `head` (meta events after it go too)."""
        if head is None:
            return None
        meta = (ev.CONTROL, ev.NOTE, ev.ERROR)
        j = next(i for i, e in enumerate(path) if e.id == head)
        while j > 0 and path[j].kind in meta:
            j -= 1
        if path[j].kind == ev.EPILOGUE:
            return j
        key = path[j].turn
        i = j
        while i > 0 and path[i - 1].turn == key and path[i - 1].kind not in meta:
            i -= 1
        return i

    def rewind_to(self, event_id: int | None) -> None:
        self._move_head(event_id)

    def override(self, event_id: int, text: str) -> Event:
        """Replace a committed line with the human's own: one new take from there, the lines that followed
        it on stage kept as they were written (studio/engine/pen.py); the old take stays. An empty line, or
        one longer than the pen writes, is a ValueError."""
        text = checked_text(text)
        original = self.by_id.get(event_id) or self.store.event(event_id)
        if original.run_id != self.run_id:
            raise StoreError(f"event {event_id} is not part of run {self.run_id}")
        if original.kind in (ev.SCENE, ev.CONTROL, ev.NOTE, ev.ERROR):
            raise StoreError(f"event {event_id} is a {original.kind}, not a line that can be rewritten")
        data = dict(original.data)
        data["override_of"] = original.id
        kind = original.kind
        # A direction with no character behind it (the director's, a stage move's) stays a direction.
        if kind in (ev.STAGE, ev.DIRECTION) and original.role not in (None, "director"):
            kind = ev.DIRECTION if is_direction(text) else ev.STAGE
            text = strip_italics(text) if kind == ev.DIRECTION else text
        before = self.head
        fields: dict[str, Any] = dict(role=original.role, character=original.character, scene=original.scene,
                                      turn=original.turn, origin="override", data=data)
        index = self._index(original.id)
        if index is None:  # a line of another take: that take branches there, nothing after it kept
            event = self._commit(kind, text.strip(), branch_from=original, **fields)
        else:
            # copy_of: what the kept lines answered or were shaped by is now the new line
            written = {"kind": kind, "text": text.strip(), "copy_of": original.id, **fields}
            event = self._rewrite(index, [written], after(self.path, index))[0]
        self._record("edit", before, f"edit of event {event_id}: {_quoted(event.text)}")
        return event

    async def regenerate(
        self, event_id: int, *, direction: str | None = None, temperature: float | None = None
    ) -> Event:
        """A new take of one line: step again from just before it; the old line stays.

        A `direction` (a note for the model) and a `temperature` steer this one take only.
        """
        steer = Direction(direction, temperature)  # a bad temperature fails before anything moves
        original = self.by_id.get(event_id) or self.store.event(event_id)
        before = self.head
        self.rewind_to(original.parent)
        try:
            event = await take_step(self, direction=None if steer.empty else steer)
        except Exception:
            self.rewind_to(before)  # a failed new take leaves the run where it was; the error stays logged
            raise
        self._record("regenerate", before, f"new take of event {event_id} (event {event.id})")
        return event

    async def continue_line(self, event_id: int, *, direction: str | None = None) -> Event:
        """A new take of a spoken line that goes on from where it stopped: the line so far, then what the
        model adds. Asked as the line itself was (same step, same history), so the old take stays beside
        it; a `direction` steers what is added. Only a character's spoken line can be continued."""
        original = self.by_id.get(event_id) or self.store.event(event_id)
        if original.run_id != self.run_id:
            raise StoreError(f"event {event_id} is not part of run {self.run_id}")
        if original.kind != ev.STAGE or original.role in (None, "director"):
            what = {ev.SCENE: "a scene heading", ev.DIRECTION: "a stage direction", ev.NOTE: "a note",
                    ev.CONTROL: "a control", ev.ERROR: "an error", ev.EPILOGUE: "an epilogue"}.get(
                original.kind, "a " + original.kind.removeprefix("backstage.").replace("_", " "))
            raise StoreError(f"event {event_id} is {what}: only a character's spoken line can be continued; "
                             "select a line of dialogue")
        if self._is_human(original.role):
            raise StoreError(f"{original.character} is played by a human now: edit the line to make it longer, "
                             "or hand the role back to its model first")
        steer = Direction(direction, None)
        before = self.head
        self.rewind_to(original.parent)
        step = self.form.next_step(self.state)
        role = self.cast.role(step.role) if step is not None and step.role else None
        if (step is None or step.kind != ev.STAGE or role is None or step.role != original.role
                or self.form.rule_for(self.state, step, role) is not None
                or self.form.schema(self.state, step, role)):
            self.rewind_to(before)
            raise StoreError(f"event {event_id} is not a line a model writes freely (a rule's answer or a "
                             "choice read from it): it cannot be continued; g writes a new take")
        try:
            event = await take_step(self, direction=None if steer.empty else steer, continuing=original)
        except Exception:
            self.rewind_to(before)  # a failed continuation leaves the run where it was; the error stays logged
            raise
        self._record("continue", before, f"continuation of event {event_id} (event {event.id})")
        return event

    def takes(self, event_id: int) -> list[Event]:
        """Every take of a line: the events written at the same point of the same kind and role."""
        original = self.by_id.get(event_id) or self.store.event(event_id)
        if original.parent is None:
            siblings = [e for e in self.store.events(self.run_id) if e.parent is None]
        else:
            siblings = self.store.children(original.parent)
        return [e for e in siblings if e.role == original.role and e.kind in _same_slot(original.kind)]

    def choose_take(self, event_id: int) -> None:
        """Follow another take: move the head to the newest end of the branch through that line."""
        tip = event_id
        before = self.head
        while True:
            children = self.store.children(tip)
            if not children:
                break
            tip = children[-1].id
        self.rewind_to(tip)
        self._record("take", before, f"switch to the take through event {event_id}")

    # -- views ---------------------------------------------------------------------------

    def stage(self) -> list[Event]:
        return [e for e in self.path if e.on_stage]

    def backstage_for(self, event_id: int) -> list[Event]:
        """Everything that shaped a stage line, in the order it happened."""
        event = self.by_id.get(event_id) or self.store.event(event_id)
        ids = event.shaped_by
        return [self.by_id.get(i) or self.store.event(i) for i in ids]

    def usage(self) -> dict[str, int]:
        total = {"prompt_tokens": 0, "completion_tokens": 0, "calls": 0}
        for event in self.path:
            if event.usage:
                total["prompt_tokens"] += int(event.usage.get("prompt_tokens", 0))
                total["completion_tokens"] += int(event.usage.get("completion_tokens", 0))
                total["calls"] += int(event.usage.get("calls", 1))
        return total


def _quoted(text: str, width: int = 40) -> str:
    line = " ".join(text.split())
    return f"'{line if len(line) <= width else line[: width - 3] + '...'}'"


def _remap(data: dict[str, Any], copies: dict[int, int]) -> dict[str, Any]:
    """A kept line's data with the events it names (what it answers, what shaped it) pointed at their
    copies on the new take, so each character hears and remembers the copies as it did the originals."""
    def one(value: Any) -> Any:
        return copies.get(value, value) if isinstance(value, int) and not isinstance(value, bool) else value

    for key in ("source", "prompt_event", "upto", "critique", "line"):
        if key in data:
            data[key] = one(data[key])
    if isinstance(data.get("shaped_by"), list):
        data["shaped_by"] = [one(v) for v in data["shaped_by"]]
    mind = data.get("mind")
    if isinstance(mind, dict):
        mind = dict(mind)
        if isinstance(mind.get("mind"), list):
            mind["mind"] = [one(v) for v in mind["mind"]]
        if isinstance(mind.get("recalled"), list):
            mind["recalled"] = [{**r, "event": one(r.get("event"))} if isinstance(r, dict) else r
                                for r in mind["recalled"]]
        data["mind"] = mind
    return data


def _same_slot(kind: str) -> tuple[str, ...]:
    if kind in (ev.STAGE, ev.DIRECTION):
        return (ev.STAGE, ev.DIRECTION)
    return (kind,)
