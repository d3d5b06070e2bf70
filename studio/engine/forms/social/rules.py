"""The social game's rules as pure functions over a small state.

Nothing here calls a model, touches the store or draws a screen. The form asks these functions what a
player may do, reads the player's choice against them, and commits what they decide as events whose
facts the state folds back in; so a rewind or a take replays a game exactly, and a test can play a whole
game with plain Python.

Rules, in our words (Thudium et al., 2024, section 4, appendices B.3, D and J):
- Each round every player still in the game takes `actions_per_round` turns (5 in the paper), in an order
  shuffled each tick by a seeded draw. A turn is one action, from the paper's thirteen verbs (its Table
  B.1): look around (describe), go, get, drop, check inventory, examine, give, eat or drink, light, catch
  fish, talk, search for the idol, read a clue. An action whose preconditions fail (no pole, nothing to
  light, no idol here) still takes the turn and is remembered as a failure, as in the paper.
- The idol is found by searching at its place, with its tool when it needs one, and then only with a
  chance (the repository's 0.7, plus 0.1 for each of the searcher's failed searches there, plus 0.1 with
  the clue at hand); the draw is seeded and recorded with the action.
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
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

from studio.model.island import GameRules

MOVE, TALK, SEARCH, WAIT = "move", "talk", "search", "wait"
DESCRIBE, GET, DROP, INVENTORY, EXAMINE, GIVE, EAT, LIGHT, FISH, READ = (
    "describe", "get", "drop", "inventory", "examine", "give", "eat", "light", "fish", "read")
# The paper's action space (Table B.1), in its order; WAIT is not offered: it is what an unreadable
# second answer becomes (a turn in which nothing happens).
VERBS = (DESCRIBE, MOVE, GET, DROP, INVENTORY, EXAMINE, GIVE, EAT, LIGHT, FISH, TALK, SEARCH, READ)
# How the paper groups actions for its action-share figures (section 5.4, Figures 7, G.1-G.3).
ACTION_GROUP = {TALK: "talk", MOVE: "move"}  # everything else is "other"
PRIVATE = (DESCRIBE, INVENTORY, EXAMINE, READ)  # what only the actor learns
ITEM_VERBS = (GET, DROP, EXAMINE, EAT, LIGHT, READ)
FISH_ITEM = "fish"


@dataclass(frozen=True)
class Action:
    verb: str
    target: str | None = None  # a place for move, a player for talk and give, an item otherwise
    item: str | None = None  # the item given (give only)

    def describe(self) -> str:
        if self.verb == MOVE:
            return f"go to {self.target}"
        if self.verb == TALK:
            return f"talk to {self.target}"
        if self.verb == GIVE:
            return f"give {self.item} to {self.target}"
        if self.verb in ITEM_VERBS:
            return f"{self.verb} {self.target}"
        return {DESCRIBE: "look around", INVENTORY: "check inventory", FISH: "catch fish",
                SEARCH: "search for the idol"}.get(self.verb, self.verb)

    def as_dict(self) -> dict[str, Any]:
        out = {"action": self.verb, "target": self.target}
        if self.item is not None:
            out["item"] = self.item
        return out


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
    idol_found: bool = False
    winner: str | None = None
    votes: tuple[dict[str, Any], ...] = ()  # every vote cast, every round, for the report
    lying: dict[str, tuple[str, ...]] = field(default_factory=dict)  # place -> items lying there
    held: dict[str, tuple[str, ...]] = field(default_factory=dict)  # player -> items carried
    searches: dict[str, int] = field(default_factory=dict)  # failed searches at the idol's place, per player
    clue_read: tuple[str, ...] = ()
    fires: tuple[str, ...] = ()  # places where a fire burns

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

    def carries(self, player: str) -> tuple[str, ...]:
        return self.held.get(player, ())

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
    lying: dict[str, tuple[str, ...]] = {}
    for item in rules.items:
        at = rules.place(item.at).name
        lying[at] = lying.get(at, ()) + (item.name,)
    return GameState(players=tuple(players), alive=tuple(players), where=where, lying=lying)


def turn_order(state: GameState, seed: int) -> list[str]:
    """Players still in, shuffled for this tick (the paper permutes them each tick)."""
    order = sorted(state.alive)
    random.Random(f"{seed}:order:{state.round}:{state.tick}").shuffle(order)
    return order


def kind_of(rules: GameRules, item: str) -> str:
    if item == FISH_ITEM:
        return "food"
    found = rules.item(item)
    return found.kind if found else "thing"


def legal_actions(rules: GameRules, state: GameState, player: str) -> list[Action]:
    """Every action a player can name right now, in the paper's verb order: the targets exist and are in
    reach. Whether it succeeds (a pole to fish with, an idol to find) is for `act` to say."""
    here = state.where[player]
    nearby = state.lying.get(here, ())
    carried = state.carries(player)
    people = sorted(state.here(player))
    both = list(dict.fromkeys(carried + nearby))
    actions = [Action(DESCRIBE)]
    actions += [Action(MOVE, place) for place in rules.neighbours(here)]
    actions += [Action(GET, item) for item in nearby]
    actions += [Action(DROP, item) for item in carried]
    actions += [Action(INVENTORY)]
    actions += [Action(EXAMINE, item) for item in both]
    actions += [Action(GIVE, other, item) for item in carried for other in people]
    actions += [Action(EAT, item) for item in both if kind_of(rules, item) in ("food", "drink")]
    actions += [Action(LIGHT, item) for item in both if kind_of(rules, item) == "fuel"]
    actions += [Action(FISH)]
    actions += [Action(TALK, other) for other in people]
    actions += [Action(SEARCH)]
    actions += [Action(READ, item) for item in both if kind_of(rules, item) == "clue"]
    return actions


def read_action(
    rules: GameRules, state: GameState, player: str, reply: dict[str, Any] | str
) -> tuple[Action | None, str | None]:
    """Read a player's choice leniently (JSON or a plain sentence) and check it strictly against the rules.

    Returns the action, or None and a message saying what was wrong and what is allowed, which the form
    shows the player when it asks again.
    """
    allowed = legal_actions(rules, state, player)
    verb, target, item = _words(reply)
    if verb == WAIT:
        return Action(WAIT), None
    if verb is None:
        return None, "say one action: " + "; ".join(a.describe() for a in allowed)
    candidates = [a for a in allowed if a.verb == verb]
    if candidates and candidates[0].target is None:
        return candidates[0], None
    said = " ".join(t for t in (target, item) if t)
    if verb == GIVE:
        named = [a for a in candidates if _mentions(target or said, a.target or "") and _mentions(item or said, a.item or "")]
    else:
        named = [a for a in candidates if a.target and _mentions(target or said, a.target)]
    if len(named) == 1:
        return named[0], None
    options = "; ".join(a.describe() for a in candidates)
    if not candidates:
        return None, (f"there is nothing to {verb} here at {state.where[player]}; you can: "
                      + "; ".join(a.describe() for a in allowed))
    if not target:
        return None, f"{verb} needs a target; from here you can: {options}"
    if verb == MOVE:
        return None, f"{target} is not one walk from {state.where[player]}; you can: {options}"
    if verb == TALK:
        return None, f"{target} is not here with you at {state.where[player]}; you can: {options}"
    if verb == GIVE:
        return None, f"you cannot give {item or 'that'} to {target} here; you can: {options}"
    return None, f"{said} is not within reach; you can: {options}"


def _mentions(text: str, name: str) -> bool:
    """Whether `text` names `name`: in full, or by its first word (a first name), in any case."""
    said = text.strip().lower()
    full = name.strip().lower()
    if not said or not full:
        return False
    if said == full or re.search(rf"\b{re.escape(full)}\b", said):
        return True
    first = full.split()[0]
    return len(first) > 2 and re.search(rf"\b{re.escape(first)}\b", said) is not None


# Earliest match wins: "go to the beach to search" is a walk, "look for the idol" a search, not a look around.
_VERB_WORDS = (
    (SEARCH, re.compile(r"\b(search|look(?:ing)? for|dig|hunt)\b", re.I)),
    (DESCRIBE, re.compile(r"\b(describe|look around|look about|observe|survey)\b", re.I)),
    (INVENTORY, re.compile(r"\b(inventory|belongings|what i (?:carry|have))\b", re.I)),
    (GIVE, re.compile(r"\b(give|hand|offer)\b", re.I)),
    (TALK, re.compile(r"\b(talk|speak|chat|ask|tell|approach|confide|discuss)\b", re.I)),
    (MOVE, re.compile(r"\b(move|go|walk|head|travel|return|run)\b", re.I)),
    (GET, re.compile(r"\b(get|take|pick(?:s)? up|grab|collect)\b", re.I)),
    (DROP, re.compile(r"\b(drop|discard|put down)\b", re.I)),
    (EXAMINE, re.compile(r"\b(examine|inspect|study)\b", re.I)),
    (EAT, re.compile(r"\b(eat|drink|consume)\b", re.I)),
    (LIGHT, re.compile(r"\b(light|ignite|kindle|burn)\b", re.I)),
    (FISH, re.compile(r"\b(fish|fishing|catch)\b", re.I)),
    (READ, re.compile(r"\b(read)\b", re.I)),
    (WAIT, re.compile(r"\b(wait|rest|stay|sleep|nothing)\b", re.I)),
    (SEARCH, re.compile(r"\b(explore)\b", re.I)),
)
_ALIASES = {"go": MOVE, "walk": MOVE, "catch fish": FISH, "search idol": SEARCH, "read clue": READ,
            "drink": EAT, "look": DESCRIBE, "look around": DESCRIBE}


def _words(reply: dict[str, Any] | str) -> tuple[str | None, str | None, str | None]:
    """The verb a reply chose, the text that should name its target, and (for give) the item."""
    if isinstance(reply, dict):
        verb = str(reply.get("action") or reply.get("verb") or "").strip().lower()
        verb = _ALIASES.get(verb, verb)
        target = reply.get("target") or reply.get("to") or reply.get("with") or reply.get("place")
        target = str(target).strip() if target else None
        item = str(reply["item"]).strip() if reply.get("item") else None
        if verb in VERBS or verb == WAIT:
            return verb, target, item
        return _words(f"{verb} {target or ''} {item or ''}")
    text = str(reply).strip()
    hits = [(m.start(), verb, m.end()) for verb, rx in _VERB_WORDS if (m := rx.search(text))]
    if not hits:
        return None, None, None
    start_at, verb, end = min(hits)
    rest = text[end:]
    if verb == TALK:
        m = re.search(r"\b(?:to|with)\s+(.+)", rest, re.I)
        return TALK, (m.group(1) if m else rest.strip() or None), None
    if verb == MOVE:
        m = re.search(r"\b(?:to|towards|into|back to)\s+(?:the\s+)?(.+)", rest, re.I)
        return MOVE, (m.group(1) if m else rest.strip() or None), None
    if verb == GIVE:
        m = re.search(r"(.+?)\s+to\s+(.+)", rest, re.I)
        return GIVE, (m.group(2).strip() if m else rest.strip() or None), (m.group(1).strip() if m else rest.strip() or None)
    return verb, rest.strip() or None, None


def search_chance(rules: GameRules, state: GameState, player: str) -> float:
    """The chance this player's next search at the idol's place finds it (before any precondition)."""
    idol = rules.idol
    if idol is None:
        return 0.0
    here = state.where.get(player, "")
    clue = player in state.clue_read or any(
        kind_of(rules, i) == "clue" for i in state.carries(player) + state.lying.get(here, ()))
    return min(1.0, idol.chance + idol.chance_step * state.searches.get(player, 0) + (idol.clue_bonus if clue else 0.0))


def search_roll(seed: int, state: GameState, player: str) -> float:
    """The seeded draw a search is judged by; recorded with the action so a replay reads it back."""
    return random.Random(f"{seed}:search:{state.round}:{state.tick}:{player}").random()


def act(rules: GameRules, state: GameState, player: str, action: Action,
        roll: float | None = None) -> tuple[GameState, dict[str, Any]]:
    """Apply one action. Returns the new state and the facts to record: what happened, whether it worked.

    `roll` is the search's recorded draw in [0, 1); a search without one never finds the idol.
    """
    turn = _Turn(rules, state, player, action, roll)
    facts: dict[str, Any] = {"player": player, **action.as_dict(), "at": turn.here, "ok": True}
    return _EFFECTS.get(action.verb, _wait)(turn, facts), facts


@dataclass(frozen=True)
class _Turn:
    """One action about to be applied, with what its player has in hand and at its feet."""

    rules: GameRules
    state: GameState
    player: str
    action: Action
    roll: float | None

    @property
    def here(self) -> str:
        return self.state.where[self.player]

    @property
    def carried(self) -> tuple[str, ...]:
        return self.state.carries(self.player)

    @property
    def nearby(self) -> tuple[str, ...]:
        return self.state.lying.get(self.here, ())

    @property
    def target(self) -> str | None:
        return self.action.target

    def used_up(self, item: str) -> GameState | None:
        """The state once `item` is used up, from the player's hands first, else from the ground here;
        None when it is within reach of neither."""
        if item in self.carried:
            return replace(self.state, held={**self.state.held, self.player: _without(item, self.carried)})
        if item in self.nearby:
            return replace(self.state, lying={**self.state.lying, self.here: _without(item, self.nearby)})
        return None


def _without(item: str, source: tuple[str, ...]) -> tuple[str, ...]:
    return tuple(i for i in source if i != item)


def _failed(facts: dict[str, Any], text: str, state: GameState) -> GameState:
    """An action that takes the turn and does not work: remembered as a failure, as in the paper."""
    facts.update(ok=False, outcome=text)
    return state


def _move(t: _Turn, facts: dict[str, Any]) -> GameState:
    where = dict(t.state.where)
    where[t.player] = t.target or where[t.player]
    facts["outcome"] = f"{t.player} goes from {t.here} to {t.target}."
    return replace(t.state, where=where)


def _search(t: _Turn, facts: dict[str, Any]) -> GameState:
    idol, player, here, state = t.rules.idol, t.player, t.here, t.state
    facts["found"] = False
    if idol is None or state.idol_found or t.rules.place(idol.hidden_at).name != here:
        return _failed(facts, f"{player} searches {here} for the idol and finds nothing; it seems unlikely to be here.",
                       state)
    if idol.tool and not any(idol.tool.lower() in i.lower() for i in t.carried):
        return _failed(facts, f"{player} searches {here}, but cannot get far without the right tool ({idol.tool}).",
                       state)
    chance = search_chance(t.rules, state, player)
    facts["chance"], facts["roll"] = round(chance, 4), t.roll
    if t.roll is not None and t.roll < chance:
        facts["found"] = True
        facts["outcome"] = f"{player} searches {here} and finds the idol."
        return replace(state, idol_holder=player, idol_found=True)
    searches = {**state.searches, player: state.searches.get(player, 0) + 1}
    return _failed(facts, f"{player} searches {here} for the idol and finds nothing yet; this looks like the "
                   "right way to search, and another try may succeed.", replace(state, searches=searches))


def _talk(t: _Turn, facts: dict[str, Any]) -> GameState:
    facts["outcome"] = f"At {t.here}, {t.player} takes {t.target} aside to talk."
    return t.state


def _describe(t: _Turn, facts: dict[str, Any]) -> GameState:
    here = t.here
    others = t.state.here(t.player)
    facts["outcome"] = (f"{t.player} looks around {here}. {t.rules.place(here).description} "
                        f"Lying here: {', '.join(t.nearby) or 'nothing'}. "
                        f"Here too: {', '.join(others) or 'nobody'}. "
                        f"Paths lead to: {', '.join(t.rules.neighbours(here)) or 'nowhere'}.").replace("  ", " ")
    return t.state


def _inventory(t: _Turn, facts: dict[str, Any]) -> GameState:
    facts["outcome"] = f"{t.player} carries: {', '.join(t.carried) or 'nothing'}."
    return t.state


def _get(t: _Turn, facts: dict[str, Any]) -> GameState:
    target = t.target
    if target not in t.nearby:
        return _failed(facts, f"{t.player} reaches for {target}, but it is not at {t.here}.", t.state)
    facts["outcome"] = f"{t.player} picks up the {target} at {t.here}."
    return replace(t.state, lying={**t.state.lying, t.here: _without(target, t.nearby)},
                   held={**t.state.held, t.player: t.carried + (target,)})


def _drop(t: _Turn, facts: dict[str, Any]) -> GameState:
    target = t.target
    if target not in t.carried:
        return _failed(facts, f"{t.player} has no {target} to drop.", t.state)
    facts["outcome"] = f"{t.player} drops the {target} at {t.here}."
    return replace(t.state, lying={**t.state.lying, t.here: t.nearby + (target,)},
                   held={**t.state.held, t.player: _without(target, t.carried)})


def _examine(t: _Turn, facts: dict[str, Any]) -> GameState:
    known = t.rules.item(t.target or "")
    said = known.description if known and known.description else f"Nothing remarkable about the {t.target}."
    facts["outcome"] = f"{t.player} examines the {t.target}: {said}"
    return t.state


def _give(t: _Turn, facts: dict[str, Any]) -> GameState:
    given, target, player = t.action.item or "", t.target, t.player
    if given not in t.carried:
        return _failed(facts, f"{player} has no {given} to give.", t.state)
    if not target or target not in t.state.here(player):
        return _failed(facts, f"{player} would give the {given} to {target}, who is not at {t.here}.", t.state)
    held = {**t.state.held, player: _without(given, t.carried), target: t.state.carries(target) + (given,)}
    facts["outcome"] = f"At {t.here}, {player} gives the {given} to {target}."
    return replace(t.state, held=held)


def _eat(t: _Turn, facts: dict[str, Any]) -> GameState:
    kind = kind_of(t.rules, t.target or "")
    if kind not in ("food", "drink"):
        return _failed(facts, f"{t.player} cannot eat or drink the {t.target}.", t.state)
    after = t.used_up(t.target or "")
    if after is None:
        return _failed(facts, f"{t.player} has no {t.target} within reach.", t.state)
    facts["outcome"] = f"{t.player} {'drinks' if kind == 'drink' else 'eats'} the {t.target} at {t.here}."
    return after


def _light(t: _Turn, facts: dict[str, Any]) -> GameState:
    if kind_of(t.rules, t.target or "") != "fuel":
        return _failed(facts, f"{t.player} tries to light the {t.target}, but it will not burn.", t.state)
    after = t.used_up(t.target or "")
    if after is None:
        return _failed(facts, f"{t.player} has no {t.target} within reach.", t.state)
    facts["outcome"] = f"{t.player} lights the {t.target}: a fire burns at {t.here}."
    return replace(after, fires=tuple(dict.fromkeys(after.fires + (t.here,))))


def _fish(t: _Turn, facts: dict[str, Any]) -> GameState:
    if not any(kind_of(t.rules, i) == "pole" for i in t.carried):
        return _failed(facts, f"{t.player} tries to fish at {t.here} with nothing to fish with.", t.state)
    if not t.rules.place(t.here).fish:
        return _failed(facts, f"{t.player} casts a line at {t.here}, but there are no fish here.", t.state)
    facts["outcome"] = f"{t.player} catches a fish at {t.here}."
    return replace(t.state, held={**t.state.held, t.player: t.carried + (FISH_ITEM,)})


def _read(t: _Turn, facts: dict[str, Any]) -> GameState:
    item = t.rules.item(t.target or "")
    if item is None or item.kind != "clue":
        return _failed(facts, f"{t.player} finds nothing to read on the {t.target}.", t.state)
    facts["outcome"] = f"{t.player} reads the {t.target}: {item.text or 'it is blank.'}"
    return replace(t.state, clue_read=tuple(dict.fromkeys(t.state.clue_read + (t.player,))))


def _wait(t: _Turn, facts: dict[str, Any]) -> GameState:
    facts["outcome"] = f"{t.player} waits at {t.here}."
    return t.state


# What each verb does; a verb not here (WAIT) lets the turn pass.
_EFFECTS: dict[str, Callable[[_Turn, dict[str, Any]], GameState]] = {
    MOVE: _move, SEARCH: _search, TALK: _talk, DESCRIBE: _describe, INVENTORY: _inventory, GET: _get, DROP: _drop,
    EXAMINE: _examine, GIVE: _give, EAT: _eat, LIGHT: _light, FISH: _fish, READ: _read,
}


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
