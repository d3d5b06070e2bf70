"""The Drama Machine as a form: the ego, its superego, the others in rotation, a director who opens scenes.

The phase machine lives in studio.engine.forms.drama.state and the prompts in studio.engine.forms.drama.prompts; this form is
the seam through which the engine reaches them, so the calls it makes are exactly those recorded in
tests/data/golden_calls.json.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from studio.engine.forms.base import Form, Message, Reply, Seat, fold_facts
from studio.engine.lines import same_line
from studio.llm.sampling import is_small
from studio.store import events as ev
from studio.engine.forms.drama.prompts import PromptBook, asks
from studio.engine.forms.base import Step
from studio.engine.forms.drama.state import RunState
from studio.engine.forms.review import review
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.engine.lens import InnerVoices
    from studio.model.play import Play, ResolvedCast, ResolvedRole


# A line that opens as a question put to the one who answers ("How did you", "What was your", "Do you")
# and ends with its one question mark (and holds no other): a body of at most 154 characters after the
# opening, so the token budget never cuts the question off. A small model asked for a question opened with
# a remark ("I'm so glad I could meet you today!") and ran on past the limit without asking; opened with a
# question word alone, it asked about itself ("How do I get started?", "What's the story of how I was
# born?"), and the one it interviewed answered by narrating ("She: ...", "The interviewer has a big
# job"). Opened as a question to "you", the question is about the other, who answers in the first person
# more often. The model picks the opening and writes the rest. No bracket: a small model opens one for
# stage business ("(pauses)") or a template's gap ("[insert text here]"), and one left open at the end
# takes the mark ("...thoughts on [?"). The mark closes a word: not after a space, a comma, a colon or a
# semicolon ("...for the next week or ?", "...in her mind:?"). No opening begins with a word of its own
# a line may open with: with "Is", "Are" and "Were" allowed, a model that took "I" (for "I'm so glad...")
# or "We" was held to go on "s" or "re", and wrote "Is sorry I could help" and "Is going to be fun today
# at work".
QUESTION_OPENINGS = (
    "What do you", "What did you", "What does your", "What did your", "What was your", "What is your",
    "What would you", "What made you", "How do you", "How did you", "How does your", "How was your",
    "How have you", "How long have you", "How did your", "Why do you", "Why did you", "When did you",
    "When do you", "Where did you", "Where do you", "Who was your", "Who is your", "Who did you",
    "Which of your", "Did you", "Do you", "Does your", "Did your", "Was your", "Have you", "Has your",
    "Had you", "Can you", "Could you", "Would you", "Will you")
QUESTION = ('root ::= (' + " | ".join(f'"{w}"' for w in QUESTION_OPENINGS) + ") [ '] "
            '[^\\n?([{]{3,153} [^\\n?([{ ,:;] "?"')


def lost_question(said: str, heard: str) -> str:
    """The last question of a line that its rewrite no longer asks, else ''."""
    if "?" not in said or "?" in heard:
        return ""
    asked = [part.strip() for part in re.split(r"(?<=[.!?])\s+", said) if part.strip().endswith("?")]
    return asked[-1] if asked else ""


class DramaMachine(Form):
    name = "drama_machine"

    @classmethod
    def check_cast(cls, play: Play, where: str) -> None:
        from studio.model.errors import InputError

        if play.cast.ego is None:
            raise InputError(where, "cast.ego", "the Drama Machine needs an ego", 'add [cast.ego] character = "..."')
        if not play.cast.others:
            raise InputError(where, "cast.others", "the Drama Machine needs at least one other", "add [[cast.others]]")

    def seats(self, cast: ResolvedCast) -> list[Seat]:
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

    def new_state(self, cast: ResolvedCast) -> RunState:
        state = RunState(cast=cast, ego_prompt=cast.ego.sheet.prompt)
        state.humans = {r.key for r in cast.roles if r.human}
        state.facts = dict(cast.play.facts)  # the play's starting facts; any event's data["facts"] overrides
        return state

    def fold(self, state: RunState, event: Event) -> None:
        fold_facts(state.facts, event)
        state.apply(event)

    async def carry_out(self, state: RunState, step: Step, path: list[Event], gateway: Any) -> Reply | None:
        """The Critic's review between scenes, when the play's critic_loop is on."""
        return await review(state.cast, path, gateway) if step.task == "review" else None

    def keep_control(self, state: RunState, event: Event) -> None:
        state._control(event)

    def next_step(self, state: RunState) -> Step | None:
        return state.next_step()

    def messages(self, state: RunState, path: list[Event], by_id: dict[int, Event], step: Step,
                 role: ResolvedRole) -> list[Message]:
        book = PromptBook(state, path, by_id, self.minds, self.windows, self.views)
        messages = book.messages(step, role)
        self.recalled = book.recalled
        self.kept = book.kept
        self.lore = book.lore(role).recorded
        return messages

    def read(self, state: RunState, step: Step, role: ResolvedRole | None, text: str) -> Reply:
        """Link the line to what shaped it: the line a rewrite reworks, the inner voice's work on a turn."""
        data: dict = {}
        if step.kind == ev.REWRITE_SPEECH and state.other_line is not None:
            data["source"] = state.other_line.id
            question = lost_question(state.other_line.text, text)
            if question and role is not None and is_small(role.model, role.small):
                # a tiny model's rewrite often loses the question; the ego would answer nothing asked
                text, data["question_kept"] = f"{text.rstrip()} {question}".strip(), True
        if step.kind == ev.REWRITE_PROMPT:
            data["replaces"] = state.ego_prompt
            data["source"] = state.last_line_id
        if step.role == "ego" and step.kind == ev.STAGE:
            shaped = list(state.shaping)
            if state.ego_prompt_event is not None and not state.prompt_first_used:
                shaped.insert(0, state.ego_prompt_event)
            data["shaped_by"] = shaped
            data["prompt_event"] = state.ego_prompt_event
            if state.draft is not None:
                data["kept_draft"] = same_line(state.draft.text, text)
        return Reply(text, data=data)

    def grammar(self, state: RunState, step: Step, role: ResolvedRole) -> str | None:
        """An interviewer's line on a small model is one question: it ends with its question mark."""
        if step.kind == ev.STAGE and is_small(role.model, role.small) and asks(role):
            return QUESTION
        return None

    def reworked_line(self, state: RunState, step: Step) -> Event | None:
        return state.other_line if step.task == "rewrite_speech" else None

    def strategy_switches(self, state: RunState) -> dict[str, bool]:
        return dict(state.strategy_switch)

    def inner_voices(self, state: RunState) -> InnerVoices:
        return state.inner

    def present(self, state: RunState, kind: str, role: str | None, data: dict) -> list[str]:
        """Everyone in a Drama Machine scene is on stage throughout."""
        return [r.key for r in state.cast.characters]

    def ends_turn(self, state: RunState, done: list[Event]) -> bool:
        event = done[-1]
        ego_line = lambda e: e.role == "ego" and e.kind in (ev.STAGE, ev.DIRECTION)  # noqa: E731
        if event.kind == ev.EPILOGUE or (event.kind == ev.REWRITE_PROMPT and len(done) > 1 and ego_line(done[-2])):
            return True
        if ego_line(event):
            nxt = state.next_step()
            # a prompt rewrite belongs to the turn that caused it
            return nxt is None or nxt.kind != ev.REWRITE_PROMPT or state.is_human(nxt.role)
        return False
