"""`studio show RUN`: a run printed as the stage saw it, or as the log holds it (--json), or as one
character knew it (--as), ending with what its model calls cost."""

from __future__ import annotations

import argparse
from typing import Any

from studio.commands.common import (
    console,
    db_option,
    esc,
    open_engine,
    take_head,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("show", help="print a run")
    p.add_argument("run", help="a run number")
    p.add_argument("--backstage", action="store_true", help="include the backstage")
    p.add_argument("--json", action="store_true", help="one event per line as JSON")
    p.add_argument("--all", action="store_true", help="every take, not only the current one (with --json)")
    p.add_argument("--take", metavar="NAME|EVENT", help="show a named take, or the take ending at this event")
    p.add_argument("--as", dest="as_name", metavar="NAME", help="only what this character witnessed, as it heard it")
    p.add_argument("--ids", action="store_true",
                   help="lead each line with its event id (what insert, cut, move and override take)")
    db_option(p)
    p.set_defaults(func=show)


def show(args: argparse.Namespace) -> int:
    from studio.present.terminal import StagePrinter

    engine = open_engine(args, args.run, gateway=object())
    store, number = engine.store, engine.run_id
    path = engine.path
    if args.take is not None:
        path = store.take(number, take_head(store, number, args.take))
    if args.as_name is not None:  # `--as ""` is a name given, and refused, never the whole run
        from studio.engine.lens import through_eyes

        path = through_eyes(engine.cast, path, args.as_name)
    if args.json:
        events = store.events(number) if args.all else path
        for event in events:
            if args.backstage or args.all or not event.is_backstage:
                print(event.to_json())
        return 0
    from studio.engine.script import credit  # here: the script's module loads pydantic, `studio --help` need not

    out = console()
    play = engine.cast.play
    by = credit(play.author, "by", play.credit)
    out.print(f"[bold]Run {number}[/] · {esc(play.title)}" + (f" · {esc(by)}" if by else ""))
    printer = StagePrinter(out, engine.cast, backstage=args.backstage, ids=args.ids)
    printer.replay(path if args.backstage else [e for e in path if e.on_stage])
    printer.end_line()
    if args.take is not None:
        from rich.text import Text

        out.print(Text(f"(take {args.take}: ends at event {path[-1].id if path else '-'})", style="dim"))
    elif not engine.finished:
        out.print(f"[dim](unfinished: 'studio resume {number}' continues)[/]")
    print_usage(out, store, engine)
    return 0


def print_usage(out: Any, store: Any, engine: Any) -> None:
    """The closing lines: what the run's model calls cost, in all and per role."""
    from studio import usage

    spent = usage.run_usage(store, engine.run_id)
    if not spent.total.calls:
        return
    out.print(f"[dim]Model calls, every take: {usage.summary(spent.total)}[/]")
    names = {role.key: role.name for role in engine.cast.roles}
    for key, tally in spent.roles.items():
        who = f"{names[key]} ({key})" if key in names else key
        models = ", ".join(sorted(tally.models))
        out.print(f"[dim]  {esc(who)}, {esc(models)}: {usage.summary(tally)}[/]")
