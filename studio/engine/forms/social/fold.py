"""How a committed event changes the social game's state. Every choice, vote, tie draw and conversation is an
event, and this fold is the only way the state changes, so rewind, takes and resume replay a game exactly."""

from __future__ import annotations

from collections.abc import Callable

from studio.engine.forms.base import fold_facts
from studio.engine.forms.social import answers, rules
from studio.engine.forms.social.plan import CONVERSATION, after_tally, open_conversation, plan
from studio.engine.forms.social.state import CHOICE, SocialState
from studio.store import events as ev
from studio.store.events import Event

TICKS = ("act", *CONVERSATION)  # the steps after whose last one the next tick (or the vote) comes


def fold(state: SocialState, event: Event) -> None:
    fold_facts(state.facts, event)
    if event.kind in (ev.NOTE, ev.ERROR):
        return
    if event.kind == ev.CONTROL:
        _control(state, event)
        return
    if not state.queue:
        plan(state)
    if not state.queue:
        return
    head = state.queue[0]
    what = head[0]
    if event.data.get("task") != what:
        return  # not the game's own step (a note or a direction by the playwright): nothing changes
    if event.kind == CHOICE:
        state.problem = event.data.get("invalid") or "the answer could not be used"
        return
    state.problem = None
    state.queue.pop(0)
    state.turn += 1
    step = _STEPS.get(what)
    if step is not None:
        step(state, head, event)
    if what in TICKS and not state.queue:
        # every player has acted, with any conversation the last one opened: the next tick (or the vote)
        state.game = rules.advance(state.game, state.rules)


def _control(state: SocialState, event: Event) -> None:
    """A person takes a seat over, or hands it back to the model."""
    for key, on in (event.data.get("human") or {}).items():
        (state.humans.add if on else state.humans.discard)(key)


def _round(state: SocialState, head: tuple, event: Event) -> None:
    state.scene = state.game.round
    state.votes = {}


def _goals(state: SocialState, head: tuple, event: Event) -> None:
    goals = tuple(event.data.get("goals") or ())
    state.goals[head[1]] = goals
    state.goal_history.setdefault(head[1], []).append((state.scene, goals, {}))


def _audit(state: SocialState, head: tuple, event: Event) -> None:
    history = state.goal_history.get(head[1])
    if history:
        history[-1][2].update(event.data.get("scores") or {})


def _reflect(state: SocialState, head: tuple, event: Event) -> None:
    if event.data.get("insights") is not None:
        state.insights[head[1]] = tuple(event.data["insights"])


def _act(state: SocialState, head: tuple, event: Event) -> None:
    """The action as the rules apply it, with the search's recorded draw; a talk opens its conversation."""
    key = head[1]
    name = state.names[key]
    action = rules.Action(event.data.get("action") or rules.WAIT, event.data.get("target"), event.data.get("item"))
    roll = (event.data.get("outcome") or {}).get("roll")
    state.game, _ = rules.act(state.rules, state.game, name, action, roll)
    if action.verb == rules.TALK and action.target:
        open_conversation(state, key, state.key(action.target))


def _talk(state: SocialState, head: tuple, event: Event) -> None:
    state.talk = state.talk + ((event.character or state.names.get(head[1], ""), event.text),)
    if answers.leaves(event.text):  # the speaker walks away: the conversation's other lines are not spoken
        state.queue = [q for q in state.queue if q[0] != "talk"]


def _summary(state: SocialState, head: tuple, event: Event) -> None:
    if not any(q[0] == "summary" for q in state.queue):
        state.talk = ()


def _impressions(state: SocialState, head: tuple, event: Event) -> None:
    found = event.data.get("impressions") or {}
    if found:
        state.impressions[head[1]] = {**state.impressions.get(head[1], {}), **found}


def _vote(state: SocialState, head: tuple, event: Event) -> None:
    if event.data.get("vote"):
        state.votes[state.names[head[1]]] = event.data["vote"]


def _tally(state: SocialState, head: tuple, event: Event) -> None:
    state.game, result = rules.tally(state.game, dict(state.votes), state.seed)
    state.tallies.append(result)
    state.votes = {}
    after_tally(state)


def _verdict(state: SocialState, head: tuple, event: Event) -> None:
    state.game, _ = rules.jury_verdict(state.game, dict(state.votes), state.seed)
    state.finished = True


_STEPS: dict[str, Callable[[SocialState, tuple, Event], None]] = {
    "round": _round, "goals": _goals, "audit": _audit, "reflect": _reflect, "act": _act, "talk": _talk,
    "summary": _summary, "impressions": _impressions, "vote": _vote, "jury": _vote, "tally": _tally,
    "verdict": _verdict,
}
