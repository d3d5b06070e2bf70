"""`studio export RUN`: a run's take written as a script, in any of `studio.export.FORMATS`."""

from __future__ import annotations

import argparse
import sys

from studio.commands.common import db_option, open_store, run_id, take_head
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    from studio.export import FORMATS

    p = sub.add_parser("export", help="write a run as a script: Fountain, Markdown, Final Draft or PDF")
    p.add_argument("run", help="a run number")
    named = [name if f.description.casefold() == name else f"{name} ({f.description})" for name, f in FORMATS.items()]
    p.add_argument(
        "--format",
        choices=list(FORMATS),
        help=f"the script's format: {', '.join(named[:-1])} or {named[-1]}; default fountain, or play-pdf where "
        "the play says layout = \"stage\"",
    )
    p.add_argument("--out", metavar="PATH", help="a file, or a folder for the default name (default exports/)")
    p.add_argument("--backstage", action="store_true", help="include the inner voice: notes beside the lines it shaped")
    p.add_argument(
        "--take", metavar="NAME|EVENT", help="export a named take, or the take ending at this event, not the current one"
    )
    db_option(p)
    p.set_defaults(func=export)


def export(args: argparse.Namespace) -> int:
    from studio.export import ExportError, export_run
    from studio.store import StoreError

    store = open_store(args.db)
    number = run_id(args.run)
    head = take_head(store, number, args.take)
    try:
        path = export_run(
            store, number, args.format, out=args.out, backstage=args.backstage, head=head,
            warn=lambda message: print(f"warning: {message}", file=sys.stderr),
        )
    except StoreError as exc:
        field = "--take" if args.take is not None and "event" in str(exc) else "RUN"
        raise InputError("command line", field, str(exc), "see 'studio runs' and 'studio show RUN --json --all'") from None
    except ExportError as exc:
        raise InputError("--out", None, str(exc)) from None
    from studio.engine.reading import run_finished

    if not run_finished(store, number, head):
        print(f"(run {number} is unfinished: the script ends where the run stopped)", file=sys.stderr)
    print(path)
    return 0
