"""The lab screen: every experiment in the store, live, and each trial's run one key away.

It reads the store's `lab_trials` table (what `studio lab run`, `lab pd`, `compare --reps` and
`lab game` record as they go) once a second, so an experiment running in another terminal shows here as
it runs: trials done, running and failed, the tokens spent, the time since it started and an estimate of
what is left. Enter on a trial that made a run opens that run like any other; a failed trial shows its
error. Nothing here changes the store.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass, field
from typing import Any

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.widgets import Footer, Label, OptionList, Static
from textual.widgets.option_list import Option

from studio.tui.studio_view import StudioScreen

REFRESH_SECONDS = 1.0


@dataclass
class TrialRow:
    key: str
    status: str  # planned, running, done, failed
    run: int | None
    error: str | None
    tokens: int
    updated: float


@dataclass
class Experiment:
    name: str
    trials: list[TrialRow] = field(default_factory=list)

    def count(self, status: str) -> int:
        return sum(1 for t in self.trials if t.status == status)

    @property
    def tokens(self) -> int:
        return sum(t.tokens for t in self.trials)

    @property
    def elapsed(self) -> float:
        stamps = [t.updated for t in self.trials]
        return (max(stamps) - min(stamps)) if len(stamps) > 1 else 0.0

    def estimate(self, now: float) -> float | None:
        """Seconds left at the pace so far, when something is still to do and something has finished."""
        left = self.count("running") + self.count("planned")
        finished = [t.updated for t in self.trials if t.status in ("done", "failed")]
        if not left or len(finished) < 2:
            return None
        pace = (max(finished) - min(finished)) / (len(finished) - 1)
        return pace * left


def _tokens(result: dict[str, Any]) -> int:
    usage = result.get("usage") if isinstance(result, dict) else None
    if not isinstance(usage, dict):
        return 0
    total = 0
    for key in ("prompt_tokens", "completion_tokens"):
        value = usage.get(key)
        if isinstance(value, (int, float)):
            total += int(value)
    return total


def _run_tokens(store: Any, runs: list[int]) -> dict[int, int]:
    """Tokens every call of these runs recorded, in one query."""
    if not runs:
        return {}
    marks = ",".join("?" * len(runs))
    with store.lock:
        rows = store.conn.execute(
            "SELECT run_id, SUM(COALESCE(json_extract(usage, '$.prompt_tokens'), 0) + "
            f"COALESCE(json_extract(usage, '$.completion_tokens'), 0)) FROM events WHERE run_id IN ({marks}) "
            "GROUP BY run_id", runs).fetchall()
    return {int(r): int(t or 0) for r, t in rows}


def read_experiments(store: Any, cache: dict[int, int] | None = None, tokens: bool = True) -> list[Experiment]:
    """Every experiment in the store with its trials, newest activity first. An old store without the
    lab's table has none. A trial that made a run and recorded no usage of its own counts its run's
    tokens; `cache` keeps those of finished trials between refreshes."""
    with store.lock:
        known = store.conn.execute(
            "SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'lab_trials'").fetchone()
        if not known:
            return []
        rows = store.conn.execute(
            "SELECT experiment, key, status, result, error, updated FROM lab_trials ORDER BY experiment, key"
        ).fetchall()
    out: dict[str, Experiment] = {}
    for experiment, key, status, result, error, updated in rows:
        try:
            data = json.loads(result or "{}")
        except json.JSONDecodeError:
            data = {}
        run = data.get("run") if isinstance(data, dict) else None
        row = TrialRow(str(key), str(status), run if isinstance(run, int) else None, error,
                       _tokens(data), float(updated or 0))
        out.setdefault(str(experiment), Experiment(str(experiment))).trials.append(row)
    if not tokens:  # the picker only asks which runs are trials
        return list(out.values())
    cache = {} if cache is None else cache
    wanted = [(t.run, t) for e in out.values() for t in e.trials if t.run is not None and not t.tokens]
    missing = sorted({run for run, t in wanted if run not in cache or t.status != "done"})
    found = _run_tokens(store, missing)
    for run, trial in wanted:
        if run in found:
            cache[run] = found[run]
        trial.tokens = cache.get(run, 0)
    return sorted(out.values(), key=lambda e: -max((t.updated for t in e.trials), default=0))


def _duration(seconds: float) -> str:
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds} s"
    if seconds < 3600:
        return f"{seconds // 60} min {seconds % 60:02d} s"
    return f"{seconds // 3600} h {seconds % 3600 // 60:02d} min"


def summary(experiment: Experiment, now: float | None = None) -> Text:
    """One experiment's progress, the figures `studio lab run` shows on its bar."""
    now = time.time() if now is None else now
    text = Text()
    text.append(f"{experiment.count('done')} done", style="green")
    text.append(f" · {experiment.count('running')} running", style="yellow" if experiment.count("running") else "dim")
    failed = experiment.count("failed")
    text.append(f" · {failed} failed", style="bold red" if failed else "dim")
    if experiment.count("planned"):
        text.append(f" · {experiment.count('planned')} to run")
    text.append(f" · {experiment.tokens:,} tokens · {_duration(experiment.elapsed)}", style="dim")
    left = experiment.estimate(now)
    if left is not None:
        text.append(f" · about {_duration(left)} left")
    return text


_MARKS = {"done": ("✓", "green"), "running": ("…", "yellow"), "failed": ("✗", "bold red"), "planned": ("·", "dim")}


