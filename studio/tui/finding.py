"""Finding a moment in a run: search over its lines, jumps to a scene or a turn, and the take tree.

Pure functions over events (and one SQL query), so the app, the tests and the benchmark share them;
each is linear in the run at most, which keeps a thousand-turn run with fifty branches well inside a
frame's budget.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any, NamedTuple
from collections.abc import Callable, Iterable

from studio.store import events as ev

LINE_KINDS = (ev.SCENE, ev.STAGE, ev.DIRECTION, ev.EPILOGUE)


def pattern(query: str) -> re.Pattern[str] | None:
    """A case-insensitive literal search: what the playwright typed, never a regular expression."""
    query = query.strip()
    return re.compile(re.escape(query), re.IGNORECASE) if query else None


def search_take(events: Iterable[Any], query: str) -> list[int]:
    """The on-stage lines of a take that contain the query, in order."""
    found = pattern(query)
    if found is None:
        return []
    return [e.id for e in events if e.kind in LINE_KINDS and found.search(e.text)]


def search_all(store: Any, run_id: int, query: str) -> list[Any]:
    """Every take's lines that contain the query, oldest first (one indexed query, no JSON parsing)."""
    query = query.strip()
    if not query:
        return []
    marks = ",".join("?" * len(LINE_KINDS))
    rows = store._all(
        f"SELECT id FROM events WHERE run_id = ? AND kind IN ({marks}) AND instr(lower(text), lower(?)) > 0 "
        "ORDER BY id",
        (run_id, *LINE_KINDS, query),
    )
    found = pattern(query)
    # SQLite lowers ASCII only: confirm each hit with Python's case folding, and catch what it missed
    hits = [store.event(r[0]) for r in rows]
    return [e for e in hits if found is not None and found.search(e.text)]


