"""The lab's one runner: every trial of every kind, from `studio lab run`, `lab pd`, `lab game`, `lab interview`
and `studio compare`, is played here.

A command builds an experiment (a kind, its checked settings, a name) and hands it over. The runner asks
the kind for the plan, skips the trials the store's `lab_trials` table has as done, and plays the rest at
most `concurrency` at once (asyncio and a semaphore; the embedded model takes one call at a time, so it
gets one slot; several servers of one model are a litellm Router inside the gateway). Each trial is a run
of the engine: it is recorded as running as soon as its run exists, then done with its result or failed
with its error, and the others go on. A trial cut off (a crash, Ctrl-C) or failed keeps its run, and the
next attempt continues that run from its last event instead of starting again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING, Any

from studio.lab.kinds import Report, TrialContext, TrialSpec

if TYPE_CHECKING:
    from studio.lab.experiment import Experiment


@dataclass
class Tally:
    """What the progress line shows: trials planned, done, running, failed, tokens used, time."""

    total: int
    done: int = 0
    running: int = 0
    failed: int = 0
    skipped: int = 0  # done before this run began
    elsewhere: int = 0  # done meanwhile by another runner of the same experiment
    tokens: int = 0
    calls: int = 0
    began: float = field(default_factory=time.monotonic)
    current: str = ""

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.began

    @property
    def played(self) -> int:
        """Trials finished by this run of the command."""
        return self.done - self.skipped - self.elsewhere

    @property
    def estimate(self) -> float | None:
        """Seconds until every trial has run, at this run's pace so far (None before the first finishes)."""
        finished = self.played + self.failed
        if finished <= 0:
            return None
        left = self.total - self.done - self.failed
        return self.elapsed / finished * max(0, left)


class CountingGateway:
    """The gateway every trial of one run shares, counting calls and tokens for the progress line.

    Trials play unattended: nobody watches a trial's words arrive, so every call is asked for whole
    rather than streamed (the engine offers a listener for the app's sake), which costs litellm about a
    third of the CPU of a stream; with many trials at once the client's CPU is what limits them."""

    def __init__(self, inner: Any, tally: Tally, changed: Callable[[], None]):
        self.inner = inner
        self.tally = tally
        self.changed = changed

    async def complete(self, settings: Any, messages: Any, ctx: Any, on_token: Any = None, on_retry: Any = None) -> Any:
        completion = await self.inner.complete(settings, messages, ctx, on_token=None, on_retry=on_retry)
        usage = completion.usage or {}
        self.tally.calls += 1
        self.tally.tokens += int(usage.get("prompt_tokens", 0) or 0) + int(usage.get("completion_tokens", 0) or 0)
        self.changed()
        return completion

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class Outcome:
    """What an experiment has so far: every finished trial's result and every failure's error, by key."""

    experiment: Experiment
    finished: dict[str, dict[str, Any]]
    failed: dict[str, str]
    tally: Tally
    runs: dict[str, int] = field(default_factory=dict)  # the run of every trial begun, finished or not

    @cached_property
    def report(self) -> Report:
        """The kind's report on the finished trials, made when asked for: its statistics are not the
        runner's cost, and a command that reads the results itself never pays for them. A reproduction by a
        scripted or small model says it is none (studio.lab.papers.judged)."""
        from studio.lab.papers import judged

        return judged(self.experiment.kind.report(self.experiment.spec, self.finished), self.experiment.spec)


def slots(model: str | None, concurrency: int) -> int:
    """Trials at once: the embedded model runs one call at a time, so it gets one."""
    return 1 if (model or "").startswith("local/") else max(1, concurrency)


