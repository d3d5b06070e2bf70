"""The Drama Machine as a form: the ego, its superego, the others in rotation, a director who opens scenes.

The phase machine lives in studio.engine.state and the prompts in studio.engine.prompts; this form is
the seam through which the engine reaches them, so the calls it makes are exactly those recorded in
tests/data/golden_calls.json.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from studio.engine.forms.base import Form, Message, Seat, fold_facts
from studio.engine.prompts import PromptBook
from studio.engine.state import RunState, Step
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.model.play import ResolvedCast, ResolvedRole


class DramaMachine(Form):
    name = "drama_machine"

    def seats(self, cast: "ResolvedCast") -> list[Seat]:
        seats = []
        for r in cast.roles:
            fill = "human" if r.human else "model"
            if r.kind == "ego":
                voice = "superego" if cast.has("superego") else None
                seats.append(Seat(r.key, r.name, r.kind, fill, True, inner_voice=voice))
            elif r.kind == "superego":
                seats.append(Seat(r.key, r.name, r.kind, fill, False, voice_of="ego"))
            else:
                seats.append(Seat(r.key, r.name, r.kind, fill, r.kind == "other"))
        return seats

    def new_state(self, cast: "ResolvedCast") -> RunState:
        state = RunState(cast=cast, ego_prompt=cast.ego.sheet.prompt)
        state.humans = {r.key for r in cast.roles if r.human}
        return state

    def fold(self, state: RunState, event: Event) -> None:
        fold_facts(state.facts, event)
        state.apply(event)

    def next_step(self, state: RunState) -> Step | None:
        return state.next_step()

    def messages(self, state: RunState, path: list[Event], by_id: dict[int, Event], step: Step,
                 role: "ResolvedRole") -> list[Message]:
        return PromptBook(state, path, by_id).messages(step, role)
