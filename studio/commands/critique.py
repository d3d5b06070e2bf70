"""`studio critique` and `studio compare`: the Critic's scores, printed as the paper's table 2."""

from __future__ import annotations

import argparse
import json
import sys
from typing import Any

from studio.commands.common import check_models as _check_models
from studio.commands.common import console as _console
from studio.commands.common import db_option
from studio.commands.common import model_name
from studio.commands.common import esc as _esc
from studio.commands.common import open_store as _open_store
from studio.commands.common import run_id as _run_id
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("critique", help="have a critic model score the protagonist's development")
    p.add_argument("runs", nargs="+", metavar="RUN",
                   help="one or more run numbers, scored side by side; a run without the superego and one with it "
                        "are read together, as the Drama Machine's critic read them, blind to which is which")
    p.add_argument("--model", type=model_name, metavar="M", help="the critic's model (default local/smollm2)")
    p.add_argument("--json", action="store_true", help="print the critiques as JSON")
    p.add_argument("--stored", action="store_true", help="show the critiques stored with the runs; ask no model")
    db_option(p)
    p.set_defaults(func=critique)
    c = sub.add_parser("compare", help="run a play with and without the superego, critique both, compare")
    c.add_argument("play", help="a play file, e.g. plays/interview.toml")
    c.add_argument("--turns", type=int, metavar="N", help="turns per scene")
    c.add_argument("--seed", type=int, metavar="S", help="seed for strategies that fire by probability")
    c.add_argument("--model", type=model_name, metavar="M", help="model for every role, and for the critic unless --critic")
    c.add_argument("--critic", type=model_name, metavar="M", help="the critic's model (default: --model, else local/smollm2)")
    c.add_argument("--role", action="append", default=[], metavar="ROLE=MODEL",
                   help="a model of its own for one role (ego, superego, other, director or a character), as the "
                        "paper gave each role its own; repeatable; with --reps")
    c.add_argument("--reps", type=int, default=1, metavar="N", help="runs per condition; above 1, the table of means, intervals and tests")
    c.add_argument("--critic-loop", action="store_true", help="a third condition: the Critic scores each scene and the Director reads it")
    c.add_argument("--json", action="store_true", help="print the result as JSON")
    db_option(c)
    c.set_defaults(func=compare_runs)


def _critic_model(model: str | None, where: str) -> str:
    from studio.critic import DEFAULT_CRITIC_MODEL
    from studio.llm import check_model

    model = model or DEFAULT_CRITIC_MODEL
    problem = check_model(model)
    if problem:
        raise InputError(where, None, problem)
    return model


def _print_critiques(console: Any, critiques: list[Any]) -> None:
    """The paper's table 2, one row per run, then each critique's interpretations."""
    from rich import box
    from rich.markup import escape
    from rich.table import Table

    from studio.critic import CRITERIA

    table = Table(title="Character development scores", title_justify="left", box=box.SIMPLE_HEAD, pad_edge=False)
    table.add_column("run", justify="right")
    table.add_column("character", no_wrap=True)
    for label, _ in CRITERIA.values():
        table.add_column(label.replace(" ", "\n"), justify="center", no_wrap=True)
    for c in critiques:
        scores = [f"{c.score(k)}/10" if c.valid else "[red]invalid[/]" for k in CRITERIA]
        table.add_row(str(c.run_id), escape(c.label), *scores)
    console.print(table)
    for c in critiques:
        console.print(f"\n[bold]Run {c.run_id} · {escape(c.label)}[/] · {escape(c.title)}"
                      + ("" if c.finished else " (unfinished)") + f" · critic: {escape(c.model)}")
        if not c.valid:
            console.print(f"  [red]The critic's reply was invalid after {c.attempts} attempts:[/] {escape(c.error or '')}")
            console.print(f"  No scores are given. The replies are stored with the run: "
                          f"'studio critique {c.run_id} --stored --json' shows them.")
            continue
        for key, (label, _) in CRITERIA.items():
            item = c.criteria[key]
            console.print(f"  {label} {item['score']}/10: {escape(item['interpretation'])}")
        if c.summary:
            console.print(f"  [italic]{escape(c.summary)}[/]")


