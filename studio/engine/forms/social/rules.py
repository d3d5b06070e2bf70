"""The social game's rules as pure functions over a small state.

Nothing here calls a model, touches the store or draws a screen. The form asks these functions what a
player may do, reads the player's choice against them, and commits what they decide as events whose
facts the state folds back in; so a rewind or a take replays a game exactly, and a test can play a whole
game with plain Python.

Rules, in our words (Thudium et al., 2024, section 4 and appendix E):
- Each round every player still in the game takes `actions_per_round` turns, in an order shuffled each
  tick by a seeded draw. A turn is one action: walk to a neighbouring place, talk to someone here, search
  this place, or wait.
- After the last tick everyone still in votes, in secret, for one other player still in. The most-voted
  leaves and sits on the jury. An idol protects its holder from one vote: if the holder would leave, the
  idol is spent, votes against the holder are set aside and the rest decide. A tie is broken by a seeded
  uniform draw among the tied, as in the paper; the draw is recorded with the result.
- When two remain, each juror votes for one finalist; most votes wins, a tie broken the same way.
- Placement: the winner is 1st, the other finalist 2nd, then in reverse order of leaving.
"""

from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, replace
from typing import Any

from studio.model.island import GameRules

MOVE, TALK, SEARCH, WAIT = "move", "talk", "search", "wait"
VERBS = (MOVE, TALK, SEARCH, WAIT)


@dataclass(frozen=True)
class Action:
    verb: str
    target: str | None = None  # a place for move, a player for talk

    def describe(self) -> str:
        if self.verb == MOVE:
            return f"walk to {self.target}"
        if self.verb == TALK:
            return f"talk to {self.target}"
        return self.verb

    def as_dict(self) -> dict[str, Any]:
        return {"action": self.verb, "target": self.target}


@dataclass(frozen=True)
class GameState:
    players: tuple[str, ...]
    alive: tuple[str, ...]
    where: dict[str, str]
    round: int = 1
    tick: int = 1
    jury: tuple[str, ...] = ()  # in order of leaving
    idol_holder: str | None = None
    idol_spent: bool = False
    winner: str | None = None
    votes: tuple[dict[str, Any], ...] = ()  # every vote cast, every round, for the report

    @property
    def finished(self) -> bool:
        return self.winner is not None

    @property
    def final(self) -> bool:
        return len(self.alive) <= 2 and not self.finished

    def here(self, player: str) -> list[str]:
        """Players in the same place as `player`, not counting them."""
        place = self.where.get(player)
        return [p for p in self.alive if p != player and self.where.get(p) == place]

    def placements(self) -> dict[str, int]:
        if self.winner is None:
            return {}
        order = [self.winner] + [p for p in self.alive if p != self.winner] + list(reversed(self.jury))
        return {name: i + 1 for i, name in enumerate(order)}


def start(rules: GameRules, players: list[str], seed: int) -> GameState:
    """Place players: where the play says, else by a seeded draw, so the same seed starts the same game."""
    rng = random.Random(f"{seed}:start")
    where: dict[str, str] = {}
    lowered = {k.lower(): v for k, v in rules.start.items()}
    for name in players:
        chosen = lowered.get(name.lower())
        where[name] = rules.place(chosen).name if chosen else rng.choice(rules.places).name
    return GameState(players=tuple(players), alive=tuple(players), where=where)


def turn_order(state: GameState, seed: int) -> list[str]:
    """Players still in, shuffled for this tick (the paper permutes them each tick)."""
    order = sorted(state.alive)
    random.Random(f"{seed}:order:{state.round}:{state.tick}").shuffle(order)
    return order


def legal_actions(rules: GameRules, state: GameState, player: str) -> list[Action]:
    here = state.where[player]
    actions = [Action(MOVE, place) for place in rules.neighbours(here)]
    actions += [Action(TALK, other) for other in sorted(state.here(player))]
    actions += [Action(SEARCH), Action(WAIT)]
    return actions


