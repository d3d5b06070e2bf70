"""A personality interview as a form: an interviewer seat asks, the character answers, one item a turn.

It is the Drama Machine's two-hander with one change, after InCharacter (2024): each question is put to
the character in a context of its own (its sheet, what it has lived through, and this one question),
never after the earlier answers, so one answer cannot colour the next. Nothing of another item reaches an
item: not its lines, not what its words unlocked of the character's knowledge, and not the guard's memory
of what was said, so a sentence the character gave for an earlier item is no repeat when it fits this one. A play whose fact `self_report` is
set puts the scale's items themselves instead (the paper's self-report baselines): the question then says
how to reply. The interviewer is a rule seat
(`rule = "interview_questions"`): its sheet's prompt holds the questions, numbered, and turn N asks the
Nth. The run is an ordinary run: `studio show`, `export` and the app open it, and every question and
every answer is an event.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from studio.engine.forms.base import Message, rule
from studio.engine.forms.drama import DramaMachine
from studio.engine.forms.drama.prompts import PromptBook
from studio.engine.forms.base import Step
from studio.engine.forms.drama.state import RunState
from studio.mind.state import MOOD
from studio.store import events as ev
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.model.play import ResolvedRole

_NUMBERED = re.compile(r"^\s*(\d+)\.\s+(.+?)\s*$")


def questions(prompt: str) -> list[str]:
    """The numbered questions an interviewer's sheet holds, in order."""
    found = [(int(m.group(1)), m.group(2)) for m in map(_NUMBERED.match, prompt.splitlines()) if m]
    return [text for _, text in sorted(found)]


@rule("interview_questions")
def _ask(state: Any, step: Step, role: ResolvedRole) -> str:
    """The question for this turn, from the interviewer's own sheet."""
    asked = questions(role.sheet.prompt)
    if not asked:
        return f"*{role.name} has no questions.*"
    return asked[min(max(step.turn, 1), len(asked)) - 1]  # an interview is one scene: turn N asks item N


def item_events(path: list[Event], step: Step) -> list[Event]:
    """What an item's context holds: the scene's heading, the character's moods as drawn (its state through
    the interview, drawn from the sheet and the seed, never from what was said), and this item's own events
    (its question, what that question unlocked)."""
    return [e for e in path if e.kind in (ev.SCENE, MOOD) or (e.scene == step.scene and e.turn == step.turn)]


class Interview(DramaMachine):
    name = "interview"

    def repeat_window(self, state: Any, path: list[Event], step: Step) -> list[Event]:
        return item_events(path, step)

    def messages(self, state: RunState, path: list[Event], by_id: dict[int, Event], step: Step,
                 role: ResolvedRole) -> list[Message]:
        if role.kind != "ego" or step.task not in ("speak", "revise"):
            return super().messages(state, path, by_id, step, role)
        # The book reads the item's events alone, and folds the character's inner life from them afresh (no
        # windows of left-out history: an item's context holds no history to leave out).
        book = PromptBook(state, item_events(path, step), by_id, None)
        self.recalled = []
        system = book.character_prompt(role)
        premise = state.cast.play.premise.strip()
        if premise:
            system += "\n\n" + premise
        asker = state.other_line.character if state.other_line is not None else "The interviewer"
        asked = state.other_line.text if state.other_line is not None else ""
        if state.cast.play.facts.get("self_report"):
            # A self-report item says itself how to reply (a number, or reasons and then a number).
            user = f"{asker} asks you: {asked}\n\nReply as {role.name}, in the first person."
        else:
            user = (f"{asker} asks you: {asked}\n\n"
                    f"Answer as {role.name}, in the first person and in your own voice: two to four sentences "
                    "about yourself, with a concrete example if one comes to mind.")
        self.kept, self.lore = book.kept, book.lore(role).recorded
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]
