"""What the social game holds between events: the rules' own state, plus what the form keeps around it (the
queue of steps, the talk under way, the votes cast so far, each player's goals, impressions and insights).

Folding events into it is fold.py's job; this module only says what the state is, so every other part of
the form can read it without importing the parts that change it."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from studio.engine.forms.social.rules import GameState
from studio.model.island import GameRules
from studio.store import events as ev

if TYPE_CHECKING:
    from studio.model.play import ResolvedCast

CHOICE, GOALS, VOTE, MEMORY, IMPRESSIONS, REFLECTION = ev.GAME


@dataclass
class SocialState:
    cast: ResolvedCast
    rules: GameRules
    seed: int
    names: dict[str, str]  # seat key -> player name
    game: GameState
    scene: int = 0  # the round
    turn: int = 0  # steps committed by players, for the record
    finished: bool = False
    facts: dict[str, Any] = field(default_factory=dict)
    humans: set[str] = field(default_factory=set)
    queue: list[tuple] = field(default_factory=list)  # what comes next, head first
    problem: str | None = None  # the last answer to the head of the queue was unusable: why
    talk: tuple = ()  # (speaker, line) pairs of the conversation under way
    votes: dict[str, str] = field(default_factory=dict)
    goals: dict[str, tuple[str, ...]] = field(default_factory=dict)
    impressions: dict[str, dict[str, str]] = field(default_factory=dict)
    tallies: list[dict[str, Any]] = field(default_factory=list)
    insights: dict[str, tuple[str, ...]] = field(default_factory=dict)  # seat -> current insights
    goal_history: dict[str, list[tuple[int, tuple[str, ...], dict[str, int]]]] = field(default_factory=dict)
    memory: dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)  # seat -> retrieval index

    def key(self, name: str) -> str:
        return next(k for k, n in self.names.items() if n == name)


def everyone(state: SocialState) -> dict[str, Any]:
    """The `present` of an event the whole game witnesses: the players still in and the jury."""
    return {"present": sorted(state.key(p) for p in state.game.alive + state.game.jury)}


def game_report(state: SocialState) -> dict[str, Any]:
    """Placements, every vote and each player's closing impressions: the game report's data."""
    return {
        "winner": state.game.winner,
        "placements": state.game.placements(),
        "votes": [dict(v) for v in state.game.votes],
        "tallies": state.tallies,
        "impressions": {state.names[k]: v for k, v in state.impressions.items()},
        "architecture": {n: state.rules.architecture.get(n, "both") for n in state.names.values()},
    }
