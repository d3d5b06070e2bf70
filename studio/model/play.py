"""The shapes of a play and a character sheet, and the cast once every default is applied."""

from __future__ import annotations

import random
import re
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from studio.clean import LINE_CONTROLS
from studio.model.card_text import with_card_defaults
from studio.model.island import GameRules
from studio.model.lorebook import Lorebook
from studio.model.facts import fact_problem
from studio.model.inner_life import MindFields
from studio.model.limits import MAX_DESCRIPTION, MAX_MODEL_NAME, MAX_NAME, MAX_PROMPT

DEFAULT_MODEL = "local/smollm2"

# Temperatures after the Drama Machine's table 1: rigid roles cool, the divided self hot.
ROLE_DEFAULTS: dict[str, dict[str, float | int]] = {
    "director": {"temperature": 0.3, "max_tokens": 160},
    "other": {"temperature": 0.4, "max_tokens": 120},
    "ego": {"temperature": 1.0, "max_tokens": 120},
    "superego": {"temperature": 1.0, "max_tokens": 160},
    "moderator": {"temperature": 0.2, "max_tokens": 60},
}
DEFAULT_CONTEXT_TOKENS = 1400

# Upper bounds, shared by the files and the command line's overrides (one rule, two doors).
MAX_TURNS = 10_000
MAX_SCENES = 1000

# The superego's three strategies, in the paper's numbering: 1 prompt, 2 speech, 3 critique.
STRATEGIES = ("rewrite_prompt", "rewrite_speech", "critique")
STRATEGY_NUMBERS = {"1": "rewrite_prompt", "2": "rewrite_speech", "3": "critique"}

RoleKind = Literal["ego", "superego", "other", "director", "moderator"]
CHARACTER_KINDS: tuple[RoleKind, ...] = ("ego", "other")  # the kinds of role that speak on stage
# Who speaks next in an ensemble; see studio.engine.forms.ensemble.
POLICIES = ("alternate", "round_robin", "moderator", "director", "mentions", "random", "human")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


_CONTROL = LINE_CONTROLS


def one_line(value: str) -> str:
    """Names and titles head pages and label lines: one line of printable text, no terminal control."""
    if _CONTROL.search(value):
        raise ValueError(
            "must be one line of printable text (no line breaks, tabs, control characters or direction overrides)"
        )
    return value


MAX_FACTS = 200


def check_facts(value: object) -> object:
    """A play's starting facts: scalars under short one-line names (the rule a hand-set fact follows too)."""
    if not isinstance(value, dict):
        raise ValueError('facts must be a table of name = value; e.g. [facts] then storm = "rising"')
    if len(value) > MAX_FACTS:
        raise ValueError(f"at most {MAX_FACTS} facts, not {len(value)}; keep the ones conditions read")
    for key, item in value.items():
        problem = fact_problem(key, item) if item is not None else ("has no value", "give it one")
        if problem:
            where = f"{key}: " if re.fullmatch(r"[a-z_][a-z0-9_.]*", key) else f"fact {key!r}: "
            raise ValueError(f"{where}{problem[0]}; {problem[1]}")
    return value


class ModelFields(_Strict):
    """Settings any role or character may carry; unset fields fall back to the next layer."""

    model: str | None = Field(default=None, min_length=1, max_length=MAX_MODEL_NAME)
    temperature: float | None = Field(default=None, ge=0.0, le=2.0)
    max_tokens: int | None = Field(default=None, ge=1, le=32768)
    context_tokens: int | None = Field(default=None, ge=256, le=1_000_000)
    api_base: str | None = Field(default=None, max_length=500)
    timeout: float | None = Field(default=None, gt=0, le=3600)
    # How replies that are data are asked of a served model: "schema", "json" or "words" (unset: the
    # studio decides per server and steps down when a server refuses; see docs/models.md).
    structured: Literal["schema", "json", "words"] | None = None
    # The small-model sampling for a served model (unset: decided by the model's name).
    small: bool | None = None

    @field_validator("api_base")
    @classmethod
    def _an_address(cls, value: str | None) -> str | None:
        from studio.clean import address_problem

        problem = address_problem(value) if value is not None else None
        if problem:
            raise ValueError(f"{problem}; give the server's base address, e.g. http://127.0.0.1:8000/v1")
        return value


class CharacterSheet(ModelFields, MindFields):
    _one_line_name = field_validator("name")(classmethod(lambda cls, v: one_line(v)))

    # Bounds keep one sheet from filling every prompt it enters (a prompt is sent on every call).
    name: str = Field(min_length=1, max_length=MAX_NAME)
    description: str = Field(default="", max_length=MAX_DESCRIPTION, description="what the other characters know of them")
    prompt: str = Field(min_length=1, max_length=MAX_PROMPT, description="who they are and how they speak")

    @model_validator(mode="before")
    @classmethod
    def _from_card(cls, data: object) -> object:
        """A sheet from a Character Card builds its prompt and description from [card] unless it writes its own."""
        return with_card_defaults(data)


