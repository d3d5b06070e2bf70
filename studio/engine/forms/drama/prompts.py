"""What each role is shown, assembled from the sheets and the take.

Who sees what is the method: the other sees only the stage; the ego hears the superego's rewrite of
what was said to it, never the original; the superego sees the ego's prompt and the exchange; the
director sees the stage and the cast's public descriptions. Old history is trimmed to each role's
context budget by walking back from the newest line, so the cost of a call does not grow with the run.
"""

from __future__ import annotations

import json
import re
from functools import lru_cache
from typing import Any

from studio.engine.forms.base import Step
from studio.engine.forms.drama.seen import SUMMARY_REACH, VIEWS_KEPT, Seen, Window, index_of, slid, speaker
from studio.engine.lens import Lens, View
from studio.llm.sampling import is_small
from studio.mind.worldinfo import DEFAULT_SCAN_DEPTH, Activated, Timed, activate, at_depth, timed
from studio.model.lorebook import Lorebook
from studio.model.loading import fill
from studio.model.macros import MacroContext, resolve
from studio.model.play import ResolvedRole
from studio.store import events as ev
from studio.store.events import Event

CHARS_PER_TOKEN = 4  # a plain estimate; the budget only needs to bound growth, not to be exact
TIMED_REACH = 1000  # lines read back for World Info's sticky and cooldown times (SillyTavern's deepest scan)

Message = dict[str, str]


def estimate_tokens(text: str) -> int:
    return len(text) // CHARS_PER_TOKEN + 1


def critic_note(path: list[Event]) -> str:
    """With the Critic talking back (the play's critic_loop), the newest valid review, for whoever opens
    the next scene to read; empty otherwise."""
    review = next((e for e in reversed(path) if e.kind == ev.REVIEW), None)
    if review is None or not review.data.get("valid"):
        return ""
    return (f" A critic has scored the play so far (0-10 on how the protagonist changes): {review.text}"
            " Let the new scene answer what the critic found weakest.")


def facing(cast: Any, path: list[Event], role: ResolvedRole) -> str:
    """Whom `role` faces in this scene, for a card's {{user}}: the newest other character to speak, else
    the first other character in the cast (a human's seat is named by its character)."""
    characters = [r for r in cast.characters if r.key != role.key]
    keys = {r.key: r.name for r in characters}
    for event in reversed(path):
        if event.kind == ev.STAGE and event.role in keys:
            return keys[event.role]
    return characters[0].name if characters else "User"


@lru_cache(maxsize=64)
def character_note(original: str) -> tuple[int, str, str] | None:
    """The Character's Note of a card kept whole on its sheet (`extensions.depth_prompt`): its depth, the
    role it is said as, and its text; read once per card, not per call."""
    try:
        card = json.loads(original)
    except (ValueError, RecursionError):
        return None
    data = card.get("data", card) if isinstance(card, dict) else None
    extensions = data.get("extensions") if isinstance(data, dict) else None
    note = extensions.get("depth_prompt") if isinstance(extensions, dict) else None
    if not (isinstance(note, dict) and isinstance(note.get("prompt"), str) and note["prompt"].strip()):
        return None
    depth, who = note.get("depth", 4), note.get("role", "system")
    return (depth if isinstance(depth, int) and depth >= 0 else 4,
            who if who in ("system", "user", "assistant") else "system", note["prompt"].strip())


def card_context(cast: Any, path: list[Event], role: ResolvedRole, original: str = "") -> MacroContext:
    """What `role`'s card macros stand for at the head of `path`: its name (the card's nickname when it
    has one), whom it faces, the run's seed and the moment, and the recorded time of the newest event."""
    last = path[-1] if path else None
    lines: list[Event] = []
    for event in reversed(path):
        if event.kind == ev.STAGE:
            lines.append(event)
            if len(lines) == 2:
                break
    idle = lines[0].created - lines[1].created if len(lines) == 2 else None
    nickname = getattr(role.sheet.card, "nickname", "") if role.sheet.card is not None else ""
    return MacroContext(char=nickname or role.name, user=facing(cast, path, role), seed=cast.play.seed,
                        moment=((last.scene or 0), (last.turn or 0)) if last else (0, 0), original=original,
                        when=last.created if last else None, idle=idle)