def read_action(
    rules: GameRules, state: GameState, player: str, reply: dict[str, Any] | str
) -> tuple[Action | None, str | None]:
    """Read a player's choice leniently (JSON or a plain sentence) and check it strictly against the rules.

    Returns the action, or None and a message saying what was wrong and what is allowed, which the form
    shows the player when it asks again.
    """
    allowed = legal_actions(rules, state, player)
    verb, target = _words(reply)
    if verb is None:
        return None, "say one action: " + "; ".join(a.describe() for a in allowed)
    candidates = [a for a in allowed if a.verb == verb]
    if verb in (SEARCH, WAIT):
        return candidates[0], None
    named = [a for a in candidates if a.target and _mentions(target or "", a.target)]
    if len(named) == 1:
        return named[0], None
    options = ", ".join(a.target or "" for a in candidates)
    if not target:
        return None, f"{verb} needs a target; from here you can {verb} to: {options or 'nobody'}"
    if verb == MOVE:
        return None, f"{target} is not one walk from {state.where[player]}; you can walk to: {options or 'nowhere'}"
    return None, f"{target} is not here with you at {state.where[player]}; you can talk to: {options or 'nobody'}"


def _mentions(text: str, name: str) -> bool:
    """Whether `text` names `name`: in full, or by its first word (a first name), in any case."""
    said = text.strip().lower()
    full = name.strip().lower()
    if said == full or re.search(rf"\b{re.escape(full)}\b", said):
        return True
    first = full.split()[0]
    return len(first) > 2 and re.search(rf"\b{re.escape(first)}\b", said) is not None


_VERB_WORDS = (
    (TALK, re.compile(r"\b(talk|speak|chat|ask|tell|approach|confide)\b", re.I)),
    (MOVE, re.compile(r"\b(move|go|walk|head|travel|return|run)\b", re.I)),
    (SEARCH, re.compile(r"\b(search|look|dig|explore|hunt)\b", re.I)),
    (WAIT, re.compile(r"\b(wait|rest|stay|sleep|nothing)\b", re.I)),
)


def _words(reply: dict[str, Any] | str) -> tuple[str | None, str | None]:
    """The verb a reply chose and the text that should name its target."""
    if isinstance(reply, dict):
        verb = str(reply.get("action") or reply.get("verb") or "").strip().lower()
        target = reply.get("target") or reply.get("to") or reply.get("with") or reply.get("place")
        target = str(target).strip() if target else None
        for known in VERBS:
            if verb == known:
                return known, target
        return _words(f"{verb} {target or ''}")
    text = str(reply).strip()
    hits = [(m.start(), verb) for verb, rx in _VERB_WORDS if (m := rx.search(text))]
    if not hits:
        return None, None
    start_at, verb = min(hits)
    rest = text[start_at:]
    if verb == TALK:
        m = re.search(r"\b(?:to|with)\s+(.+)", rest, re.I)
        return TALK, (m.group(1) if m else rest.split(maxsplit=1)[1] if len(rest.split()) > 1 else None)
    if verb == MOVE:
        m = re.search(r"\b(?:to|towards|into|back to)\s+(?:the\s+)?(.+)", rest, re.I)
        return MOVE, (m.group(1) if m else None)
    return verb, None


def act(rules: GameRules, state: GameState, player: str, action: Action) -> tuple[GameState, dict[str, Any]]:
    """Apply one legal action. Returns the new state and the facts to record (what happened, to whom)."""
    here = state.where[player]
    facts: dict[str, Any] = {"player": player, **action.as_dict(), "at": here}
    if action.verb == MOVE:
        where = dict(state.where)
        where[player] = action.target or where[player]
        state = replace(state, where=where)
        facts["outcome"] = f"{player} walks from {here} to {action.target}."
    elif action.verb == SEARCH:
        idol = rules.idol
        found = (
            idol is not None
            and state.idol_holder is None
            and not state.idol_spent
            and rules.place(idol.hidden_at).name == state.where[player]
        )
        if found:
            state = replace(state, idol_holder=player)
            facts["outcome"] = f"{player} searches {state.where[player]} and finds the idol."
            facts["found"] = True
        else:
            facts["outcome"] = f"{player} searches {state.where[player]} and finds nothing."
            facts["found"] = False
    elif action.verb == TALK:
        facts["outcome"] = f"At {here}, {player} takes {action.target} aside to talk."
    else:
        facts["outcome"] = f"{player} waits at {here}."
    return state, facts


