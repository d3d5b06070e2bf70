"""The island a social game is played on, as a play file declares it.

After Thudium et al., 2024, "Outwit, Outplay, Out-Generate": a handful of named places, some joined by paths,
players who start somewhere, and one hidden item (an idol) that protects its holder from one vote.
The map is data, validated like the rest of a play: a path to a place that does not exist, a player
starting nowhere or an idol hidden off the map is an error naming the field, not a surprise mid-game.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

# Modules of a player's mind the paper switches on and off per player (its architectures A-D).
MODULES = ("goals", "impressions")
ARCHITECTURES: dict[str, tuple[str, ...]] = {
    "none": (),
    "goals": ("goals",),
    "impressions": ("impressions",),
    "both": ("goals", "impressions"),
}


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

    _names = field_validator("name")(classmethod(lambda cls, v: _one_line(v)))
    _paths = field_validator("paths")(classmethod(lambda cls, v: [_one_line(p) for p in v]))
    _text = field_validator("description")(classmethod(lambda cls, v: _clean(v)))


class Idol(_Strict):
    hidden_at: str = Field(min_length=1, description="the place where searching finds it")
    hint: str = Field(default="", max_length=500, description="what players are told about it")


class GameRules(_Strict):
    """The `[game]` table of a play: the map, the rhythm of a round and the tie rule."""

    places: list[Place] = Field(min_length=1, max_length=50)
    start: dict[str, str] = Field(
        default_factory=dict, description="player name -> starting place; unlisted players start at random"
    )
    actions_per_round: int = Field(default=3, ge=1, le=50, description="turns each player takes before a vote")
    talk_lines: int = Field(default=2, ge=1, le=12, description="lines each side speaks in one conversation")
    idol: Idol | None = None
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

    def modules(self, player: str) -> tuple[str, ...]:
        return ARCHITECTURES[self.architecture.get(player, "both")]
