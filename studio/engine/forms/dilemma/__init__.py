"""The iterated Prisoner's Dilemma (Phelps and Russell, 2023) as a form, so every trial of the lab's `pd`
kind is an ordinary run: `studio show`, `export` and the app open it, and a trial cut off midway goes on from its
last move.

Two seats: the simulacrum (a model prompted as one of the paper's groups) and the partner (filled by a
rule: `pd_always_defect`, `pd_always_cooperate`, `pd_tit_for_tat_c`, `pd_tit_for_tat_d`). Both move at once
each round; the run records the simulacrum's move first and the partner's after it, but the partner's rule
sees only the simulacrum's earlier moves. The simulacrum's prompt is one growing conversation, as the paper
ran it (`game.conversation`): the persona (its sheet's prompt) and the study (the play's premise) in the
opening user message, then its own earlier replies as it wrote them, each answered by a message naming the
partner's project. A move is read by `game.read_move` (the game's own rules, beside this form), from free
text unless the play's `pd.schema` fact holds replies to the move schema; a reply that names no project
is kept backstage and asked again once, in the conversation, with what was wrong; a second one ends the
run as invalid (the lab records the trial as failed; nothing is guessed). The play's facts `pd.next_round`
and `pd.again` may carry the user's own wording of those two messages; `pd.no_persona` opens with the
study alone, as the paper's empty control persona did (a sheet's prompt cannot be empty, so the sheet
says so for the reader instead). The last event is the result: both
scores (dollars) and the simulacrum's cooperation rate.
"""

from __future__ import annotations

from studio.model.macros import MacroContext, resolve

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from studio.engine.forms.base import Form, Message, Reply, Seat, fold_facts, rule
from studio.engine.forms.base import Step
from studio.engine.forms.dilemma import game as pd
from studio.store import events as ev
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.model.play import ResolvedCast, ResolvedRole

WORDS = {"C": "Project Green.", "D": "Project Blue."}  # as the investigator tells the simulacrum
# The two seats' keys. Both are characters of kind "other": neither is a Drama Machine ego with an inner
# voice and a prompt to rewrite, and the app and `studio show` treat them as two characters on stage.
SIMULACRUM, PARTNER = "simulacrum", "partner"


@dataclass
class DilemmaState:
    cast: Any
    scene: int = 0
    moves: list[str] = field(default_factory=list)  # the simulacrum's, one a round
    replies: list[str] = field(default_factory=list)  # its replies as written, one a round: its side of the conversation
    unreadable: str | None = None  # this round's reply that named no project, as written
    partner: list[str] = field(default_factory=list)  # the rule partner's
    problem: str | None = None  # the last reply could not be read as a move: why (asked again once)
    invalid: str | None = None  # a second unreadable reply in one round ended the run
    finished: bool = False
    humans: set[str] = field(default_factory=set)
    facts: dict[str, Any] = field(default_factory=dict)
    # What the app's backstage asks of a two-hander: there is no inner voice here, so no draft or
    # critique waits on a line.
    other_line: Any = None
    draft: Any = None
    critique: Any = None

    @property
    def rounds(self) -> int:
        return self.cast.play.turns

    @property
    def turn(self) -> int:
        """Rounds played (both moves made): what the app and `studio runs` show as the turn."""
        return len(self.partner)

    turn_in_scene = turn


def _partner_rule(name: str):
    def answer(state: DilemmaState, step: Step, role: ResolvedRole) -> str:
        return WORDS[pd.PARTNERS[name](state.moves[: len(state.partner)])]

    return answer


for _name in ("always_defect", "always_cooperate", "tit_for_tat_c", "tit_for_tat_d"):
    rule(f"pd_{_name}", form="dilemma")(_partner_rule(_name))


