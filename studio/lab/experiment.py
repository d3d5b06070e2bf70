"""The lab's general runner: an EXPERIMENT.toml read, checked, planned, run concurrently and resumably.

An experiment file names its kind (`studio.lab.kinds`) and the settings every kind shares; the kind's own
settings sit in a table of its name:

    kind = "pd"
    title = "The dilemma, a quick look"
    model = "scripted"
    reps = 2
    concurrency = 8
    # endpoints = ["http://127.0.0.1:8000/v1", "http://127.0.0.1:8001/v1"]  (one model on several servers)
    [pd]
    groups = ["cooperative", "competitive"]

The runner asks the kind to check its table and to plan the trials, each with a key that stays the same
from one run of the command to the next. It records every trial in the store's `lab_trials` table under
the experiment's name (`<file stem>:<model>`): running when it starts (with its run, once it has one),
then done with its result or failed with its error. A rerun skips what is done, gives a trial left running
or failed its run back so that it continues from its last event, and plays the rest. Trials run at once
up to `concurrency` (asyncio and a semaphore); the embedded model (`local/...`) takes one call at a time,
so it gets one slot. A trial that raises is recorded and the others go on.
"""

from __future__ import annotations

import asyncio
import time
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable

from studio.lab.kinds import KINDS, Kind, Report, TrialContext, TrialSpec
from studio.model import InputError

SHARED = ("kind", "title", "model", "reps", "concurrency", "endpoints", "max_parallel")
MOST_REPS = 10_000
MOST_CONCURRENCY = 256


def load_kinds() -> dict[str, Kind]:
    """Every kind that ships: importing a kind's module registers it."""
    import importlib

    for module in ("compare", "pd_kind", "game_kind", "interview_kind"):
        try:
            importlib.import_module(f"studio.lab.{module}")
        except ImportError as exc:  # an optional kind may be absent; a broken one must not hide
            if getattr(exc, "name", None) != f"studio.lab.{module}":
                raise
    return KINDS


@dataclass
class Experiment:
    path: Path
    kind: Kind
    spec: dict[str, Any]

    @property
    def name(self) -> str:
        return self.spec["name"]

    @property
    def title(self) -> str:
        return self.spec.get("title") or self.path.stem

    def gateway(self) -> Any:
        """The gateway its trials call through: with `endpoints`, one that spreads the model over those
        servers (a litellm Router, at most `max_parallel` calls in flight at each)."""
        from studio.llm import Gateway
        from studio.llm.router import router_from_table

        router = router_from_table(self.spec, self.spec["model"], str(self.path))
        return Gateway(routers=[router]) if router is not None else Gateway()


def experiment_name(path: str | Path, model: str) -> str:
    return f"{Path(path).stem}:{model}"


