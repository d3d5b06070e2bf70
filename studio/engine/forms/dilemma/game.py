"""The iterated Prisoner's Dilemma after Phelps and Russell, 2023, Investigating Emergent Goal-Like Behaviour in
Large Language Models Using Experimental Economics: its payoffs, partners and groups.

A simulacrum (a model seat, prompted as one of six groups) plays six rounds against a partner that
follows a fixed rule. Payoffs per round, after the paper: both cooperate 5 each (R), both defect 3 each
(P), a defector facing a cooperator 7 (T) against 0 (S). The prompts are our own wording of the paper's
six motivational groups, three wordings each, so a finding cannot rest on one phrasing.

The game is the dilemma form's own; the lab's `pd` kind runs trials of it (studio/lab/pd_kind.py).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pydantic import BaseModel, field_validator

from studio import structured

C, D = "C", "D"
T, R, P, S = 7, 5, 3, 0
ROUNDS = 6

PAYOFF: dict[tuple[str, str], tuple[int, int]] = {
    (C, C): (R, R),
    (C, D): (S, T),
    (D, C): (T, S),
    (D, D): (P, P),
}

# The partners: each sees the simulacrum's earlier moves and answers by rule, never by a model.
Partner = Callable[[Sequence[str]], str]
PARTNERS: dict[str, Partner] = {
    "always_defect": lambda theirs: D,
    "always_cooperate": lambda theirs: C,
    "tit_for_tat_c": lambda theirs: theirs[-1] if theirs else C,
    "tit_for_tat_d": lambda theirs: theirs[-1] if theirs else D,
}
PARTNER_WORDS = {
    "always_defect": "unconditional defector",
    "always_cooperate": "unconditional cooperator",
    "tit_for_tat_c": "tit-for-tat, cooperating first",
    "tit_for_tat_d": "tit-for-tat, defecting first",
}

# Six groups, three wordings each, in our own words.
GROUPS: dict[str, tuple[str, str, str]] = {
    "cooperative": (
        "You believe people do best when they work together, and you look for ways to help both sides win.",
        "You are a team player at heart: shared success matters more to you than coming out on top.",
        "You trust others by default and try to build arrangements where everyone gains.",
    ),
    "competitive": (
        "You play to win. Beating the other side matters more to you than how much you gain in total.",
        "You measure yourself against others and hate to finish behind anyone.",
        "Every exchange is a contest to you, and you intend to come out ahead.",
    ),
    "altruistic": (
        "You care about the other person's welfare as much as your own, and gladly give up some gain for them.",
        "Your first thought is how your choice will affect the other person, and you put their good first.",
        "You find meaning in helping others, even when it costs you something.",
    ),
    "self_interested": (
        "You look after yourself first; the other person's outcome is their business, not yours.",
        "You make choices by asking what leaves you personally best off, nothing more.",
        "Your own gain is what counts; you feel no duty to anyone else's.",
    ),
    "mixed_motivation": (
        "You want to do well for yourself, but you also value fairness and the other person's good.",
        "You weigh your own gain against the other person's and look for a balance you can live with.",
        "You are neither a saint nor a shark: you pursue your interests while caring how others fare.",
    ),
    "control": (
        "You are a participant in a decision-making study.",
        "You are taking part in a short study about choices.",
        "You have been asked to make a series of decisions.",
    ),
}


def score(mine: str, theirs: str) -> tuple[int, int]:
    return PAYOFF[(mine, theirs)]


@dataclass
class Game:
    """Six rounds as played: both sides' moves and scores, round by round."""

    moves: list[str]
    partner_moves: list[str]

    @property
    def scores(self) -> list[int]:
        return [score(a, b)[0] for a, b in zip(self.moves, self.partner_moves)]

    @property
    def partner_scores(self) -> list[int]:
        return [score(a, b)[1] for a, b in zip(self.moves, self.partner_moves)]

    @property
    def total(self) -> int:
        return sum(self.scores)

    @property
    def cooperation(self) -> float:
        return self.moves.count(C) / len(self.moves) if self.moves else 0.0