async def run_experiment(store: Any, experiment: Experiment, *, gateway: Any = None,
                         progress: Callable[[Tally], None] | None = None,
                         on_trial: Callable[[TrialSpec], None] | None = None,
                         on_engine: Callable[[TrialSpec, Any], None] | None = None) -> Outcome:
    """Play what is missing of the experiment, at most `concurrency` trials at once; report on all of it.

    `progress(tally)` hears every change of the counts; `on_trial(trial)` is told as a trial begins and
    `on_engine(trial, engine)` as its run is about to play, so a caller can follow the run's events.
    """
    from studio.lab.trials import Trials

    if gateway is None:
        gateway = experiment.gateway()
    trials = Trials(store)
    # The plan is read one trial at a time, never held whole: at `--reps 10000` it is 240,000 trials, and
    # only a few are in hand at once (bench/bench_lab_plan.py measures what is held before the first).
    plan = experiment.kind.plan(experiment.spec)
    done = trials.done_keys(experiment.name)
    skipped = sum(1 for t in plan if t.key in done) if done else 0
    todo = (t for t in plan if t.key not in done)
    playing = _Pass(store, experiment, trials, Tally(total=len(plan), done=skipped, skipped=skipped), gateway,
                    progress, on_trial, on_engine)
    await playing.play(todo)
    wanted = {t.key for t in plan}  # once the trials are played: what the report is on
    finished = {k: v for k, v in trials.done(experiment.name).items() if k in wanted}
    failed = {k: v for k, v in trials.failed(experiment.name).items() if k in wanted}
    for key, record in finished.items():
        if record.get("run"):
            playing.runs.setdefault(key, int(record["run"]))
    return Outcome(experiment, finished, failed, playing.tally, playing.runs)


class _Pass:
    """One runner's pass over an experiment's trials: the leases it takes, the runs it begins, the trials
    it passes by because another runner has them, and the crash or Ctrl-C after which no trial begins."""

    def __init__(self, store: Any, experiment: Experiment, trials: Any, tally: Tally, gateway: Any,
                 progress: Callable[[Tally], None] | None, on_trial: Callable[[TrialSpec], None] | None,
                 on_engine: Callable[[TrialSpec, Any], None] | None):
        from studio.lab import trials as claims

        self.store, self.experiment, self.trials, self.tally = store, experiment, trials, tally
        self.progress, self.on_trial, self.on_engine = progress, on_trial, on_engine
        self.name = experiment.name
        self.owner = claims.runner_name()  # what this runner's leases on trials are taken under
        self.runs: dict[str, int] = {}
        self.shared = CountingGateway(gateway, tally, self.changed)
        spec = experiment.spec
        self.width = slots(spec.get("model"), int(spec.get("concurrency", 8)))
        self.gate = asyncio.Semaphore(self.width)
        self.stopping: list[BaseException] = []  # a crash or Ctrl-C in one trial: no other trial begins after it
        self.passed: list[TrialSpec] = []  # trials another runner had done or was playing when this one came to them

    def changed(self) -> None:
        if self.progress is not None:
            self.progress(self.tally)

    async def play(self, todo: Iterator[TrialSpec]) -> None:
        """Every trial of `todo` played here or by another runner, waiting for what others are playing
        and taking over what a runner that died left once its lease runs out."""
        from studio.lab import trials as claims

        self.changed()
        beating = self.trials.heartbeat(self.owner)
        try:
            pending: Iterator[TrialSpec] = todo
            while not self.stopping:
                self.passed.clear()
                await asyncio.gather(*(self.worker(pending) for _ in range(self.width)))
                # What other runners were playing: wait for it, and take over what a runner that died left
                # once its lease runs out, so every runner ends with the whole experiment and one report.
                ended = self.trials.done_keys(self.name)
                others = sum(1 for t in self.passed if t.key in ended)
                self.tally.elsewhere += others
                self.tally.done += others
                self.changed()
                left = self.trials.running(self.name)
                waiting = [t for t in self.passed if t.key in left]
                if not waiting:
                    break
                if {t.key for t in waiting} <= self.trials.held(self.name, self.owner):
                    await asyncio.sleep(min(1.0, claims.LEASE / 10))
                pending = iter(waiting)
        finally:
            beating.set()
            self.trials.release(self.owner)

    async def worker(self, trials_left: Iterator[TrialSpec]) -> None:
        for trial in trials_left:  # the workers share one iterator: each takes the next trial
            if self.stopping:
                return
            await self.one(trial)

    async def one(self, trial: TrialSpec) -> None:
        async with self.gate:
            if self.stopping:
                return
            # done meanwhile, or leased by another runner whose lease holds: not this runner's to play now.
            # A trial left running by a crash or Ctrl-C, or failed, is taken again and its run goes on.
            claimed = self.trials.claim(self.name, trial.key, self.owner)
            if claimed is None:
                self.passed.append(trial)
                return
            earlier = claimed.get("run")
            if earlier:
                self.runs[trial.key] = earlier
            ctx = self.context(trial, earlier)
            self.tally.running += 1
            self.tally.current = trial.key
            if self.on_trial is not None:
                self.on_trial(trial)
            self.changed()
            try:
                result = await self.experiment.kind.run_trial(ctx, trial)
            except Exception as exc:  # recorded with its error (and its run, to continue); the others go on
                run = self.runs.get(trial.key)
                if self.trials.record(self.name, trial.key, "failed", {"run": run} if run else None,
                                      error=(str(exc) or type(exc).__name__)[:500], owner=self.owner):
                    self.tally.failed += 1
            except BaseException as stop:  # Ctrl-C, cancellation: the trial stays "running", to go on next time
                self.stopping.append(stop)
                raise
            else:
                if self.trials.record(self.name, trial.key, "done", result, owner=self.owner):
                    self.tally.done += 1
                else:  # taken over while this runner was starved: the runner that holds it records it
                    self.passed.append(trial)
            finally:
                self.tally.running -= 1
                self.changed()

    def context(self, trial: TrialSpec, earlier: int | None) -> TrialContext:
        """What the kind plays the trial with; the trial is recorded as running as soon as its run exists."""

        def started(run_id: int) -> None:
            self.runs[trial.key] = run_id
            self.trials.record(self.name, trial.key, "running", {"run": run_id}, owner=self.owner)

        def playing(engine: Any) -> None:
            if self.runs.get(trial.key) != engine.run_id:
                started(engine.run_id)
            if self.on_engine is not None:
                self.on_engine(trial, engine)

        spec = self.experiment.spec
        return TrialContext(store=self.store, gateway=self.shared, model=spec.get("model") or "", spec=spec,
                            source=self.experiment.where, run_id=earlier, started=started, playing=playing)


