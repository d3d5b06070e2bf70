"""Sheet fields for living characters, bounded so a hand-written or imported sheet cannot blow up a prompt.

They are part of a character sheet, so they live with the sheet in the model; studio.mind brings them to life.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, PrivateAttr, field_validator, model_validator

from studio.model.lorebook import Lorebook, book_from_data, loads

# Traits use -2..+2: five steps a playwright can pick without pretending to psychometric precision,
# and zero means "leave the model's default", so an unset trait adds nothing to the prompt.
TraitValue = int

# A lorebook entry is kept whole (the context budget decides at play time what fits), so knowledge read
# from one is bounded only against a file that would fill memory.
MAX_KNOWLEDGE_TEXT = 100_000
MAX_CARD_TEXT = 200_000
MAX_CARD_JSON = 16 * 1024 * 1024

ARCHETYPES = ("mentor", "trickster", "rebel", "caregiver", "skeptic", "zealot", "schemer", "innocent")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class Traits(_Strict):
    openness: TraitValue = Field(default=0, ge=-2, le=2)
    conscientiousness: TraitValue = Field(default=0, ge=-2, le=2)
    extraversion: TraitValue = Field(default=0, ge=-2, le=2)
    agreeableness: TraitValue = Field(default=0, ge=-2, le=2)
    neuroticism: TraitValue = Field(default=0, ge=-2, le=2)


class Mood(_Strict):
    """A mood and its chance. As in the Drama Engine (Pichlmair et al., 2024, section 2.5), weights that sum
    to 1 or less are chances and the rest is a neutral mood (0.2 and 0.3: neutral half the time); weights
    that sum to more than 1 are relative (3 and 1: three times in four, and never neutral)."""

    name: str = Field(min_length=1, max_length=40)
    weight: float = Field(default=1.0, gt=0, le=1000)
    voice: str = Field(default="", max_length=400, description="how the mood colours their lines")


class Condition(_Strict):
    """Declarative unlock rule; all given parts must hold. Never evaluated as code."""

    keyword: str | None = Field(default=None, min_length=1, max_length=80)
    keywords: list[str] | None = Field(default=None, min_length=1, max_length=20,
                                       description="any one of these heard is enough (a lorebook entry's keys)")
    scene: int | None = Field(default=None, ge=1, le=10_000)
    turn: int | None = Field(default=None, ge=0, le=1_000_000)
    fact: str | None = Field(default=None, min_length=1, max_length=80)
    equals: str | int | float | bool | None = None
    # Upper bounds (exclusive) and counts, after the Drama Engine's conditions (a lower bound inclusive, an
    # upper bound exclusive, over counters such as a companion's interactions): the item can unlock only
    # while every bound still holds.
    scene_max: int | None = Field(default=None, ge=2, le=10_001, description="only before this scene")
    turn_max: int | None = Field(default=None, ge=1, le=1_000_001, description="only before this turn")
    times: int | None = Field(default=None, ge=1, le=10_000,
                              description="the keyword heard at least this many times in all")
    interactions: int | None = Field(default=None, ge=1, le=1_000_000,
                                     description="at least this many lines spoken (with `partner`: heard from them)")
    interactions_max: int | None = Field(default=None, ge=1, le=1_000_000,
                                         description="fewer lines than this (with `partner`: heard from them)")
    partner: str | None = Field(default=None, min_length=1, max_length=80,
                                description="the character whose lines `interactions` counts")

    @model_validator(mode="after")
    def _something(self) -> Condition:
        if all(v is None for v in (self.keyword, self.keywords, self.scene, self.turn, self.fact, self.scene_max,
                                   self.turn_max, self.interactions, self.interactions_max)):
            raise ValueError("a condition needs at least one of keyword, keywords, scene, turn, fact, scene_max, "
                             "turn_max, interactions, interactions_max")
        if self.keywords is not None and any(not k.strip() or len(k) > 80 for k in self.keywords):
            raise ValueError("each of 'keywords' must be a word or phrase of 1 to 80 characters")
        if (self.fact is None) != (self.equals is None):
            raise ValueError("'fact' and 'equals' go together")
        if self.times is not None and self.keyword is None and self.keywords is None:
            raise ValueError("'times' counts a keyword heard; add keyword = \"...\"")
        if self.partner is not None and self.interactions is None and self.interactions_max is None:
            raise ValueError("'partner' names whose lines 'interactions' counts; add interactions = N")
        for low, high, name in ((self.scene, self.scene_max, "scene"), (self.turn, self.turn_max, "turn"),
                                (self.interactions, self.interactions_max, "interactions")):
            if low is not None and high is not None and high <= low:
                raise ValueError(f"'{name}_max' ({high}) must be above '{name}' ({low}): the window would be empty")
        return self


class KnowledgeItem(_Strict):
    text: str = Field(min_length=1, max_length=MAX_KNOWLEDGE_TEXT)
    when: Condition | None = Field(default=None, description="absent: known from the start")


class Goal(_Strict):
    text: str = Field(min_length=1, max_length=300)
    scene: int | None = Field(default=None, ge=1, le=10_000, description="absent: for the whole play")


class MemorySettings(_Strict):
    """How a character recalls: the top `recall` memories by a weighted sum of recency, importance and
    relevance, each scaled to [0, 1] over the memories ranked; the weights default to Park et al.'s
    (2023, Generative Agents) and Thudium et al.'s (2024, Outwit, Outplay, Out-Generate) equal ones."""

    recall: int = Field(default=3, ge=0, le=20)
    half_life_turns: float = Field(default=30.0, gt=0, le=100_000)
    embedding_model: str | None = Field(default=None, max_length=200)
    recency_weight: float = Field(default=1.0, ge=0, le=100)
    importance_weight: float = Field(default=1.0, ge=0, le=100)
    relevance_weight: float = Field(default=1.0, ge=0, le=100)

    @property
    def weights(self) -> tuple[float, float, float]:
        return (self.recency_weight, self.importance_weight, self.relevance_weight)


