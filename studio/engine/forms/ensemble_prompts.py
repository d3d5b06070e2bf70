"""What each seat of an ensemble is shown, through its lens (studio.engine.lens).

A character is shown only what it witnessed, and, where its inner voice rewrote a line it heard, the
rewrite instead of the line. An inner voice sees through its character's lens. The moderator and the
director see the stage.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from studio.engine.forms.base import Message, Reply
from studio.engine.forms.drama.prompts import PromptBook, beat, critic_note
from studio.llm.sampling import is_small
from studio.engine.lens import View
from studio.engine.forms.base import Step
from studio.model.loading import fill

if TYPE_CHECKING:
    from studio.engine.forms.ensemble_state import EnsembleState
    from studio.model.play import ResolvedRole


class EnsembleBook(PromptBook):
    state: EnsembleState

    def _names(self) -> dict[str, str]:
        chars = [self.cast.role(k).name for k in self.state.characters]
        return {"ego": chars[0], "other": ", ".join(chars[1:]), "superego": "the inner voice",
                "director": self.cast.role("director").name if self.cast.has("director") else "the director"}

    def character_prompt(self, role: ResolvedRole) -> str:
        prompt = fill(self.state.prompts.get(role.key, role.sheet.prompt), **self._names())
        return self.with_card(role, prompt)

    def _seen(self, viewer: str | None, role: ResolvedRole, system: str, share: int = 1) -> View:
        budget = self._budget(role, system) // share
        reserve = self._memory_reserve(role) if viewer == role.key else 0
        return self.view(viewer, max(budget - reserve, 256) if reserve else budget)

    def _company(self, key: str) -> str:
        others = [self.cast.role(k) for k in self.state.on_stage if k != key and k in self.state.characters]
        if not others:
            return "\nYou are alone on stage."
        return "\nOn stage with you: " + "; ".join(self.introduced(r) for r in others) + "."

    def _speak(self, step: Step, role: ResolvedRole) -> list[Message]:
        system = (
            f"{self.character_prompt(role)}\n\n{self._setting(step.scene)}{self._company(role.key)}\n"
            f"Reply as {role.name} only: one or two sentences of direct speech, without your name in front. "
            f"A line wholly in *italics* is something happening around you, not speech.{self._notes()}"
        )
        view = self._seen(role.key, role, system)
        system = self._remember(role, view, step, system)
        chat = self.as_chat(role, view)
        if not chat or chat[-1]["role"] != "user":
            chat.append({"role": "user", "content": f"It is {role.name}'s turn to speak."})
        elif is_small(role.model, role.small):
            chat[-1] = {**chat[-1], "content": chat[-1]["content"] + "\n\n" + beat(role, view)}
        return [{"role": "system", "content": system}, *self.card_notes(role, chat)]

    _draft = _speak

    def _revise(self, step: Step, role: ResolvedRole) -> list[Message]:
        messages = self._speak(step, role)
        draft = self.state.draft.text if self.state.draft else ""
        critique = self.state.critique.text if self.state.critique else ""
        messages.append({"role": "assistant", "content": draft})
        messages.append({"role": "user", "content": (
            f"(Only you can hear this. Your inner voice answers your line: {critique})\n"
            f"Now say what {role.name} actually says aloud: keep your line if you stand by it, or change it.")})
        return messages

    def _owner(self, voice: ResolvedRole) -> ResolvedRole:
        return self.cast.role(voice.key[: -len(".voice")])

    def _voice_system(self, voice: ResolvedRole) -> str:
        owner = self._owner(voice)
        return (f"{self.character_prompt(voice)}\n\nYou are the hidden inner voice of {owner.name}; nobody "
                f"else hears you.\nWho {owner.name} is, as {owner.name} has been told:\n{self.character_prompt(owner)}")

    def _critique(self, step: Step, role: ResolvedRole) -> list[Message]:
        owner, system = self._owner(role), self._voice_system(role)
        seen = self.transcript(self._seen(owner.key, role, system, 2))
        draft = self.state.draft.text if self.state.draft else ""
        user = (f"What {owner.name} has witnessed:\n{seen}\n\n{owner.name} is about to say:\n{draft}\n\n"
                f"Speak to {owner.name} as the inner voice, two or three sentences: what is wrong with that line "
                "and what to say instead.")
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _rewrite_speech(self, step: Step, role: ResolvedRole) -> list[Message]:
        owner, system = self._owner(role), self._voice_system(role)
        line = self.state.other_line
        view = self.before(self._seen(owner.key, role, system, 2), line)
        speaker = self._speaker(line) if line else "Someone"
        witnessed = f"What {owner.name} has witnessed:\n{self.transcript(view)}\n\n" if view.lines else ""
        user = (f"{witnessed}{speaker} has just said:\n{line.text if line else ''}"
                f"\n\nRewrite that line the way {owner.name} will hear it, coloured by you. Reply with the "
                "rewritten line alone, in the speaker's voice.")
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _rewrite_prompt(self, step: Step, role: ResolvedRole) -> list[Message]:
        owner, system = self._owner(role), self._voice_system(role)
        seen = self.transcript(self._seen(owner.key, role, system, 2))
        user = (f"What {owner.name} has witnessed:\n{seen}\n\nRewrite the description of who "
                f"{owner.name} is in the light of it: second person, no longer than now, the way you would have "
                f"{owner.name} be from here on. Reply with the new description alone.")
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _direct(self, step: Step, role: ResolvedRole) -> list[Message]:
        cast = "; ".join(self.cast.role(k).name for k in self.state.characters)
        system = f"{self.character_prompt(role)}\n\n{self._setting(0)}\nThe characters: {cast}.{self._notes()}"
        story = self.transcript(self._seen(None, role, system))
        on = ", ".join(self.cast.role(k).name for k in self.state.on_stage) or "nobody"
        ask = (f"Scene {step.scene} of {self.cast.play.scene_count} begins, with {on} on stage. "
               f"{self.cast.play.brief(step.scene)}{critic_note(self.path)} Write the stage direction that opens it: "
               "where we are and what happens, two or three sentences in the present tense. No dialogue.")
        return [{"role": "system", "content": system},
                {"role": "user", "content": (f"The story so far:\n{story}\n\n" if story else "") + ask}]

    def _pick(self, step: Step, role: ResolvedRole) -> list[Message]:
        names = [self.cast.role(k).name for k in self.state.on_stage if k in self.state.characters]
        system = f"{self.character_prompt(role)}\n\n{self._setting(step.scene)}{self._notes()}"
        story = self.transcript(self._seen(None, role, system))
        ask = (f"Who speaks next? Choose one of: {', '.join(names)}.\n"
               "Answer on one line: the name, a dash, and your reason in a few words.")
        if role.kind == "director":
            offstage = [self.cast.role(k).name for k in self.state.characters if k not in self.state.on_stage]
            ask += ("\nYou may add lines of your own below it: 'Direction: ...' for something that happens now"
                    + (f"; 'Enter: NAME' to bring on one of {', '.join(offstage)}" if offstage else "")
                    + "; 'Exit: NAME' to send someone off.")
        return [{"role": "system", "content": system},
                {"role": "user", "content": (f"The scene so far:\n{story}\n\n" if story else "") + ask}]

    def _summarize(self, step: Step, role: ResolvedRole) -> list[Message]:
        system = self.character_prompt(role)
        seen = self.transcript(self.view(role.key, 10 * self._budget(role, system)))
        user = (f"What you, {role.name}, have witnessed so far:\n{seen}\n\nSum up, in the first person and at "
                "most four sentences, what you need to remember of it: who said what that matters, what changed, "
                "what you now believe. Reply with the summary alone.")
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _epilogue(self, step: Step, role: ResolvedRole) -> list[Message]:
        system = self.character_prompt(role)
        seen = self.transcript(self._seen(role.key, role, system))
        user = (f"The play is over. What happened, as you lived it:\n{seen}\n\nWrite {role.name}'s "
                "autobiographical epilogue, in the first person, one paragraph: what you learned from these scenes.")
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]


_MOVE = re.compile(r"^\s*(direction|enter|exit)\s*:\s*(.+?)\s*$", re.I | re.M)


def read_pick(state: EnsembleState, text: str) -> Reply:
    """Leniently read a pick: the first on-stage name wins; none readable means a random speaker, said so."""
    first, _, rest = text.strip().partition("\n")
    on = [k for k in state.on_stage if k in state.characters]
    hits = []
    for key in on:
        found = re.search(rf"\b{re.escape(state.cast.role(key).name.casefold())}\b", first.casefold())
        if found:
            hits.append((found.start(), key))
    reason = re.sub(r"^[^—–\-:]*[—–\-:]\s*", "", first).strip() if hits else ""
    picked: str | None
    if hits:
        picked = min(hits)[1]
    else:  # the Drama Engine's last fallback: a random speaker (seeded, so a replay draws the same)
        picked = state.at_random()
        reason = "no name on stage could be read in the reply; a speaker drawn at random"
    moves = []
    for word, value in _MOVE.findall(rest):
        word = word.lower()
        if word == "direction":
            moves.append({"text": value})
            continue
        who = state.key_for(value.rstrip(". "))
        if who is None or (word == "enter") == (who in state.on_stage):
            continue
        name = state.cast.role(who).name
        moves.append({word: who, "text": f"{name} {'enters' if word == 'enter' else 'leaves'}."})
    name = state.cast.role(picked).name if picked else "nobody"
    return Reply(f"{name}: {reason}" if reason else name, data={"pick": picked, "reason": reason, "moves": moves})