def trial_label(trial: TrialRow) -> Text:
    mark, style = _MARKS.get(trial.status, ("?", ""))
    text = Text(f"{mark} ", style=style)
    text.append(trial.key)
    text.append(f"  {trial.status}", style=style)
    if trial.run is not None:
        text.append(f"  · run {trial.run}", style="bold")
    if trial.tokens:
        text.append(f"  · {trial.tokens:,} tokens", style="dim")
    if trial.error:
        text.append(f"\n    {trial.error.splitlines()[0][:160]}", style="red")
    return text


class LabScreen(StudioScreen[None]):
    """Experiments on the left, the highlighted one's trials on the right; refreshed every second."""

    BINDINGS = [
        Binding("escape", "back", "Back", id="lab-back"),
        Binding("tab", "switch_list", "Experiments/trials", show=False),
    ]
    DEFAULT_CSS = """
    #lab-body { height: 1fr; }
    #lab-experiments { width: 2fr; }
    #lab-trials { width: 3fr; }
    #lab-summary { height: auto; padding: 0 1; }
    """

    def __init__(self) -> None:
        super().__init__()
        self._experiments: list[Experiment] = []
        self._chosen: str | None = None
        self._tokens: dict[int, int] = {}  # finished trials' run tokens, read once

    def compose(self) -> ComposeResult:
        with Vertical(id="lab"):
            yield Label("studio · the lab: experiments in this store, live", classes="dialog-title")
            yield Static(id="lab-summary")
            with Horizontal(id="lab-body"):
                yield OptionList(id="lab-experiments")
                yield OptionList(id="lab-trials")
            yield Label("↑↓ an experiment · Tab its trials · Enter opens a trial's run · Esc back. Start one with "
                        "'studio lab run EXPERIMENT.toml' in another terminal: it shows here as it runs.",
                        classes="dialog-help")
        yield Footer()

    def on_mount(self) -> None:
        self.refresh_lab()
        self.set_interval(REFRESH_SECONDS, self.refresh_lab)
        self.query_one("#lab-experiments", OptionList).focus()

    def refresh_lab(self) -> None:
        self._experiments = read_experiments(self.studio.store, self._tokens)
        names = [e.name for e in self._experiments]
        listing = self.query_one("#lab-experiments", OptionList)
        keep = self._chosen if self._chosen in names else (names[0] if names else None)
        highlighted = listing.highlighted
        listing.clear_options()
        if not self._experiments:
            listing.add_option(Option(Text("no experiments in this store yet", style="dim"), disabled=True))
        for experiment in self._experiments:
            label = Text(experiment.name, style="bold")
            label.append("\n")
            label.append_text(summary(experiment))
            listing.add_option(Option(label, id=f"exp:{experiment.name}"))
        if keep is not None:
            listing.highlighted = names.index(keep)
        elif highlighted is not None and listing.option_count:
            listing.highlighted = min(highlighted, listing.option_count - 1)
        self._show(keep)

    def _show(self, name: str | None) -> None:
        self._chosen = name
        experiment = next((e for e in self._experiments if e.name == name), None)
        head = self.query_one("#lab-summary", Static)
        trials = self.query_one("#lab-trials", OptionList)
        at = trials.highlighted
        trials.clear_options()
        if experiment is None:
            head.update(Text("Nothing has run here yet. Try: studio lab run experiments/pd_small.toml --model scripted",
                             style="dim"))
            return
        line = Text(f"{experiment.name}: ", style="bold")
        line.append_text(summary(experiment))
        head.update(line)
        order = {"running": 0, "failed": 1, "planned": 2, "done": 3}
        for trial in sorted(experiment.trials, key=lambda t: (order.get(t.status, 4), t.key)):
            trials.add_option(Option(trial_label(trial), id=f"trial:{trial.key}"))
        if at is not None and trials.option_count:
            trials.highlighted = min(at, trials.option_count - 1)

    @on(OptionList.OptionHighlighted, "#lab-experiments")
    def _highlighted(self, event: OptionList.OptionHighlighted) -> None:
        kind, _, name = (event.option.id or "").partition(":")
        if kind == "exp" and name != self._chosen:
            self.query_one("#lab-trials", OptionList).highlighted = None
            self._show(name)

    @on(OptionList.OptionSelected, "#lab-experiments")
    def _to_trials(self, event: OptionList.OptionSelected) -> None:
        self._focus_trials()

    def _focus_trials(self) -> None:
        trials = self.query_one("#lab-trials", OptionList)
        if trials.highlighted is None and trials.option_count:
            trials.highlighted = 0  # Enter right after Tab opens the first trial, not nothing
        trials.focus()

    @on(OptionList.OptionSelected, "#lab-trials")
    def _open(self, event: OptionList.OptionSelected) -> None:
        key = (event.option.id or "").partition(":")[2]
        experiment = next((e for e in self._experiments if e.name == self._chosen), None)
        trial = next((t for t in experiment.trials if t.key == key), None) if experiment else None
        if trial is None:
            return
        if trial.run is None:
            why = trial.error or "this trial kept no run (its result is in the report)"
            self.notify(why, title=f"{trial.key}: no run to open", severity="warning", markup=False)
            return
        self.studio.open_run(trial.run)

    def action_switch_list(self) -> None:
        experiments = self.query_one("#lab-experiments", OptionList)
        trials = self.query_one("#lab-trials", OptionList)
        if trials.has_focus:
            experiments.focus()
        else:
            self._focus_trials()

    def action_back(self) -> None:
        self.app.pop_screen()