def load_experiment(path: str | Path, *, reps: int | None = None, concurrency: int | None = None,
                    model: str | None = None, endpoints: list[str] | None = None,
                    max_parallel: int | None = None) -> Experiment:
    """Read and check an experiment file; the command line's --reps, --concurrency, --model, --endpoint and
    --max-parallel win over it."""
    from studio.model.play import DEFAULT_MODEL

    path = Path(path)
    source = str(path)
    if not path.is_file():
        raise InputError(source, None, "no such experiment file",
                         "give the path of an EXPERIMENT.toml, e.g. experiments/pd_small.toml")
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except UnicodeDecodeError:
        raise InputError(source, None, "is not UTF-8 text", "save the file as UTF-8") from None
    except tomllib.TOMLDecodeError as exc:
        raise InputError(source, None, f"is not valid TOML ({exc})", "fix the line it names") from None
    kinds = load_kinds()
    kind_name = data.get("kind")
    if not isinstance(kind_name, str) or not kind_name:
        raise InputError(source, "kind", "is missing", f"add kind = \"pd\" (one of: {', '.join(sorted(kinds))})")
    if kind_name not in kinds:
        raise InputError(source, "kind", f"{kind_name!r} is not a kind of experiment",
                         f"use one of: {', '.join(sorted(kinds))}")
    kind = kinds[kind_name]
    for key, value in data.items():
        if key in SHARED or key == kind_name:
            continue
        if isinstance(value, dict):
            raise InputError(source, key, f"is a table, but this is a {kind_name} experiment",
                             f"put the kind's settings under [{kind_name}]")
        raise InputError(source, key, "is not a setting of an experiment",
                         f"use only {', '.join(SHARED)} and a [{kind_name}] table")
    if kind_name in data and not isinstance(data[kind_name], dict):
        raise InputError(source, kind_name, "must be a table", f"write [{kind_name}] on a line of its own above its settings")
    title = data.get("title", "")
    if not isinstance(title, str):
        raise InputError(source, "title", f"must be text, not {title!r}", 'e.g. title = "A quick look"')
    chosen_model = model or data.get("model") or DEFAULT_MODEL
    if not isinstance(chosen_model, str):
        raise InputError(source, "model", f"must be a model's name, not {chosen_model!r}", 'e.g. model = "local/smollm2"')
    from studio.llm import check_model

    problem = check_model(chosen_model)
    if problem:
        raise InputError("--model" if model else source, "model", problem, "see 'studio models'")
    numbers = {"reps": (reps, data.get("reps", 1), MOST_REPS), "concurrency": (concurrency, data.get("concurrency", 8), MOST_CONCURRENCY)}
    chosen: dict[str, int] = {}
    for key, (given, written, most) in numbers.items():
        value = given if given is not None else written
        where = f"--{key}" if given is not None else source
        if not isinstance(value, int) or isinstance(value, bool) or not 1 <= value <= most:
            raise InputError(where, key, f"must be a whole number from 1 to {most}, not {value!r}",
                             f"e.g. {key} = {3 if key == 'reps' else 8}")
        chosen[key] = value
    from studio.llm.router import check_endpoints, check_routable, make_router, router_from_table

    if endpoints:  # the command line's servers replace the file's, checked as the flag's
        check_routable(chosen_model, "--endpoint", None)
        data = {**data, "endpoints": list(check_endpoints(endpoints, "--endpoint", None))}
    if max_parallel is not None:
        if not data.get("endpoints"):
            raise InputError("--max-parallel", None, "is given but no endpoints are", "add --endpoint URL (repeatable)")
        make_router(chosen_model, data["endpoints"], max_parallel, where="--max-parallel", field_name=None)
        data = {**data, "max_parallel": max_parallel}
    router_from_table(data, chosen_model, source)  # endpoints checked now: bad ones are bad input, named
    served = {k: data[k] for k in ("endpoints", "max_parallel") if k in data}
    spec = {**{k: v for k, v in data.items() if k == kind_name}, "kind": kind_name, "title": title,
            "model": chosen_model, **chosen, **served, "name": experiment_name(path, chosen_model)}
    spec = kind.check(spec, source)
    return Experiment(path, kind, spec)


@dataclass
class Tally:
    """What the progress bar shows: trials planned, done, running, failed, tokens used, time."""

    total: int
    done: int = 0
    running: int = 0
    failed: int = 0
    skipped: int = 0  # done before this run began
    tokens: int = 0
    calls: int = 0
    began: float = field(default_factory=time.monotonic)
    current: str = ""

    @property
    def elapsed(self) -> float:
        return time.monotonic() - self.began

    @property
    def estimate(self) -> float | None:
        """Seconds until every trial has run, at this run's pace so far (None before the first finishes)."""
        finished = self.done - self.skipped + self.failed
        if finished <= 0:
            return None
        left = self.total - self.done - self.failed
        return self.elapsed / finished * max(0, left)


class CountingGateway:
    """The gateway every trial of one run shares, counting calls and tokens for the progress bar."""

    def __init__(self, inner: Any, tally: Tally, changed: Callable[[], None]):
        self.inner = inner
        self.tally = tally
        self.changed = changed

    async def complete(self, settings, messages, ctx, on_token=None, on_retry=None):
        completion = await self.inner.complete(settings, messages, ctx, on_token=on_token, on_retry=on_retry)
        usage = completion.usage or {}
        self.tally.calls += 1
        self.tally.tokens += int(usage.get("prompt_tokens", 0) or 0) + int(usage.get("completion_tokens", 0) or 0)
        self.changed()
        return completion

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