class CardOrigin(_Strict):
    """A Character Card the sheet came from: its own fields, editable here, and the whole card as it was.

    `original` is the card's JSON exactly as imported; `studio export-card` starts from it, so everything
    the studio does not use (other apps' extensions, every lorebook entry and field, V3 assets, dates)
    goes back unchanged, and a field edited here replaces the card's own field of that name.
    """

    description: str = Field(default="", max_length=MAX_CARD_TEXT)
    personality: str = Field(default="", max_length=MAX_CARD_TEXT)
    scenario: str = Field(default="", max_length=MAX_CARD_TEXT)
    first_message: str = Field(default="", max_length=MAX_CARD_TEXT)
    examples: str = Field(default="", max_length=MAX_CARD_TEXT)
    system_prompt: str = Field(default="", max_length=MAX_CARD_TEXT)
    post_history: str = Field(default="", max_length=MAX_CARD_TEXT)
    creator_notes: str = Field(default="", max_length=MAX_CARD_TEXT)
    creator: str = Field(default="", max_length=300)
    version: str = Field(default="", max_length=100)
    nickname: str = Field(default="", max_length=100, description="what {{char}} becomes in card text (V3)")
    tags: list[str] = Field(default_factory=list, max_length=1000)
    greetings: list[str] = Field(default_factory=list, max_length=1000, description="alternate first messages")
    group_greetings: list[str] = Field(default_factory=list, max_length=1000, description="for group scenes only (V3)")
    image: str | None = Field(default=None, max_length=300, description="the avatar, a PNG beside the sheet")
    original: str | None = Field(default=None, max_length=MAX_CARD_JSON, description="the card's JSON as imported")
    _card: dict[str, Any] | None = PrivateAttr(default=None)
    _book: Lorebook | None = PrivateAttr(default=None)

    @field_validator("image")
    @classmethod
    def _image(cls, value: str | None) -> str | None:
        if value is not None and (not value.lower().endswith(".png") or "/" in value or "\\" in value):
            raise ValueError("must be the file name of a .png beside the sheet, e.g. \"mara.png\"")
        return value

    @model_validator(mode="after")
    def _original(self) -> CardOrigin:
        if self.original is None:
            return self
        from studio.model.errors import InputError

        try:
            card = loads(self.original, "[card] original")
        except InputError as exc:
            raise ValueError(f"original: {exc.problem}; import the card again") from None
        if not isinstance(card, dict):
            raise ValueError("original must be a card's JSON object; import the card again")
        inner = card.get("data")
        data: dict = inner if isinstance(inner, dict) else card
        self._card = card
        if data.get("character_book") is not None:
            try:
                self._book = book_from_data(data["character_book"], "[card] original", "character_book")
            except InputError as exc:
                raise ValueError(f"original's {exc.field}: {exc.problem}") from None
        return self

    @property
    def card(self) -> dict[str, Any] | None:
        """The card as imported (a fresh copy: the caller may change it)."""
        import copy

        return copy.deepcopy(self._card) if self._card is not None else None

    @property
    def lorebook(self) -> Lorebook | None:
        """The card's own lorebook, every entry and field, disabled entries included."""
        return self._book


class MindFields(_Strict):
    traits: Traits | None = None
    archetype: str | None = Field(default=None, min_length=1, max_length=300)
    moods: list[Mood] = Field(default_factory=list, max_length=12)
    mood_redraw: Literal["scene", "turn", "never"] = "scene"
    knowledge: list[KnowledgeItem] = Field(default_factory=list, max_length=200)
    goals: list[Goal] = Field(default_factory=list, max_length=20)
    memory: MemorySettings = Field(default_factory=MemorySettings)
    reflect_every: int = Field(default=0, ge=0, le=1000, description="turns between reflections; 0 = never")
    card: CardOrigin | None = None
    lorebooks: list[str] = Field(
        default_factory=list, max_length=20,
        description="World Info files they know: stems in lorebooks/ or paths beside the sheet",
    )

    @property
    def has_inner_life(self) -> bool:
        """Whether any mind field is used; a sheet without changes no prompt and commits no event."""
        return bool(self.traits or self.archetype or self.moods or self.knowledge or self.goals or self.reflect_every)


_TRAIT_WORDS = {
    "openness": ("attached to the familiar", "curious and drawn to new ideas"),
    "conscientiousness": ("careless and impulsive", "orderly and dutiful"),
    "extraversion": ("reserved and quiet", "outgoing and talkative"),
    "agreeableness": ("blunt and contrary", "warm and accommodating"),
    "neuroticism": ("calm under pressure", "anxious and easily shaken"),
}


def persona_text(traits: Traits | None, archetype: str | None) -> str:
    """Same sheet, same words: a replay must build the same prompt."""
    parts: list[str] = []
    if traits is not None:
        for name, (low, high) in _TRAIT_WORDS.items():
            value = getattr(traits, name)
            if value:
                degree = "very " if abs(value) == 2 else "somewhat "
                parts.append(degree + (high if value > 0 else low))
    text = ("You are " + "; ".join(parts) + ".") if parts else ""
    if archetype:
        role = f"the {archetype}" if archetype in ARCHETYPES else archetype
        text = (text + " " if text else "") + f"Your part in the story: {role}."
    return text
