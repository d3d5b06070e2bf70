"""The playwright's pen: lines written into the take on stage, cut from it, or moved within it.

Each edit writes ONE new take from the edited point, through the Engine's door for edits
(`Engine._rewrite`): the written line (origin "human"), then every event that followed on stage copied
as it was written, its data `kept` naming the event it copies. Nothing that followed is asked of a model
again, and the old take stays beside the new one (takes, `studio takes`, choose_take). Since every lens,
mind and export reads the take on stage, a cut line is gone from every character's memory and a written
one is in it, with no copy of the script kept anywhere else.

A line written between the play's own steps (data `inserted`) is no step of the play: the form's turn,
scene and next speaker go on as the play's lines left them (Engine._fold); a move changes the play's
order itself, so the play goes on from the new order.

A character the cast does not have yet joins it by a control event on the same take, just before its
first line: `grown_cast` reads the take on stage for them, so a rewind or an undo to before that line
takes them out of the cast again. The newcomer is an ensemble-like character with a plain sheet (a name,
and "You are NAME."), played by the model of the play's first character; no address or key is stored
in the event, only which character's settings it borrows.
"""

from __future__ import annotations

import re
from typing import Any

from studio.mind.state import IMPORTANCE
from studio.model.play import ROLE_DEFAULTS, CharacterSheet, ResolvedCast
from studio.model.limits import MAX_NAME
from studio.engine.script import DIRECTION_SHAPES
from studio.store import StoreError, events as ev
from studio.store.events import Event

MAX_WRITTEN = 20_000  # the longest line the pen writes: a long speech, not a pasted book
LINES = (ev.STAGE, ev.DIRECTION, ev.SCENE, ev.EPILOGUE)  # what a playwright can cut or move
NEWCOMER = "pen_"  # a newcomer's seat key begins so, never one a play file's cast uses


def standing(event: Event) -> bool:
    """A control that belongs to the run, not to a take (a take-over, a switch, a policy): the engine keeps
    the newest of each in force on every take, so it is never copied onto a new one, where a copy would
    count as newer than what was decided since on another take."""
    return event.kind == ev.CONTROL and not {"facts", "draw", "cast"} & set(event.data)


# The events that are work on one line's words, and where each names the line.
_WORK_ON_A_LINE = {ev.REWRITE_SPEECH: "source", IMPORTANCE: "line"}


def after(path: list[Event], index: int) -> list[Event]:
    """The events after `path[index]` that an edit keeps when that line is cut or rewritten: all of them but
    the backstage work on its words (a rewrite of it an inner voice made, a memory's score of it), which
    no one can hear or remember once the words are no longer said."""
    gone = path[index].id
    return [e for e in path[index + 1:] if e.kind not in _WORK_ON_A_LINE or e.data.get(_WORK_ON_A_LINE[e.kind]) != gone]


def kept_data(event: Event) -> dict[str, Any]:
    """The data of a kept copy: the original's, marked with the event it copies."""
    return {**event.data, "kept": event.id}


def grown_cast(base: ResolvedCast, path: list[Event]) -> tuple[ResolvedCast, tuple[Any, ...]]:
    """The cast the take `path` plays with: `base` and each character a line written into it brought in."""
    added = tuple((e.data["cast"]["key"], e.data["cast"]["name"], e.data["cast"].get("like"))
                  for e in path if e.kind == ev.CONTROL and isinstance(e.data.get("cast"), dict))
    if not added:
        return base, ()
    roles = list(base.roles)
    for key, name, like in added:
        if any(r.key == key for r in roles):
            continue
        borrowed = next((r for r in base.roles if r.key == like), None) or (base.characters or base.roles)[0]
        sheet = CharacterSheet(name=name, prompt=f"You are {name}.")
        roles.append(borrowed.model_copy(update={
            "key": key, "kind": "other", "sheet": sheet, "human": False, "rule": None, "schedules": None,
            "lore": [], "temperature": ROLE_DEFAULTS["other"]["temperature"],
            "max_tokens": ROLE_DEFAULTS["other"]["max_tokens"]}))
    return base.model_copy(update={"roles": roles}), added


def checked_text(text: str, what: str = "line") -> str:
    """A written line: not empty, not a book. A ValueError says which and what to do."""
    text = text.strip()
    if not text:
        raise ValueError(f"the {what} is empty; give the words it should say")
    if len(text) > MAX_WRITTEN:
        raise ValueError(f"the {what} is {len(text):,} characters long; a written line holds at most "
                         f"{MAX_WRITTEN:,}: split it into several")
    return text


