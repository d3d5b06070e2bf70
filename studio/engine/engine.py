"""The turn pipeline: one step at a time, each step one committed event.

The engine knows nothing of screens, and nothing of any one form of play. It asks the play's form what
comes next, asks a model (or a human, or a rule) for the text, lets the form read it, commits the event,
and only then tells its listeners. What a form offers beyond that (picking a speaker, stage moves, a turn
policy, inner voices) it asks the form for, never the form's state. The CLI, the app and the tests drive
the same calls: step, play_turn, play_to_end, rewind, override, regenerate, continue_line, take_over,
release, note, switch_strategy, pick, stage_move and switch_policy.
"""

from __future__ import annotations

import inspect
from dataclasses import dataclass, replace
from typing import Any
from collections.abc import Callable

from studio.engine.lines import Guarded, clean_line, guard_line, sentence_keys, tidy  # noqa: F401
from studio.engine.steer import Direction
from studio.clean import clean_text
from studio.engine.checkpoints import Checkpoints
from studio.engine.credentials import ADDRESSES, storable, with_credentials
from studio.engine.budget import estimate_tokens, fit
from studio.engine.forms import form_for
from studio.engine.forms.base import Step
from studio.engine.lens import Lens, voice_owners
from studio.engine.lines import is_direction, strip_italics
from studio.model.play import ResolvedCast, ResolvedRole, STRATEGIES
from studio.store import Store, StoreError, events as ev
from studio.store.events import Event

TokenListener = Callable[[Step, str], None]
RetryListener = Callable[[Step, int, str], None]
EventListener = Callable[[Event], None]


class NeedsHuman(Exception):
    """The next step belongs to a role a human is playing: call step(text=...) with their line."""

    def __init__(self, step: Step, role: ResolvedRole):
        self.step = step
        self.role = role
        super().__init__(f"{role.name} ({role.key}) is played by a human: waiting for their line")


class NeedsPick(Exception):
    """The turn policy leaves the choice of the next speaker to the playwright: call pick(name)."""

    def __init__(self, step: Step, choices: list[str], suggestion: str | None):
        self.step, self.choices, self.suggestion = step, choices, suggestion
        super().__init__("who speaks next? pick one of: " + ", ".join(choices))


class RunFinished(Exception):
    pass


class EngineError(Exception):
    """A model gave up; the error is already in the log and the run can go on from where it was."""

    def __init__(self, message: str, event: Event):
        self.event = event
        super().__init__(message)


@dataclass(frozen=True)
class Pending:
    step: Step
    role: ResolvedRole | None
    human: bool


