"""The island a social game is played on, as a play file declares it.

After Thudium et al., 2024, "Outwit, Outplay, Out-Generate": a handful of named places, some joined by paths,
players who start somewhere, things lying about (a machete, a fishing pole, firewood, a clue), and one
hidden idol that protects its holder from one vote. As in the paper, finding the idol is a search with a
chance, at the right place and with the right tool; each failed search there makes the next likelier.
The map is data, validated like the rest of a play: a path to a place that does not exist, a player
starting nowhere or an idol hidden off the map is an error naming the field, not a surprise mid-game.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# Modules of a player's mind the paper switches on and off per player (its architectures A-D).
MODULES = ("goals", "impressions")
ARCHITECTURES: dict[str, tuple[str, ...]] = {
    "none": (),
    "goals": ("goals",),
    "impressions": ("impressions",),
    "both": ("goals", "impressions"),
}


# The tasks whose wording a researcher may replace, and the fields their texts may name in {braces}.
PROMPT_TASKS = ("act", "talk", "summary", "vote", "jury", "goals", "impressions", "reflect", "audit")
PROMPT_FIELDS = ("name", "persona", "rules", "situation", "memories", "goals", "impressions", "problem", "options",
                 "partner", "transcript", "candidates", "finalists", "history", "insights", "questions", "others",
                 "actions")


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", str_strip_whitespace=True)


def _one_line(value: str) -> str:
    """A place's name is printed on every move: one line of printable text, no terminal control."""
    from studio.clean import LINE_CONTROLS

    if LINE_CONTROLS.search(value):
        raise ValueError("must be one line of printable text (no line breaks, control characters or escapes); "
                         'write it plainly, e.g. name = "Camp"')
    return value


def _clean(value: str) -> str:
    from studio.clean import clean_text

    return clean_text(value)


class Place(_Strict):
    name: str = Field(min_length=1, max_length=60)
    description: str = Field(default="", max_length=2000)
    paths: list[str] = Field(default_factory=list, description="names of the places a player can walk to")
    fish: bool = Field(default=False, description="whether a player with a fishing pole can catch a fish here")

    _names = field_validator("name")(classmethod(lambda cls, v: _one_line(v)))
    _paths = field_validator("paths")(classmethod(lambda cls, v: [_one_line(p) for p in v]))
    _text = field_validator("description")(classmethod(lambda cls, v: _clean(v)))


# What a thing is for: a tool (the idol search may need one), something to eat or drink, something to
# light, a fishing pole, a clue to read, or just a thing to carry and give.
ITEM_KINDS = ("tool", "food", "drink", "fuel", "pole", "clue", "thing")


class Item(_Strict):
    name: str = Field(min_length=1, max_length=60)
    at: str = Field(min_length=1, description="the place it lies at when the game starts")
    kind: Literal["tool", "food", "drink", "fuel", "pole", "clue", "thing"] = "thing"
    description: str = Field(default="", max_length=500)
    text: str = Field(default="", max_length=2000, description="what a clue says when read")

    _names = field_validator("name", "at")(classmethod(lambda cls, v: _one_line(v)))
    _text = field_validator("description", "text")(classmethod(lambda cls, v: _clean(v)))


class Idol(_Strict):
    """The hidden idol. Thudium et al.'s repository searches with a chance of 0.7, 0.1 more for each failed
    search by the same player and 0.1 more with the clue at hand; the defaults are those figures."""

    hidden_at: str = Field(min_length=1, description="the place where searching can find it")
    hint: str = Field(default="", max_length=500, description="what players are told about it")
    chance: float = Field(default=0.7, ge=0, le=1, description="the chance one search at the right place finds it")
    chance_step: float = Field(default=0.1, ge=0, le=1, description="added for each failed search by the same player")
    clue_bonus: float = Field(default=0.1, ge=0, le=1, description="added when the searcher holds or stands by the clue")
    tool: str | None = Field(default=None, max_length=60, description="an item the searcher must carry (e.g. machete)")