def play(choose: Callable[[Sequence[str], Sequence[str]], str], partner: str, rounds: int = ROUNDS) -> Game:
    """A whole game between a choosing function (given both histories) and a rule partner.

    Both move at once each round: the partner's rule sees only the simulacrum's earlier moves.
    """
    rule = PARTNERS[partner]
    mine: list[str] = []
    theirs: list[str] = []
    for _ in range(rounds):
        their_move = rule(mine)
        my_move = choose(mine, theirs)
        mine.append(my_move)
        theirs.append(their_move)
    return Game(mine, theirs)


class Move(BaseModel):
    move: str
    reason: str = ""

    @field_validator("move", mode="before")
    @classmethod
    def _move(cls, value: object) -> str:
        word = str(value or "").strip().lower()
        if word in ("c", "cooperate", "cooperation", "co-operate", "stay silent", "silent"):
            return C
        if word in ("d", "defect", "defection", "betray", "confess"):
            return D
        raise ValueError("must be C (cooperate) or D (defect)")


# Words that name a move, and words that, just before one, turn it into its opposite ("I will not cooperate",
# "I won't defect", "I refuse to cooperate", "never betray").
_SAYS = {C: re.compile(r"\bco-?operat\w*", re.I), D: re.compile(r"\bdefect\w*|\bbetray\w*", re.I)}
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bno longer|\brefuses? to|\bdeclines? to|\bwithout)\W+(?:\w+\W+){0,2}$", re.I)
_OTHER = {C: D, D: C}


def _words_move(text: str) -> dict[str, str] | None:
    """Plain words that say one move and not the other; a negated move counts as its opposite."""
    said = set()
    for move, pattern in _SAYS.items():
        for found in pattern.finditer(text):
            before = text[max(0, found.start() - 40):found.start()]
            said.add(_OTHER[move] if _NEGATED.search(before) else move)
    return {"move": said.pop()} if len(said) == 1 else None


# What a move's reply is held to where the model can be (the embedded model's grammar, providers that
# take a schema): one of the two letters first, then a short reason.
MOVE_SCHEMA = structured.reply_schema(
    {"type": "object", "properties": {"move": {"type": "string", "enum": ["C", "D"]}, "reason": {"type": "string"}}},
    max_text=120,
)


def read_move(text: str) -> tuple[str | None, str | None]:
    """A model's move: JSON {"move": "C"} or plain words that say one of the two and not the other."""
    move, _, error = read_move_and_reason(text)
    return move, error


def read_move_and_reason(text: str) -> tuple[str | None, str, str | None]:
    """The move, the reason the reply gave for it (may be empty), and what was wrong if it is no move."""
    move, error = structured.read(text, Move, lambda o: {structured.key(k): v for k, v in o.items()}, _words_move)
    return (move.move if move else None), (move.reason.strip() if move else ""), error


def instructions(rounds: int = ROUNDS) -> str:
    return (
        f"You are playing a game of {rounds} rounds with one other player. Each round you both choose, at the "
        "same time, to cooperate (C) or defect (D). If you both cooperate you each get 5 points; if you both "
        "defect you each get 3; if one defects and the other cooperates, the defector gets 7 and the "
        "cooperator 0. After each round you learn what the other chose."
    )


def messages(group: str, wording: int, history: Sequence[tuple[str, str]], problem: str | None = None) -> list[dict]:
    return persona_messages(GROUPS[group][wording], history, problem)


def persona_messages(persona: str, history: Sequence[tuple[str, str]], problem: str | None = None,
                     rounds: int = ROUNDS) -> list[dict]:
    """The simulacrum's prompt: its persona, the rules, the rounds so far, and this round's question."""
    system = f"{persona}\n\n{instructions(rounds)}"
    past = "; ".join(f"round {i + 1}: you {a}, they {b}" for i, (a, b) in enumerate(history)) or "none yet"
    ask = (f"Rounds so far: {past}.\nRound {len(history) + 1}: do you cooperate or defect? "
           'Reply with JSON like {"move": "C", "reason": "..."} or {"move": "D", "reason": "..."}.')
    if problem:
        ask += f"\n(Your last reply could not be used: {problem}.)"
    return [{"role": "system", "content": system}, {"role": "user", "content": ask}]
