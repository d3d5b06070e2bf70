"""Where the engine meets its characters' inner lives (studio/mind), kept out of engine.py.

Before a character speaks: lines it heard are scored for importance, a due reflection is made, a mood
is drawn and knowledge unlocked, each committed as an event through the engine, so the take replays
them. A cast with no inner life on any sheet gets no runner, no call and no event.
"""

from __future__ import annotations

from studio.model.macros import MacroContext, resolve

from typing import Any

from studio.engine.forms.base import Step
from studio.model.play import ResolvedRole
from studio.store import events as ev
from studio.store.events import Event


def minds(engine: Any) -> Any:
    """The mind runner when some character has an inner life on its sheet; None costs nothing."""
    if not hasattr(engine, "_mind_runner"):
        sheets = {r.name: r.sheet for r in engine.cast.characters if r.sheet.has_inner_life}
        if not sheets:
            engine._mind_runner = None
            return None
        from studio.mind.runner import MindRunner

        keys = {r.name: r.key for r in engine.cast.characters}
        engine._mind_runner = MindRunner(sheets, seed=engine.cast.play.seed, keys=keys, facts=engine.cast.play.facts)
    return engine._mind_runner


def world(engine: Any) -> Any:
    """Inner lives and facts at the take's head: the runner's fold (only new events are folded in), or,
    when no sheet has an inner life, a fold of the take from the play's starting facts."""
    runner = minds(engine)
    if runner is not None:
        return runner.world(engine.path)
    from studio.mind.state import fold

    return fold(engine.path, engine.cast.play.facts)


def stir(engine: Any, step: Step, role: ResolvedRole) -> None:
    """Before a character speaks: moods drawn and knowledge unlocked are committed, so takes replay them."""
    runner = minds(engine)
    if runner is None or role.name not in runner.sheets or step.task not in ("speak", "draft"):
        return
    heard: list[tuple[int, str]] = []  # what it witnessed since its own last line, newest first
    for event in reversed(engine.path):
        if event.kind in (ev.STAGE, ev.DIRECTION) and event.witnessed_by(role.key):
            if event.character == role.name and event.kind == ev.STAGE:
                break
            heard.append((event.id, event.text))
    on_stage = engine.on_stage()  # an ensemble's presence; a two-hander: everyone
    present = [r.name for r in engine.cast.characters if r.key in on_stage]
    for fields in runner.moment(engine.path, scene=step.scene, turn=step.turn, present=present,
                                heard="\n".join(text for _, text in reversed(heard)),
                                line_event=heard[0][0] if heard else None, who=[role.name],
                                lines=heard[::-1]):
        engine._commit(fields.pop("kind"), fields.pop("text"), **fields)


def commit(engine: Any, fields: dict[str, Any]) -> Event:
    """Commit a change to a character's inner life built by studio.mind.moments (a mood set by hand, an
    unlock, goals, a fact): an event like a note, so rewinds and takes keep or drop it with the take."""
    fields = dict(fields)
    fields.setdefault("scene", engine.state.scene)
    return engine._commit(fields.pop("kind"), fields.pop("text"), **fields)


async def score_lines(engine: Any, step: Step) -> None:
    """Each line a character with a memory witnessed is scored for importance once, by its own model."""
    runner = minds(engine)
    if runner is None:
        return
    from studio.llm import CallSettings, ModelError
    from studio.mind.importance import event_fields, score_line

    for name, line in runner.pending_scores(engine.path, None):
        seat = next(r for r in engine.cast.roles if r.name == name)
        settings = CallSettings(model=seat.model, temperature=0.2, max_tokens=60, timeout=seat.timeout,
                                api_base=seat.api_base)
        try:
            answer = await score_line(engine.gateway, settings, name, line.character, line.text,
                                      scene=step.scene, turn=step.turn)
        except ModelError:
            return  # the line's own call will say what is wrong with the model
        fields = event_fields(answer, name, line.id)
        engine._commit(fields.pop("kind"), fields.pop("text"), role=seat.key, scene=step.scene, turn=step.turn,
                     **fields)


async def reflect(engine: Any, step: Step, role: ResolvedRole | None, *, scene_ended: bool) -> None:
    """Characters whose reflection is due take stock privately before they speak (or as a scene ends)."""
    runner = minds(engine)
    if runner is None or (role is not None and (role.name not in runner.sheets or step.task not in ("speak", "draft"))):
        return
    from studio.llm import CallSettings, ModelError
    from studio.mind import reflection
    from studio.mind.moments import current_goals

    due = runner.reflections_due(engine.path, turn=step.turn, scene_ended=scene_ended)
    characters = engine.cast.characters
    for seat in characters:
        if seat.name not in due or (role is not None and seat.name != role.name):
            continue
        mind = runner.world(engine.path).mind(seat.name)
        seen: list[Event] = []  # the last twelve lines it witnessed, walking back from the head
        for event in reversed(engine.path):
            if event.kind in (ev.STAGE, ev.DIRECTION) and event.witnessed_by(seat.key):
                seen.append(event)
                if len(seen) == 12:
                    break
        met = runner.met(engine.path, seat.name)  # kept as the take is folded, not walked each time
        others = [r.name for r in characters if r.name != seat.name and r.name in met]
        witnessed = [f"{e.character or 'Someone'}: {e.text}" if e.kind == ev.STAGE else f"*{e.text}*"
                     for e in reversed(seen)]
        persona = resolve(seat.sheet.prompt, MacroContext(char=seat.name, user=others[0] if others else seat.name,
                                                          seed=engine.cast.play.seed))
        messages = reflection.messages_for(seat.name, persona, current_goals(seat.sheet, mind, step.scene),
                                           witnessed, others, mind.impressions)
        settings = CallSettings(model=seat.model, temperature=0.7, max_tokens=300, timeout=seat.timeout,
                                api_base=seat.api_base)
        try:
            answer = await reflection.reflect(engine.gateway, settings, seat.name, messages, scene=step.scene,
                                              turn=step.turn)
        except ModelError:
            continue  # the line's own call will say what is wrong with the model
        fields = reflection.event_fields(answer, seat.name, others, scene=step.scene, turn=step.turn)
        fields = fields or reflection.failed_fields(answer, seat.name, scene=step.scene, turn=step.turn)
        engine._commit(fields.pop("kind"), fields.pop("text"), role=seat.key, **fields)
