"""What comes next in the social game: the queue of steps, head first, filled from the state alone so a replay
of the same events plans the same game."""

from __future__ import annotations

from studio.engine.forms.base import Step
from studio.engine.forms.social import rules
from studio.engine.forms.social.state import CHOICE, GOALS, IMPRESSIONS, MEMORY, REFLECTION, VOTE, SocialState
from studio.store import events as ev
from studio.store.events import Event

# The kind of event each step commits. An action's reply is private reasoning (its outcome, a direction, is
# what the stage sees).
KINDS = {"round": ev.SCENE, "goals": GOALS, "act": CHOICE, "talk": ev.STAGE, "summary": MEMORY,
         "impressions": IMPRESSIONS, "vote": VOTE, "tally": ev.DIRECTION, "reflect": REFLECTION,
         "audit": GOALS, "jury": VOTE, "verdict": ev.DIRECTION}
OWN = ("round", "tally", "verdict")  # the form's own steps: no player takes them
CONVERSATION = ("talk", "summary", "impressions")  # the steps a talk opens


def next_step(state: SocialState) -> Step | None:
    if state.finished:
        return None
    if not state.queue:
        plan(state)
    head = state.queue[0]
    what = head[0]
    role = head[1] if what not in OWN else None
    scene = state.game.round if what == "round" else state.scene
    return Step(KINDS[what], what, role, scene, state.turn + 1)


def plan(state: SocialState) -> None:
    """Fill the queue for the next part of the game. Pure: it depends only on the state."""
    game = state.game
    if game.finished:
        state.finished = True
        return
    if game.final:
        if not state.votes and game.jury:
            state.queue = [("jury", state.key(j)) for j in game.jury] + [("verdict",)]
            return
    if state.scene < game.round:
        state.queue = [("round",)]
        state.queue += [("goals", state.key(p)) for p in sorted(game.alive)
                        if "goals" in state.rules.modules(p)]
        state.queue += [("act", state.key(p)) for p in rules.turn_order(game, state.seed)]
        return
    if rules.voting_due(game, state.rules):
        state.queue = [("vote", state.key(p)) for p in sorted(game.alive)] + [("tally",)]
        return
    state.queue = [("act", state.key(p)) for p in rules.turn_order(game, state.seed)]


def open_conversation(state: SocialState, key: str, partner: str) -> None:
    """Put a talk's lines, a side at a time, then each speaker's summary and impressions, ahead of the queue."""
    lines: list[tuple] = []
    for _ in range(state.rules.talk_lines):
        lines += [("talk", key, key, partner), ("talk", partner, key, partner)]
    after: list[tuple] = [("summary", key, partner), ("summary", partner, key)]
    for k in (key, partner):
        if "impressions" in state.rules.modules(state.names[k]):
            after.append(("impressions", k))
    state.queue = lines + after + state.queue
    state.talk = ()


def after_tally(state: SocialState) -> None:
    """Once a round's votes are read: a reflection each, then the goal audit of each model player with goals."""
    alive = sorted(state.game.alive)
    state.queue = ([("reflect", state.key(p)) for p in alive]
                   + [("audit", state.key(p)) for p in alive if "goals" in state.rules.modules(p)
                      and state.key(p) not in state.humans and state.goals.get(state.key(p))]
                   + state.queue)


def ends_turn(state: SocialState, done: list[Event]) -> bool:
    """A turn of `play_turn` is one player's action, with any conversation it opened."""
    event = done[-1]
    if event.kind == ev.DIRECTION and event.data.get("task") in ("act", "tally", "verdict"):
        return not any(q[0] in CONVERSATION for q in state.queue)
    if event.data.get("task") in ("summary", "impressions"):
        return not any(q[0] in CONVERSATION for q in state.queue)
    return False