_JUMP = re.compile(r"^\s*(?:(s|scene)\s*(\d+)|(t|turn)?\s*(\d+)|(\$|end|e)|(0|start|top|\^))\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Jump:
    scene: int | None = None
    turn: int | None = None
    end: bool = False
    start: bool = False


def parse_jump(text: str) -> Jump | None:
    """`12` or `t12`: turn 12; `s3` or `scene 3`: scene 3; `$`: the end; `^`: the start."""
    match = _JUMP.match(text)
    if match is None:
        return None
    if match.group(2):
        return Jump(scene=int(match.group(2)))
    if match.group(4):
        return Jump(turn=int(match.group(4)))
    if match.group(5):
        return Jump(end=True)
    return Jump(start=True)


def jump_index(entries: list[Any], events_by_id: dict[int, Any], jump: Jump) -> int | None:
    """The stage entry a jump lands on: a scene's heading, a turn's first line; None if there is none."""
    if not entries:
        return None
    if jump.end:
        return len(entries) - 1
    if jump.start:
        return 0
    for index, entry in enumerate(entries):
        event = events_by_id.get(entry.event_id) if entry.event_id is not None else None
        if event is None:
            continue
        if jump.scene is not None and event.scene == jump.scene:
            return index
        if jump.turn is not None and event.turn == jump.turn and event.kind != ev.SCENE:
            return index
    return None


# -- the take tree ------------------------------------------------------------------------------


@dataclass
class Branch:
    """A stretch of one take between two forks: where it starts, what its first line says, its lines."""

    start: Any  # the first event of the stretch
    first_line: Any | None  # its first on-stage line, if any
    lines: int = 0
    last: Any = None
    children: list[Branch] = field(default_factory=list)
    current: bool = False  # on the take the run follows now

    @property
    def tip(self) -> int:
        return self.last.id


class Node(NamedTuple):
    """An event as the take tree needs it: no settings, usage or data to parse for thousands of rows."""

    id: int
    parent: int | None
    kind: str
    text: str
    role: str | None
    character: str | None
    scene: int | None
    turn: int | None
    origin: str
    model: str | None
    created: float
    directed: int
    continued: int

    @property
    def on_stage(self) -> bool:
        return self.kind in ev.ON_STAGE


def tree_events(store: Any, run_id: int, after: int = 0) -> list[Node]:
    """Every event of every take (past `after`), light: one query, nothing decoded but what the tree
    shows. Events never change, so a caller may keep what it read and ask only for the newer ones."""
    rows = store._all(
        "SELECT id, parent, kind, text, role, character, scene, turn, origin, model, created, "
        "instr(data, '\"direction\"') > 0, instr(data, '\"continues\"') > 0 "
        "FROM events WHERE run_id = ? AND id > ? ORDER BY id",
        (run_id, after),
    )
    make = Node._make
    return [make(row) for row in rows]


def take_tree(events: list[Any], head: int | None) -> list[Branch]:
    """The run's events as branches: each node runs from a fork (or the start) to the next fork or end.

    Only forks where takes differ make nodes, so a thousand-turn run with fifty branches is about a
    hundred nodes, not thousands.
    """
    children: dict[int | None, list[Any]] = {}
    by_id: dict[int, Any] = {}
    for event in events:
        children.setdefault(event.parent, []).append(event)
        by_id[event.id] = event
    on_head: set[int] = set()
    cursor = head
    while cursor is not None:
        on_head.add(cursor)
        parent = by_id.get(cursor)
        cursor = parent.parent if parent is not None else None

    def grow(start: Any) -> Branch:
        branch = Branch(start=start, first_line=None, current=start.id in on_head)
        event = start
        while True:
            if event.kind in LINE_KINDS:
                branch.lines += 1
                if branch.first_line is None:
                    branch.first_line = event
            branch.last = event
            following = children.get(event.id, [])
            if len(following) == 1:
                event = following[0]
                continue
            pending.extend((branch, child) for child in following)
            return branch

    roots: list[Branch] = []
    pending: list[tuple[Branch | None, Any]] = [(None, e) for e in children.get(None, [])]
    # iteratively, not recursively: a run may fork a thousand levels deep
    while pending:
        parent_branch, start = pending.pop(0)
        branch = grow(start)
        (parent_branch.children if parent_branch is not None else roots).append(branch)
    return roots


def describe(branch: Branch) -> str:
    """Who wrote a take and what it says first, for a node of the tree (plain text)."""
    line = branch.first_line or branch.start
    where = []
    if line.scene:
        where.append(f"scene {line.scene}")
    if line.turn:
        where.append(f"turn {line.turn}")
    who = line.character or ("the studio" if line.kind == ev.SCENE else "")
    text = " ".join(line.text.split())
    if len(text) > 60:
        text = text[:59] + "…"
    return f"{' '.join(where)} · {who}: {text}" if who else f"{' '.join(where)} · {text}"


def author(event: Any) -> str:
    if event.origin == "human":
        return "written by you"
    if event.origin == "override":
        return "edited by you"
    if getattr(event, "directed", False) or (hasattr(event, "data") and event.data.get("direction")):
        return f"{event.model or 'model'}, directed"
    if getattr(event, "continued", False) or (hasattr(event, "data") and "continues" in event.data):
        return f"{event.model or 'model'}, continued"
    return event.model or event.origin


def take_labeller(nodes: list[Any], on_path: Any, names: dict[int, str]) -> Callable[[int], str]:
    """Names the take a line belongs to, for a search over every take: `this take` for the take on stage,
    else the take's name if it has one, or which take it is at the moment it forks from the one on stage
    (`take 2/3 from s1 t4`). The run's rows are indexed once; each line then costs its walk to the fork."""
    by_id = {n.id: n for n in nodes}
    children: dict[int | None, list[int]] = {}
    for n in nodes:
        children.setdefault(n.parent, []).append(n.id)

    def label(event_id: int) -> str:
        if event_id in on_path:
            return "this take"
        node = by_id.get(event_id)
        if node is None:
            return "another take"
        name = names.get(node.id)
        while node.parent is not None and node.parent not in on_path and node.parent in by_id:
            node = by_id[node.parent]
            name = name or names.get(node.id)
        if name:
            return f"“{name}”"
        siblings = children.get(node.parent, [])
        where = " ".join(f for f in (f"s{node.scene}" if node.scene else "", f"t{node.turn}" if node.turn else "")
                         if f)
        number = f"take {siblings.index(node.id) + 1}/{len(siblings)}" if len(siblings) > 1 else "another take"
        return f"{number} from {where}" if where else number

    return label


def describe_hit(event: Any, found: re.Pattern[str] | None, take: str | None = None) -> Any:
    """A search result as a line of the results list, the match marked; `take` names the take it is in,
    when the search goes over every take."""
    from rich.text import Text

    where = " ".join(f for f in (f"s{event.scene}" if event.scene else "", f"t{event.turn}" if event.turn else "") if f)
    text = Text(f"{where:>9}  ", style="dim")
    if take is not None:
        text.append(f"{take}  ", style="italic")
    text.append(f"{(event.character or 'Scene').upper()}  ", style="bold")
    body = " ".join(event.text.split())
    start = 0
    if found is not None:
        match = found.search(body)
        if match is not None and match.start() > 50:
            start = match.start() - 30
            body = "…" + body[start:]
    line = Text(body[:160])
    if found is not None:
        line.highlight_regex(found, style="reverse")
    text.append_text(line)
    return text
