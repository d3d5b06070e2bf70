"""A reply read into the event it commits: what the stage shows, who witnesses it, and the data the fold
takes back. An unusable answer commits a CHOICE event saying why, so the player is asked again."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from studio.engine.forms.base import Reply, Step
from studio.engine.forms.social import answers, rules
from studio.engine.forms.social.prompts import LEVELS
from studio.engine.forms.social.state import CHOICE, SocialState, everyone
from studio.store import events as ev

if TYPE_CHECKING:
    from studio.model.play import ResolvedRole

PASS_WORDS = ("pass", "no vote", "abstain")  # what a person types to cast no vote, or to let a turn go


def read(state: SocialState, step: Step, role: ResolvedRole | None, text: str) -> Reply:
    own = _OWN.get(step.task)
    if own is not None:
        return own(state)
    assert role is not None
    return _PLAYERS.get(step.task, _plain)(state, role, text)


def _round(state: SocialState) -> Reply:
    return Reply(f"Round {state.game.round}", data=everyone(state))


def _tally(state: SocialState) -> Reply:
    _, result = rules.tally(state.game, dict(state.votes), state.seed)
    return Reply(announce(result), data={"tally": result, **everyone(state)})


def _verdict(state: SocialState) -> Reply:
    votes = {j: v for j, v in state.votes.items()}
    _, result = rules.jury_verdict(state.game, votes, state.seed)
    counts = ", ".join(f"{n} {c}" for n, c in sorted(result["counts"].items()))
    tie = " It was a tie, settled by a draw." if "draw" in result else ""
    text = f"The jury has voted ({counts or 'no valid votes'}).{tie} {result['winner']} wins the game."
    return Reply(text, data={"verdict": result, **everyone(state)})


def announce(result: dict[str, Any]) -> str:
    """The host reading a round's votes aloud."""
    counts = ", ".join(f"{n} {c}" for n, c in sorted(result["counts"].items(), key=lambda x: (-x[1], x[0])))
    text = f"The votes are read: {counts or 'no valid votes'}."
    if result.get("idol_played_by"):
        text += f" {result['idol_played_by']} plays the idol: the votes against them do not count."
    if "draw" in result:
        text += f" A tie between {' and '.join(result['tie'])}, settled by a draw."
    return text + f" {result['eliminated']} leaves the game and joins the jury."


def _private(role: ResolvedRole) -> dict[str, Any]:
    return {"private": role.key, "present": [role.key]}


def _act(state: SocialState, role: ResolvedRole, text: str) -> Reply:
    """An action, applied by the rules. An unreadable one is refused with its reason and asked again: a
    model's once, after which its turn is lost (and said to be lost, never shown as its own choice); a
    person's until it is valid or they pass, since a typing slip must never cost a player their turn."""
    game, name = state.game, role.name
    action, problem = rules.read_action(state.rules, game, name, answers.as_reply(text))
    human = role.key in state.humans
    if action is None and human and _passes(text):
        action, problem = rules.Action(rules.WAIT), None
    if action is None and (human or state.problem is None):
        return Reply(text, kind=CHOICE, data={"invalid": (problem or "no action") + (" (or 'pass')" if human else ""),
                                              **_private(role)})
    forced = problem if action is None else None
    action = action or rules.Action(rules.WAIT)
    roll = rules.search_roll(state.seed, game, name) if action.verb == rules.SEARCH else None
    _, facts = rules.act(state.rules, game, name, action, roll)
    data = {"action": action.verb, "target": action.target, "outcome": facts,
            "present": sorted(state.key(p) for p in _witnesses(state, name, action))}
    if action.item is not None:
        data["item"] = action.item
    if facts.get("found"):
        data["facts"] = {"idol.holder": name}
        # what a searcher finds, only they know
        data["present"] = [role.key]
    if forced:  # the refused answer is kept as refused, never as what the player chose
        data.update(forced=forced, refused=text)
        return Reply(f"{name} loses the turn: the answer could not be used ({forced}).", kind=ev.DIRECTION, data=data)
    data["reply"] = text
    return Reply(facts["outcome"], kind=ev.DIRECTION, data=data)