@dataclass
class Outcome:
    experiment: Experiment
    report: Report
    finished: dict[str, dict[str, Any]]
    failed: dict[str, str]
    tally: Tally


def slots(model: str, concurrency: int) -> int:
    """Trials at once: the embedded model runs one call at a time, so it gets one."""
    return 1 if model.startswith("local/") else max(1, concurrency)


async def run_experiment(store: Any, experiment: Experiment, *, gateway: Any = None,
                         progress: Callable[[Tally], None] | None = None) -> Outcome:
    """Play what is missing of the experiment, at most `concurrency` trials at once; report on all of it."""
    from studio.lab.trials import Trials

    if gateway is None:
        gateway = experiment.gateway()
    spec, kind, name = experiment.spec, experiment.kind, experiment.name
    trials = Trials(store)
    plan = list(kind.plan(spec))
    done = trials.done(name)
    begun = trials.started(name)  # left running by a crash or Ctrl-C, or failed: their runs go on
    todo = [t for t in plan if t.key not in done]
    tally = Tally(total=len(plan), done=len(plan) - len(todo), skipped=len(plan) - len(todo))

    def changed() -> None:
        if progress is not None:
            progress(tally)

    shared = CountingGateway(gateway, tally, changed)
    gate = asyncio.Semaphore(slots(spec["model"], int(spec.get("concurrency", 8))))

    stopping: list[BaseException] = []  # a crash or Ctrl-C in one trial: no other trial begins after it

    async def one(trial: TrialSpec) -> None:
        async with gate:
            if stopping:
                return
            run_of: dict[str, Any] = {"run": (begun.get(trial.key) or {}).get("run")}
            trials.record(name, trial.key, "running", {"run": run_of["run"]} if run_of["run"] else None)

            def started(run_id: int) -> None:
                run_of["run"] = run_id
                trials.record(name, trial.key, "running", {"run": run_id})

            ctx = TrialContext(store=store, gateway=shared, model=spec["model"], spec=spec,
                               source=str(experiment.path), run_id=run_of["run"], started=started)
            tally.running += 1
            tally.current = trial.key
            changed()
            try:
                result = await kind.run_trial(ctx, trial)
            except Exception as exc:  # recorded with its error (and its run, to continue); the others go on
                trials.record(name, trial.key, "failed", {"run": run_of["run"]} if run_of["run"] else None,
                              error=(str(exc) or type(exc).__name__)[:500])
                tally.failed += 1
            except BaseException as stop:  # Ctrl-C, cancellation: the trial stays "running", to go on next time
                stopping.append(stop)
                raise
            else:
                trials.record(name, trial.key, "done", result)
                tally.done += 1
            finally:
                tally.running -= 1
                changed()

    changed()
    await asyncio.gather(*(one(t) for t in todo))
    wanted = {t.key for t in plan}
    finished = {k: v for k, v in trials.done(name).items() if k in wanted}
    failed = {k: v for k, v in trials.failed(name).items() if k in wanted}
    return Outcome(experiment, kind.report(spec, finished), finished, failed, tally)


def report_of(store: Any, experiment: Experiment, widen: bool = True) -> Outcome:
    """The report on what is recorded so far, playing nothing. With `widen`, repetitions run beyond the
    file's `reps` (`lab run --reps 10` on a file that says 3) are in it too."""
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
    return Outcome(experiment, experiment.kind.report(experiment.spec, finished), finished, failed, tally)


def find_experiment(name: str, folder: str | Path = "experiments") -> Path:
    """EXPERIMENT as a path, or the name of a file under experiments/ (with or without .toml)."""
    path = Path(name)
    if path.is_file():
        return path
    for candidate in (Path(folder) / name, Path(folder) / f"{name}.toml"):
        if candidate.is_file():
            return candidate
    shipped = sorted(p.stem for p in Path(folder).glob("*.toml")) if Path(folder).is_dir() else []
    raise InputError(name, None, "is neither an experiment file nor the name of one under experiments/",
                     f"use one of: {', '.join(shipped)}" if shipped else "give the path of an EXPERIMENT.toml")
