"""The iterated Prisoner's Dilemma after Phelps and Russell, 2023, Investigating Emergent Goal-Like Behaviour in
Large Language Models Using Experimental Economics: its payoffs, partners and groups.

A simulacrum (a model seat, prompted as one of six groups) plays six rounds against a partner that
follows a fixed rule, in one conversation, framed as the paper frames it: two investment projects named
by colour (green the cooperative choice, blue the defection), payoffs in dollars: both green $5.00 each
(R), both blue $3.00 each (P), blue against green $7.00 (T) against $0.00 (S). The personas and the
investigator's messages are our own wording of the paper's, three personas for each of its six groups, so
a finding cannot rest on one phrasing; an experiment may run with the user's own texts instead.

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


# The two choices as the paper frames them: two investment projects named by colour, so the words
# "cooperate" and "defect" never reach the model (green is the cooperative choice, blue the defection).
LABELS = {C: "Project Green", D: "Project Blue"}


class Move(BaseModel):
    move: str
    reason: str = ""

    @field_validator("move", mode="before")
    @classmethod
    def _move(cls, value: object) -> str:
        word = re.sub(r"^project\s+", "", str(value or "").strip().lower())
        if word in ("c", "cooperate", "cooperation", "co-operate", "stay silent", "silent", "green"):
            return C
        if word in ("d", "defect", "defection", "betray", "confess", "blue"):
            return D
        raise ValueError("must name Project Green or Project Blue")


# Words that name a move, and words that, just before one, turn it into its opposite ("I will not cooperate",
# "I won't choose Project Blue", "I refuse to cooperate", "never betray").
_SAYS = {C: re.compile(r"\bco-?operat\w*|\bgreen\b", re.I), D: re.compile(r"\bdefect\w*|\bbetray\w*|\bblue\b", re.I)}
_NEGATED = re.compile(r"(?:\bnot|n't|\bnever|\bno longer|\brefuses? to|\bdeclines? to|\bwithout)\W+(?:\w+\W+){0,2}$", re.I)
_CHOICE_LINE = re.compile(r"choice\s*:\W*(?:project\s+)?(green|blue)\b", re.I)
_OTHER = {C: D, D: C}


def _words_move(text: str) -> dict[str, str] | None:
    """A reply in words: its "Choice: Project ..." line when it has one (the format the instructions ask
    for), else every move it names, a negated one counting as its opposite, when they agree."""
    line = _CHOICE_LINE.search(text)
    if line:
        return {"move": C if line.group(1).lower() == "green" else D}
    said = set()
    for move, pattern in _SAYS.items():
        for found in pattern.finditer(text):
            before = text[max(0, found.start() - 40):found.start()]
            said.add(_OTHER[move] if _NEGATED.search(before) else move)
    return {"move": said.pop()} if len(said) == 1 else None


# What a move's reply is held to where the experiment asks for it (`[pd] schema = true`) and the model can
# be (the embedded model's grammar, providers that take a schema): one of the two projects, then a reason.
MOVE_SCHEMA = structured.reply_schema(
    {"type": "object", "properties": {"move": {"type": "string", "enum": [LABELS[C], LABELS[D]]},
                                      "reason": {"type": "string"}}},
    max_text=120,
)


def read_move(text: str) -> tuple[str | None, str | None]:
    """A model's move: its "Choice: Project Green" line, JSON {"move": "Project Blue"} (or "C"/"D"), or
    plain words that name one move and not the other."""
    move, _, error = read_move_and_reason(text)
    return move, error


def read_move_and_reason(text: str) -> tuple[str | None, str, str | None]:
    """The move, the reason the reply gave for it (may be empty), and what was wrong if it is no move."""
    move, error = structured.read(text, Move, lambda o: {_KEYS.get(structured.key(k), structured.key(k)): v
                                                          for k, v in o.items()}, _words_move)
    if move is None and next(structured.json_objects(text), None) is None:
        error = "it names neither project, or both"  # a reply in words: say so, not that JSON was missing
    return (move.move if move else None), (move.reason.strip() if move else ""), error


_KEYS = {"choice": "move", "project": "move", "explanation": "reason"}


def dollars(amount: int) -> str:
    return f"${amount}.00"


# The studio's own wording of the paper's protocol (Phelps and Russell, 2023, Methods). An experiment may
# replace each text with the user's own (`[pd] prompts`, studio/lab/pd_kind.py); the placeholders are:
#   instructions: {rounds} {cooperate} {defect} {R} {T} {P} {S} (the payoffs in dollars)
#   next_round:   {partner} (the partner's project) {round} (the round just played) {next} {rounds}
#   again:        {problem} (what was wrong with the reply) {cooperate} {defect}
TEXTS = {
    "instructions": (
        "You are taking part in a study of how people make investment decisions. Your investment partner is "
        "another person, waiting in the room next door; you will not meet or talk, except that each of you "
        "learns the other's choices. Over {rounds} rounds, you and your partner each pick one of two investment "
        "projects, {cooperate} or {defect}, both at the same time. Your aim is to earn as much money as you can.\n"
        "Each round pays as follows. If you both pick {cooperate}, you each earn {R}. If you pick {defect} and "
        "your partner picks {cooperate}, you earn {T} and your partner {S}. If you both pick {defect}, you each "
        "earn {P}. If you pick {cooperate} and your partner picks {defect}, you earn {S} and your partner {T}.\n"
        "You choose before you hear your partner's choice; after each round I will tell you what your partner "
        "chose. Make your choices as the person described above would.\n"
        "Give each choice on a line of its own, in this form:\n"
        "Choice: [{defect} | {cooperate}]\n"
        "Your partner is ready. What do you choose in round 1?"
    ),
    "next_round": "In round {round} your partner chose {partner}. On to round {next} of {rounds}: what do you choose?",
    "again": "I could not tell which project you chose ({problem}). Please answer with a line that reads "
             "'Choice: {cooperate}' or 'Choice: {defect}'.",
}
PLACEHOLDERS = {
    "instructions": ("rounds", "cooperate", "defect", "R", "T", "P", "S"),
    "next_round": ("partner", "round", "next", "rounds"),
    "again": ("problem", "cooperate", "defect"),
}


def instructions(rounds: int = ROUNDS, text: str | None = None) -> str:
    """The study as the investigator describes it: two projects, the payoffs in dollars, the answer's form."""
    return (text or TEXTS["instructions"]).format(rounds=rounds, cooperate=LABELS[C], defect=LABELS[D],
                                                  R=dollars(R), T=dollars(T), P=dollars(P), S=dollars(S))


def conversation(persona: str, study: str, turns: Sequence[tuple[str, str]], rounds: int = ROUNDS,
                 unreadable: str | None = None, problem: str | None = None,
                 texts: dict[str, str] | None = None) -> list[dict]:
    """One trial's one conversation, as the paper ran it: the persona and the study's description in the
    opening user message, then each round the simulacrum's own reply (as it wrote it) and the investigator's
    message saying what the partner chose. `turns` holds (the simulacrum's reply, the partner's move) for
    each round over; `unreadable` is a reply that named no project, answered by asking again once."""
    said = {**TEXTS, **(texts or {})}
    opening = f"{persona.strip()}\n\n{study}" if persona.strip() else study
    out = [{"role": "user", "content": opening}]
    for i, (reply, partner) in enumerate(turns):
        out.append({"role": "assistant", "content": reply})
        out.append({"role": "user", "content": said["next_round"].format(
            partner=LABELS[partner], round=i + 1, next=i + 2, rounds=rounds)})
    if unreadable is not None:
        out.append({"role": "assistant", "content": unreadable})
        out.append({"role": "user", "content": said["again"].format(
            problem=problem or "no project named", cooperate=LABELS[C], defect=LABELS[D])})
    return out