_ASKS = re.compile(r"\bask\w*\b[^.]*\bquestions?\b|\binterview", re.IGNORECASE)


def asks(role: ResolvedRole) -> bool:
    """Whether a character's part is to ask (an interviewer): its sheet says it asks questions."""
    return bool(_ASKS.search(role.sheet.prompt or ""))


def beat(role: ResolvedRole, view: View) -> str:
    """What a small model's next line is for, said after the line it answers: a 135M model told only who
    it is drifts off the scene, but follows a plain ask about the line in front of it. An interviewer asks
    one question about what was just said; anyone else answers it from their own life."""
    heard = next(((e, text) for e, text in reversed(view.lines) if e.role != role.key and e.kind == ev.STAGE), None)
    partner = heard[0].character if heard is not None and heard[0].character else "them"
    if asks(role):
        return (f"({role.name} now asks {partner} one short question about what {partner} just said. "
                "One sentence, ending with a question mark.)")
    if heard is not None and "?" in heard[1]:
        return f"({role.name} now answers {partner}'s question plainly, from {role.name}'s own life, in one or two short sentences.)"
    return f"({role.name} now answers {partner} in one or two short sentences.)"


def with_beat(heard: str, note: str, asking: bool) -> str:
    """`heard` (the lines since the speaker's own, one a row) with the beat `note`. A 135M model takes up a
    statement only when it is the last thing it reads, so the beat goes just before it; after a question,
    and throughout an interview (`asking`: the speaker or whom it faces asks), it goes last, as the
    interview kept to its scene only that way (with its lines last, 0.10 against a baseline of 0.10)."""
    *earlier, last = heard.split("\n")
    if asking or "?" in last:
        return f"{heard}\n\n{note}"
    return "\n".join([*earlier, note, last])