# Addresses with credentials in them (`http://user:KEY@host`) never reach the store: the stored cast says
# `***@host`. This process remembers the full address for the runs it created; a later process reads it
# again from the play file, where the playwright wrote it.
class Engine:
    def __init__(self, store: Store, run_id: int, gateway: Any = None):
        self.store = store
        self.run_id = run_id
        info = store.run(run_id)
        self.cast = with_credentials(run_id, ResolvedCast.model_validate_json(info.cast_json))
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
        self._direction: Direction | None = None  # set by a directed regenerate for its one step
        self._continuing: Event | None = None  # the line a continue_line goes on from, for its one step
        self._recalled: list[Any] = []  # what the prompt book recalled past the budget for the line underway
        self._lore: list[str] = []  # the World Info entries the line underway was given, by label
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
        self._refold(0, None)

    def _refold(self, start: int, state: Any) -> None:
        """Fold the take from event `start` on, from `state` (None: a fresh state), noting checkpoints."""
        if state is None:
            start, state = 0, self.form.new_state(self.cast)
        for i in range(start, len(self.path)):
            self.form.fold(state, self.path[i])
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
        start, state = self._marks.restore(keep)
        self._refold(start, state)

    @property
    def head(self) -> int | None:
        return self.path[-1].id if self.path else None

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
            self.form.fold(self.state, event)
            self._marks.note(len(self.path), self.state)
        if kind == ev.CONTROL:
            self._controls.append(event)
        for listener in self.event_listeners:
            listener(event)
        return event

    # -- stepping ------------------------------------------------------------------------

    async def step(self, text: str | None = None) -> Event:
        """Take the next step. A human role's step needs `text`; a model's may be given one (a human line)."""
        step = self.form.next_step(self.state)
        if step is None:
            raise RunFinished(f"run {self.run_id} is finished")
        if step.kind == ev.SCENE:
            if step.scene > 1 and self._minds() is not None:
                from studio.engine.minds import reflect

                await reflect(self, step, None, scene_ended=True)
            return self._commit(
                ev.SCENE, self._scene_heading(step.scene), scene=step.scene, turn=step.turn, origin="studio",
                data=self.form.scene_data(self.state, step),
            )
        if step.kind == ev.PICK and step.role is None:
            if text is not None:
                return self.pick(text)
            raise NeedsPick(step, self.stage_choices(), self.suggestion())
        if step.role is None:
            # a step no seat takes: one the form fills with a model itself (the Critic's review), or its
            # own move (a scheduled entrance) read without one
            reply = await self.form.carry_out(self.state, step, self.path, self.gateway)
            if reply is None:
                reply = self.form.read(self.state, step, None, "")
            fields = {"origin": "studio", **reply.event}
            return self._commit(reply.kind or step.kind, reply.text, scene=step.scene, turn=step.turn,
                                data={"task": step.task, **reply.data}, **fields)
        role = self.cast.role(step.role) if step.role else None
        assert role is not None
        if self._minds() is not None:
            import studio.engine.minds as minds

            await minds.score_lines(self, step)
            await minds.reflect(self, step, role, scene_ended=False)
            minds.stir(self, step, role)
        continuing = self._continuing
        if text is None and self._is_human(role.key):
            raise NeedsHuman(step, role)
        if text is not None:
            return self._commit_line(step, role, text, origin="human")
        answer = self.form.rule_for(self.state, step, role)
        if answer is not None:
            return self._commit_line(step, role, answer(self.state, step, role), origin="rule")
        greeting = self._greeting(step, role) if continuing is None else None
        if greeting is not None:
            text, data = greeting
            return self._commit_line(step, role, text, origin="card", extra=data)
        self.form.minds = self._minds()  # the prompt books recall from it past a character's budget
        # Whatever the form builds, no call is longer than the role's budget (studio/engine/budget.py).
        messages = self.form.messages(self.state, self.path, self.by_id, step, role)
        so_far = estimate_tokens(continuing.text) if continuing is not None else 0  # a continued line's words
        messages = fit(messages, max(role.context_tokens - role.max_tokens - so_far, 64), keep=self.form.kept)
        self._recalled = self.form.recalled
        self._lore = list(self.form.lore)
        from studio.llm import CallContext, ModelError
        from studio.llm.sampling import settings_for

        heard = self.form.reworked_line(self.state, step)
        speaker = heard.character if heard is not None else None
        settings = settings_for(
            model=role.model,
            temperature=role.temperature,
            max_tokens=role.max_tokens,
            task=step.task,
            names=[r.name for r in self.cast.roles],
            speaker=speaker or role.name,
            timeout=role.timeout,
            api_base=role.api_base,
            # the role's own choice, else the experiment's (kept on the gateway it shares with its trials)
            small=role.small if role.small is not None else getattr(self.gateway, "small", None),
            structured=role.structured or getattr(self.gateway, "structured", None),
        )
        schema = self.form.schema(self.state, step, role)
        if schema:
            settings = replace(settings, schema=schema)
        if self._direction is not None:
            messages, settings = self._direction.messages(messages), self._direction.settings(settings)
        if continuing is not None:
            # The same call as the line's own, asked to go on from it (studio.llm.gateway.continued says how
            # each kind of model is handed the line so far).
            settings = replace(settings, prefill=continuing.text)
        ctx = CallContext(role=role.kind, task=step.task, character=role.name, scene=step.scene, turn=step.turn)

        def on_token(token: str) -> None:
            for listener in self.token_listeners:
                listener(step, token)

        def on_retry(attempt: int, reason: str) -> None:
            for listener in self.retry_listeners:
                listener(step, attempt, reason)
            if continuing is not None:
                on_token(continuing.text)  # the line so far stands; only what was added is void

        for listener in self.call_listeners:
            listener(step, settings.model)
        if continuing is not None:
            on_token(continuing.text)  # the line streams on from where it stopped
        try:
            completion = await self.gateway.complete(settings, messages, ctx, on_token=on_token, on_retry=on_retry)
            self._server_notices(completion, step)
            guarded = self._guard(step, role, completion.text, continuing)
            usage = dict(completion.usage)
            if not guarded.text:
                # Nothing left once cleaned (only a repeat, or someone else's part): ask once more.
                on_retry(2, "the line held nothing of its own once cleaned; asking again")
                # a little warmer, so the second answer is not the first one again
                settings = replace(settings, temperature=round(min(1.0, settings.temperature + 0.3), 3))
                completion = await self.gateway.complete(settings, messages, ctx, on_token=on_token, on_retry=on_retry)
                self._server_notices(completion, step)
                again = self._guard(step, role, completion.text, continuing)
                guarded = Guarded(again.text, guarded.cuts + ["asked again"] + again.cuts)
                usage = _add_usage(usage, completion.usage)
        except ModelError as exc:
            error = self._commit(
                ev.ERROR,
                str(exc),
                role=role.key,
                character=role.name,
                scene=step.scene,
                turn=step.turn,
                origin="studio",
                data={"task": step.task, "attempts": exc.attempts},
                model=role.model,
                settings=settings.public(),
            )
            raise EngineError(str(exc), error) from exc
        text = guarded.text
        extra: dict[str, Any] = {}
        if continuing is not None:
            if not text:
                error = self._commit(ev.ERROR, f"{settings.model} added nothing to {role.name}'s line",
                                     role=role.key, character=role.name, scene=step.scene, turn=step.turn,
                                     origin="studio", data={"task": step.task, "continues": continuing.id},
                                     model=role.model, settings=settings.public())
                raise EngineError(f"{role.name}'s line was not continued: the model added nothing to it "
                                  "(g writes a new take instead)", error)
            text = joined(continuing.text, completion.text, text)
            extra["continues"] = continuing.id
        elif not text and step.kind in (ev.STAGE, ev.DRAFT):
            text = f"*{role.name} says nothing.*"
        if completion.structured:  # how the reply was held to its schema, as the server allowed
            settings = replace(settings, structured=completion.structured)
        return self._commit_line(
            step,
            role,
            text,
            origin="model",
            model=completion.model,
            settings=settings.public(),
            usage=usage,
            guard=guarded.cuts,
            extra=extra,
        )

    def _server_notices(self, completion: Any, step: Step) -> None:
        """What a call learned about its server (it refused a JSON schema, so it is asked another way from
        now on) goes into the run's notes, where the playwright and a later reader of the run see it."""
        for notice in completion.notices:
            self._commit(ev.CONTROL, notice, origin="studio", scene=step.scene, turn=step.turn,
                         data={"server": True})

    def _greeting(self, step: Step, role: ResolvedRole) -> tuple[str, dict[str, Any]] | None:
        """A card's first message as the character's first line of the run, and its alternate greetings
        (and, in an ensemble, its group-only ones) as the next takes of that line; once every greeting
        has been a take, a new take is the model's. None: the line is not a greeting's."""
        origin = role.sheet.card
        if (origin is None or not self.cast.play.greeting or step.kind != ev.STAGE or step.task != "speak"
                or any(e.kind == ev.STAGE and e.role == role.key for e in reversed(self.path))):
            return None
        group = list(getattr(origin, "group_greetings", None) or []) if self.cast.play.form == "ensemble" else []
        options = [g for g in [origin.first_message, *origin.greetings, *group] if g.strip()]
        if not options:
            return None
        siblings = self.store.children(self.head) if self.head is not None else [
            e for e in self.store.events(self.run_id) if e.parent is None]
        used = {e.data.get("greeting") for e in siblings if e.role == role.key and e.origin == "card"}
        index = next((i for i in range(len(options)) if i not in used), None)
        if index is None:
            return None
        from studio.engine.forms.drama.prompts import card_context
        from studio.model.macros import resolve

        text = resolve(options[index], card_context(self.cast, self.path, role))
        return text, {"greeting": index, "greetings": len(options)}

    def _guard(self, step: Step, role: ResolvedRole, text: str, continuing: Event | None = None) -> Guarded:
        """Cut a model's answer to its own line; see studio.engine.lines. What a continuation adds is cut
        where it says the line so far over again."""
        speech = step.kind in (ev.STAGE, ev.DRAFT) or step.task == "rewrite_speech"
        speaker = role.name
        heard = self.form.reworked_line(self.state, step)
        if heard is not None:
            speaker = heard.character or role.name
        # a rewrite may well repeat the line it reworks; a line for the stage may not repeat the stage
        said = self._said(self.form.said_before(self.state, self.path, step)) if step.kind in (ev.STAGE, ev.DRAFT) else []
        if continuing is not None:
            said = [*said, *sentence_keys(continuing.text)]
        return guard_line(text, speaker, [r.name for r in self.cast.roles], said, speech=speech)

    def _said(self, path: list[Event], lines: int = 30) -> list[tuple[str, ...]]:
        """The sentences of the last stage lines of `path` (the take, or the part the form says a line may
        not repeat), each split once and remembered."""
        cache = self._sentences
        said: list[tuple[str, ...]] = []
        for event in reversed(path):
            if event.kind != ev.STAGE:
                continue
            if event.id not in cache:
                cache[event.id] = sentence_keys(event.text)
            said.extend(cache[event.id])
            lines -= 1
            if not lines:
                break
        return said

    # -- inner lives (studio/engine/minds.py) -----------------------------------------------

    def _minds(self) -> Any:
        from studio.engine.minds import minds

        return minds(self)

    def mind_event(self, fields: dict[str, Any]) -> Event:
        """Commit a change to a character's inner life built by studio.mind.moments (a mood set by hand, an
        unlock, goals, a fact): an event like a note, so rewinds and takes keep or drop it with the take."""
        from studio.engine.minds import commit

        return commit(self, fields)

    def _commit_line(self, step: Step, role: ResolvedRole, text: str, guard: list[str] | None = None,
                     extra: dict[str, Any] | None = None, **fields: Any) -> Event:
        if fields.get("origin") != "model":
            text = tidy(text, role.name) if step.kind in (ev.STAGE, ev.DRAFT) else text.strip()
        kind = step.kind
        if kind == ev.DIRECTION or (kind == ev.STAGE and is_direction(text)):
            kind = ev.DIRECTION
            text = strip_italics(text)
        reply = self.form.read(self.state, step, role, text)
        text, kind = reply.text, reply.kind or kind
        data: dict[str, Any] = {"task": step.task}
        if guard:
            data["guard"] = guard
        data.update(reply.data)
        data.update(extra or {})
        runner = self._minds()
        if runner is not None and role.name in runner.sheets and kind == ev.STAGE:
            shaped = runner.shaping(role.name, self.path, self._recalled)
            if shaped["mind"] or shaped["recalled"]:
                data["mind"] = shaped
        self._recalled = []
        if self._lore and kind == ev.STAGE:
            data["lore"] = self._lore  # which lorebook entries shaped the line, for the backstage
        self._lore = []
        if self._direction is not None and not self._direction.empty:
            data["direction"] = self._direction.record()
        if step.task == "direct" and not text:
            text = "The scene continues."
        return self._commit(
            kind, text, role=role.key, character=role.name, scene=step.scene, turn=step.turn, data=data, **fields
        )

    def head_line_id(self) -> int | None:
        for event in reversed(self.path):
            if event.kind in (ev.STAGE, ev.DIRECTION):
                return event.id
        return None

    def _scene_heading(self, scene: int) -> str:
        brief = self.cast.play.brief(scene)
        return f"Scene {scene}" + (f": {brief}" if brief else "")

    async def play_turn(self, human: Callable[[Pending], Any] | None = None) -> list[Event]:
        """Step until the ego's line of this turn is on stage (or the epilogue, or the end).

        `human`, if given, is called for a human role's line (it may be async); without it a human
        step raises NeedsHuman, leaving the run exactly where it was.
        """
        done: list[Event] = []
        while True:
            pending = self.pending()
            if pending is None:
                return done
            text = None
            if pending.human and pending.role is None and human is None:
                raise NeedsPick(pending.step, self.stage_choices(), self.suggestion())
            if pending.human:
                if human is None:
                    raise NeedsHuman(pending.step, pending.role)  # type: ignore[arg-type]
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
        target = self.head
        path = self.path
        for _ in range(turns):
            index = self._turn_start(path, target)
            if index is None:
                break
            target = path[index].parent
        self._move_head(target)
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
        """Replace a committed line with the human's own: the run branches from there."""
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
        return self._commit(
            kind,
            text.strip(),
            branch_from=original,
            role=original.role,
            character=original.character,
            scene=original.scene,
            turn=original.turn,
            origin="override",
            data=data,
        )

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
        self._direction = None if steer.empty else steer
        try:
            return await self.step()
        except Exception:
            self.rewind_to(before)  # a failed new take leaves the run where it was; the error stays logged
            raise
        finally:
            self._direction = None

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
        self._direction = None if steer.empty else steer
        self._continuing = original
        try:
            return await self.step()
        except Exception:
            self.rewind_to(before)  # a failed continuation leaves the run where it was; the error stays logged
            raise
        finally:
            self._direction = None
            self._continuing = None

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
        while True:
            children = self.store.children(tip)
            if not children:
                break
            tip = children[-1].id
        self.rewind_to(tip)

    def _control(self, data: dict[str, Any], text: str) -> Event:
        return self._commit(ev.CONTROL, text, origin="human", data=data, scene=self.state.scene)

    def take_over(self, role_key: str) -> Event:
        role = self.cast.role(role_key)
        return self._control({"human": {role_key: True}}, f"A human takes over {role.name} ({role_key}).")

    def release(self, role_key: str) -> Event:
        role = self.cast.role(role_key)
        return self._control({"human": {role_key: False}}, f"{role.name} ({role_key}) goes back to the model.")

    def switch_strategy(self, strategy: str, enabled: bool, voice: str | None = None) -> Event:
        """`voice`: one inner voice of an ensemble ("c1.voice"); without it, the superego or every voice."""
        if strategy not in STRATEGIES:
            raise ValueError(f"unknown strategy {strategy!r}; use one of {', '.join(STRATEGIES)}")
        word = "on" if enabled else "off"
        if voice is None:
            return self._control({"strategy": strategy, "enabled": enabled}, f"Superego {strategy} switched {word}.")
        if not voice.endswith(".voice") or not self.cast.has(voice):
            raise ValueError(f"no inner voice {voice!r} in this run")
        return self._control({"strategy": strategy, "enabled": enabled, "voice": voice},
                             f"{self.cast.role(voice).name}'s {strategy} switched {word}.")

    def draw(self, fact: str, choices: list[Any]) -> Event:
        """A random choice committed as a fact, so a rewind or a take replays the same draw."""
        import random

        if not choices:
            raise ValueError(f"nothing to draw {fact!r} from")
        rng = random.Random(f"{self.cast.play.seed}:{self.head}:{fact}")
        value = rng.choice(list(choices))
        return self._commit(ev.CONTROL, f"Drawn: {fact} = {value}.", origin="studio", scene=self.state.scene,
                            data={"facts": {fact: value}, "draw": {"fact": fact, "choices": list(choices)}})

    # -- what the form offers: asked of it, never looked for on its state ----------------------

    def humans(self) -> set[str]:
        """The seats a human plays now."""
        return self.form.humans(self.state)

    def on_stage(self) -> list[str]:
        """The character seats on stage now (in a form without entrances, every character)."""
        on = self.form.on_stage(self.state)
        return [r.key for r in self.cast.roles if r.kind in ("ego", "other")] if on is None else list(on)

    @property
    def picks_speaker(self) -> bool:
        """Whether a turn policy decides who speaks next (so `pick` and `switch_policy` apply)."""
        return self.form.picks_speaker

    @property
    def stage_moves(self) -> bool:
        """Whether characters may enter and leave (so `stage_move` applies)."""
        return self.form.stage_moves

    def policy(self) -> str | None:
        """The turn policy in force, or None where the order of speakers is fixed."""
        return self.form.turn_policy(self.state)

    def strategy_switches(self) -> dict[str, bool]:
        """The playwright's strategy switches in force (`strategy`, or `voice:strategy` for one voice)."""
        return self.form.strategy_switches(self.state)

    def lens(self) -> Lens:
        """What each seat knows of the take this engine follows (the app's view-as and backstage), read
        from the inner voices' fold the state keeps rather than by folding the take again."""
        return Lens(self.path, voices=self.form.inner_voices(self.state), owners=voice_owners(self.cast),
                    by_id=self.by_id)

    def character(self, name: str) -> ResolvedRole:
        """The one character a word names (its name, key or kind, any case), on stage or off; else a clear error."""
        matches = [r for r in self.cast.matching(name) if r.kind in ("ego", "other")]
        if len(matches) != 1:
            names = ", ".join(r.name for r in self.cast.roles if r.kind in ("ego", "other"))
            raise ValueError(f"no single character called {name!r}; use one of: {names}")
        return matches[0]

    def stage_choices(self) -> list[str]:
        """The names that may speak next: the characters on stage, the policy's suggestion first."""
        first = self.suggestion()
        on = self.on_stage()
        names = [r.name for r in self.cast.roles if r.kind in ("ego", "other") and r.key in on]
        return sorted(names, key=lambda n: n != first)

    def suggestion(self) -> str | None:
        """The name the turn policy would pick next without a model, if it has one."""
        key = self.form.suggestion(self.state)
        return self.cast.role(key).name if key else None

    def pick(self, name: str) -> Event:
        """The playwright names the next speaker: a backstage event, so rewinds and takes keep it."""
        if not self.picks_speaker:
            raise ValueError(f"the {self.form.name} form has a fixed order of speakers; --next needs an ensemble")
        role = self.character(name)
        if role.key not in self.on_stage():
            raise ValueError(f"{role.name} is not on stage; bring them on first (studio stage RUN --enter {role.name})")
        return self._commit(ev.PICK, f"{role.name}: the playwright's pick", origin="human", scene=self.state.scene,
                            turn=self.state.turn + 1, data={"pick": role.key, "reason": "the playwright's pick"})

    def stage_move(self, name: str, enter: bool) -> Event:
        """Send a character on or off: a direction the audience sees, and the fact that moves presence."""
        if not self.stage_moves:
            raise ValueError(f"everyone stays on stage in a {self.form.name} play; entrances need an ensemble")
        role = self.character(name)
        if (role.key in self.on_stage()) == enter:
            raise ValueError(f"{role.name} is already {'on' if enter else 'off'} stage")
        move = {"enter" if enter else "exit": role.key}
        if not enter and not self.finished and not self.form.stage_after(self.state, move):
            raise ValueError(f"{role.name} is the last one on stage, and a scene with no one on it cannot go on; "
                             "bring someone on first")
        text = f"{role.name} {'enters' if enter else 'leaves'}."
        return self._commit(ev.DIRECTION, text, origin="human", scene=self.state.scene, turn=self.state.turn,
                            data={"task": "stage_move", "facts": {"on_stage": self.form.stage_after(self.state, move)},
                                  "stage": move})

    def switch_policy(self, policy: str) -> Event:
        from studio.model.play import POLICIES

        if policy not in POLICIES:
            raise ValueError(f"unknown turn policy {policy!r}; use one of {', '.join(POLICIES)}")
        if not self.picks_speaker:
            raise ValueError(f"the {self.form.name} form has a fixed order of speakers")
        return self._control({"policy": policy}, f"Who speaks next: {policy}.")

    def note(self, text: str) -> Event:
        """A playwright's note: the director and the characters hear it on the next turn."""
        return self._commit(ev.NOTE, text.strip(), origin="human", scene=self.state.scene, turn=self.state.turn)

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


def joined(so_far: str, raw: str, added: str) -> str:
    """A continued line: the line so far, then what was added (`added`, the guarded form of the model's
    `raw` answer). A model that went on mid-word or with punctuation is joined without a space; one whose
    answer began with a space, with one."""
    if raw[:1].isspace():
        return so_far.rstrip() + " " + added
    return so_far + added


def _add_usage(first: dict, second: dict) -> dict:
    """Both calls of a line asked twice: their tokens were all spent."""
    total = {k: int(first.get(k, 0) or 0) + int(second.get(k, 0) or 0) for k in set(first) | set(second)}
    total["calls"] = int(first.get("calls", 1) or 1) + int(second.get("calls", 1) or 1)
    return total


def _same_slot(kind: str) -> tuple[str, ...]:
    if kind in (ev.STAGE, ev.DIRECTION):
        return (ev.STAGE, ev.DIRECTION)
    return (kind,)
