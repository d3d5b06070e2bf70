"""Where a run stands, derived from its take alone.

The log is the truth: replaying the events of the current take gives the scene, the turn, what the
next step is, the ego's prompt in force, who is played by a human, which strategies are on and which
playwright's notes are still to be heard. Resume, rewind and branching are therefore the same thing:
point at an event and derive.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from studio.model.play import ResolvedCast
from studio.store import events as ev
from studio.engine.forms.base import Step
from studio.engine.forms.review import review_due, review_step
from studio.engine.lens import InnerVoices, Voiced, voice_owners
from studio.engine.lines import is_direction, strip_italics  # noqa: F401
from studio.store.events import Event


@dataclass
class RunState(Voiced):
    cast: ResolvedCast
    scene: int = 0
    turn: int = 0  # the turn in progress or last finished, counted across scenes from 1
    turn_in_scene: int = 0
    phase: str = "scene"  # the next thing to do; see next_step
    finished: bool = False
    ego_prompt: str = ""
    ego_prompt_event: int | None = None
    prompt_first_used: bool = True
    humans: set[str] = field(default_factory=set)
    strategy_switch: dict[str, bool] = field(default_factory=dict)
    other_line: Event | None = None
    inner: InnerVoices = field(default_factory=InnerVoices)  # the superego's work: what the ego heard, draft, critique
    notes: list[Event] = field(default_factory=list)  # playwright's notes not yet heard by a turn
    heard_notes: list[Event] = field(default_factory=list)
    facts: dict[str, Any] = field(default_factory=dict)
    last_line_id: int | None = None  # the newest stage line or direction
    reviewed: int = 0  # the last scene the Critic reviewed in this take (the play's critic_loop)

    def __post_init__(self) -> None:
        if not self.inner.owners:
            self.inner = InnerVoices(voice_owners(self.cast))

    # -- what the play is, under the switches in force -------------------------------------

    @property
    def turns_per_scene(self) -> int:
        return self.cast.play.turns

    @property
    def scenes(self) -> int:
        return self.cast.play.scene_count

    def strategy_on(self, name: str) -> bool:
        if not self.cast.superego.enabled or not self.cast.has("superego"):
            return False
        if name in self.strategy_switch:
            return self.strategy_switch[name]
        return self.cast.superego.schedule(name).enabled

    def fires(self, name: str, turn: int) -> bool:
        if not self.strategy_on(name):
            return False
        # on for this run (the play or the playwright said so): its schedule decides, read as switched on
        return self.cast.superego.schedule(name).fires(self.cast.play.seed, name, turn, switched_on=True)

    def speaker_for(self, turn: int) -> str:
        others = self.cast.others
        return others[(turn - 1) % len(others)].key

    def is_human(self, role: str | None) -> bool:
        return role is not None and role in self.humans

    # -- the next step --------------------------------------------------------------------

    def next_step(self) -> Step | None:
        if self.finished:
            return None
        s, t = self.scene, self.turn
        match self.phase:
            case "scene":
                if review_due(self.cast, s, self.reviewed):
                    return review_step(s, t)
                return Step(ev.SCENE, "scene", None, s + 1, t + 1)
            case "direct":
                return Step(ev.DIRECTION, "direct", "director", s, t + 1)
            case "other":
                return Step(ev.STAGE, "speak", self.speaker_for(t + 1), s, t + 1)
            case "rewrite_speech":
                return Step(ev.REWRITE_SPEECH, "rewrite_speech", "superego", s, t)
            case "draft":
                return Step(ev.DRAFT, "draft", "ego", s, t)
            case "critique":
                return Step(ev.CRITIQUE, "critique", "superego", s, t)
            case "ego":
                task = "revise" if self.critique is not None else "speak"
                return Step(ev.STAGE, task, "ego", s, t)
            case "rewrite_prompt":
                return Step(ev.REWRITE_PROMPT, "rewrite_prompt", "superego", s, t)
            case "epilogue":
                return Step(ev.EPILOGUE, "epilogue", "ego", s, t)
        raise AssertionError(self.phase)

    def _after_turn(self) -> None:
        if self.turn_in_scene < self.turns_per_scene:
            self.phase = "other"
        elif self.scene < self.scenes:
            self.phase = "scene"
        elif self.cast.play.epilogue:
            self.phase = "epilogue"
        else:
            self.finished = True

    def _after_ego(self, turn: int) -> None:
        self.other_line = None
        self.inner = self.inner.line_spoken()
        if self.fires("rewrite_prompt", turn):
            self.phase = "rewrite_prompt"
        else:
            self._after_turn()

    def _ego_phase(self) -> None:
        """After the other's line (and its rewrite): draft first if the critique fires this turn."""
        if self.fires("critique", self.turn) and not self.is_human("ego"):
            self.phase = "draft"
        else:
            self.phase = "ego"

    # -- replay ---------------------------------------------------------------------------

    def apply(self, event: Event) -> None:
        kind = event.kind
        self.inner = self.inner.fold(event)
        if kind in (ev.STAGE, ev.DIRECTION):
            self.last_line_id = event.id
        if kind == ev.CONTROL:
            self._control(event)
            return
        if kind == ev.NOTE:
            self.notes.append(event)
            return
        if kind == ev.ERROR:
            return
        if kind == ev.REVIEW:
            self.reviewed = max(self.reviewed, event.scene or 0)
        elif kind == ev.SCENE:
            self.scene = event.scene or self.scene + 1
            self.turn_in_scene = 0
            self.phase = "direct" if self.cast.has("director") else "other"
        elif kind == ev.DIRECTION and event.role == "director":
            self.phase = "other"
        elif kind in (ev.STAGE, ev.DIRECTION) and event.role != "ego":
            self.turn = event.turn or self.turn + 1
            self.turn_in_scene += 1
            self.other_line = event
            self.heard_notes, self.notes = self.notes, []
            if kind == ev.STAGE and self.fires("rewrite_speech", self.turn):
                self.phase = "rewrite_speech"
            else:
                self._ego_phase()
        elif kind == ev.REWRITE_SPEECH:
            self._ego_phase()
        elif kind == ev.DRAFT:
            self.phase = "critique"
        elif kind == ev.CRITIQUE:
            self.phase = "ego"
        elif kind in (ev.STAGE, ev.DIRECTION) and event.role == "ego":
            self.prompt_first_used = True
            self._after_ego(event.turn or self.turn)
        elif kind == ev.REWRITE_PROMPT:
            self.ego_prompt = event.text
            self.ego_prompt_event = event.id
            self.prompt_first_used = False
            self._after_turn()
        elif kind == ev.EPILOGUE:
            self.finished = True

    def _control(self, event: Event) -> None:
        data = event.data
        if "human" in data:
            for role, on in data["human"].items():
                (self.humans.add if on else self.humans.discard)(role)
        if "strategy" in data:
            self.strategy_switch[data["strategy"]] = bool(data["enabled"])
