"""`studio lab run EXPERIMENT.toml`, `studio lab report EXPERIMENT` and the experiments' part of `lab status`."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import Any

from studio.commands.common import db_option, model_name
from studio.lab.render import FORMATS


def register(labs: Any) -> None:
    run = labs.add_parser("run", help="run an experiment file (EXPERIMENT.toml): what is missing of it, concurrently")
    run.add_argument("experiment", metavar="EXPERIMENT", help="the experiment file, or its name under experiments/")
    _shared(run)
    run.add_argument("--concurrency", type=int, default=None, metavar="K",
                     help="trials at once (default: the file's, else 8; the embedded model: 1)")
    run.add_argument("--endpoint", action="append", default=[], metavar="URL",
                     help="a server of the model (repeatable), instead of the file's endpoints, e.g. http://127.0.0.1:8000/v1")
    run.add_argument("--max-parallel", type=int, default=None, metavar="N",
                     help="with endpoints: calls in flight at each server at most (default: the file's, else 4)")
    run.add_argument("--json", action="store_true", help="print the report as JSON instead of tables")
    db_option(run)
    report = labs.add_parser("report", help="an experiment's report: tables, CSV, JSON, Markdown or plot files")
    report.add_argument("experiment", metavar="EXPERIMENT", help="the experiment file, or its name under experiments/")
    _shared(report)
    report.add_argument("--format", choices=FORMATS, default="table",
                        help="table (default), csv, json, md (Markdown with PNG plots beside it), png or svg")
    report.add_argument("--paper", action="store_true",
                        help="only the reproduction: each figure the paper publishes beside the studio's, and the "
                             "protocol card saying how this run differs from the paper's")
    report.add_argument("--out", default=None, metavar="PATH",
                        help="the file to write (csv, json, md) or the folder for plots (png, svg); default: "
                             "print csv/json, and write md/png/svg under reports/")
    db_option(report)


def _shared(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--reps", type=int, default=None, metavar="N", help="repetitions (default: the file's)")
    parser.add_argument("--model", type=model_name, default=None, metavar="M", help="the model (default: the file's, else local/smollm2)")
    parser.add_argument("--continue", dest="go_on", action="store_true",
                        help="go on with the trials recorded before the file was edited, instead of starting "
                             "the edited experiment afresh")


def experiments_folder() -> Path:
    """experiments/ in the working folder, else the one that ships beside the studio package."""
    import studio

    for root in (Path.cwd(), Path(studio.__file__).resolve().parent.parent):
        if (root / "experiments").is_dir():
            return root / "experiments"
    return Path("experiments")


def _load(args: argparse.Namespace) -> Any:
    from studio.lab.experiment import find_experiment, load_experiment

    path = find_experiment(args.experiment, experiments_folder())
    return load_experiment(path, reps=args.reps, concurrency=getattr(args, "concurrency", None), model=args.model,
                           endpoints=getattr(args, "endpoint", None) or None,
                           max_parallel=getattr(args, "max_parallel", None), playing=args.lab_command != "report")


def run(args: argparse.Namespace, open_store: Any, console: Any) -> int:
    experiment = _load(args)  # bad input is found before the store is opened
    store = open_store(args.db)
    _identify(args, store, experiment)
    if args.lab_command == "report":
        return _report(args, store, console, experiment)
    from studio.lab.render import to_console, to_json
    from studio.lab.runner import run_sync

    err = console.__class__(stderr=True, highlight=False)
    try:
        with _Bar(err, experiment) as bar:
            outcome = run_sync(store, experiment, progress=bar.update)
    except KeyboardInterrupt:
        print("Stopped. Every finished trial is kept; the same command plays only what is missing "
              "and continues a trial left unfinished.", file=sys.stderr)
        return 130
    tally = outcome.tally
    if args.json:
        print(to_json(outcome.report, {"experiment": experiment.name, "file": str(experiment.path),
                                       "done": len(outcome.finished), "failed": outcome.failed,
                                       "played_now": tally.played, "tokens": tally.tokens}))
    else:
        to_console(outcome.report, console)
    print(f"{experiment.name}: {len(outcome.finished)} of {tally.total} trials done ({tally.played} "
          f"now, in {tally.elapsed:.1f} s, {tally.tokens} tokens), {len(outcome.failed)} failed.", file=sys.stderr)
    if outcome.failed:
        key, error = next(iter(sorted(outcome.failed.items())))
        print(f"studio: {len(outcome.failed)} trials failed (e.g. {key}: {error}); run the same command again "
              "to retry them.", file=sys.stderr)
        return 1
    return 0


def _identify(args: argparse.Namespace, store: Any, experiment: Any) -> None:
    """An edited experiment file is a new experiment; say so when the file's earlier settings have trials,
    or, with --continue, take the earlier experiment's name and go on with its trials."""
    from studio.lab.experiment import earlier
    from studio.lab.trials import Trials

    before = earlier(store, experiment)
    if before is None or experiment.name in {name for name, *_ in Trials(store).experiments()}:
        if getattr(args, "go_on", False) and before is None:
            print(f"studio: nothing recorded from {experiment.path.name} under other settings; "
                  f"--continue changes nothing ({experiment.name}).", file=sys.stderr)
        return
    if getattr(args, "go_on", False):
        print(f"studio: --continue: going on with {before}, recorded before {experiment.path.name} was edited "
              f"(these settings alone are {experiment.name}).", file=sys.stderr)
        experiment.spec["name"] = before
    else:
        print(f"studio: {experiment.path.name} has changed since its trials were recorded as {before}; these "
              f"settings are a new experiment, {experiment.name}. Add --continue to go on with the earlier "
              "one's trials instead.", file=sys.stderr)


