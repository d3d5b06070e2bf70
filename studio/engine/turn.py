"""One step of a run, as a pipeline: choose the step, answer it without a model if something else does
(a human, a rule, a card's greeting), else build the messages, call the model, guard its answer and
commit the line.

Each stage is a function of the engine that holds the run (studio/engine/engine.py): it reads the run's
state and cast and commits through the engine, which tells its listeners. What one step was asked for
(a direction for this take, the line it continues) travels with the step in a `Turn`, never on the
engine, so nothing of one step is left over for the next.
"""

from __future__ import annotations

from collections.abc import Callable
import zlib
from dataclasses import dataclass, field, replace
from typing import Any

from studio.engine.budget import estimate_tokens, fit
from studio.engine.forms.base import Step
from studio.engine.greeting import greeting
from studio.engine.guard import (
    LINE_TASKS,
    REPEATED,
    Sentences,
    add_usage,
    anew,
    asked_again,
    asks_for,
    guard_answer,
    heard_before,
    is_new_line,
    is_speech,
    said_before,
    salvaged,
    warmer,
    why_dropped,
)
from studio.engine.lines import Guarded, Heard, Unsaid, is_direction, strip_italics, tidy
from studio.engine.steer import Direction
from studio.engine.stops import EngineError, HeldElsewhere, NeedsHuman, NeedsPick, RunFinished
from studio.model.play import ResolvedRole
from studio.store import events as ev
from studio.store.events import Event

Message = dict[str, str]


@dataclass
class Turn:
    """One step a seat takes, and how it was asked for: a direction steering this take only, the line a
    continuation goes on from; and, once its messages are built, what shaped them."""

    step: Step
    role: ResolvedRole
    direction: Direction | None = None
    continuing: Event | None = None
    recalled: list[Any] = field(default_factory=list)  # what the prompt book recalled past the budget
    lore: list[str] = field(default_factory=list)  # the World Info entries the line was given, by label
    takes: int | None = None  # how many takes stand where the line goes, counted once (takes_standing)


@dataclass(frozen=True)
class Answer:
    """A model's answer once guarded: the last completion, what is left of it, and what it all cost."""

    completion: Any
    guarded: Guarded
    usage: dict[str, Any]
    settings: Any


async def take_step(engine: Any, text: str | None = None, *, direction: Direction | None = None,
                    continuing: Event | None = None) -> Event:
    """Take the run's next step; a human role's step needs `text`, a model's may be given one."""
    step = engine.form.next_step(engine.state)
    if step is None:
        raise RunFinished(f"run {engine.run_id} is finished")
    if step.kind == ev.SCENE:
        return await open_scene(engine, step)
    if step.kind == ev.PICK and step.role is None:
        if text is not None:
            return engine.pick(text)
        raise NeedsPick(step, engine.stage_choices(), engine.suggestion())
    if step.role is None:
        return await form_move(engine, step)
    role = engine.cast.role(step.role) if step.role else None
    assert role is not None
    await before_line(engine, step, role)
    turn = Turn(step, role, direction, continuing)
    done = answer_without_model(engine, turn, text)
    if done is not None:
        return done
    return await ask_model(engine, turn)


async def open_scene(engine: Any, step: Step) -> Event:
    """A scene's heading; characters whose reflection is due take stock as the scene before it ends."""
    if step.scene > 1 and engine._minds() is not None:
        from studio.engine.minds import reflect

        await reflect(engine, step, None, scene_ended=True)
    brief = engine.cast.play.brief(step.scene)
    heading = f"Scene {step.scene}" + (f": {brief}" if brief else "")
    return engine._commit(
        ev.SCENE, heading, scene=step.scene, turn=step.turn, origin="studio",
        data=engine.form.scene_data(engine.state, step),
    )


async def form_move(engine: Any, step: Step) -> Event:
    """A step no seat takes: one the form fills with a model itself (the Critic's review), or its own
    move (a scheduled entrance) read without one."""
    reply = await engine.form.carry_out(engine.state, step, engine.path, engine.gateway)
    if reply is None:
        reply = engine.form.read(engine.state, step, None, "")
    fields = {"origin": "studio", **reply.event}
    return engine._commit(reply.kind or step.kind, reply.text, scene=step.scene,
                          turn=step.turn, data={"task": step.task, **reply.data}, **fields)