class GameRules(_Strict):
    """The `[game]` table of a play: the map, the rhythm of a round and the tie rule."""

    places: list[Place] = Field(min_length=1, max_length=50)
    start: dict[str, str] = Field(
        default_factory=dict, description="player name -> starting place; unlisted players start at random"
    )
    actions_per_round: int = Field(default=5, ge=1, le=50, description="turns each player takes before a vote")
    talk_lines: int = Field(default=2, ge=1, le=12, description="lines each side speaks in one conversation")
    idol: Idol | None = None
    items: list[Item] = Field(default_factory=list, max_length=200)
    prompts: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="task -> {system, user}: the researcher's own wording in place of the studio's",
    )

    @field_validator("prompts")
    @classmethod
    def _known_prompts(cls, value: dict[str, dict[str, str]]) -> dict[str, dict[str, str]]:
        import string

        for task, parts in value.items():
            if task not in PROMPT_TASKS:
                raise ValueError(f"prompts.{task}: no such task; use some of {', '.join(PROMPT_TASKS)}")
            for part, text in parts.items():
                if part not in ("system", "user"):
                    raise ValueError(f"prompts.{task}.{part}: a task's texts are 'system' and 'user'")
                try:
                    named = {f for _, f, _, _ in string.Formatter().parse(text) if f is not None}
                except ValueError as err:
                    raise ValueError(f"prompts.{task}.{part}: {err}; write a literal brace as {{{{ or }}}}") from None
                unknown = sorted(named - set(PROMPT_FIELDS) - {""})
                if unknown or "" in named:
                    raise ValueError(f"prompts.{task}.{part}: names {', '.join(unknown) or '{}'}, which is no field; "
                                     f"use {{name}}, {{situation}}, ... ({', '.join(PROMPT_FIELDS)})")
        return value
    architecture: dict[str, str] = Field(
        default_factory=dict,
        description="player name -> none | goals | impressions | both (default both)",
    )

    @field_validator("architecture")
    @classmethod
    def _known_architecture(cls, value: dict[str, str]) -> dict[str, str]:
        for name, arch in value.items():
            if arch not in ARCHITECTURES:
                raise ValueError(
                    f"{name!r} has architecture {arch!r}; use one of {', '.join(ARCHITECTURES)}"
                )
        return value

    @model_validator(mode="after")
    def _map_is_whole(self) -> GameRules:
        names = [p.name for p in self.places]
        lowered = [n.lower() for n in names]
        if len(set(lowered)) != len(lowered):
            raise ValueError("places: two places share a name; give each place its own name")
        known = set(lowered)
        for place in self.places:
            for target in place.paths:
                if target.lower() not in known:
                    raise ValueError(f"places: {place.name!r} has a path to {target!r}, which is not a place; "
                        f"name one of the places ({', '.join(names)}) or add a place called {target!r}")
        for player, where in self.start.items():
            if where.lower() not in known:
                raise ValueError(f"start: {player!r} starts at {where!r}, which is not a place; name one of: {', '.join(names)}")
        if self.idol and self.idol.hidden_at.lower() not in known:
            raise ValueError(f"idol.hidden_at: {self.idol.hidden_at!r}, which is not a place; name one of: {', '.join(names)}")
        if len({i.name.lower() for i in self.items}) != len(self.items):
            raise ValueError("items: two items share a name; give each its own (e.g. 'machete' and 'old machete')")
        for item in self.items:
            if item.at.lower() not in known:
                raise ValueError(f"items: {item.name!r} lies at {item.at!r}, which is not a place; name one of: {', '.join(names)}")
        if self.idol and self.idol.tool and not any(self.idol.tool.lower() in i.name.lower() for i in self.items):
            raise ValueError(f"idol.tool: {self.idol.tool!r} names no item on the island; add an item with that "
                             "name to [[game.items]] or leave the tool out")
        return self

    def place(self, name: str) -> Place:
        wanted = name.strip().lower()
        for place in self.places:
            if place.name.lower() == wanted:
                return place
        raise KeyError(name)

    def neighbours(self, name: str) -> list[str]:
        """Places one walk away. Paths run both ways: a map that says beach->camp also means camp->beach."""
        here = self.place(name).name
        out: list[str] = []
        for target in self.place(here).paths:
            out.append(self.place(target).name)
        for place in self.places:
            if any(t.lower() == here.lower() for t in place.paths):
                out.append(place.name)
        return [n for n in dict.fromkeys(out) if n != here]

    def item(self, name: str) -> Item | None:
        wanted = name.strip().lower()
        return next((i for i in self.items if i.name.lower() == wanted), None)

    def modules(self, player: str) -> tuple[str, ...]:
        return ARCHITECTURES[self.architecture.get(player, "both")]