def critique(args: argparse.Namespace) -> int:
    import asyncio

    from rich.console import Console

    from studio.critic import CriticError
    from studio.llm import ModelError

    model = None if args.stored else _critic_model(args.model, "--model")
    store = _open_store(args.db)
    run_ids = _known_runs(store, args.runs)
    console = _console()
    if args.stored:
        _print_stored(args, store, run_ids, console)
        return 0
    status = Console(stderr=True).status(f"The critic ({model}) is reading…")
    status.start()
    try:
        critiques = asyncio.run(_critique_all(store, run_ids, model, status))
    except CriticError as exc:
        status.stop()
        raise InputError("command line", "RUN", str(exc), "resume or run it first") from None
    except ModelError as exc:
        status.stop()
        print(f"studio: the critic's model failed: {exc}", file=sys.stderr)
        return 1
    finally:
        status.stop()
    if args.json:
        print(json.dumps([c.as_dict() for c in critiques], ensure_ascii=False, indent=2))
    else:
        _print_critiques(console, critiques)
    return 0 if all(c.valid for c in critiques) else 1


def _known_runs(store: Any, runs: list[str]) -> list[int]:
    """The RUN arguments as run ids, each one the store has: an unknown run is bad input, named."""
    from studio.store import StoreError

    run_ids = [_run_id(r) for r in runs]
    for run_id in run_ids:
        try:
            store.run(run_id)
        except StoreError as exc:
            raise InputError("command line", "RUN", str(exc), "see 'studio runs'") from None
    return run_ids


def _print_stored(args: argparse.Namespace, store: Any, run_ids: list[int], console: Any) -> None:
    """`--stored`: the critiques kept with the runs, asking no model."""
    from studio.critic import stored_critiques

    kept = [c for run_id in run_ids for c in stored_critiques(store, run_id)]
    if args.json:
        print(json.dumps([c.as_dict() for c in kept], ensure_ascii=False, indent=2))
    elif kept:
        _print_critiques(console, kept)
    else:
        console.print(f"No critiques stored yet; 'studio critique {' '.join(args.runs)}' asks the critic.")


async def _critique_all(store: Any, run_ids: list[int], model: str | None, status: Any) -> list[Any]:
    """Each run's critique, in the order the runs were given."""
    from studio.critic import critique_pair, critique_run
    from studio.engine.reading import build_script

    if len(run_ids) == 2:
        # A run without the superego and one with it are read together, as the paper's critic read its two
        # scripts, but blind: as Script A and B, in an order drawn from the two runs (studio.critic.with_first).
        flags = [build_script(store, r).with_superego for r in run_ids]
        if flags[0] != flags[1]:
            status.update(f"The critic ({model}) is reading runs {run_ids[0]} and {run_ids[1]} together…")
            without, with_ = run_ids if flags[1] else run_ids[::-1]
            pair = await critique_pair(store, without, with_, model=model)
            return [next(c for c in pair if c.run_id == r) for r in run_ids]
    done = []
    for run_id in run_ids:
        status.update(f"The critic ({model}) is reading run {run_id}…")
        done.append(await critique_run(store, run_id, model=model))
    return done