async def before_line(engine: Any, step: Step, role: ResolvedRole) -> None:
    """Before a character speaks, its inner life moves (studio/engine/minds.py): lines it heard are
    scored, a due reflection is made, a mood is drawn. A cast with no inner life skips all of it."""
    if engine._minds() is None:
        return
    import studio.engine.minds as minds

    await minds.score_lines(engine, step)
    await minds.reflect(engine, step, role, scene_ended=False)
    minds.stir(engine, step, role)


def answer_without_model(engine: Any, turn: Turn, text: str | None) -> Event | None:
    """The line when no model writes it: a human's (typed now, or awaited), a rule's, a card's greeting.
    None: the model is asked."""
    step, role = turn.step, turn.role
    holder = engine.seat_holder(role.key) if engine._is_human(role.key) else None
    if holder is not None:
        raise HeldElsewhere(step, role, holder)  # that window's playwright writes it, typed here or not
    if text is None and engine._is_human(role.key):
        raise NeedsHuman(step, role)
    if text is not None:
        return commit_line(engine, turn, text, origin="human")
    answer = engine.form.rule_for(engine.state, step, role)
    if answer is not None:
        return commit_line(engine, turn, answer(engine.state, step, role), origin="rule")
    opening = greeting(engine, step, role) if turn.continuing is None else None
    if opening is not None:
        return commit_line(engine, turn, opening[0], origin="card", extra=opening[1])
    return None


async def ask_model(engine: Any, turn: Turn) -> Event:
    """The line a model writes: its messages, its call settings, the call and the guard, then the line."""
    messages = build_messages(engine, turn)
    settings = call_settings(engine, turn)
    if turn.direction is not None:
        messages, settings = turn.direction.messages(messages), turn.direction.settings(settings)
    if turn.continuing is not None:
        # The same call as the line's own, asked to go on from it (studio.llm.continuation.continued says how
        # each kind of model is handed the line so far).
        settings = replace(settings, prefill=turn.continuing.text)
    answer = await call(engine, turn, settings, messages)
    text, extra = line_text(engine, turn, answer)
    settings = answer.settings
    if answer.completion.structured:  # how the reply was held to its schema, as the server allowed
        settings = replace(settings, structured=answer.completion.structured)
    return commit_line(engine, turn, text, origin="model", model=answer.completion.model,
                       settings=settings.public(), usage=answer.usage, guard=answer.guarded.cuts, extra=extra)


def build_messages(engine: Any, turn: Turn) -> list[Message]:
    """What the form shows the model for this step, cut to the role's budget (studio/engine/budget.py):
    no call is longer than the role's window, a continued line's words counted in it. What the prompt
    book recalled and which lore it gave are kept on the turn, for the line's data."""
    step, role, continuing = turn.step, turn.role, turn.continuing
    engine.form.minds = engine._minds()  # the prompt books recall from it past a character's budget
    messages = engine.form.messages(engine.state, engine.path, engine.by_id, step, role)
    so_far = estimate_tokens(continuing.text) if continuing is not None else 0
    messages = fit(messages, max(role.context_tokens - role.max_tokens - so_far, 64), keep=engine.form.kept)
    turn.recalled = engine.form.recalled
    turn.lore = list(engine.form.lore)
    return messages