class PromptBook:
    # the Drama Machine's RunState; a subclass's book (the ensemble's) reads its own form's state
    state: Any

    def __init__(self, state: Any, path: list[Event], by_id: dict[int, Event], minds: Any = None,
                 windows: dict[str | None, list[Window]] | None = None,
                 views: dict[tuple[str | None, int], Seen] | None = None):
        self.state = state
        # what each seat's left-out history counted at the last call, slid forward rather than counted again
        self.windows = windows if windows is not None else {}
        self.views = views  # the view each seat was last shown (Form.views); None: every view walked afresh
        self.cast = state.cast
        self.path = path
        self.by_id = by_id
        self.minds = minds  # studio.mind.runner.MindRunner, when a character has an inner life
        self.recalled: list[Any] = []  # what the last call brought back from memory, for the line's data
        self.kept: list[str] = []  # parts of the call the budget must never cut
        self._lore: dict[str, Activated] = {}

    # -- shared pieces --------------------------------------------------------------------

    # the names a sheet's {ego}, {other}... stand for, of the last cast's seats: several prompts a step fill them
    _names_of: tuple[list[ResolvedRole], dict[str, str]] | None = None

    def _names(self) -> dict[str, str]:
        cast = self.cast
        known = PromptBook._names_of
        if known is not None and known[0] is cast.roles:
            return known[1]
        names = {
            "ego": cast.ego.name,
            "other": ", ".join(r.name for r in cast.others),
            "superego": cast.role("superego").name if cast.has("superego") else "the inner voice",
            "director": cast.role("director").name if cast.has("director") else "the director",
        }
        PromptBook._names_of = cast.roles, names
        return names

    def character_prompt(self, role: ResolvedRole) -> str:
        return self.with_card(role, fill(self.state.ego_prompt if role.kind == "ego" else role.sheet.prompt,
                                         **self._names()))

    def with_card(self, role: ResolvedRole, prompt: str) -> str:
        """`role`'s prompt as sent: its macros filled, its lore before and after it, its inner life below."""
        if not role.lore and "{{" not in prompt and "<" not in prompt and not role.sheet.has_inner_life:
            return prompt  # no card macro, lore or inner life: the sheet's prompt is sent as it stands
        inner = self.card_text(role, self._inner_life(role))
        prompt = self.card_text(role, prompt, original=f"You are {role.name}.")
        lore = self.lore(role)
        before, after = "\n".join(lore.before), "\n".join(lore.after)
        text = "\n\n".join(part for part in (before, prompt, after, inner) if part)
        return self.keep(text, before, after, inner)

    def keep(self, text: str, *kept: str) -> str:
        """`text`, with `kept` (each a part of it) marked never to be cut to fit the budget: a character's
        mood, goals, knowledge and lore outlast any cut (studio.engine.budget.fit)."""
        self.kept.extend(k for k in kept if k)
        return text

    # -- card macros ----------------------------------------------------------------------

    def card_text(self, role: ResolvedRole, text: str, original: str = "") -> str:
        """`text` of `role`'s sheet with its card macros filled for this moment (studio.model.macros): the
        same take gives the same text, so a replay is sent the same prompt."""
        if "{{" not in text and "<" not in text:
            return text
        return resolve(text, card_context(self.cast, self.path, role, original))

    # -- what a card brings to a call: World Info, the Character's Note, post-history instructions ---------

    def lore(self, role: ResolvedRole) -> Activated:
        """The lorebook entries `role` is given now (studio.mind.worldinfo), scanned in the lines it
        witnessed as it heard them, their macros filled as its own. Once per call and role."""
        if role.key in self._lore:
            return self._lore[role.key]
        books = role.lore  # the card's own book, then its sheet's and its play's (studio.model.loading)
        if not books:
            found = self._lore[role.key] = Activated()
            return found
        deepest = max([DEFAULT_SCAN_DEPTH] + [b.scan_depth or 0 for b in books]
                      + [e.scan_depth or 0 for b in books for e in b.entries])
        last = self.path[-1] if self.path else None
        found = activate(books, self.heard(role.key, min(deepest, 1000)), budget_tokens=role.context_tokens // 4,
                         seed=self.cast.play.seed, moment=((last.scene or 0), (last.turn or 0)) if last else (0, 0),
                         timed=self.timed_lore(role, books), sources=self.lore_sources(role, books))
        found.before = [self.card_text(role, t) for t in found.before]
        found.after = [self.card_text(role, t) for t in found.after]
        found.depth = [(d, r, self.card_text(role, t)) for d, r, t in found.depth]
        self._lore[role.key] = found
        return found

    def timed_lore(self, role: ResolvedRole, books: list[Lorebook]) -> Timed:
        """`role`'s World Info timed effects now (studio.mind.worldinfo.timed), read back from the take: the
        lines it witnessed, and the entries each of its own lines was given (`lore` in the line's data).
        Only the newest TIMED_REACH lines are read (or as many as the longest delay asks), so a long run
        costs no more per call."""
        entries = [e for b in books for e in b.entries]
        if not any(e.sticky or e.cooldown or e.delay for e in entries):
            return Timed(lines=0)
        reach = max([TIMED_REACH, *(e.delay for e in entries)])
        count, own = 0, []
        for event in reversed(self.path):
            if count >= reach:
                break
            if event.kind in (ev.STAGE, ev.DIRECTION) and (event.role == role.key or event.witnessed_by(role.key)):
                count += 1
                names = event.data.get("lore") if event.kind == ev.STAGE and event.role == role.key else None
                if isinstance(names, list):
                    own.append((count, [n for n in names if isinstance(n, str)]))
        return timed(books, [(count - back, names) for back, names in reversed(own)], count)

    def lore_sources(self, role: ResolvedRole, books: list[Lorebook]) -> dict[str, str]:
        """The texts of `role` that flagged entries also scan: its card's description, personality,
        scenario, Character's Note and creator's notes, and as the persona the description of whom it faces."""
        if not any(e.also_scans for b in books for e in b.entries):
            return {}
        card = role.sheet.card
        faced = facing(self.cast, self.path, role)
        persona = next((r.sheet.description for r in self.cast.roles if r.name == faced and r.key != role.key), "")
        note = character_note(card.original) if card is not None and card.original else None
        return {"character_description": (card.description if card is not None else "") or role.sheet.description,
                "character_personality": card.personality if card is not None else "",
                "scenario": card.scenario if card is not None else "",
                "persona_description": persona or "",
                "character_depth_prompt": note[2] if note is not None else "",
                "creator_notes": card.creator_notes if card is not None else ""}

    def heard(self, seat: str, count: int) -> list[str]:
        """The newest `count` lines `seat` witnessed, oldest first, as it heard them (through its lens)."""
        lens = Lens(self.path, self.state.inner, by_id=self.by_id)
        out: list[str] = []
        for event in reversed(self.path):
            if len(out) >= count:
                break
            if event.kind in (ev.STAGE, ev.DIRECTION) and event.witnessed_by(seat):
                said = lens.as_heard(seat, event)
                out.append(said if event.kind == ev.DIRECTION else f"{self._speaker(event)}: {said}")
        out.reverse()
        return out

    def card_notes(self, role: ResolvedRole, chat: list[Message]) -> list[Message]:
        """`role`'s chat with what its card places around the history: lore and the Character's Note at
        their depth, and the post-history instructions after the newest line (a system message, as
        SillyTavern sends them), all kept whole by the budget."""
        inserts = list(self.lore(role).depth)
        origin = role.sheet.card
        note = character_note(origin.original) if origin is not None and origin.original else None
        if note is not None:
            inserts.append((note[0], note[1], self.card_text(role, note[2])))
        out = at_depth(chat, inserts) if inserts else chat
        self.keep("", *(text for _, _, text in inserts))
        after = self.card_text(role, origin.post_history, original="") if origin is not None else ""
        if after.strip():
            out = [*out, {"role": "system", "content": self.keep(after.strip(), after.strip())}]
        return out

    def described(self, role: ResolvedRole) -> str:
        """What the others know of `role`, its macros filled as `role`'s own."""
        return self.card_text(role, role.sheet.description) if role.sheet.description else ""

    def introduced(self, role: ResolvedRole) -> str:
        """`role` as another character's prompt names it in a list of the cast: its name, then what the
        others know of it. A description that already opens with the name is not given it twice ("Sasha,
        Sasha, a patient interviewer"), and one that opens with an article reads on after the comma ("Tobias,
        the village baker"); no closing full stop, as the list goes on after it."""
        described = " ".join(self.described(role).split()).rstrip(".")
        if not described:
            return role.name
        if re.match(rf"{re.escape(role.name)}\b", described, re.IGNORECASE):
            return described
        first, _, rest = described.partition(" ")
        if first in ("A", "An", "The") and rest:
            described = f"{first.lower()} {rest}"
        return f"{role.name}, {described}"

    def _memory_reserve(self, role: ResolvedRole) -> int:
        """Room kept for what memory brings back, so recalling never pushes the prompt past its budget."""
        remembers = self.minds is not None and role.name in self.minds.sheets and role.sheet.memory.recall > 0
        return 60 + 240 * role.sheet.memory.recall if remembers else 0

    def _remember(self, role: ResolvedRole, view: View, step: Step, system: str) -> str:
        """Past its budget, a character recalls what matters from what it witnessed but can no longer see."""
        if not (view.trimmed and view.lines and self._memory_reserve(role)):
            return system
        from studio.mind.moments import recall_text

        self.recalled = self.minds.recall(role.name, self.path, None, query=view.lines[-1][1], turn=step.turn,
                                          shown=[e.id for e, _ in view.lines])
        return system + "\n\n" + recall_text(self.recalled) if self.recalled else system

    def _inner_life(self, role: ResolvedRole) -> str:
        """Traits, mood, knowledge, goals and impressions (studio/mind), folded from this take's events."""
        sheet = role.sheet
        if not sheet.has_inner_life:
            return ""  # a sheet without an inner life costs nothing and changes no prompt
        from studio.mind.moments import mind_text
        from studio.mind.state import fold

        # the runner's world carries on from its last fold; a full fold only when there is no runner
        world = self.minds.world(self.path) if self.minds is not None else fold(self.path, self.cast.play.facts)
        return mind_text(sheet, world.mind(role.name), self.state.scene)

    def _setting(self, scene: int) -> str:
        play = self.cast.play
        text = f"The play is '{play.title}'."
        if play.premise:
            text += f" {play.premise}"
        if scene:
            text += f"\nNow: scene {scene} of {play.scene_count}."
            brief = play.brief(scene)
            if brief:
                text += f" {brief}"
        return text

    def _notes(self) -> str:
        notes = self.state.heard_notes + self.state.notes
        if not notes:
            return ""
        return "\nThe playwright asks: " + " ".join(n.text for n in notes[-3:])

    def view(self, seat: str | None, budget_chars: int) -> View:
        """What `seat` knows of the take (None: the stage as it was said), newest last, within the budget.
        The view it was last shown stands while nothing it could see came since (the ego's revision sees
        what its draft saw: only the draft and the critique, backstage, came between)."""
        path, heard = self.path, self.state.inner.heard
        seen = self.views.get((seat, budget_chars)) if self.views is not None else None
        if seen is not None and seen.heard is heard and seen.stands(path, seat):
            return seen.view
        view = Lens(path, self.state.inner, by_id=self.by_id).lines(seat, budget_chars)
        if self.views is not None and path:
            if len(self.views) >= VIEWS_KEPT:
                self.views.clear()  # a seat's budget moves when its prompt is rewritten: old ones are not asked again
            self.views[seat, budget_chars] = Seen(heard, len(path), path[0].id, path[-1].id, view)
        return view

    def _budget(self, role: ResolvedRole, system: str) -> int:
        tokens = role.context_tokens - role.max_tokens - estimate_tokens(system) - 64
        return max(tokens, 64) * CHARS_PER_TOKEN

    _speaker = staticmethod(speaker)

    def omitted(self, view: View) -> str:
        """One line standing for the history the budget left out, made without a model: how many lines,
        who spoke them, over which scenes. Oldest lines go first, and this line is what remains of them."""
        if not view.trimmed or not view.lines:
            return ""
        at = index_of(self.path, view.lines[0][0].id)
        window = slid(self.windows.setdefault(view.seat, []), self.path, at, view.seat)
        if not window.lines:
            return ""
        more = "more than " if at > SUMMARY_REACH else ""
        said = ", ".join(f"{who} {window.speakers[who]}" for who in window.speaking_order(self.path))
        scenes = sorted(n for n, count in window.scenes.items() if count and n)
        where = f" in scene {scenes[0]}" if len(scenes) == 1 else f" in scenes {scenes[0]}-{scenes[-1]}" if scenes else ""
        return (f"(Earlier{where}, {more}{window.lines} line{'s' if window.lines != 1 else ''} not shown here"
                + (f"; lines spoken: {said}" if said else "") + ".)")

    @staticmethod
    def before(view: View, line: Event | None) -> View:
        """`view` up to `line`, which a rewrite quotes on its own: the exchange then shows no line twice
        and grows only at its end from one call of an inner voice to the next."""
        if line is not None and view.lines and view.lines[-1][0].id == line.id:
            return View(view.lines[:-1], view.trimmed, view.seat)
        return view

    def transcript(self, view: View) -> str:
        out = []
        if view.trimmed:
            out.append(self.omitted(view) or "(earlier lines omitted)")
        for event, text in view.lines:
            out.append(f"*{text}*" if event.kind == ev.DIRECTION else f"{self._speaker(event)}: {text}")
        return "\n".join(out)

    def as_chat(self, role: ResolvedRole, view: View) -> list[Message]:
        """The take as a chat from `role`'s seat: its own lines are the assistant's, all else the user's."""
        messages: list[Message] = []
        summary = self.omitted(view)
        heard = [summary] if summary else []  # the user's lines since the seat last spoke, joined once
        key, speaker = role.key, self._speaker
        for event, text in view.lines:
            if event.kind == ev.STAGE and event.role == key:
                if heard:
                    messages.append({"role": "user", "content": "\n".join(heard)})
                    heard = []
                messages.append({"role": "assistant", "content": text})
            else:
                heard.append(f"*{text}*" if event.kind == ev.DIRECTION else f"{speaker(event)}: {text}")
        if heard:
            messages.append({"role": "user", "content": "\n".join(heard)})
        return messages

    # -- per task ---------------------------------------------------------------------------

    def messages(self, step: Step, role: ResolvedRole) -> list[Message]:
        """The call for `step` (the engine then holds it to the role's budget: studio/engine/budget.py)."""
        return getattr(self, f"_{step.task}")(step, role)

    def _stage_company(self, role: ResolvedRole) -> str:
        company = [r for r in self.cast.characters if r.key != role.key]
        if not company:
            return ""
        return "\nWith you: " + "; ".join(self.introduced(r) for r in company) + "."

    def _speak(self, step: Step, role: ResolvedRole) -> list[Message]:
        system = (
            f"{self.character_prompt(role)}\n\n{self._setting(step.scene)}{self._stage_company(role)}\n"
            f"Reply as {role.name} only: one or two sentences of direct speech, without your name in front. "
            f"A line wholly in *italics* is something happening around you, not speech.{self._notes()}"
        )
        reserve = self._memory_reserve(role)
        view = self.view(role.key, max(self._budget(role, system) - reserve, 256) if reserve else self._budget(role, system))
        system = self._remember(role, view, step, system)
        chat = self.as_chat(role, view)
        if not chat or chat[-1]["role"] != "user":
            # Plain words, not a stage direction in italics: a small model echoes a direction back.
            partner = next((r.name for r in self.cast.characters if r.key != role.key), "")
            ask = f"{partner} is here with you. Say your first line to {partner}." if partner else "Say your first line."
            if partner and is_small(role.model, role.small) and asks(role):
                ask += f" Ask {partner} one short question to begin, ending with a question mark."
            chat.append({"role": "user", "content": ask if not chat else f"It is {role.name}'s turn to speak."})
        elif is_small(role.model, role.small):
            interview = any(asks(r) for r in self.cast.characters)
            chat[-1] = {**chat[-1], "content": with_beat(chat[-1]["content"], beat(role, view), interview)}
        return [{"role": "system", "content": system}, *self.card_notes(role, chat)]

    _draft = _speak

    def _revise(self, step: Step, role: ResolvedRole) -> list[Message]:
        messages = self._speak(step, role)
        draft = self.state.draft.text if self.state.draft else ""
        critique = self.state.critique.text if self.state.critique else ""
        inner = self._names()["superego"]
        messages.append({"role": "assistant", "content": draft})
        messages.append(
            {
                "role": "user",
                "content": (
                    f"(Only you can hear this. Your inner voice, {inner}, answers your line: {critique})\n"
                    f"Now say what {role.name} actually says aloud. Keep your line word for word if you stand "
                    "by it, or change it. Direct speech only."
                ),
            }
        )
        return messages

    def _superego_system(self, role: ResolvedRole) -> str:
        ego = self.cast.ego
        return (
            f"{self.character_prompt(role)}\n\nYou are the hidden inner voice of {ego.name}. Nobody else hears you."
            f"\nWho {ego.name} is, as {ego.name} has been told:\n{self.character_prompt(ego)}"
        )

    def _heard(self, role: ResolvedRole, system: str) -> View:
        """What the ego has heard, as each of the inner voice's calls shows it: one layout, so each call's
        prompt starts as the one before's did and a model's cache reads only the lines new since."""
        return self.view(self.cast.ego.key, self._budget(role, system) // 2)

    def _rewrite_speech(self, step: Step, role: ResolvedRole) -> list[Message]:
        system = self._superego_system(role)
        line = self.state.other_line
        view = self.before(self._heard(role, system), line)
        ego = self.cast.ego.name
        said = line.text if line else ""
        speaker = self._speaker(line) if line else "Someone"
        user = (
            (f"What {ego} has heard:\n{self.transcript(view)}\n\n" if view.lines else "")
            + f"{speaker} has just said to {ego}:\n{said}\n\n"
            f"Rewrite that line the way {ego} will hear it, coloured by you. "
            "Reply with the rewritten line alone, in the speaker's voice."
        )
        if "?" in said and is_small(role.model, role.small):
            # a tiny model's rewrite drifts into a sermon; the question is what the ego must still hear
            user += " Keep it a question about the same thing."
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _critique(self, step: Step, role: ResolvedRole) -> list[Message]:
        system = self._superego_system(role)
        view = self._heard(role, system)
        ego = self.cast.ego.name
        draft = self.state.draft.text if self.state.draft else ""
        user = (
            f"What {ego} has heard:\n{self.transcript(view)}\n\n{ego} is about to say:\n{draft}\n\n"
            f"Judge that line as {ego}'s inner voice: say, in two or three sentences spoken to {ego}, "
            "what is wrong with it and what to say instead."
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _rewrite_prompt(self, step: Step, role: ResolvedRole) -> list[Message]:
        system = self._superego_system(role)
        view = self._heard(role, system)
        ego = self.cast.ego.name
        user = (
            f"What {ego} has heard:\n{self.transcript(view)}\n\n"
            f"Rewrite the description of who {ego} is, in the light of it: second person, no longer "
            f"than the one {ego} has now, the way you would have {ego} be from here on. "
            "Reply with the new description alone."
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _direct(self, step: Step, role: ResolvedRole) -> list[Message]:
        # a line each: a description may hold a semicolon of its own
        cast = "".join(f"\n- {self.introduced(r)}" for r in self.cast.characters)
        system = (
            f"{self.character_prompt(role)}\n\n{self._setting(0)}\nThe characters:{cast}{self._notes()}"
        )
        view = self.view(None, self._budget(role, system))
        scenes = self.cast.play.scene_count
        ask = f"Scene {step.scene} of {scenes} begins."
        brief = self.cast.play.brief(step.scene)
        if brief:
            ask += f" The playwright's brief for it: {brief}"
        if step.scene == scenes and scenes > 1:
            ask += " It is the last scene: bring about the reversal and the recognition."
        ask += critic_note(self.path)
        ask += (
            " Write the stage direction that opens it: where we are and what happens, two or three "
            "sentences in the present tense. No dialogue."
        )
        story = self.transcript(view)
        user = (f"The story so far:\n{story}\n\n" if story else "") + ask
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]

    def _epilogue(self, step: Step, role: ResolvedRole) -> list[Message]:
        system = self.character_prompt(role)
        budget = self._budget(role, system)
        inner = [e for e in self.path if e.kind in (ev.CRITIQUE, ev.REWRITE_SPEECH, ev.REWRITE_PROMPT)]
        voice = self._names()["superego"]
        inner_text = "\n".join(f"- {e.text}" for e in inner[-4:])
        view = self.view(self.cast.ego.key, budget - len(inner_text))
        user = f"The play is over. What happened, as you lived it:\n{self.transcript(view)}\n\n"
        if inner_text:
            user += f"What your inner voice, {voice}, told you along the way:\n{inner_text}\n\n"
        user += (
            f"Write {role.name}'s autobiographical epilogue, in the first person, one paragraph: what you "
            "learned from these scenes"
            + (", and from the gap between your inner voice and what actually happened." if inner_text else ".")
        )
        return [{"role": "system", "content": system}, {"role": "user", "content": user}]