def _report(args: argparse.Namespace, store: Any, console: Any, experiment: Any) -> int:
    from studio.lab import render
    from studio.lab.runner import report_of
    from studio.model import InputError
    from studio.model.outside_file import refuse_unwritable

    if args.out:  # before anything is read: a pipe named here would be waited on at the end
        refuse_unwritable(args.out, "--out", f"name a file or folder, e.g. --out reports/{experiment.path.stem}.md")
    outcome = report_of(store, experiment, widen=args.reps is None)
    if not outcome.finished:
        raise InputError(str(experiment.path), None, f"has no finished trials yet under {experiment.name}",
                         f"run it first: studio lab run {experiment.path}" + (f" --model {args.model}" if args.model else ""))
    fmt, out = args.format, args.out
    stem = experiment.path.stem
    print(f"Experiment {experiment.name}.", file=sys.stderr)
    header = [f"Experiment `{experiment.path.name}` ({experiment.spec['kind']}) on `{experiment.spec['model']}`, "
              f"recorded as `{experiment.name}`: "
              f"{len(outcome.finished)} of {outcome.tally.total} trials done, {len(outcome.failed)} failed.", ""]
    try:
        if args.paper and fmt == "table":
            if not render.to_console_paper(outcome.report, console):
                print(f"{experiment.name}: its kind ({experiment.spec['kind']}) reproduces no paper's figures; "
                      "showing the whole report.", file=sys.stderr)
                render.to_console(outcome.report, console)
        elif fmt == "table":
            render.to_console(outcome.report, console)
        elif fmt in ("csv", "json"):
            text = render.to_csv(outcome.report) if fmt == "csv" else render.to_json(
                outcome.report, {"experiment": experiment.name, "done": len(outcome.finished), "failed": outcome.failed})
            if out:
                Path(out).parent.mkdir(parents=True, exist_ok=True)
                Path(out).write_text(text, encoding="utf-8")
                print(f"Wrote {out}", file=sys.stderr)
            else:
                sys.stdout.write(text if text.endswith("\n") else text + "\n")
        elif fmt == "md":
            path = Path(out) if out else Path("reports") / f"{stem}.md"
            if path.suffix.lower() != ".md":
                raise InputError("--out", out, "a Markdown report is written to a .md file", f"e.g. --out reports/{stem}.md")
            for written in render.to_markdown(outcome.report, path, header):
                print(f"Wrote {written}", file=sys.stderr)
        else:
            folder = Path(out) if out else Path("reports")
            if folder.suffix.lower() in (".png", ".svg", ".md", ".csv", ".json"):
                raise InputError("--out", out, f"names a file, but {fmt} plots are written into a folder",
                                 "e.g. --out reports")
            images = render.to_images(outcome.report, folder, stem, fmt)
            if not images:
                print(f"{experiment.name}: this report has no figures.", file=sys.stderr)
            for image in images:
                print(f"Wrote {image}", file=sys.stderr)
    except OSError as exc:
        where = {"csv": f"a file, e.g. --out reports/{stem}.csv", "json": f"a file, e.g. --out reports/{stem}.json",
                 "md": f"a .md file in a folder you can write to, e.g. --out reports/{stem}.md"}
        raise InputError("--out", out, f"cannot be written ({exc.strerror or exc})",
                         "name " + where.get(fmt, "a folder you can write to, e.g. --out reports")) from None
    return 0


