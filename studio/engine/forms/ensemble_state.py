"""Where an ensemble scene stands, derived from its take alone: who is on stage, whose turn it is, which
inner voices still have work on the newest line. The form (studio.engine.forms.ensemble) folds events
into it; its prompt book (studio.engine.forms.ensemble_prompts) reads it.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from studio.engine.forms.base import Step, fold_facts
from studio.engine.forms.review import review_due, review_step
from studio.engine.lens import InnerVoices, Voiced, voice_owners
from studio.store import events as ev
from studio.store.events import Event

if TYPE_CHECKING:
    from studio.model.play import ResolvedCast

PICKED_BY = {"moderator": "moderator", "director": "director"}


@dataclass
class EnsembleState(Voiced):
    cast: ResolvedCast
    scene: int = 0
    turn: int = 0
    turn_in_scene: int = 0
    phase: str = "scene"  # scene | direct | pick | speak | critique | revise | after | epilogue
    finished: bool = False
    policy: str = "alternate"
    on_stage: list[str] = field(default_factory=list)
    humans: set[str] = field(default_factory=set)
    strategy_switch: dict[str, bool] = field(default_factory=dict)
    facts: dict[str, Any] = field(default_factory=dict)
    picked: str | None = None
    pick_event: int | None = None
    speaker: str | None = None
    last_speaker: str | None = None
    other_line: Event | None = None  # the newest character line: what the inner voices rework
    hear: list[str] = field(default_factory=list)  # characters whose voice still rewrites the newest line
    rewrite_prompt: bool = False
    moves: list[dict[str, Any]] = field(default_factory=list)  # a director's directions and stage moves
    notes: list[Event] = field(default_factory=list)
    heard_notes: list[Event] = field(default_factory=list)
    since: dict[str, int] = field(default_factory=dict)  # characters of lines witnessed since the last summary
    newest_line: int | None = None
    reviewed: int = 0  # the last scene the Critic reviewed in this take (the play's critic_loop)
    roles: dict = field(default_factory=dict)
    characters: list[str] = field(default_factory=list)
    voices: dict = field(default_factory=dict)
    # the inner voices' work: what each character heard, the briefs rewritten, the draft under critique
    inner: InnerVoices = field(default_factory=InnerVoices)

    # -- the cast ---------------------------------------------------------------------------

    def __post_init__(self) -> None:
        # looked up on every line folded, so found once
        roles = {r.key: r for r in self.cast.roles}
        self.roles = roles
        self.characters = [r.key for r in self.cast.roles if r.kind == "other"]
        self.voices = {k[: -len(".voice")]: r for k, r in roles.items() if k.endswith(".voice")}
        self.inner = InnerVoices(voice_owners(self.cast), heard_shapes=False)

    @property
    def prompts(self) -> dict[str, str]:
        """Briefs rewritten by inner voices, by character."""
        return {k: e.text for k, e in self.inner.briefs.items()}

    def voice_of(self, key: str) -> str | None:
        voice = self.voices.get(key)
        return voice.key if voice is not None else None

    def is_human(self, role: str | None) -> bool:
        return role is not None and role in self.humans

    def fires(self, key: str, strategy: str, turn: int) -> bool:
        voice = self.voices.get(key)
        if voice is None:
            return False
        settings = voice.schedules
        if settings is None or not settings.enabled:
            return False
        on = self.strategy_switch.get(f"{voice.key}:{strategy}", self.strategy_switch.get(strategy))
        if on is False:
            return False
        return settings.schedule(strategy).fires(self.cast.play.seed, f"{key}:{strategy}", turn, switched_on=bool(on))

    def key_for(self, name: str) -> str | None:
        wanted = name.strip().casefold()
        for r in self.cast.roles:
            if r.kind == "other" and wanted in (r.key, r.name.casefold()):
                return r.key
        return None

    # -- who speaks next ----------------------------------------------------------------------

    def rotation(self) -> str | None:
        """The next character on stage after the last speaker, in cast order."""
        order = [k for k in self.characters if k in self.on_stage]
        if not order:
            return None
        if self.last_speaker in order:
            return order[(order.index(self.last_speaker) + 1) % len(order)]
        later = [k for k in order if self.last_speaker is None or self.characters.index(k) > self.characters.index(self.last_speaker)]
        return (later or order)[0]

    def mentioned(self) -> str | None:
        """A character on stage named in the newest line (not its speaker) answers it."""
        if self.other_line is None:
            return None
        text = self.other_line.text.casefold()
        hits = []
        for key in self.on_stage:
            if key == self.last_speaker or key not in self.characters:
                continue
            found = re.search(rf"\b{re.escape(self.cast.role(key).name.casefold())}\b", text)
            if found:
                hits.append((found.start(), key))
        return min(hits)[1] if hits else None

    def at_random(self) -> str | None:
        """A character on stage drawn at random, never the last speaker while another is there to answer:
        seeded by the play's seed and the turn, so a rewind or a replay draws the same one (the Drama
        Engine's random speaker selection, and its last fallback)."""
        order = [k for k in self.characters if k in self.on_stage]
        others = [k for k in order if k != self.last_speaker] or order
        if not others:
            return None
        return random.Random(f"{self.cast.play.seed}:next:{self.scene}:{self.turn + 1}").choice(others)

    def settled(self) -> str | None:
        """Who speaks next without asking the moderator, by the first rules of the Drama Engine's chain
        (Pichlmair et al., 2024, section 3.1): the only other one in a scene of two, else a character the
        newest line names. None: the moderator's model is asked."""
        order = [k for k in self.characters if k in self.on_stage]
        if len(order) == 2 and self.last_speaker in order:
            return next(k for k in order if k != self.last_speaker)
        return self.mentioned()

    def suggestion(self) -> str | None:
        """What the policy would pick without a model: the first choice shown to a human picker."""
        if self.policy == "mentions":
            return self.mentioned() or self.rotation()
        if self.policy == "random":
            return self.at_random()
        if self.policy == "moderator":
            return self.settled() or self.rotation()
        return self.rotation()

    def memory_budget(self, key: str) -> int:
        """How much witnessed text a character carries before its seat sums up the older part."""
        role = self.roles[key]
        return int(max(role.context_tokens - role.max_tokens - 350, 128) * 4 * 0.8)

    def speaker_step(self, key: str) -> Step:
        if self.since.get(key, 0) > self.memory_budget(key) and not self.is_human(key):
            return Step(ev.SUMMARY, "summarize", key, self.scene, self.turn + 1)
        if self.fires(key, "critique", self.turn + 1) and not self.is_human(key):
            return Step(ev.DRAFT, "draft", key, self.scene, self.turn + 1)
        return Step(ev.STAGE, "speak", key, self.scene, self.turn + 1)

    def next_step(self) -> Step | None:
        if self.finished:
            return None
        s, t = self.scene, self.turn
        if self.moves:
            return Step(ev.DIRECTION, "stage_move", None, s, t)
        match self.phase:
            case "scene":
                if review_due(self.cast, s, self.reviewed):
                    return review_step(s, t)
                return Step(ev.SCENE, "scene", None, s + 1, t + 1)
            case "direct":
                return Step(ev.DIRECTION, "direct", "director", s, t + 1)
            case "pick":
                if self.picked is not None:
                    return self.speaker_step(self.picked)
                seat = PICKED_BY.get(self.policy)
                if self.policy == "moderator" and self.cast.has("moderator"):
                    settled = self.settled()
                    if settled is not None:
                        return self.speaker_step(settled)
                if seat is not None and self.cast.has(seat):
                    return Step(ev.PICK, "pick", seat, s, t + 1)
                if self.policy == "human":
                    return Step(ev.PICK, "pick", None, s, t + 1)
                key = self.suggestion()
                if key is None:
                    return Step(ev.PICK, "pick", None, s, t + 1)  # an empty stage: the playwright decides
                return self.speaker_step(key)
            case "critique":
                return Step(ev.CRITIQUE, "critique", self.voice_of(self.speaker or ""), s, t + 1)
            case "revise":
                return Step(ev.STAGE, "revise", self.speaker, s, t + 1)
            case "after":
                if self.hear:
                    return Step(ev.REWRITE_SPEECH, "rewrite_speech", self.voice_of(self.hear[0]), s, t)
                if self.rewrite_prompt:
                    return Step(ev.REWRITE_PROMPT, "rewrite_prompt", self.voice_of(self.last_speaker or ""), s, t)
            case "epilogue":
                return Step(ev.EPILOGUE, "epilogue", self.characters[0], s, t)
        raise AssertionError(self.phase)

    # -- folding ----------------------------------------------------------------------------

    def _schedule(self) -> None:
        """Entrances and exits the scene brief sets for this point of the scene join the queue of moves."""
        for word, names in (("enter", self.cast.play.entrances(self.scene)), ("exit", self.cast.play.exits(self.scene))):
            for name, at in names.items():
                key = self.key_for(name)
                if key is not None and at == self.turn_in_scene:
                    verb = "enters" if word == "enter" else "leaves"
                    self.moves.append({word: key, "text": f"{self.cast.role(key).name} {verb}."})

    def _end_turn(self) -> None:
        if self.turn_in_scene < self.cast.play.turns:
            self.phase = "pick"
            self._schedule()
        elif self.scene < self.cast.play.scene_count:
            self.phase = "scene"
        elif self.cast.play.epilogue:
            self.phase = "epilogue"
        else:
            self.finished = True

    def _after_line(self) -> None:
        if self.hear or self.rewrite_prompt:
            self.phase = "after"
        else:
            self._end_turn()

    def apply(self, event: Event) -> None:
        kind, data = event.kind, event.data
        fold_facts(self.facts, event)
        if "on_stage" in (data.get("facts") or {}):
            self.on_stage = list(self.facts.get("on_stage") or [])
        if kind == ev.CONTROL:
            self.control(event)
            return
        if kind == ev.NOTE:
            self.notes.append(event)
            return
        self._line(event)

    def control(self, event: Event) -> None:
        data = event.data
        for role, on in (data.get("human") or {}).items():
            (self.humans.add if on else self.humans.discard)(role)
        if "strategy" in data:
            where = f"{data['voice']}:{data['strategy']}" if data.get("voice") else data["strategy"]
            self.strategy_switch[where] = bool(data["enabled"])
        if "policy" in data:
            self.policy = data["policy"]

    def _line(self, event: Event) -> None:
        kind, data = event.kind, event.data
        self.inner = self.inner.fold(event)
        if kind in (ev.STAGE, ev.DIRECTION):
            self.newest_line = event.id
            for key in event.present or self.characters:
                self.since[key] = self.since.get(key, 0) + len(event.text) + 24
        if kind == ev.ERROR:
            return
        if kind == ev.REVIEW:
            self.reviewed = max(self.reviewed, event.scene or 0)
        elif kind == ev.SCENE:
            self.scene = event.scene or self.scene + 1
            self.turn_in_scene = 0
            self.phase = "direct" if self.cast.has("director") else "pick"
            self._schedule()
        elif data.get("task") == "stage_move":
            if self.moves and event.origin == "studio":
                self.moves.pop(0)
        elif kind == ev.DIRECTION and event.role == "director":
            self.phase = "pick"
        elif kind == ev.PICK:
            self.picked = data.get("pick")
            self.pick_event = event.id
            self.moves = [dict(m) for m in data.get("moves", [])]
        elif kind == ev.DRAFT:
            self.speaker = event.role
            self.phase = "critique"
        elif kind == ev.CRITIQUE:
            self.phase = "revise"
        elif kind in (ev.STAGE, ev.DIRECTION) and event.role in self.characters:
            self.turn = event.turn or self.turn + 1
            self.turn_in_scene += 1
            self.last_speaker = event.role
            self.other_line = event
            self.picked = self.speaker = None
            self.inner = self.inner.line_spoken()
            self.heard_notes, self.notes = self.notes, []
            self.hear = [
                k for k in self.on_stage
                if k != event.role and kind == ev.STAGE and not self.is_human(self.voice_of(k))
                and self.fires(k, "rewrite_speech", self.turn)
            ]
            self.rewrite_prompt = self.fires(event.role, "rewrite_prompt", self.turn)
            self._after_line()
        elif kind == ev.REWRITE_SPEECH:
            if self.hear:
                self.hear.pop(0)
            self._after_line()
        elif kind == ev.REWRITE_PROMPT:
            self.rewrite_prompt = False
            self._after_line()
        elif kind == ev.SUMMARY and event.role:
            self.since[event.role] = 0
        elif kind == ev.EPILOGUE:
            self.finished = True


def move_stage(state: EnsembleState, move: dict[str, Any]) -> list[str]:
    """The stage after one entrance or exit."""
    stage = list(state.on_stage)
    if move.get("enter") and move["enter"] not in stage:
        stage.append(move["enter"])
    if move.get("exit") in stage:
        stage.remove(move["exit"])
    return stage
