"""What an experiment file's `kind` names: the contract between the lab's runner and each experiment.

An experiment is a play (of any form) x conditions x repetitions. `studio lab run EXPERIMENT.toml` reads
the file, finds its kind here and asks it for the plan (every trial, each with a key that stays the same
from one run of the command to the next), runs the trials that are missing, at most `concurrency` at once,
recording each in the store's `lab_trials` table, and finally asks the kind for its report: tables and
figures that the runner renders as text, CSV, JSON, Markdown, terminal charts and image files.

A kind is a small object registered with `register`; the runner (`studio.lab.runner`) never needs to know
what a trial is.
The figures are plain data (bars with intervals, lines over steps, a radar of two profiles), so one
renderer draws them for every kind, in the terminal and as files.
"""

from __future__ import annotations

import math
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol


@dataclass(frozen=True)
class TrialSpec:
    """One trial of the plan. `key` is unique within the experiment and stable across reruns."""

    key: str
    condition: str  # the cell it belongs to, as reports group it ("cooperative vs tit_for_tat_c")
    rep: int
    params: dict[str, Any] = field(default_factory=dict)


class Grid(Sequence[TrialSpec]):
    """A plan of cells x repetitions whose trials are made when asked for, not held: `--reps 10000` over
    24 cells is 240,000 trials, and the runner reads them one at a time. `make(cell, rep)` makes one;
    the order is every repetition of the first cell, then of the next."""

    def __init__(self, cells: Sequence[Any], reps: int, make: Callable[[Any, int], TrialSpec]):
        self.cells, self.reps, self.make = list(cells), max(0, int(reps)), make

    def __len__(self) -> int:
        return len(self.cells) * self.reps

    def __getitem__(self, index: Any) -> Any:
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        if index < 0:
            index += len(self)
        if not 0 <= index < len(self):
            raise IndexError(index)
        return self.make(self.cells[index // self.reps], index % self.reps)

    def __iter__(self) -> Iterator[TrialSpec]:
        for cell in self.cells:
            for rep in range(self.reps):
                yield self.make(cell, rep)


@dataclass
class TrialContext:
    """What a trial may use. `run_id` is the run a previous, unfinished attempt of this trial started:
    the kind continues it from its last event instead of starting again. A kind calls `playing(engine)`
    before its run plays (or `started(run_id)` where it has no engine in hand) as soon as the run exists,
    so an interrupted trial can be continued and a caller can follow the run."""

    store: Any
    gateway: Any
    model: str
    spec: dict[str, Any]
    source: str  # the experiment file, for messages
    run_id: int | None = None
    started: Callable[[int], None] = lambda run_id: None
    playing: Callable[[Any], None] = lambda engine: None


@dataclass(frozen=True)
class Cell:
    """A figure with its interval, kept as numbers: the terminal and Markdown format it ("0.53 [0.41, 0.66]"),
    CSV and JSON spread it into numeric columns (`x`, `x_low`, `x_high`, `x_n`), so no report hands a
    reader a formatted string where a number belongs. `low`/`high` are None when there is no interval."""

    value: float | None
    low: float | None = None
    high: float | None = None
    n: int | None = None
    digits: int = 2

    def __str__(self) -> str:
        if self.value is None or (isinstance(self.value, float) and math.isnan(self.value)):
            return "-"
        text = f"{self.value:.{self.digits}f}"
        if self.low is not None and self.high is not None and not (math.isnan(self.low) or math.isnan(self.high)):
            text += f" [{self.low:.{self.digits}f}, {self.high:.{self.digits}f}]"
        return text


@dataclass
class Table:
    """`rows` hold plain values or `Cell`s; a column of Cells becomes four numeric columns in CSV and JSON."""

    title: str
    columns: list[str]
    rows: list[list[Any]]
    note: str = ""


@dataclass
class PaperFigure:
    """One figure a paper publishes, beside the studio's own measure of the same thing.

    `where` is the paper's table or figure ("Table 2"), `label` what it measures; `paper` is the published
    value (with its interval when the paper gives one), `studio` this experiment's (None: this experiment
    did not measure it, e.g. a group it left out)."""

    where: str
    label: str
    paper: Cell
    studio: Cell | None
    note: str = ""


@dataclass
class Reproduction:
    """The paper a kind reproduces, its published figures beside the studio's, as data."""

    paper: str  # authors, year and title
    source: str  # where the published figures were read (the paper's table, its repository's data)
    figures: list[PaperFigure] = field(default_factory=list)
    note: str = ""  # what the list leaves out and why (a scenario this experiment did not play)
    # Empty when the studio's figures can stand beside the paper's; else why they cannot, in words that
    # say "not a reproduction" (a scripted model's numbers, a model of 2B parameters or fewer).
    not_a_reproduction: str = ""


@dataclass
class Bars:
    """Bars with 95% intervals: `series` maps a series name to one (mean, low, high) per category."""

    name: str  # the file stem of the image
    title: str
    categories: list[str]
    series: dict[str, list[tuple[float, float, float]]]
    ylabel: str = ""


@dataclass
class Lines:
    """Values over steps (scenes, rounds): `series` maps a name to one value per step (None: not measured)."""

    name: str
    title: str
    steps: list[str]
    series: dict[str, list[float | None]]
    ylabel: str = ""
    scale: tuple[float, float] | None = None  # the values' range, when they have one (a 1-5 score)


@dataclass
class Radar:
    """Profiles over the same axes (designed vs measured Big Five), each value within `scale`."""

    name: str
    title: str
    axes: list[str]
    series: dict[str, list[float | None]]
    scale: tuple[float, float] = (1.0, 5.0)


Figure = Bars | Lines | Radar


@dataclass
class Report:
    title: str
    tables: list[Table] = field(default_factory=list)
    figures: list[Figure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # plain sentences: what the numbers can and cannot say
    # The protocol card: how the trials were run, step by step, and each way the run still differs from
    # the paper's protocol, one plain sentence each. Every kind that follows a paper fills it.
    protocol: list[str] = field(default_factory=list)
    paper: Reproduction | None = None


class Kind(Protocol):
    name: str
    summary: str  # one line for `studio lab run --help` and `studio lab status`

    def check(self, spec: dict[str, Any], source: str) -> dict[str, Any]:
        """Validate the experiment file's own table; raise InputError naming `source`, the field and the fix.
        Return the spec with defaults filled in."""

    def plan(self, spec: dict[str, Any]) -> Sequence[TrialSpec]:
        ...

    def run_trial(self, ctx: TrialContext, trial: TrialSpec) -> Awaitable[dict[str, Any]]:
        """Play one trial; return its result as JSON-able data (with `"run": id` if it made a run).
        Raise to fail it: the error is recorded and the other trials go on."""

    def report(self, spec: dict[str, Any], results: dict[str, dict[str, Any]]) -> Report:
        """Tables and figures from every finished trial's result (keyed by trial key)."""


KINDS: dict[str, Kind] = {}


def register(kind: Kind) -> Kind:
    KINDS[kind.name] = kind
    return kind