class StrategySchedule(_Strict):
    """When a strategy fires: every N turns, or with probability p (seeded, so a replay agrees)."""

    enabled: bool = True
    every: int | None = Field(default=None, ge=1)
    probability: float | None = Field(default=None, ge=0.0, le=1.0)

    @model_validator(mode="after")
    def _one_rule(self) -> StrategySchedule:
        if self.every is not None and self.probability is not None:
            raise ValueError("give either 'every' or 'probability', not both")
        return self

    def fires(self, seed: int, strategy: str, turn: int, *, switched_on: bool = False) -> bool:
        """`switched_on`: the playwright turned the strategy on, whatever the play file says."""
        if not (self.enabled or switched_on):
            return False
        if self.probability is not None:
            return random.Random(f"{seed}:{strategy}:{turn}").random() < self.probability
        every = self.every or 1
        return turn % every == 0


def _schedule(every: int) -> StrategySchedule:
    return StrategySchedule(every=every)


class SuperegoSettings(_Strict):
    enabled: bool = True
    rewrite_prompt: StrategySchedule = Field(default_factory=lambda: _schedule(4))
    rewrite_speech: StrategySchedule = Field(default_factory=lambda: _schedule(1))
    critique: StrategySchedule = Field(default_factory=lambda: _schedule(1))

    def schedule(self, strategy: str) -> StrategySchedule:
        return getattr(self, strategy)


class CastMember(ModelFields):
    character: str = Field(min_length=1, max_length=300, description="a file in characters/ (its stem) or a path")
    human: bool = False
    # a rule is a form's (studio.engine.forms.base.RULES): the form's loader checks the name
    rule: str | None = Field(default=None, description="fill this seat by a named rule, not a model")


class SuperegoMember(CastMember, SuperegoSettings):
    pass


class EnsembleMember(CastMember):
    """A character of an ensemble; `voice` gives it an inner voice of its own, with its own schedules."""

    voice: SuperegoMember | None = None


class Cast(_Strict):
    ego: CastMember | None = None
    superego: SuperegoMember | None = None
    others: list[CastMember] = Field(default_factory=list)
    director: CastMember | None = None
    characters: list[EnsembleMember] = Field(default_factory=list, description="an ensemble's characters")
    moderator: CastMember | None = None


class SceneBrief(_Strict):
    brief: str = Field(default="", max_length=MAX_DESCRIPTION)
    on_stage: list[str] | None = Field(default=None, description="who is on stage when the scene opens")
    enter: dict[str, int] = Field(default_factory=dict, description="name = the turn of the scene after which they enter")
    exit: dict[str, int] = Field(default_factory=dict, description="name = the turn of the scene after which they leave")


