"""A take read as a play script: the one shape every reader of a run shares.

The store holds events; a script holds what a reader sees, in order: scene headings, directions,
speeches (split into spoken lines and the character's own stage business), the protagonist's
autobiographical epilogue and, when asked for, the backstage beside the lines it shaped. Building
it once here means Fountain, Markdown and PDF cannot disagree about what the play is, and the Critic
reads the same play the exports print, whether it judges a finished run or, in the critic loop, the
play so far. It is a pure reading of a cast and a take; studio.export.script reads both from the store.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

from studio.engine.lens import owner_of, voice_owners
from studio.model.play import CHARACTER_KINDS, STRATEGIES, ResolvedCast
from studio.store import events as ev
from studio.store.events import Event

# Stage business inside a spoken line: a single-starred run such as "*smirks*". The run may not
# touch another star (so **bold** stays speech), may not start or end with a space (so "a * b * c"
# stays speech) and stays on one line. Models star emphasis too ("I did *not* say that"), so a run
# is business only where business goes: at the start of a line, after other business, or after the
# end of a sentence (. ! ? … : ; or a dash, perhaps closed by a quote or bracket). Everything else
# in a line is speech, stars and all.
BUSINESS = re.compile(r"(?<!\*)\*(?![\s*])([^*\n]+?)(?<![\s*])\*(?!\*)")
_SENTENCE_END = re.compile(r"[.!?…:;—–-][\"'”’)\]]*\s*$")

_SCENE_TEXT = re.compile(r"^Scene (\d+)(?::\s*(.*))?$", re.DOTALL)

# What each backstage event did, said the way a reader of the script needs it.
_BACKSTAGE_VERBS = {
    ev.REWRITE_SPEECH: "{superego} makes {ego} hear it as",
    ev.DRAFT: "{ego} drafts",
    ev.CRITIQUE: "{superego} critiques the draft",
    ev.REWRITE_PROMPT: "{superego} rewrites who {ego} is",
    ev.PICK: "who speaks next",
    ev.SUMMARY: "what is remembered, summed up",
    ev.CHOICE: "an answer the rules could not use",
    ev.GOALS: "{character}'s goals for the round",
    ev.VOTE: "{character} votes, in secret",
    ev.MEMORY: "{character} remembers the talk",
    ev.IMPRESSIONS: "what {character} makes of the others",
    ev.REFLECTION: "{character} reflects, privately",
    ev.REVIEW: "the critic scores the play so far",
    # the inner life (studio/mind), shown before the first line each event shaped
    "mind.mood": "{character}'s mood",
    "mind.unlock": "{character} learns",
    "mind.reflection": "{character} reflects, privately",
    "mind.goals": "{character}'s goals, set by hand",
    "mind.recall": "{character} remembers",
}


@dataclass(frozen=True)
class Heading:
    number: int | None
    title: str  # "SCENE 2"
    brief: str  # the playwright's brief for the scene, one line; may be empty


# How a direction sits on the page (a direction event's data["shape"]): an action line, a line centred
# between brackets, a transition (CUT TO:) set to the right, or a lyric. Absent means an action line.
DIRECTION_SHAPES = ("action", "centered", "transition", "lyric")


@dataclass(frozen=True)
class Direction:
    text: str
    role: str | None  # director, or the character whose own line was all business
    character: str | None
    event_id: int
    shape: str = "action"  # one of DIRECTION_SHAPES


@dataclass(frozen=True)
class Speech:
    character: str
    role: str | None
    parts: tuple[tuple[str, str], ...]  # ("line", text) or ("business", text), in the order written
    event_id: int
    # What a screenplay sets around a speech, from the stage event's data: a parenthetical written
    # before the speech ("quietly", no brackets), the cue's extension ("V.O.", "O.S.", "CONT'D"), and
    # whether it is spoken at once with the speech before it (dual dialogue).
    parenthetical: str = ""
    extension: str = ""
    dual: bool = False


def cue(name: str, extension: str = "", upper: bool = True) -> str:
    """A speech's cue as a script prints it: the name (in capitals on a page) and its extension in
    brackets, "JENNY (V.O.)"; an extension already in brackets keeps one pair."""
    name = " ".join(name.split())
    extension = " ".join(extension.split()).strip("()").strip()
    text = name.upper() if upper else name
    return f"{text} ({extension})" if extension else text


def dual_mark(partner: str) -> str:
    """What a layout that cannot set two speeches side by side prints before the second: the
    parenthetical that says both are spoken at once."""
    return f"at the same time as {' '.join(partner.split())}"


@dataclass(frozen=True)
class Backstage:
    kind: str
    character: str  # who wrote it (the superego, or the ego drafting)
    label: str  # "Cleo critiques the draft"
    text: str
    event_id: int
    scene: int | None
    turn: int | None
    shaped: int | None = None  # the stage event it shaped, if any


@dataclass(frozen=True)
class Epilogue:
    character: str
    text: str
    event_id: int

    @property
    def parts(self) -> tuple[tuple[str, str], ...]:
        """The epilogue is spoken too: its stage business is business in every format, as in a speech."""
        return split_business(self.text)


Block = Heading | Direction | Speech | Backstage | Epilogue


@dataclass(frozen=True)
class CastEntry:
    name: str
    kind: str
    description: str


# Words that already open a credit ("after Magee, ...", "based on the novel by ...", "by Anna Kay"):
# an author written so is printed as written, never behind a second "by". Longest first, so
# "adapted from" wins over a shorter opener that begins the same way.
CREDIT_OPENERS = tuple(sorted((
    "written by", "by", "after", "freely after", "based on", "adapted from", "adapted by", "from",
    "inspired by", "translated by", "story by", "devised by", "a play by", "a screenplay by", "an adaptation of",
), key=len, reverse=True))


def credit_lines(author: str, plain: str = "Written by", given: str = "") -> tuple[str, str]:
    """The by-line as its two parts: the words that credit, then who (a title page sets them on two lines).

    `given` is the play's own credit ("Story by"): it is used as written. Otherwise a plain author gets
    `plain` ("Written by" on a screenplay, "by" on a stage play); an author that opens with a credit of its
    own keeps it, in the playwright's own case. No author: no by-line at all, ("", ""), for a title page
    names nobody rather than a made-up "Anonymous".
    """
    author = " ".join(author.split())
    given = " ".join(given.split())
    if not author:
        return "", ""
    if given:
        return given, author
    lower = author.lower()
    for opener in CREDIT_OPENERS:
        if lower == opener or lower.startswith(opener + " "):
            return author[:len(opener)], author[len(opener):].strip()
    return plain, author


def credit(author: str, plain: str = "Written by", given: str = "") -> str:
    """The by-line on one line: "Written by Anna Kay", or "after Magee, ..." as written; "" for no author."""
    return " ".join(part for part in credit_lines(author, plain, given) if part)


@dataclass
class Script:
    run_id: int
    head: int | None
    title: str
    author: str
    premise: str
    created: float
    cast: list[CastEntry]
    protagonist: str
    superego: str | None  # the inner voice's name, when the run had one at work
    models: list[str]
    finished: bool
    backstage: bool
    blocks: list[Block] = field(default_factory=list)
    layout: str = "screen"  # the play's own choice of typeset layout: "screen" or "stage"
    setting: str = ""
    # The rest of the title page, from the play: its own credit words ("Story by"), the draft's date as the
    # playwright wrote it, and how to reach them. Empty: the page prints the default credit, the run's date,
    # and no contact.
    credited_as: str = ""
    dated: str = ""
    contact: str = ""

    @property
    def credit(self) -> str:
        """The by-line every export prints (see `credit_lines` for a title page's two lines)."""
        return credit(self.author, given=self.credited_as)

    def credit_lines(self, plain: str = "Written by") -> tuple[str, str]:
        return credit_lines(self.author, plain, self.credited_as)

    @property
    def draft_date(self) -> str:
        """The play's own draft date as written, else the day the run was made."""
        return self.dated or datetime.fromtimestamp(self.created).date().isoformat()

    @property
    def contact_lines(self) -> list[str]:
        """The contact block, one line per line the playwright wrote (an address, a telephone, a mail)."""
        return [" ".join(line.split()) for line in clean_text(self.contact).splitlines() if line.strip()]

    @property
    def with_superego(self) -> bool:
        return self.superego is not None

    @property
    def source(self) -> str:
        """One line for the title page: which run, under which condition, played by which models."""
        condition = f"with the superego ({self.superego})" if self.superego else "without the superego"
        text = f"Studio run {self.run_id}, {condition}; played by {', '.join(self.models) or 'humans'}"
        if not self.finished:
            text += "; unfinished"
        return text

    @property
    def on_stage_cast(self) -> list[CastEntry]:
        return [c for c in self.cast if c.kind in CHARACTER_KINDS]

    def spoken_with(self, block: Block) -> Speech | None:
        """The speech a dual speech is spoken at once with: the speech right before it on the page
        (backstage notes between them do not count). None for a speech that is not dual, or one with no
        speech right before it (it prints as a plain speech)."""
        if not isinstance(block, Speech) or not block.dual:
            return None
        before: Speech | None = None
        for other in self.blocks:
            if other is block:
                return before
            if isinstance(other, Speech):
                before = other
            elif not isinstance(other, Backstage):
                before = None
        return None

    def backstage_notes(self) -> list[Backstage]:
        """Every backstage note of the script, in the order the script shows them."""
        return [block for block in self.blocks if isinstance(block, Backstage)]


def clean_text(text: str) -> str:
    """Model text fit for a page: every kind of line break made a newline, control characters dropped.

    A NUL or a form feed means nothing in a script, and some readers use them internally (one
    Fountain parser uses \\x00-\\x02 as placeholders), so they are removed here, once, for every format.
    """
    lines = text.splitlines()
    return "\n".join("".join(c for c in line if c == "\t" or unicodedata.category(c) != "Cc") for line in lines)


def split_business(text: str) -> tuple[tuple[str, str], ...]:
    """A spoken line as ("line", speech) and ("business", action) parts; empty speech is dropped."""
    parts: list[tuple[str, str]] = []
    pos = 0
    for match in BUSINESS.finditer(text):
        line_start = text.rfind("\n", 0, match.start()) + 1
        before = text[max(pos, line_start) : match.start()]
        if before.strip() and not _SENTENCE_END.search(before):
            continue  # emphasis inside a sentence: it stays part of the line
        speech = text[pos : match.start()].strip()
        if speech:
            parts.append(("line", speech))
        parts.append(("business", match.group(1).strip()))
        pos = match.end()
    rest = text[pos:].strip()
    if rest:
        parts.append(("line", rest))
    return tuple(parts)


def parenthesise(text: str) -> str:
    """Business as a parenthetical: `(x)` once, even when the model already wrote the brackets
    (`*(laughs)*`)."""
    text = " ".join(text.split())
    return text if text.startswith("(") and text.endswith(")") else f"({text})"


def protagonist_voice(cast: ResolvedCast) -> Any:
    """The inner voice at work on the protagonist, with at least one strategy on: the Drama Machine's
    superego, or in an ensemble the first character's own voice. None: the run has none at work."""
    if cast.has("superego"):
        on = cast.superego.enabled and any(cast.superego.schedule(name).enabled for name in STRATEGIES)
        return cast.role("superego") if on else None
    key = f"{cast.ego.key}.voice"
    if not cast.roles or not cast.has(key):
        return None
    voice = cast.role(key)
    schedules = voice.schedules
    on = schedules is not None and schedules.enabled and any(schedules.schedule(n).enabled for n in STRATEGIES)
    return voice if on else None


def superego_at_work(cast: ResolvedCast) -> bool:
    """True when the run was set to have an inner voice on its protagonist with at least one strategy on."""
    return protagonist_voice(cast) is not None


def character_direction(text: str, name: str) -> str:
    """A character's all-business line reads as a direction; give a bare predicate its subject.

    "*rolls her eyes*" is stored as the direction "rolls her eyes"; on the page it must say who does
    it. A direction that already starts with a capital (a name, "A long silence.") is left alone.
    """
    stripped = text.strip()
    if stripped and stripped[0].islower():
        return f"{name} {stripped}"
    return stripped


def read_script(cast: ResolvedCast, path: list[Event], *, run_id: int = 0, created: float = 0.0,
                finished: bool = False, backstage: bool = False) -> Script:
    """One take (`path`, oldest first) of a run with this cast, as a script."""
    script = _title_page(cast, path, run_id=run_id, created=created, finished=finished, backstage=backstage)
    reading = _Reading(cast, path)
    for event in path:
        script.blocks.extend(reading.blocks(event, backstage))
    return script


def _title_page(cast: ResolvedCast, path: list[Event], *, run_id: int, created: float, finished: bool,
                backstage: bool) -> Script:
    """The script with no blocks yet: what the play is, who is in it and which models wrote it."""
    at_work = superego_at_work(cast)
    models = sorted({r.model for r in cast.roles if not r.human and (r.kind != "superego" or at_work)})
    return Script(
        run_id=run_id,
        head=path[-1].id if path else None,
        title=cast.play.title,
        author=" ".join(clean_text(cast.play.author).split()),
        premise=cast.play.premise,
        created=created,
        cast=[CastEntry(r.name, r.kind, r.sheet.description) for r in cast.roles],
        protagonist=cast.ego.name,
        superego=protagonist_voice(cast).name if at_work else None,
        models=models,
        finished=finished,
        backstage=backstage,
        layout=cast.play.layout,
        setting=" ".join(clean_text(cast.play.setting).split()),
        credited_as=" ".join(clean_text(cast.play.credit).split()),
        dated=" ".join(clean_text(cast.play.draft_date).split()),
        contact=clean_text(cast.play.contact).strip(),
    )


def _heading(event: Event) -> Heading:
    match = _SCENE_TEXT.match(clean_text(event.text).strip())
    if match:
        number = int(match.group(1))
        return Heading(number, f"SCENE {number}", " ".join((match.group(2) or "").split()))
    return Heading(event.scene, " ".join(clean_text(event.text).split()).upper(), "")


class _Reading:
    """What reading one take needs throughout: the cast's names, whose inner voice is whose, and which
    stage line each backstage event shaped first."""

    def __init__(self, cast: ResolvedCast, path: list[Event]):
        self.names = {r.key: r.name for r in cast.roles}
        self.ego = cast.ego.name
        self.inner = self.names.get("superego", "the inner voice")
        self.owners = voice_owners(cast)
        self.by_id = {e.id: e for e in path}
        self.shaped: dict[int, int] = {}
        for event in path:
            for source in event.shaped_by:
                self.shaped.setdefault(source, event.id)

    def blocks(self, event: Event, backstage: bool) -> list[Any]:
        """What one event puts in the script, in order; the backstage only when asked for."""
        kind = event.kind
        if kind == ev.SCENE:
            return [_heading(event)]
        if kind in (ev.DIRECTION, ev.STAGE):
            # The backstage goes just before the line it shaped: that is when it happened to the ego.
            return [*(self.shaping(event) if backstage else []), *self.line(event)]
        if kind == ev.EPILOGUE:
            return [Epilogue(event.character or self.ego, clean_text(event.text).strip(), event.id)]
        if kind in ev.BACKSTAGE and backstage and event.id not in self.shaped:
            # Nothing on stage followed it (a prompt rewritten at the very end): show it where it happened.
            return [self.note(event)]
        return []

    def line(self, event: Event) -> list[Any]:
        """A spoken line, or a direction: a line with no one behind it is a direction whatever its kind (an
        edited stage move was once kept as a line by nobody, and the stage prints it as a direction)."""
        data = event.data
        if event.kind == ev.STAGE and (event.role is not None or event.character):
            return [Speech(character=event.character or self.names.get(event.role or "", "Someone"),
                           role=event.role, parts=split_business(clean_text(event.text)), event_id=event.id,
                           parenthetical=" ".join(clean_text(str(data.get("parenthetical") or "")).split()),
                           extension=" ".join(clean_text(str(data.get("extension") or "")).split()),
                           dual=bool(data.get("dual")))]
        text = clean_text(event.text).strip()
        if event.role not in (None, "director"):
            text = character_direction(text, event.character or self.names.get(event.role, ""))
        shape = data.get("shape") if data.get("shape") in DIRECTION_SHAPES else "action"
        return [Direction(text, event.role, event.character, event.id, shape=str(shape))] if text else []

    def shaping(self, event: Event) -> list[Backstage]:
        """The backstage that shaped a line: the inner voice's work, the inner life, what memory recalled."""
        by_id = self.by_id
        out = [self.note(by_id[i]) for i in event.shaped_by if i in by_id]
        mind = event.data.get("mind") or {}
        out.extend(self.note(by_id[i]) for i in mind.get("mind", []) if i in by_id)
        recalled = [by_id[r["event"]] for r in mind.get("recalled", []) if r.get("event") in by_id]
        if recalled:
            out.append(Backstage(
                kind="mind.recall", character=event.character or "",
                label=_BACKSTAGE_VERBS["mind.recall"].format(character=event.character or ""),
                text=" / ".join(f"{m.character or 'Someone'}: {clean_text(m.text).strip()}" for m in recalled),
                event_id=event.id, scene=event.scene, turn=event.turn, shaped=event.id))
        return out

    def note(self, event: Event) -> Backstage:
        """A backstage event as the script tells it: whose inner voice worked on whom, and what it said."""
        names, inner = self.names, self.inner
        verb = _BACKSTAGE_VERBS.get(event.kind, event.kind.rsplit(".", 1)[-1].replace("_", " "))
        # whose inner voice it is, and whom it works on: in an ensemble each character has its own
        whose = event.data.get("hearer") or owner_of(event, self.owners)
        voice = event.character if event.role in self.owners else inner
        label = verb.format(ego=names.get(whose or "", self.ego), superego=voice or inner,
                            character=event.character or "")
        return Backstage(
            kind=event.kind,
            character=event.character or names.get(event.role or "", inner),
            label=label,
            text=clean_text(event.text).strip(),
            event_id=event.id,
            scene=event.scene,
            turn=event.turn,
            shaped=self.shaped.get(event.id),
        )