def call_settings(engine: Any, turn: Turn) -> Any:
    """How the role's model is asked for this step: its sampling for the task, the names it must not
    speak for, and the reply's schema when the form reads a choice from it."""
    from studio.llm.sampling import is_embedded, settings_for

    step, role = turn.step, turn.role
    heard = engine.form.reworked_line(engine.state, step)
    speaker = heard.character if heard is not None else None
    settings = settings_for(
        model=role.model,
        temperature=role.temperature,
        max_tokens=role.max_tokens,
        task=step.task,
        names=[r.name for r in engine.cast.roles],
        speaker=speaker or role.name,
        timeout=role.timeout,
        api_base=role.api_base,
        # the role's own choice, else the experiment's (kept on the gateway it shares with its trials)
        small=role.small if role.small is not None else getattr(engine.gateway, "small", None),
        structured=role.structured or getattr(engine.gateway, "structured", None),
    )
    schema = engine.form.schema(engine.state, step, role)
    if schema:
        settings = replace(settings, schema=schema)
    if is_embedded(settings.model):
        grammar = engine.form.grammar(engine.state, step, role) if turn.continuing is None else None
        settings = replace(settings, seed=call_seed(engine, turn), grammar=grammar, unsaid=held_back(engine, turn))
    opening = engine.form.opening(engine.state, step, role) if turn.continuing is None else None
    if opening:
        settings = replace(settings, prefill=opening)  # the answer goes on from it (line_text joins them)
    return settings


def held_back(engine: Any, turn: Turn) -> Unsaid | None:
    """What the embedded model is kept from writing as it writes a spoken line: what the guard would cut
    for saying again (studio.engine.lines.Unsaid). Not for a continuation, whose line so far it goes on
    from, nor a critique or a rewritten character, which may quote the stage."""
    step = turn.step
    if turn.continuing is not None or not is_speech(step):
        return None
    _, said, heard = guarded_against(engine, turn)
    if not is_new_line(step):
        return Unsaid(said)
    return Unsaid(said, heard, names=[r.name for r in engine.cast.characters])


def call_seed(engine: Any, turn: Turn) -> int:
    """The embedded model's seed for this call: the run's seed, the step, and how many takes already stand
    at this point of the run, so the same seed writes the same scene, another seed another, and a new take
    of a line is a new draw rather than the old line again."""
    step, role = turn.step, turn.role
    key = f"{engine.cast.play.seed}:{step.scene}:{step.turn}:{step.task}:{role.key}:{takes_standing(engine, turn)}"
    return zlib.crc32(key.encode())


def takes_standing(engine: Any, turn: Turn) -> int:
    """How many takes already stand where the next line goes: 0 on a fresh path, one more for each
    earlier take left behind by a rewind or a new take. Counted once a step: the seed and the call both
    ask."""
    if turn.takes is None:
        turn.takes = engine.store.count_children(engine.run_id, engine.head)
    return turn.takes


def streams(engine: Any, turn: Turn) -> tuple[Callable[[str], None], Callable[[int, str], None]]:
    """The call's token and retry callbacks, which tell the engine's listeners. A continued line streams
    on from the line so far, which stands through a retry: only what was added is void."""
    step, continuing = turn.step, turn.continuing

    def on_token(token: str) -> None:
        for listener in engine.token_listeners:
            listener(step, token)

    def on_retry(attempt: int, reason: str) -> None:
        for listener in engine.retry_listeners:
            listener(step, attempt, reason)
        if continuing is not None:
            on_token(continuing.text)

    return on_token, on_retry


async def draft_line(engine: Any, on_token: Callable[[str | None], None]) -> str:
    """The line the pending seat's model would write now, asked exactly as `take_step` would ask it (the
    same messages, settings, seed and guard) and streamed to `on_token` (None: what came so far is void,
    the model starts over), but committed nowhere: the playwright edits it and says it, or drops it. The
    inner life that moves before a line (before_line) is left still, as it moves once the line is said."""
    pending = engine.pending()
    if pending is None or pending.role is None or pending.step.kind not in (ev.STAGE, ev.DRAFT, ev.DIRECTION):
        raise EngineError("nothing to draft: the next step is not a character's line", None)
    turn = Turn(pending.step, pending.role)
    messages = build_messages(engine, turn)
    answer = await call(engine, turn, call_settings(engine, turn), messages, draft_to=on_token)
    text, _ = line_text(engine, turn, answer)
    return text