def report_of(store: Any, experiment: Experiment, widen: bool = True) -> Outcome:
    """The report on what is recorded so far, playing nothing. With `widen`, repetitions run beyond the
    file's `reps` (`lab run --reps 10` on a file that says 3) are in it too."""
    from studio.lab.experiment import MOST_REPS
    from studio.lab.trials import Trials

    trials = Trials(store)
    done = trials.done(experiment.name)
    reps = int(experiment.spec.get("reps", 1))
    while widen and reps < MOST_REPS and set(done) - {t.key for t in experiment.kind.plan({**experiment.spec, "reps": reps})}:
        reps = min(MOST_REPS, reps * 2)
    if reps != experiment.spec.get("reps"):
        ran = [t.rep for t in experiment.kind.plan({**experiment.spec, "reps": reps}) if t.key in done]
        experiment.spec["reps"] = max(ran + [int(experiment.spec.get("reps", 1)) - 1]) + 1
    wanted = {t.key for t in experiment.kind.plan(experiment.spec)}
    finished = {k: v for k, v in trials.done(experiment.name).items() if k in wanted}
    failed = {k: v for k, v in trials.failed(experiment.name).items() if k in wanted}
    tally = Tally(total=len(wanted), done=len(finished), failed=len(failed), skipped=len(finished))
    return Outcome(experiment, finished, failed, tally)


def run_sync(store: Any, experiment: Experiment, **options: Any) -> Outcome:
    """`run_experiment` from synchronous code (the commands), in an event loop of its own."""
    return asyncio.run(run_experiment(store, experiment, **options))
