"""What one seat may know of a take, and what it may be shown.

A character knows the events it witnessed (each event records who was present) and its own private
work: its drafts, its summaries, its votes, and everything its inner voice did for it, never another
character's. Where its inner voice rewrote a line it heard, it knows the rewrite in place of what was
said. A seat off stage that speaks about the whole stage (a director, a moderator, the Drama Machine's
superego rewriting a line) reads the stage as it was said.

Every form's prompts, `studio show --as`, and the app's view-as and backstage ask this one module, so
what a character was prompted with and what the playwright is shown of its view cannot disagree.

The inner voices' own fold lives here too, because what a character heard is the lens's business:
the Drama Machine and the ensemble both keep their inner voices' work in an `InnerVoices`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from collections.abc import Sequence
from typing import Any, Protocol

from studio.engine.budget import MIN_KEEP, cut
from studio.store import events as ev
from studio.store.events import Event

VOICE = ".voice"  # an ensemble character's inner voice sits at KEY.voice
LINE_COST = 24  # what a line costs beyond its text in a budget: the speaker's name and the layout
SHOWN = frozenset((ev.STAGE, ev.DIRECTION))  # the events a view of the stage holds


class Role(Protocol):
    @property
    def key(self) -> str: ...

    @property
    def name(self) -> str: ...

    @property
    def kind(self) -> str: ...

    @property
    def is_character(self) -> bool: ...


class Cast(Protocol):
    """What the lens needs of a cast (studio.model.play.ResolvedCast): who sits where."""

    @property
    def roles(self) -> Sequence[Role]: ...

    @property
    def characters(self) -> Sequence[Role]: ...

    def matching(self, name: str) -> Sequence[Role]: ...


@dataclass
class View:
    """A take as seen by someone: the lines they can know of, newest last, trimmed to a budget."""

    lines: list[tuple[Event, str]]  # (event, the text as this viewer knows it)
    trimmed: bool
    seat: str | None = None  # whose view it is (None: the stage as it was said)


def voice_owners(cast: Cast) -> dict[str, str]:
    """Each inner voice's seat, mapped to the character it belongs to: an ensemble's `KEY.voice`, the
    Drama Machine's superego (the ego's)."""
    ego = next((r.key for r in cast.roles if r.kind == "ego"), None)
    out: dict[str, str] = {}
    for role in cast.roles:
        if role.key.endswith(VOICE):
            out[role.key] = role.key[: -len(VOICE)]
        elif role.kind == "superego" and ego is not None:
            out[role.key] = ego
    return out


def owner_of(event: Event, owners: dict[str, str]) -> str | None:
    """Whose own business a backstage event is: the seat it is private to, else its inner voice's
    character, else the seat that made it (a draft is its speaker's)."""
    private = event.data.get("private")
    if private is not None:
        return private
    role = event.role
    return owners.get(role, role) if role is not None else None


@dataclass(frozen=True)
class InnerVoices:
    """The one fold of inner voices' work, for every form that has them.

    What each character heard instead of what was said, the briefs its voice rewrote, and the draft and
    critique of the line in progress with everything that shapes it. `heard_shapes`: whether a rewrite a
    character hears shapes its next line (the Drama Machine's ego answers the line it heard at once; in an
    ensemble the hearer may not speak for many turns).
    """

    owners: dict[str, str] = field(default_factory=dict)
    heard_shapes: bool = True
    heard: dict[tuple[int, str], int] = field(default_factory=dict)  # (line, hearer) -> the rewrite heard
    briefs: dict[str, Event] = field(default_factory=dict)  # character -> its voice's newest rewrite of its brief
    draft: Event | None = None
    critique: Event | None = None
    shaping: list[int] = field(default_factory=list)  # backstage ids that will shape the next line

    @classmethod
    def replay(cls, owners: dict[str, str], path: list[Event], heard_shapes: bool = True) -> InnerVoices:
        voices = cls(owners, heard_shapes)
        for event in path:
            voices = voices.fold(event)
        return voices

    def fold(self, event: Event) -> InnerVoices:
        """These voices after one more event. A value, never changed in place: a state's checkpoint copies
        (studio/engine/checkpoints.py) share it with the state folding on."""
        kind = event.kind
        if kind == ev.DRAFT:
            return self._with(draft=event, shaping=[*self.shaping, event.id])
        if kind == ev.CRITIQUE:
            return self._with(critique=event, shaping=[*self.shaping, event.id])
        if kind == ev.REWRITE_SPEECH:
            source = event.data.get("source")
            hearer = event.data.get("hearer") or self.owners.get(event.role or "")
            heard = {**self.heard, (source, hearer): event.id} if source is not None and hearer else self.heard
            shaping = [*self.shaping, event.id] if self.heard_shapes else self.shaping
            return self._with(heard=heard, shaping=shaping)
        if kind == ev.REWRITE_PROMPT:
            owner = event.data.get("owner") or self.owners.get(event.role or "")
            if owner:
                return self._with(briefs={**self.briefs, owner: event})
        return self

    def line_spoken(self) -> InnerVoices:
        """A line reached the stage: what shaped it is spent."""
        return self._with(draft=None, critique=None, shaping=[])

    def _with(self, **changes: Any) -> InnerVoices:
        """A copy with `changes`, as dataclasses.replace makes it (these voices check nothing as they are made)
        without reading every field's definition again: a turn folds four or five of them."""
        voices = object.__new__(type(self))
        voices.__dict__.update(self.__dict__, **changes)
        return voices

    def brief(self, key: str) -> str | None:
        event = self.briefs.get(key)
        return event.text if event is not None else None


class Voiced:
    """A form's state whose inner voices' work is folded in `inner`: the line in progress, as its prompts
    and the app read it."""

    inner: InnerVoices

    @property
    def draft(self) -> Event | None:
        return self.inner.draft

    @property
    def critique(self) -> Event | None:
        return self.inner.critique

    @property
    def shaping(self) -> list[int]:
        return self.inner.shaping


class Lens:
    """What each seat of one take knows. `seat` None means the whole stage, as it was said."""

    def __init__(self, path: list[Event], voices: InnerVoices | None = None, owners: dict[str, str] | None = None,
                 by_id: dict[int, Event] | None = None):
        self.path = path
        self.by_id = by_id if by_id is not None else {e.id: e for e in path}
        self.voices = voices if voices is not None else InnerVoices.replay(owners or {}, path)
        self.owners = owners if owners is not None else self.voices.owners

    @classmethod
    def of(cls, cast: Cast, path: list[Event]) -> Lens:
        """The lens of any take of a run, from its events alone."""
        return cls(path, owners=voice_owners(cast))

    # -- one event ----------------------------------------------------------------------------

    def owner(self, event: Event) -> str | None:
        return owner_of(event, self.owners)

    def knows(self, seat: str | None, event: Event) -> bool:
        """Whether `seat` witnessed `event`, or it is the seat's own private work."""
        if seat is None:
            return not event.is_backstage
        if not event.witnessed_by(seat):
            return False
        return not event.is_backstage or self.owner(event) == seat

    def rewrite(self, seat: str | None, event: Event) -> Event | None:
        """The rewrite `seat` heard in place of `event`, if its inner voice made one."""
        if seat is None:
            return None
        found = self.voices.heard.get((event.id, seat))
        return self.by_id.get(found) if found is not None else None

    def as_heard(self, seat: str | None, event: Event) -> str:
        rewrite = self.rewrite(seat, event)
        return rewrite.text if rewrite is not None else event.text

    def hearers(self, event: Event) -> list[tuple[str, Event]]:
        """Each character who heard `event` through its own inner voice's rewrite, with the rewrite."""
        out = []
        for (line, hearer), found in self.voices.heard.items():
            rewrite = self.by_id.get(found)
            if line == event.id and rewrite is not None:
                out.append((hearer, rewrite))
        return out

    # -- the take -------------------------------------------------------------------------------

    def events(self, seat: str) -> list[Event]:
        """Everything `seat` knows, in order, each line carrying the text it heard."""
        out = []
        for event in self.path:
            if not self.knows(seat, event):
                continue
            text = self.as_heard(seat, event)
            out.append(event if text == event.text else dataclasses.replace(event, text=text))
        return out

    def own(self, seat: str) -> list[Event]:
        """The seat's own private work, in order: its drafts, its summaries, its inner voice's work."""
        return [e for e in self.path if e.is_backstage and self.knows(seat, e)]

    def lines(self, seat: str | None, budget_chars: int) -> View:
        """The stage lines and directions `seat` knows, as it heard them, walked back from the newest
        until `budget_chars` is spent; lines its own newest summary covers give way to the summary."""
        lines: list[tuple[Event, str]] = []
        used, trimmed = 0, False
        summary: tuple[Event, int] | None = None
        # every prompt of every turn walks here: the cheap tests first, and the rewrite a seat heard looked up
        # in place (as Lens.as_heard does) rather than through two calls for each line
        heard = self.voices.heard if seat is not None else None  # most seats hear no rewrite: skip the look-up
        by_id = self.by_id
        for event in reversed(self.path):
            if summary is not None and event.id <= summary[1]:
                said = summary[0]
                lines.append((dataclasses.replace(said, kind=ev.DIRECTION),
                              f"(Earlier, as {said.character} remembers it: {said.text})"))
                trimmed = False
                break
            if event.kind not in SHOWN:
                if seat is not None and summary is None and event.kind == ev.SUMMARY and event.role == seat:
                    summary = event, int(event.data.get("upto") or 0)  # met before any line it covers
                continue
            if seat is not None and not event.witnessed_by(seat):
                continue  # a line is public: known if witnessed
            text = event.text
            if heard and seat is not None:
                found = heard.get((event.id, seat))
                rewrite = by_id.get(found) if found is not None else None
                if rewrite is not None:
                    text = rewrite.text
            used += len(text) + LINE_COST
            if used > budget_chars and lines:
                trimmed = True
                break
            if used > budget_chars:  # the newest line alone is over budget: kept, cut, with a mark
                text = cut(text, max(budget_chars - LINE_COST, MIN_KEEP))
            lines.append((event, text))
        lines.reverse()
        return View(lines, trimmed, seat)


def seat_named(cast: Cast, name: str) -> str:
    """The character seat a user means by `name` (`--as`, view-as); one clear error if none or several."""
    from studio.model.errors import InputError

    names = ", ".join(r.name for r in cast.characters if not r.key.endswith(VOICE))
    if not name.strip():
        raise InputError("--as", None, "names nobody (it is empty)", f"use one of: {names}")
    matches = [r for r in cast.matching(name) if r.is_character and not r.key.endswith(VOICE)]
    if len(matches) != 1:
        raise InputError("--as", name, "is not one character of this run", f"use one of: {names}")
    return matches[0].key


def through_eyes(cast: Cast, path: list[Event], name: str) -> list[Event]:
    """The take as one character knows it: what it witnessed, the lines its inner voice rewrote as it
    heard them, and its own inner voice's work."""
    return Lens.of(cast, path).events(seat_named(cast, name))