async def call(engine: Any, turn: Turn, settings: Any, messages: list[Message],
               draft_to: Callable[[str | None], None] | None = None) -> Answer:
    """Ask the model and guard its answer (studio/engine/guard.py); an answer with nothing of its own
    left is asked for again (guard.asks_for), and when every ask of a new line was dropped for repeating
    some sentences the fullest answer without them stands. A model that gives up leaves an error in the log and raises.
    A draft (`draft_to`, see draft_line) streams there instead, and leaves nothing in the log."""
    from studio.llm import CallContext, ModelError

    step, role, continuing = turn.step, turn.role, turn.continuing
    ctx = CallContext(role=role.kind, task=step.task, character=role.name, scene=step.scene, turn=step.turn,
                      take=takes_standing(engine, turn))
    if draft_to is None:
        on_token, on_retry = streams(engine, turn)
        for listener in engine.call_listeners:
            listener(step, settings.model)
    else:
        on_token, on_retry = draft_to, lambda attempt, reason: draft_to(None)
    if settings.prefill:
        on_token(settings.prefill)  # the line streams on from where it stopped, or from its given opening
    try:
        completion = await engine.gateway.complete(settings, messages, ctx, on_token=on_token, on_retry=on_retry)
        if draft_to is None:
            server_notices(engine, completion, step)
        guarded = guard(engine, turn, completion.text, grammar=settings.grammar)
        usage = dict(completion.usage)
        raws, last = [completion.text], guarded
        asked = messages
        while not guarded.text and len(raws) < asks_for(step):
            on_retry(len(raws) + 1, why_dropped(guarded))
            settings = warmer(settings, warm=len(raws) == 1)
            if settings.repeat_penalty and REPEATED & set(last.cuts):
                # a small model that said again what was said is kept off the words it said
                settings = replace(settings, avoid="\n".join(raws))
            asked = anew(messages, completion.text, last.cuts, step)
            if settings.prefill and continuing is None:
                on_token(settings.prefill)
            completion = await engine.gateway.complete(settings, asked, ctx, on_token=on_token, on_retry=on_retry)
            if draft_to is None:
                server_notices(engine, completion, step)
            raws.append(completion.text)
            last = guard(engine, turn, completion.text, grammar=settings.grammar)
            guarded = asked_again(guarded, last)
            usage = add_usage(usage, completion.usage)
        if not guarded.text and len(raws) > 1 and step.task in LINE_TASKS:
            guarded = salvaged(guarded, [guard(engine, turn, raw, drop=True, grammar=settings.grammar) for raw in raws])
    except ModelError as exc:
        if draft_to is not None:
            raise EngineError(str(exc), None) from exc
        error = engine._commit(ev.ERROR, str(exc), role=role.key, character=role.name, scene=step.scene,
                               turn=step.turn, origin="studio", data={"task": step.task, "attempts": exc.attempts},
                               model=role.model, settings=settings.public())
        raise EngineError(str(exc), error) from exc
    return Answer(completion, guarded, usage, settings)


def guard(engine: Any, turn: Turn, text: str, drop: bool = False, grammar: str | None = None) -> Guarded:
    """The model's answer cut to the line of whoever speaks it: the speaker of the line a rewrite reworks,
    else the role; what it may not say again is the take's recent stage and the line it continues
    (`drop`: only the sentences saying it again are left out, the rest kept; `grammar`: the call's, whose
    shape may have closed the answer at its length limit)."""
    from studio.llm.line_shape import closed_at_limit

    speaker, said, heard = guarded_against(engine, turn)
    return guard_answer(text, turn.step, speaker, [r.name for r in engine.cast.roles], said, heard, drop,
                        closed_at_limit(grammar, text))


def guarded_against(engine: Any, turn: Turn) -> tuple[str, Sentences, Heard | None]:
    """Whose line an answer is read as (the speaker of the line a rewrite reworks, else the role's), the
    sentences it may not say again (the take's recent stage, the line it continues) and, for a small
    model's new line, what it may not reword (studio.engine.lines.repeats)."""
    from studio.llm.sampling import is_small

    step, role = turn.step, turn.role
    reworked = engine.form.reworked_line(engine.state, step)
    speaker = (reworked.character or role.name) if reworked is not None else role.name
    # the part of the take the form says a line may not repeat: all of it, or an interview item's own
    window = engine.form.repeat_window(engine.state, engine.path, step)
    said = said_before(step, window, engine._sentences, turn.continuing)
    # a small model rewords its own last line around the same words, or another's; a larger one is left
    # its refrains
    small = is_small(role.model, role.small)
    heard = heard_before(window, speaker) if small and turn.continuing is None else None
    return speaker, said, heard