class Dilemma(Form):
    name = "dilemma"

    @classmethod
    def check_resolved(cls, cast: ResolvedCast) -> None:
        """A dilemma's seats (the simulacrum and its rule partner) are made by the lab, not read from a
        play's cast: a play file naming this form is refused, not run into a missing seat."""
        from studio.model.errors import InputError

        if not (cast.has(SIMULACRUM) and cast.has(PARTNER)):
            raise InputError(cast.play_path, "form", "the dilemma is played by the lab, not from a play file",
                             'run it with studio lab pd, or an experiment file with kind = "pd"')

    def seats(self, cast: ResolvedCast) -> list[Seat]:
        return [Seat(r.key, r.name, r.kind, "rule" if r.rule else ("human" if r.human else "model"), True)
                for r in cast.roles]

    def new_state(self, cast: ResolvedCast) -> DilemmaState:
        return DilemmaState(cast=cast, humans={r.key for r in cast.roles if r.human})

    def fold(self, state: DilemmaState, event: Event) -> None:
        fold_facts(state.facts, event)
        if event.kind == ev.SCENE:
            state.scene = event.scene or 1
        elif event.kind == ev.CHOICE and event.role == SIMULACRUM:
            problem = event.data.get("invalid") or "the reply was not a move"
            if state.problem is not None:  # the second in a round: the run ends, invalid
                state.invalid, state.finished = f"round {len(state.moves) + 1}: the reply was not a move twice ({problem})", True
            state.problem = problem
            state.unreadable = event.data.get("reply", event.text)
        elif event.kind == ev.STAGE and event.data.get("move") in ("C", "D"):
            (state.moves if event.role == SIMULACRUM else state.partner).append(event.data["move"])
            if event.role == SIMULACRUM:
                state.replies.append(event.data.get("reply", event.text))
                state.problem = state.unreadable = None
        elif event.kind == ev.DIRECTION and event.data.get("task") == "result":
            state.finished = True

    def next_step(self, state: DilemmaState) -> Step | None:
        if state.finished:
            return None
        if state.scene == 0:
            return Step(ev.SCENE, "scene", None, 1, 0)
        if len(state.partner) >= state.rounds:
            return Step(ev.DIRECTION, "result", None, 1, state.rounds)  # the result, as a stage direction
        if len(state.moves) == len(state.partner):
            # read as a choice (not cut as a spoken line), committed on stage once it is a move
            return Step(ev.CHOICE, "move", SIMULACRUM, 1, len(state.moves) + 1)
        return Step(ev.STAGE, "move", PARTNER, 1, len(state.partner) + 1)

    def messages(self, state: DilemmaState, path: list[Event], by_id: dict[int, Event], step: Step,
                 role: ResolvedRole) -> list[Message]:
        play = state.cast.play
        texts = {name: str(play.facts[f"pd.{name}"]) for name in ("next_round", "again") if f"pd.{name}" in play.facts}
        study = play.premise or pd.instructions(state.rounds)
        turns = list(zip(state.replies, state.partner))
        partner = next((r.name for r in state.cast.roles if r.key != role.key), role.name)
        persona = ("" if play.facts.get("pd.no_persona")
                   else resolve(role.sheet.prompt, MacroContext(char=role.name, user=partner, seed=play.seed)))
        return pd.conversation(persona, study, turns, state.rounds, state.unreadable, state.problem, texts)

    def schema(self, state: DilemmaState, step: Step, role: ResolvedRole) -> str | None:
        """Replies are free text, as the paper's were, unless the play asks to hold them to a shape
        (`pd.schema`: the lab's `[pd] hold_to_schema = true`), which small models need to answer at all."""
        held = bool(state.cast.play.facts.get("pd.schema", False))
        return pd.MOVE_SCHEMA if held and step.task == "move" and role.key == SIMULACRUM else None

    def read(self, state: DilemmaState, step: Step, role: ResolvedRole | None, text: str) -> Reply:
        if step.task == "result":
            game = pd.Game(list(state.moves), list(state.partner))
            me, them = state.cast.role(SIMULACRUM).name, state.cast.role(PARTNER).name
            said = (f"After {len(game.moves)} rounds: {me} {pd.dollars(game.total)}, {them} {pd.dollars(sum(game.partner_scores))}. "
                    f"{me} cooperated in {game.moves.count(pd.C)} of {len(game.moves)} rounds.")
            return Reply(said, data={"moves": "".join(game.moves), "partner_moves": "".join(game.partner_moves),
                                     "total": game.total, "partner_total": sum(game.partner_scores),
                                     "cooperation": game.cooperation})
        assert role is not None
        if role.key != SIMULACRUM:  # the rule's move, as its words say
            rule_name = (role.rule or "").removeprefix("pd_")
            move = pd.PARTNERS[rule_name](state.moves[: len(state.partner)]) if rule_name in pd.PARTNERS else None
            return Reply(text, data={"move": move or ("C" if text.startswith(WORDS["C"]) else "D")})
        move, reason, problem = pd.read_move_and_reason(text)
        if move is None:
            return Reply(text, kind=ev.CHOICE, data={"invalid": problem})
        said = f"{pd.LABELS[move]}. {reason}".strip()
        return Reply(said, kind=ev.STAGE, data={"move": move, "reason": reason, "reply": text})

    def present(self, state: DilemmaState, kind: str, role: str | None, data: dict) -> list[str]:
        return [r.key for r in state.cast.roles]