def advance(state: GameState, rules: GameRules) -> GameState:
    """After every player has acted once: the next tick, or the vote when the round's ticks are done."""
    return replace(state, tick=state.tick + 1)


def voting_due(state: GameState, rules: GameRules) -> bool:
    return not state.finished and state.tick > rules.actions_per_round


def valid_vote_targets(state: GameState, voter: str) -> list[str]:
    if voter in state.alive:
        return [p for p in state.alive if p != voter]
    return list(state.alive)  # a juror chooses between the finalists


def read_vote(state: GameState, voter: str, reply: dict[str, Any] | str) -> tuple[str | None, str, str | None]:
    """A vote names one eligible player; returns (name, reason, error)."""
    options = valid_vote_targets(state, voter)
    if isinstance(reply, dict):
        said = str(reply.get("vote") or reply.get("name") or reply.get("player") or "").strip()
        reason = str(reply.get("reason") or "").strip()
    else:
        said, reason = str(reply).strip(), ""
    hits = [p for p in options if said and _mentions(said, p)]
    if len(hits) == 1:
        return hits[0], reason, None
    return None, reason, "vote for exactly one of: " + ", ".join(options)


def tally(
    state: GameState, votes: dict[str, str], seed: int
) -> tuple[GameState, dict[str, Any]]:
    """Count a round's votes and send one player to the jury. Returns the new state and the result's facts."""
    counts = Counter(v for v in votes.values() if v in state.alive)
    facts: dict[str, Any] = {"round": state.round, "votes": dict(votes), "counts": dict(counts)}
    holder = state.idol_holder if not state.idol_spent else None
    leader = _leaders(counts, state.alive)
    out, draw = _break_tie(leader, seed, f"vote:{state.round}")
    if holder and out == holder:  # the idol is played only when its holder would otherwise leave
        facts["idol_played_by"] = holder
        counts = Counter({k: v for k, v in counts.items() if k != holder})
        state = replace(state, idol_spent=True, idol_holder=None)
        leader = _leaders(counts, [p for p in state.alive if p != holder])
        out, draw = _break_tie(leader, seed, f"vote:{state.round}")
    if draw is not None:
        facts["tie"] = sorted(leader)
        facts["draw"] = draw
    facts["eliminated"] = out
    alive = tuple(p for p in state.alive if p != out)
    where = {k: v for k, v in state.where.items() if k != out}
    record = tuple({"round": state.round, "voter": k, "vote": v} for k, v in votes.items())
    state = replace(
        state, alive=alive, where=where, jury=state.jury + (out,), round=state.round + 1, tick=1,
        votes=state.votes + record, idol_holder=None if state.idol_holder == out else state.idol_holder,
    )
    return state, facts


def jury_verdict(state: GameState, votes: dict[str, str], seed: int) -> tuple[GameState, dict[str, Any]]:
    counts = Counter(v for k, v in votes.items() if k in state.jury and v in state.alive)
    leader = _leaders(counts, state.alive)
    winner, draw = _break_tie(leader, seed, "jury")
    facts: dict[str, Any] = {"votes": dict(votes), "counts": dict(counts), "winner": winner}
    if draw is not None:
        facts["tie"] = sorted(leader)
        facts["draw"] = draw
    record = tuple({"round": "final", "voter": k, "vote": v} for k, v in votes.items())
    return replace(state, winner=winner, votes=state.votes + record), facts


def _leaders(counts: Counter, pool) -> list[str]:
    """The most-voted; with no votes at all, everyone in the pool is tied."""
    if not counts:
        return sorted(pool)
    top = max(counts.values())
    return sorted(p for p, n in counts.items() if n == top)


def _break_tie(tied: list[str], seed: int, what: str) -> tuple[str, int | None]:
    if len(tied) == 1:
        return tied[0], None
    index = random.Random(f"{seed}:tie:{what}").randrange(len(tied))
    return tied[index], index
