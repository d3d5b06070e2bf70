"""The `studio` command: parse, call the engine, print. Bad input exits 2 with one clear message."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any, Sequence

from studio.model import InputError

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        raise InputError("command line", None, message, f"see '{self.prog} --help'")


def _db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", metavar="PATH", help="the run database (default .studio/studio.db, or $STUDIO_DB)")


def _cast_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", metavar="M", help="model for every role (a litellm name, local/smollm2 or scripted)")
    p.add_argument(
        "--role",
        action="append",
        default=[],
        metavar="ROLE=MODEL|human",
        help="who plays a role: ego, superego, other, director or a character's name; repeatable",
    )


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="studio", description="A terminal playwriting studio.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)

    run = sub.add_parser("run", help="run a play in the terminal, streaming the stage")
    run.add_argument("play", help="a play file, e.g. plays/interview.toml")
    run.add_argument("--turns", type=int, metavar="N", help="turns per scene")
    run.add_argument("--scenes", type=int, metavar="N", help="number of scenes")
    run.add_argument("--no-superego", action="store_true", help="run without the inner voice")
    run.add_argument(
        "--strategies", metavar="LIST", help="superego strategies to use: e.g. 2,3 or rewrite_speech,critique; 'none'"
    )
    _cast_options(run)
    run.add_argument("--seed", type=int, metavar="N", help="seed for strategies that fire by probability")
    _db_option(run)
    run.add_argument("--backstage", action="store_true", help="also stream the backstage")

    runs = sub.add_parser("runs", help="list saved runs")
    runs.add_argument("--json", action="store_true", help="one JSON object per run")
    runs.add_argument("--all", action="store_true", help="also list archived runs")
    _db_option(runs)

    show = sub.add_parser("show", help="print a run")
    show.add_argument("run", help="a run number")
    show.add_argument("--backstage", action="store_true", help="include the backstage")
    show.add_argument("--json", action="store_true", help="one event per line as JSON")
    show.add_argument("--all", action="store_true", help="every take, not only the current one (with --json)")
    show.add_argument("--take", metavar="NAME|EVENT", help="show a named take, or the take ending at this event")
    show.add_argument("--as", dest="as_name", metavar="NAME", help="only what this character witnessed, as it heard it")
    _db_option(show)

    resume = sub.add_parser("resume", help="continue a run where it stopped")
    resume.add_argument("run", help="a run number")
    resume.add_argument("--backstage", action="store_true", help="also stream the backstage")
    resume.add_argument("--role", action="append", default=[], metavar="ROLE=human|model",
                        help="take over a role (human) or give it back (model) before continuing")
    resume.add_argument("--next", metavar="NAME", help="the character who speaks next (an ensemble)")
    resume.add_argument("--policy", metavar="POLICY", help="switch who speaks next from here on")
    _db_option(resume)

    rewind = sub.add_parser("rewind", help="move a run back; the abandoned lines stay as a take")
    rewind.add_argument("run", help="a run number")
    rewind.add_argument("--turns", type=int, default=1, metavar="N", help="how many turns back (default 1)")
    _db_option(rewind)

    override = sub.add_parser("override", help="replace a committed line with your own; the run branches there")
    override.add_argument("run", help="a run number")
    override.add_argument("event", type=int, help="the event id of the line (see 'studio show RUN --json')")
    override.add_argument("text", help="the new line")
    _db_option(override)

    open_ = sub.add_parser("open", help="open the app: a new run of a play, a saved run, or (no argument) a picker")
    open_.add_argument("target", nargs="?", metavar="PLAY.toml|RUN", help="a play file or a run number")
    _cast_options(open_)
    _db_option(open_)

    export = sub.add_parser("export", help="write a run as a script: Fountain, Markdown, Final Draft or PDF")
    export.add_argument("run", help="a run number")
    export.add_argument(
        "--format",
        choices=["fountain", "markdown", "fdx", "pdf", "play-pdf"],
        help="the script's format: pdf is a screenplay, play-pdf a stage play, fdx Final Draft "
        "(default fountain, or play-pdf where the play says layout = \"stage\")",
    )
    export.add_argument("--out", metavar="PATH", help="a file, or a folder for the default name (default exports/)")
    export.add_argument("--backstage", action="store_true", help="include the inner voice: notes beside the lines it shaped")
    export.add_argument(
        "--take", metavar="NAME|EVENT", help="export a named take, or the take ending at this event, not the current one"
    )
    _db_option(export)

    critique = sub.add_parser("critique", help="have a critic model score the protagonist's development")
    critique.add_argument("runs", nargs="+", metavar="RUN", help="one or more run numbers, scored side by side")
    critique.add_argument("--model", metavar="M", help="the critic's model (default local/smollm2)")
    critique.add_argument("--json", action="store_true", help="print the critiques as JSON")
    critique.add_argument("--stored", action="store_true", help="show the critiques stored with the runs; ask no model")
    _db_option(critique)

    compare = sub.add_parser("compare", help="run a play with and without the superego, critique both, compare")
    compare.add_argument("play", help="a play file, e.g. plays/interview.toml")
    compare.add_argument("--turns", type=int, metavar="N", help="turns per scene")
    compare.add_argument("--seed", type=int, metavar="S", help="seed for strategies that fire by probability")
    compare.add_argument("--model", metavar="M", help="model for every role, and for the critic unless --critic")
    compare.add_argument("--critic", metavar="M", help="the critic's model (default: --model, else local/smollm2)")
    compare.add_argument("--reps", type=int, default=1, metavar="N", help="runs per condition; above 1, the table of means, intervals and tests")
    compare.add_argument("--critic-loop", action="store_true", help="a third condition: the Critic scores each scene and the Director reads it")
    compare.add_argument("--json", action="store_true", help="print the result as JSON")
    _db_option(compare)

    models = sub.add_parser("models", help="the models you can use here, and the --model line for each")
    models.add_argument("--json", action="store_true", help="print the survey as JSON")

    from studio.commands.new import register as register_new

    register_new(sub)
    from studio.commands.cards import register as register_cards

    register_cards(sub)
    from studio.commands.runs import register as register_runs

    register_runs(sub, _db_option)
    from studio.commands.ensemble import register as register_ensemble

    register_ensemble(sub, _db_option)
    from studio.commands.mind import register as register_mind

    register_mind(sub, _db_option)
    from studio.commands.lab import register as register_lab

    register_lab(sub, _db_option)
    from studio.commands.game import register as register_game

    register_game(sub, _db_option)
    return parser


# -- helpers ---------------------------------------------------------------------------------


def _open_store(path: str | None):
    from studio.store import Store, StoreError

    try:
        return Store(path)
    except StoreError as exc:
        raise InputError(str(path or "--db"), None, str(exc).split(": ", 1)[-1], "name another file with --db") from None


def _run_id(text: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise InputError("command line", "RUN", f"'{text}' is not a run number", "see 'studio runs'") from None


def _parse_roles(items: Sequence[str]) -> dict[str, str]:
    roles: dict[str, str] = {}
    for item in items:
        if "=" not in item or not item.split("=", 1)[1].strip():
            raise InputError("--role", item, "expected ROLE=MODEL or ROLE=human", "e.g. --role ego=human")
        key, value = item.split("=", 1)
        roles[key.strip()] = value.strip()
    return roles


def _parse_strategies(text: str | None) -> list[str] | None:
    from studio.model.play import STRATEGIES, STRATEGY_NUMBERS

    if text is None:
        return None
    if text.strip().lower() == "none":
        return []
    out = []
    for part in text.split(","):
        part = part.strip().lower().replace("-", "_")
        name = STRATEGY_NUMBERS.get(part, part)
        if name not in STRATEGIES:
            raise InputError(
                "--strategies", part, "is not a strategy", "use 1/rewrite_prompt, 2/rewrite_speech, 3/critique or none"
            )
        out.append(name)
    return out


def _take_head(store: Any, run_id: int, take: str | None) -> int | None:
    from studio.store import StoreError
    from studio.store.takes import resolve_take

    try:
        return resolve_take(store, run_id, take)
    except StoreError as exc:
        raise InputError("--take", take, str(exc).split(": ", 1)[-1], "name a take in the app, or give an event id from "
                         "'studio show RUN --json --all'") from None


def _check_models(cast: Any, where: str) -> None:
    from studio.llm import check_cast_models

    check_cast_models(cast, where)


def _esc(value: object) -> str:
    """Text from a play file, a model or a provider goes through this before any Rich print, so `[/]`
    or `[link=...]` in it is shown as typed instead of crashing the print or becoming a live link."""
    from rich.markup import escape

    return escape(str(value))


def _console():
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


# -- commands ---------------------------------------------------------------------------------


def cmd_run(args: argparse.Namespace) -> int:
    from studio.engine import Engine
    from studio.engine.forms import load_play, resolve_cast
    from studio.model.loading import with_overrides

    play = with_overrides(load_play(args.play), turns=args.turns, scenes=args.scenes, seed=args.seed)
    cast = resolve_cast(
        play,
        args.play,
        model=args.model,
        roles=_parse_roles(args.role),
        superego=False if args.no_superego else None,
        strategies=_parse_strategies(args.strategies),
    )
    _check_models(cast, args.play)
    store = _open_store(args.db)
    options = {"model": args.model, "roles": _parse_roles(args.role), "no_superego": args.no_superego,
               "strategies": args.strategies, "seed": play.seed}
    engine = Engine.create(store, cast, options)
    return _drive(engine, args.backstage)


def cmd_resume(args: argparse.Namespace) -> int:
    from studio.engine import Engine
    from studio.store import StoreError

    store = _open_store(args.db)
    run_id = _run_id(args.run)
    try:
        engine = Engine(store, run_id)
    except StoreError as exc:
        raise InputError("command line", "RUN", str(exc), "see 'studio runs'") from None
    for word, choice in _parse_roles(args.role).items():
        roles = engine.cast.matching(word)
        if not roles:
            raise InputError("--role", word, "this run has no such role or character", "see 'studio show RUN'")
        for role in roles:
            (engine.take_over if choice == "human" else engine.release)(role.key)
    if not engine.finished and (args.next or args.policy):
        from studio.commands.ensemble import steer

        steer(engine, args.next, args.policy)
    if engine.finished:
        _console().print(f"Run {run_id} is finished. 'studio show {run_id}' prints it.")
        return 0
    _check_models(engine.cast, f"run {run_id}")
    return _drive(engine, args.backstage, resumed=True)


def _drive(engine: Any, backstage: bool, resumed: bool = False) -> int:
    import asyncio  # here: `studio --help` and the listing commands need no event loop
    from studio.engine import EngineError
    from studio.terminal import StagePrinter

    console = _console()
    printer = StagePrinter(console, engine.cast, backstage=backstage)
    engine.token_listeners.append(printer.token)
    engine.event_listeners.append(printer.event)
    engine.retry_listeners.append(printer.retry)
    engine.call_listeners.append(printer.calling)
    verb = "Resuming" if resumed else "Run"
    models = ", ".join(
        f"{r.name} ({r.key}): {'human' if r.key in engine.state.humans else r.model}" for r in engine.cast.roles
    )
    console.print(f"[bold]{verb} {engine.run_id}[/] · {_esc(engine.cast.play.title)} · {_esc(models)}")
    from studio.llm.sampling import embedded_hint

    hint = embedded_hint(r.model for r in engine.cast.roles if r.key not in engine.state.humans)
    if hint:
        console.print(f"[dim]{_esc(hint)}[/]")
    if resumed:
        printer.replay(engine.stage() if not backstage else engine.path)

    def ask(pending: Any) -> str:
        printer.end_line()
        role = pending.role
        label = _esc(f"{role.name} ({role.key}, {pending.step.task.replace('_', ' ')})")
        while True:
            try:
                text = console.input(f"[bold]{label} ›[/] ")
            except EOFError:
                raise _Stop("no more input") from None
            if text.strip():
                return text

    try:
        try:
            asyncio.run(engine.play_to_end(ask))
        finally:
            printer.quiet()
    except _Stop as stop:
        printer.end_line()
        console.print(f"Paused ({stop}). 'studio resume {engine.run_id}' continues from here.")
        return 0
    except KeyboardInterrupt:
        printer.end_line()
        console.print(f"Paused. Everything committed is kept; 'studio resume {engine.run_id}' continues.")
        return 130
    except EngineError as exc:
        printer.end_line()
        console.print(f"[red]Model error:[/] {_esc(exc)}")
        console.print(f"Run {engine.run_id} is kept as it was; 'studio resume {engine.run_id}' tries again.")
        return 1
    printer.end_line()
    from studio import usage

    console.print(
        f"[dim]Run {engine.run_id} finished: {usage.summary(usage.run_usage(engine.store, engine.run_id).total)}. "
        f"'studio show {engine.run_id} --backstage' prints it again with the backstage.[/]"
    )
    return 0


class _Stop(Exception):
    pass


def cmd_runs(args: argparse.Namespace) -> int:
    from studio import usage
    from studio.commands import runs as listing

    store = _open_store(args.db)
    if args.json:
        for info in store.runs():
            if info.archived and not args.all:
                continue
            summary = listing.summarize(store, info)
            print(json.dumps({**info.as_dict(), "status": summary.status, "models": summary.models,
                              "usage": usage.run_usage(store, info.id).as_dict()}))
        return 0
    table = listing.table(store, args)
    console = _console()
    if table.row_count:
        console.print(table)
    elif store.runs():
        console.print(f"Every run in {store.path} is archived: 'studio runs --all' lists them.")
    else:
        console.print(f"No runs in {store.path} yet. Start one: studio run plays/interview.toml")
    return 0


def cmd_rename(args: argparse.Namespace) -> int:
    from studio.commands.runs import cmd_rename as rename
    from studio.store import StoreError

    store = _open_store(args.db)
    try:
        print(rename(store, _run_id(args.run), args.name))
    except StoreError as exc:
        raise InputError("command line", "RUN", str(exc), "see 'studio runs --all'") from None
    return 0


def cmd_archive(args: argparse.Namespace) -> int:
    from studio.commands.runs import cmd_archive as archive
    from studio.store import StoreError

    store = _open_store(args.db)
    try:
        print(archive(store, _run_id(args.run), args.undo))
    except StoreError as exc:
        raise InputError("command line", "RUN", str(exc), "see 'studio runs --all'") from None
    return 0


def cmd_show(args: argparse.Namespace) -> int:
    from studio.engine import Engine
    from studio.store import StoreError
    from studio.terminal import StagePrinter

    store = _open_store(args.db)
    run_id = _run_id(args.run)
    try:
        engine = Engine(store, run_id, gateway=object())
    except StoreError as exc:
        raise InputError("command line", "RUN", str(exc), "see 'studio runs'") from None
    path = engine.path
    if args.take is not None:
        path = store.take(run_id, _take_head(store, run_id, args.take))
    if args.as_name:
        from studio.commands.ensemble import through_eyes

        path = through_eyes(engine, path, args.as_name)
    if args.json:
        events = store.events(run_id) if args.all else path
        for event in events:
            if args.backstage or args.all or not event.is_backstage:
                print(event.to_json())
        return 0
    console = _console()
    console.print(f"[bold]Run {run_id}[/] · {_esc(engine.cast.play.title)} · by {_esc(engine.cast.play.author)}")
    printer = StagePrinter(console, engine.cast, backstage=args.backstage)
    printer.replay(path if args.backstage else [e for e in path if e.on_stage])
    printer.end_line()
    if args.take is not None:
        from rich.text import Text

        console.print(Text(f"(take {args.take}: ends at event {path[-1].id if path else '-'})", style="dim"))
    elif not engine.finished:
        console.print(f"[dim](unfinished: 'studio resume {run_id}' continues)[/]")
    from studio.commands.spent import print_usage

    print_usage(console, store, engine)
    return 0


def cmd_step(args: argparse.Namespace) -> int:
    from studio.commands.ensemble import cmd_step as body

    return body(args, lambda run: _open_engine(args, run), _console(), _esc)


def cmd_stage(args: argparse.Namespace) -> int:
    from studio.commands.ensemble import cmd_stage as body

    return body(args, lambda run: _open_engine(args, run, gateway=object()), _console(), _esc)


def cmd_mind(args: argparse.Namespace) -> int:
    from studio.commands.mind import cmd_mind as body

    return body(args, lambda run: _open_engine(args, run, gateway=object()), _console(), _esc)


def _open_engine(args: argparse.Namespace, run: str, gateway: Any = None) -> Any:
    from studio.engine import Engine
    from studio.store import StoreError

    store = _open_store(args.db)
    run_id = _run_id(run)
    try:
        engine = Engine(store, run_id, gateway=gateway)
    except StoreError as exc:
        raise InputError("command line", "RUN", str(exc), "see 'studio runs'") from None
    if gateway is None:
        _check_models(engine.cast, f"run {run_id}")
    return engine


def cmd_rewind(args: argparse.Namespace) -> int:
    from studio.engine import Engine

    if args.turns < 1:
        raise InputError("--turns", None, f"must be at least 1, not {args.turns}", "e.g. studio rewind RUN --turns 2")
    store = _open_store(args.db)
    engine = Engine(store, _run_id(args.run), gateway=object())
    before = engine.head
    head = engine.rewind(args.turns)
    _console().print(
        f"Run {engine.run_id}: head moved from event {before} to {head}. The lines after it are kept as a take; "
        f"'studio resume {engine.run_id}' plays on from here."
    )
    return 0


def cmd_override(args: argparse.Namespace) -> int:
    from studio.engine import Engine
    from studio.store import StoreError

    if not args.text.strip():
        raise InputError("TEXT", None, "the new line is empty", "give the words the line should say instead")
    store = _open_store(args.db)
    engine = Engine(store, _run_id(args.run), gateway=object())
    try:
        event = engine.override(args.event, args.text)
    except StoreError as exc:
        raise InputError("command line", "EVENT", str(exc), "see 'studio show RUN --json' for event ids") from None
    _console().print(
        f"Run {engine.run_id}: event {args.event} replaced by event {event.id}; the run branches there. "
        f"'studio resume {engine.run_id}' plays on."
    )
    return 0


def cmd_open(args: argparse.Namespace) -> int:
    # Each branch imports only what it needs: the picker draws its first frame without pydantic's models.
    store = _open_store(args.db)
    roles = _parse_roles(args.role)
    start: dict[str, Any] = {}
    target = args.target
    if target is not None and target.isdigit():
        from studio.model import ResolvedCast
        from studio.store import StoreError

        run_id = _run_id(target)
        if args.model:
            raise InputError(
                "--model", None, "a saved run keeps the models it started with",
                f"start a new run of its play instead: studio open PLAY.toml --model {args.model}",
            )
        try:
            cast = ResolvedCast.model_validate_json(store.run(run_id).cast_json)
        except StoreError as exc:
            raise InputError("command line", "RUN", str(exc), "see 'studio runs'") from None
        for word in roles:
            if not cast.matching(word):
                raise InputError("--role", word, "this run has no such role or character", "see 'studio show RUN'")
        start["run_id"] = run_id
    elif target is not None:
        from studio.llm import BUILTIN_MODELS
        from studio.engine.forms import load_play, resolve_cast

        play = load_play(target)
        cast = resolve_cast(play, target, model=args.model, roles=roles)
        # Names litellm must route are checked by the app after its first frame: importing litellm takes seconds.
        quick = [r for r in cast.roles if r.model in BUILTIN_MODELS or r.model.startswith(("local/", "scripted/"))]
        _check_models(argparse.Namespace(roles=quick), target)
        start["play"] = (Path(target), cast, {"model": args.model, "roles": roles, "seed": play.seed})
    from studio.tui.app import StudioApp

    app = StudioApp(store, model=args.model, roles=roles, **start)
    app.run()
    return app.return_code or 0


def cmd_export(args: argparse.Namespace) -> int:
    from studio.export import ExportError, export_run
    from studio.store import StoreError

    store = _open_store(args.db)
    run_id = _run_id(args.run)
    head = _take_head(store, run_id, args.take)
    try:
        path = export_run(
            store, run_id, args.format, out=args.out, backstage=args.backstage, head=head,
            warn=lambda message: print(f"warning: {message}", file=sys.stderr),
        )
    except StoreError as exc:
        field = "--take" if args.take is not None and "event" in str(exc) else "RUN"
        raise InputError("command line", field, str(exc), "see 'studio runs' and 'studio show RUN --json --all'") from None
    except ExportError as exc:
        raise InputError("--out", None, str(exc)) from None
    if not any(e.kind == "epilogue" for e in store.take(run_id, head)):
        print(f"(run {run_id} is unfinished: the script ends where the run stopped)", file=sys.stderr)
    print(path)
    return 0


def cmd_critique(args: argparse.Namespace) -> int:
    from studio.commands.critique import critique

    return critique(args)


def cmd_compare(args: argparse.Namespace) -> int:
    from studio.commands.critique import compare_runs

    return compare_runs(args)


def cmd_models(args: argparse.Namespace) -> int:
    from studio.commands.models import show

    return show(_console(), as_json=args.json)


def cmd_new(args: argparse.Namespace) -> int:
    from studio.commands.new import cmd_new as run_new

    return run_new(args)


def cmd_import(args: argparse.Namespace) -> int:
    from studio.commands.cards import cmd_import as run_import

    return run_import(args)


def cmd_export_card(args: argparse.Namespace) -> int:
    from studio.commands.cards import cmd_export_card as run_export

    return run_export(args)


def cmd_lab(args: argparse.Namespace) -> int:
    from studio.commands.lab import run

    return run(args, _open_store, _console())


def cmd_game(args: argparse.Namespace) -> int:
    from studio.commands.game import run

    return run(args, _open_store, _run_id)


COMMANDS = {
    "game": cmd_game,
    "lab": cmd_lab,
    "models": cmd_models,
    "run": cmd_run,
    "runs": cmd_runs,
    "rename": cmd_rename,
    "archive": cmd_archive,
    "show": cmd_show,
    "resume": cmd_resume,
    "rewind": cmd_rewind,
    "override": cmd_override,
    "export": cmd_export,
    "critique": cmd_critique,
    "compare": cmd_compare,
    "open": cmd_open,
    "new": cmd_new,
    "import": cmd_import,
    "export-card": cmd_export_card,
    "step": cmd_step,
    "stage": cmd_stage,
    "mind": cmd_mind,
}


def main(argv: Sequence[str] | None = None) -> int:
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
        if args.command is None:
            if not (sys.stdin.isatty() and sys.stdout.isatty()):
                parser.print_help()
                return 0
            args = argparse.Namespace(command="open", target=None, model=None, role=[], db=None)
        if getattr(args, "db", None) is None and os.environ.get("STUDIO_DB"):
            args.db = os.environ["STUDIO_DB"]
        return COMMANDS[args.command](args)
    except InputError as exc:
        print(f"studio: {exc.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # The reader (e.g. `| head -1`) went away: end quietly, and keep Python's flush at exit from
        # raising again on the closed stdout.
        try:
            sys.stdout = open(os.devnull, "w")
        except OSError:
            pass
        return 0
    except Exception as exc:
        from studio.store import StoreError
        from studio.store.db import HeadMoved

        if isinstance(exc, HeadMoved):
            print("studio: another process moved this run on while this one was playing; nothing unsaved "
                  "was kept. 'studio show RUN' prints where it stands now.", file=sys.stderr)
            return 1
        if isinstance(exc, StoreError):
            print(f"studio: {exc}; 'studio runs' lists the runs.", file=sys.stderr)
            return EXIT_BAD_INPUT
        raise


if __name__ == "__main__":
    sys.exit(main())