class Play(_Strict):
    title: str = Field(min_length=1, max_length=MAX_NAME * 2)
    # Empty: the title page names no one (never a made-up "Anonymous"); `studio new` fills it from settings.
    author: str = Field(default="", max_length=MAX_NAME * 2)
    # The rest of a title page, as Fountain's title page names them: how the author is credited ("Written
    # by", "adapted from"), the draft's date as the playwright writes it, and how to reach them.
    credit: str = Field(default="", max_length=MAX_NAME * 2, description="the words before the author's name")
    draft_date: str = Field(default="", max_length=MAX_NAME, description="the draft's date, as written")
    contact: str = Field(default="", max_length=MAX_DESCRIPTION, description="how to reach the author")
    premise: str = Field(default="", max_length=MAX_DESCRIPTION * 2)
    seed: int = 0
    turns: int = Field(default=10, ge=1, le=MAX_TURNS, description="turns per scene")
    scenes: int | list[str | SceneBrief] = Field(default=1, description="a count, or one brief per scene")
    epilogue: bool = True
    critic_loop: bool = Field(
        default=False,
        description="the Critic scores the play as each scene ends and the Director reads it before opening the next",
    )
    layout: Literal["screen", "stage"] = Field(
        default="screen", description="how `studio export` typesets the play by default: a screenplay or a stage play"
    )
    setting: str = Field(
        default="", max_length=MAX_DESCRIPTION * 2, description="where and when the play happens, for a stage play's cast page"
    )
    # The form's name and the cast it needs are the form's to check (studio.engine.forms.load_play): a
    # play here is data, and the model knows no form.
    form: str = Field(default="drama_machine", description="the rules the play follows")
    game: GameRules | None = Field(default=None, description="the social game's island and rhythm (form social_game)")
    next: str = Field(default="alternate", description="who speaks next: " + ", ".join(POLICIES))
    facts: dict[str, bool | int | float | str] = Field(
        default_factory=dict, description="the world as the play opens: name = a string, number or true/false"
    )
    greeting: bool = Field(
        default=True, description="a character whose card has a first message says it as its first line",
    )
    lorebooks: list[str] = Field(
        default_factory=list, max_length=20,
        description="World Info files the whole play knows: stems in lorebooks/ or paths beside the play",
    )
    cast: Cast

    @field_validator("facts", mode="before")
    @classmethod
    def _facts(cls, value: object) -> object:
        return check_facts(value)

    @field_validator("next")
    @classmethod
    def _next(cls, value: str) -> str:
        if value not in POLICIES:
            raise ValueError(f"unknown turn policy {value!r}; use one of {', '.join(POLICIES)}")
        return value

    @model_validator(mode="after")
    def _critic_has_a_reader(self) -> Play:
        if self.critic_loop and self.cast.director is None:
            raise ValueError("critic_loop: the Critic's review is read by the director as a scene opens, and this "
                             "play has none; add [cast.director] character = \"...\" or set critic_loop = false")
        return self

    _one_line = field_validator("title", "author", "credit", "draft_date")(classmethod(lambda cls, v: one_line(v)))

    @field_validator("scenes")
    @classmethod
    def _scenes(cls, value: int | list[str | SceneBrief]) -> int | list[str | SceneBrief]:
        if isinstance(value, int) and not 1 <= value <= MAX_SCENES:
            raise ValueError(f"scenes must be between 1 and {MAX_SCENES}")
        if isinstance(value, list) and not value:
            raise ValueError("give at least one scene brief")
        if isinstance(value, list) and len(value) > MAX_SCENES:
            raise ValueError(f"at most {MAX_SCENES} scene briefs")
        if isinstance(value, list) and any(len(b if isinstance(b, str) else b.brief) > MAX_DESCRIPTION for b in value):
            raise ValueError(f"a scene brief has at most {MAX_DESCRIPTION} characters")
        return value

    @property
    def scene_count(self) -> int:
        return self.scenes if isinstance(self.scenes, int) else len(self.scenes)

    def brief(self, scene: int) -> str:
        if isinstance(self.scenes, list) and 1 <= scene <= len(self.scenes):
            entry = self.scenes[scene - 1]
            return entry if isinstance(entry, str) else entry.brief
        return ""

    def _entry(self, scene: int) -> SceneBrief | None:
        if isinstance(self.scenes, list) and 1 <= scene <= len(self.scenes):
            entry = self.scenes[scene - 1]
            return None if isinstance(entry, str) else entry
        return None

    def entrances(self, scene: int) -> dict[str, int]:
        entry = self._entry(scene)
        return entry.enter if entry else {}

    def exits(self, scene: int) -> dict[str, int]:
        entry = self._entry(scene)
        return entry.exit if entry else {}

    def on_stage(self, scene: int) -> list[str] | None:
        """Who the brief puts on stage as the scene opens (names), or None: leave the stage as it is."""
        if isinstance(self.scenes, list) and 1 <= scene <= len(self.scenes):
            entry = self.scenes[scene - 1]
            return None if isinstance(entry, str) else entry.on_stage
        return None


class ResolvedRole(BaseModel):
    """One seat in the cast with every setting decided: what the engine actually runs."""

    key: str
    kind: RoleKind
    sheet: CharacterSheet
    model: str
    temperature: float
    max_tokens: int
    context_tokens: int
    api_base: str | None = None
    timeout: float = 120.0
    structured: Literal["schema", "json", "words"] | None = None
    small: bool | None = None
    human: bool = False
    rule: str | None = None
    schedules: SuperegoSettings | None = None  # an ensemble inner voice's own strategies
    # the lorebooks its sheet and the play name, read when the cast is resolved, so a run outlives edits to them
    lore: list[Lorebook] = Field(default_factory=list)

    @property
    def name(self) -> str:
        return self.sheet.name

    @property
    def is_character(self) -> bool:
        """Whether the role speaks on stage (the protagonist or another character), not an inner voice,
        the director or a moderator."""
        return self.kind in CHARACTER_KINDS


class ResolvedCast(BaseModel):
    """A play frozen with its characters, stored with each run so a run outlives edits to files."""

    play: Play
    play_path: str
    roles: list[ResolvedRole]
    superego: SuperegoSettings

    def role(self, key: str) -> ResolvedRole:
        for role in self.roles:
            if role.key == key:
                return role
        raise KeyError(key)

    def has(self, key: str) -> bool:
        for role in self.roles:  # a plain loop: asked several times a step, of a handful of seats
            if role.key == key:
                return True
        return False

    @property
    def ego(self) -> ResolvedRole:
        """The Drama Machine's ego; in an ensemble, its first character (the one the app centres)."""
        for role in self.roles:
            if role.key == "ego":
                return role
        return self.others[0]

    @property
    def others(self) -> list[ResolvedRole]:
        return [role for role in self.roles if role.kind == "other"]

    @property
    def characters(self) -> list[ResolvedRole]:
        """The roles that speak on stage, in cast order (`ResolvedRole.is_character`)."""
        return [role for role in self.roles if role.is_character]

    def matching(self, name: str) -> list[ResolvedRole]:
        """Roles a user means by a word: a role kind ('other' means every other) or a character's name."""
        wanted = name.strip().lower()
        return [r for r in self.roles if r.kind == wanted or r.key == wanted or r.name.lower() == wanted]