def server_notices(engine: Any, completion: Any, step: Step) -> None:
    """What a call learned about its server (it refused a JSON schema, so it is asked another way from
    now on) goes into the run's notes, where the playwright and a later reader of the run see it."""
    for notice in completion.notices:
        engine._commit(ev.CONTROL, notice, origin="studio", scene=step.scene, turn=step.turn, data={"server": True})


def line_text(engine: Any, turn: Turn, answer: Answer) -> tuple[str, dict[str, Any]]:
    """The line the guarded answer makes, and what its data records of a continuation. A continuation
    that added nothing is an error in the log; a spoken line with nothing left is the character's silence."""
    step, role, continuing = turn.step, turn.role, turn.continuing
    text = answer.guarded.text
    if continuing is not None:
        if not text:
            error = engine._commit(ev.ERROR, f"{answer.settings.model} added nothing to {role.name}'s line",
                                   role=role.key, character=role.name, scene=step.scene, turn=step.turn,
                                   origin="studio", data={"task": step.task, "continues": continuing.id},
                                   model=role.model, settings=answer.settings.public())
            raise EngineError(f"{role.name}'s line was not continued: the model added nothing to it "
                              "(g writes a new take instead)", error)
        return joined(continuing.text, answer.completion.text, text), {"continues": continuing.id}
    if answer.settings.prefill:  # an answer given its opening: the opening, then what the model wrote
        return joined(answer.settings.prefill, answer.completion.text, text), {"opening": answer.settings.prefill}
    draft = getattr(engine.state, "draft", None)
    if not text and step.task == "revise" and draft is not None and draft.text.strip():
        # the revision said nothing new: the character says the draft it stood by, not nothing
        text = draft.text
    if not text and step.kind in (ev.STAGE, ev.DRAFT):
        text = f"*{role.name} says nothing.*"
    return text, {}


def joined(so_far: str, raw: str, added: str) -> str:
    """A continued line: the line so far, then what was added (`added`, the guarded form of the model's
    `raw` answer). A model that went on mid-word or with punctuation is joined without a space; one whose
    answer began with a space, with one."""
    if raw[:1].isspace():
        return so_far.rstrip() + " " + added
    return so_far + added


def commit_line(engine: Any, turn: Turn, text: str, guard: list[str] | None = None,
                extra: dict[str, Any] | None = None, **fields: Any) -> Event:
    """Commit a seat's line, read by the form (a choice validated, a line linked to what shaped it), with
    what shaped it in its data: the guard's cuts, the inner life and lore it was given, the direction."""
    step, role = turn.step, turn.role
    if fields.get("origin") != "model":
        text = tidy(text, role.name) if step.kind in (ev.STAGE, ev.DRAFT) else text.strip()
    kind = step.kind
    if kind == ev.DIRECTION or (kind == ev.STAGE and is_direction(text)):
        kind = ev.DIRECTION
        text = strip_italics(text)
    reply = engine.form.read(engine.state, step, role, text)
    text, kind = reply.text, reply.kind or kind
    data: dict[str, Any] = {"task": step.task}
    if guard:
        data["guard"] = guard
    data.update(reply.data)
    data.update(extra or {})
    runner = engine._minds()
    if runner is not None and role.name in runner.sheets and kind == ev.STAGE:
        shaped = runner.shaping(role.name, engine.path, turn.recalled)
        if shaped["mind"] or shaped["recalled"]:
            data["mind"] = shaped
    if turn.lore and kind == ev.STAGE:
        data["lore"] = turn.lore  # which lorebook entries shaped the line, for the backstage
    if turn.direction is not None and not turn.direction.empty:
        data["direction"] = turn.direction.record()
    if step.task == "direct" and not text:
        text = "The scene continues."
    return engine._commit(
        kind, text, role=role.key, character=role.name, scene=step.scene, turn=step.turn, data=data, **fields
    )