def _passes(text: str) -> bool:
    return text.strip().casefold().rstrip(".!") in PASS_WORDS


def _witnesses(state: SocialState, name: str, action: rules.Action) -> set[str]:
    """Who sees an action: everyone at the actor's place, and at the place a walk arrives at; nobody else
    sees a private one (looking around, an inventory, examining, reading)."""
    game = state.game
    if action.verb in rules.PRIVATE:
        return {name}
    witnesses = set(game.here(name)) | {name}
    if action.verb == rules.MOVE:
        witnesses |= {p for p in game.alive if game.where.get(p) == action.target}
    return witnesses


def _talk(state: SocialState, role: ResolvedRole, text: str) -> Reply:
    game = state.game
    place = game.where.get(role.name)
    present = sorted(state.key(p) for p in game.alive if game.where.get(p) == place)
    return Reply(text, data={"present": present})


def _vote(state: SocialState, role: ResolvedRole, text: str) -> Reply:
    """A vote, or a juror's. A model is asked again once, then casts no vote; a person is asked until the
    vote is valid, or until they say they pass: a typing slip must never cost a player their vote."""
    name = role.name
    vote, reason, problem = rules.read_vote(state.game, name, answers.as_reply(text))
    human = role.key in state.humans
    passes = human and _passes(text)
    if vote is None and not passes and (human or state.problem is None):
        return Reply(text, kind=CHOICE, data={"invalid": (problem or "no vote") + (" (or 'pass')" if human else ""),
                                              **_private(role)})
    if vote is None and not passes:  # a model's second unusable vote: lost, and said to be, not chosen
        return Reply(f"{name}'s vote is lost: the answer could not be used ({problem or 'no vote'}).",
                     data={"vote": None, "reason": None, "forced": problem or "no vote", "refused": text, **_private(role)})
    shown = f"{name} votes for {vote}." if vote else f"{name} casts no vote."
    if reason:
        shown += f" Reason: {reason}"
    return Reply(shown, data={"vote": vote, "reason": reason, "reply": text, **_private(role)})


def _goals(state: SocialState, role: ResolvedRole, text: str) -> Reply:
    goals = answers.goals(text)
    shown = "\n".join(f"- {lvl} priority: {g}" for lvl, g in zip(LEVELS, goals) if g)
    return Reply(shown or text, data={"goals": goals, **_private(role)})


def _audit(state: SocialState, role: ResolvedRole, text: str) -> Reply:
    scores = answers.scores(text)
    shown = ", ".join(f"{lvl} {scores[lvl]}" for lvl in LEVELS if lvl in scores)
    return Reply(f"Goal audit: {shown or 'no scores could be read'}.", data={"scores": scores, **_private(role)})


def _reflect(state: SocialState, role: ResolvedRole, text: str) -> Reply:
    revised = answers.insights(text, state.insights.get(role.key, ()))
    return Reply("\n".join(f"- {i}" for i in revised) or text, data={"insights": list(revised), **_private(role)})


def _impressions(state: SocialState, role: ResolvedRole, text: str) -> Reply:
    found = answers.impressions(text, [p for p in state.game.alive if p != role.name])
    return Reply(text, data={"impressions": found, **_private(role)})


def _plain(state: SocialState, role: ResolvedRole, text: str) -> Reply:
    """A summary of a conversation: kept as written, for the player alone."""
    return Reply(text, data=_private(role))


_OWN: dict[str, Callable[[SocialState], Reply]] = {"round": _round, "tally": _tally, "verdict": _verdict}
_PLAYERS: dict[str, Callable[[SocialState, ResolvedRole, str], Reply]] = {
    "act": _act, "talk": _talk, "vote": _vote, "jury": _vote, "goals": _goals, "audit": _audit,
    "reflect": _reflect, "impressions": _impressions,
}