def compare_runs(args: argparse.Namespace) -> int:
    import asyncio

    from rich.console import Console

    from studio.critic import experiment_casts
    from studio.lab.compare import compare_once
    from studio.llm import ModelError

    from studio.commands.common import parse_roles

    roles = parse_roles(getattr(args, "role", []))
    if any(choice == "human" for choice in roles.values()):
        from studio.model import InputError

        raise InputError("--role", None, "compare runs unattended, with a model in every role",
                         "give each --role a model, e.g. --role superego=openai/gpt-4o")
    without, with_ = experiment_casts(args.play, turns=args.turns, seed=args.seed, model=args.model,
                                      roles=roles or None)
    _check_models(with_, args.play)
    critic = _critic_model(args.critic or args.model, "--critic" if args.critic else "--model")
    store = _open_store(args.db)
    if args.reps != 1 or args.critic_loop or roles:
        return _repeated(args, store, critic)
    console = _console()
    err = Console(stderr=True, highlight=False)
    status = err.status("Starting…")
    status.start()
    try:
        result = asyncio.run(
            compare_once(store, args.play, turns=args.turns, seed=args.seed, model=args.model, critic_model=critic,
                         on_run=_following(err, status))
        )
    except ModelError as exc:
        status.stop()
        print(f"studio: the critic's model failed: {exc}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        status.stop()
        print("Stopped. Everything committed is kept; 'studio runs' lists the runs.", file=sys.stderr)
        return 130
    finally:
        status.stop()
    return _print_compared(args, console, result)


def _following(err: Any, status: Any) -> Any:
    """What hears each run of the comparison begin: it names the run, and the status line follows its turns."""

    def on_run(label: str, engine: Any) -> None:
        err.print(f"Run {engine.run_id}: {_esc(engine.cast.play.title)}, {_esc(label)}")
        status.update(f"Run {engine.run_id} ({label})…")

        def follow(event: Any) -> None:
            if event.scene and event.turn:
                status.update(f"Run {engine.run_id} ({label}): scene {event.scene}, turn {event.turn}")

        engine.event_listeners.append(follow)

    return on_run


def _print_compared(args: argparse.Namespace, console: Any, result: Any) -> int:
    """The two runs' critiques side by side, or what failed and how to finish it; 1 unless both were scored."""
    if result.failed:
        for label, (run, error) in result.failed.items():
            print(f"studio: model error in run {run} ({label}): {error}", file=sys.stderr)
            if run is not None:
                print(f"Run {run} is kept as it was; 'studio resume {run}' finishes it and "
                      f"'studio critique RUN RUN' compares afterwards.", file=sys.stderr)
        return 1
    critiques = list(result.critiques)
    if args.json:
        print(json.dumps({"play": result.play, "runs": list(result.runs),
                          "critiques": [c.as_dict() for c in critiques]}, ensure_ascii=False, indent=2))
    else:
        _print_critiques(console, critiques)
        a, b = result.runs
        console.print(f"\n[dim]Both runs are kept: 'studio show {a}', 'studio export {b} --format pdf', "
                      f"'studio critique {a} {b}' to ask again.[/]")
    return 0 if all(c.valid for c in critiques) else 1


def _repeated(args: argparse.Namespace, store: Any, critic: str) -> int:
    """`studio compare PLAY --reps N`: the paper's table 2, N runs per condition, resumable."""
    from pathlib import Path

    from rich.console import Console

    from studio.commands.common import parse_roles
    from studio.lab import compare as experiment
    from studio.lab.experiment import built
    from studio.lab.runner import run_sync
    from studio.model import InputError

    if not 1 <= args.reps <= 200:
        raise InputError("--reps", None, f"{args.reps} is out of range", "give 1 to 200 runs per condition")
    play = str(Path(args.play))
    conditions = ["without", "with"] + (["critic_loop"] if args.critic_loop else [])
    spec = {"name": f"compare:{Path(play).stem}:{args.model or 'default'}:{critic}:turns={args.turns}:seed={args.seed or 1}",
            "model": args.model, "reps": args.reps,
            "compare": {"play": play, "turns": args.turns, "seed": args.seed or 1, "critic": critic,
                        "conditions": conditions, **({"roles": parse_roles(args.role)} if args.role else {})}}
    err = Console(stderr=True, highlight=False)
    planned = built("compare", {**spec, "concurrency": 1}, play)
    plan = [t.key for t in planned.kind.plan(planned.spec)]

    def on_trial(trial: Any) -> None:
        err.print(f"Trial {plan.index(trial.key) + 1} of {len(plan)}: {experiment.LABELS[trial.condition]}, "
                  f"repetition {trial.rep + 1}, seed {trial.params['seed']}", markup=False)

    try:
        outcome = run_sync(store, planned, on_trial=on_trial)
    except KeyboardInterrupt:
        print("Stopped. Every finished trial is kept; the same command plays only what is missing.", file=sys.stderr)
        return 130
    report, finished, failed = outcome.report, outcome.finished, outcome.failed
    if args.json:
        from studio.lab.render import to_json

        print(to_json(report, {"experiment": spec["name"], "trials": finished, "failed": failed}))
    else:
        from rich.table import Table as RichTable
        from rich.text import Text

        console = _console()
        for table in report.tables:
            shown = RichTable(title=Text(table.title), caption=Text(table.note))
            for column in table.columns:
                shown.add_column(Text(column))
            for row in table.rows:
                shown.add_row(*(Text(str(cell)) for cell in row))
            console.print(shown)
        for key, error in sorted(failed.items()):
            console.print(Text(f"trial {key} failed: {error}"))
        runs = sorted(run for r in finished.values() for run in (r.get("runs") or {"": r["run"]}).values())
        console.print(Text(f"{len(finished)} trials done, {len(failed)} failed; runs {', '.join(map(str, runs))} "
                           "are ordinary runs: 'studio show RUN', 'studio critique RUN'."))
    return 0 if not failed else 1