class Pen:
    """Insert, cut and move, held by the Engine (studio/engine/engine.py) as its own methods."""

    cast: ResolvedCast
    path: list[Event]
    by_id: dict[int, Event]
    run_id: int
    store: Any

    def _index(self, event_id: int) -> int | None:
        raise NotImplementedError

    def _rewrite(self, index: int, fresh: list[dict[str, Any]], kept: list[Event]) -> list[Event]:
        raise NotImplementedError

    def _record(self, action: str, before_head: int | None, description: str) -> None:
        raise NotImplementedError

    def _on_stage(self, event_id: int, doing: str) -> int:
        """The place in the take on stage of a line the playwright names; else one StoreError saying why."""
        index = self._index(event_id)
        if index is None:
            try:
                event = self.store.event(event_id)
            except StoreError:
                raise StoreError(f"run {self.run_id} has no event {event_id}") from None
            if event.run_id != self.run_id:
                raise StoreError(f"event {event_id} belongs to run {event.run_id}, not run {self.run_id}")
            raise StoreError(f"event {event_id} is not on the take on stage; choose its take first to {doing} it")
        event = self.path[index]
        if event.kind not in LINES:
            raise StoreError(f"event {event_id} is a {event.kind.removeprefix('backstage.')}, not a line of the "
                             f"script: {doing} a spoken line, a direction or a scene heading")
        return index

    def _speaker(self, name: str) -> tuple[str, str, dict[str, Any] | None]:
        """The seat and name a speech is written for, and the control that brings a newcomer in (or None)."""
        name = " ".join(name.split())
        if not name:
            raise ValueError("--as names nobody (it is empty); give a character's name")
        if len(name) > MAX_NAME or not name.isprintable():
            raise ValueError(f"--as: a character's name is one printable line of at most {MAX_NAME} characters")
        every = self.cast.matching(name)
        matches = [r for r in every if r.is_character]
        if every and not matches:
            raise ValueError(f"--as {name!r} names {every[0].name}, the {every[0].kind}, who does not speak on stage; "
                             "give a character's name (or a new one)")
        if len(matches) == 1:
            return matches[0].key, matches[0].name, None
        if len(matches) > 1:
            names = ", ".join(r.name for r in matches)
            raise ValueError(f"--as {name!r} names several characters ({names}); give one name")
        slug = re.sub(r"[^a-z0-9]+", "_", name.casefold()).strip("_") or "character"
        key, n = NEWCOMER + slug, 2
        while self.cast.has(key):
            key, n = f"{NEWCOMER}{slug}{n}", n + 1
        like = (self.cast.characters or self.cast.roles)[0].key
        return key, name, {"key": key, "name": name, "like": like}

    def insert(self, anchor_id: int, text: str, *, before: bool = False, character: str | None = None,
               direction: bool = False, heading: bool = False, parenthetical: str = "",
               shape: str = "action") -> Event:
        """Write a line before or after a line of the take on stage: a speech by `character` (a newcomer
        joins the cast), a direction (`shape` one of DIRECTION_SHAPES) or a scene heading. One new take;
        what followed is kept as written. The written line is returned."""
        if sum((character is not None, direction, heading)) != 1:
            raise ValueError("say what the line is: a speech (a character's name), a direction or a heading")
        text = checked_text(text)
        if shape not in DIRECTION_SHAPES:
            raise ValueError(f"--shape {shape!r} is not a shape of a direction; use one of {', '.join(DIRECTION_SHAPES)}")
        parenthetical = " ".join(parenthetical.split()).strip("()").strip()
        if len(parenthetical) > MAX_NAME:
            raise ValueError(f"--parenthetical holds at most {MAX_NAME} characters; a parenthetical is a few words")
        index = self._on_stage(anchor_id, "write beside")
        anchor = self.path[index]
        at = index if before else index + 1
        present = anchor.data.get("present")
        data: dict[str, Any] = {"inserted": True}
        fresh: list[dict[str, Any]] = []
        common = {"scene": anchor.scene, "turn": anchor.turn, "origin": "human"}
        if character is not None:
            key, name, newcomer = self._speaker(character)
            if newcomer is not None:
                fresh.append({"kind": ev.CONTROL, "text": f"{name} joins the cast.", **common,
                              "data": {"cast": newcomer, "inserted": True}})
            if parenthetical:
                data["parenthetical"] = parenthetical
            if present is not None:
                data["present"] = sorted({*present, key})
            fresh.append({"kind": ev.STAGE, "text": text, "role": key, "character": name, **common, "data": data})
            what = f"{name}'s line"
        elif direction:
            if shape != "action":
                data["shape"] = shape
            if present is not None:
                data["present"] = list(present)
            fresh.append({"kind": ev.DIRECTION, "text": text, **common, "data": data})
            what = "a direction"
        else:
            text = " ".join(text.split())
            fresh.append({"kind": ev.SCENE, "text": text, **common, "data": data})
            what = "a heading"
        head = self.path[-1].id if self.path else None
        written = self._rewrite(at, fresh, self.path[at:])
        line = written[len(fresh) - 1]
        self._record("insert", head, f"insert of {what} {'before' if before else 'after'} event {anchor_id}")
        return line

    def cut(self, event_id: int) -> Event | None:
        """Take a line out of the take on stage: one new take without it, the lines after it kept as written.
        The first kept line is returned (None when the cut line was the last: the head moves back)."""
        index = self._on_stage(event_id, "cut")
        head = self.path[-1].id if self.path else None
        written = self._rewrite(index, [], after(self.path, index))
        self._record("cut", head, f"cut of event {event_id}")
        return written[0] if written else None

    def move(self, event_id: int, anchor_id: int, *, before: bool = False) -> Event:
        """Move a line to just before or after another of the take on stage: one new take from the earlier
        of the two places, every line from there copied in the new order. The moved line's copy is returned."""
        index = self._on_stage(event_id, "move")
        target = self._on_stage(anchor_id, "move a line beside")
        if event_id == anchor_id:
            raise ValueError("a line cannot be moved beside itself; name another line to move it to")
        order = [e for e in self.path if e.id != event_id]
        spot = next(i for i, e in enumerate(order) if e.id == anchor_id) + (0 if before else 1)
        order.insert(spot, self.path[index])
        start = min(index, target)
        while start < len(order) and order[start].id == self.path[start].id:
            start += 1
        if start == len(order):
            raise ValueError(f"event {event_id} already stands {'before' if before else 'after'} event {anchor_id}")
        head = self.path[-1].id if self.path else None
        written = self._rewrite(start, [], order[start:])
        self._record("move", head, f"move of event {event_id} {'before' if before else 'after'} event {anchor_id}")
        return next(e for e in written if e.data.get("kept") == event_id)