def status(store: Any, console: Any) -> None:
    """Each experiment file under experiments/ with its trials done and failed, then the other recorded ones."""
    from rich.text import Text

    from studio.lab.experiment import load_experiment
    from studio.lab.trials import Trials
    from studio.model import InputError

    recorded = {name: (done, failed) for name, done, failed in Trials(store).experiments()}
    shown = set()
    folder = experiments_folder()
    files = sorted(folder.glob("*.toml")) if folder.is_dir() else []
    if files:
        console.print(Text(f"Experiment files in {folder}:"))
    for path in files:
        try:
            experiment = load_experiment(path, playing=False)
        except InputError as exc:
            console.print(Text(f"  {path.name}: cannot be read: {exc.problem}"))
            continue
        shown.add(experiment.name)
        done, failed = recorded.get(experiment.name, (0, 0))
        total = len(experiment.kind.plan(experiment.spec))
        console.print(Text(f"  {path.name} ({experiment.spec['kind']}, {experiment.name}): {done} of {total} "
                           f"trials done, {failed} failed"))
    others = [(n, d, f) for n, (d, f) in recorded.items() if n not in shown]
    if others:
        console.print(Text("Other experiments in the store:" if files else "Experiments in the store:"))
    for name, done, failed in others:
        console.print(Text(f"  {name}: {done} trials done, {failed} failed"))
    if not files and not others:
        console.print(Text("No experiments yet. Start one: studio lab run experiments/pd_small.toml --model scripted"))


class _Bar:
    """A rich progress bar on stderr: trials done of all, running, failed, tokens, elapsed, estimate."""

    def __init__(self, console: Any, experiment: Any):
        from rich.progress import BarColumn, Progress, TextColumn

        self.progress = Progress(TextColumn("{task.description}", markup=False), BarColumn(bar_width=16),
                                 TextColumn("{task.fields[detail]}", markup=False), console=console, transient=False)
        self.task = self.progress.add_task(experiment.path.stem, total=None, detail="")

    def __enter__(self) -> _Bar:
        self.progress.start()
        return self

    def __exit__(self, *exc: Any) -> None:
        self.progress.stop()

    def update(self, tally: Any) -> None:
        estimate = tally.estimate
        left = "" if estimate is None else f" · ~{_clock(estimate)} left"
        detail = (f"{tally.done}/{tally.total} done · {tally.running} running · {tally.failed} failed · "
                  f"{tally.tokens:,} tokens · {_clock(tally.elapsed)}{left}")
        self.progress.update(self.task, total=tally.total, completed=tally.done + tally.failed, detail=detail)


def _clock(seconds: float) -> str:
    seconds = int(round(seconds))
    return f"{seconds // 3600}:{seconds // 60 % 60:02d}:{seconds % 60:02d}" if seconds >= 3600 else f"{seconds // 60}:{seconds % 60:02d}"
