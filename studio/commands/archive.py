"""`studio rename RUN NAME`, `studio archive RUN` and `studio delete RUN`: what a run is called, whether the
lists show it, and removing it for good."""

from __future__ import annotations

import argparse

from studio.commands.common import db_option, open_store, run_id
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rename = sub.add_parser("rename", help="give a run a name of your own (the play's title stays)")
    rename.add_argument("run", help="a run number")
    rename.add_argument("name", help="the new name; '' clears it")
    db_option(rename)
    rename.set_defaults(func=rename_run)
    archive = sub.add_parser("archive", help="hide a run from the lists (nothing is deleted)")
    archive.add_argument("run", help="a run number")
    archive.add_argument("--undo", action="store_true", help="bring an archived run back")
    db_option(archive)
    archive.set_defaults(func=archive_run)
    delete = sub.add_parser("delete", help="delete a run for good: every take, take name and critique of it")
    delete.add_argument("run", help="a run number")
    delete.add_argument("--yes", action="store_true", help="do not ask first (needed when no one can answer)")
    db_option(delete)
    delete.set_defaults(func=delete_run)


def rename_run(args: argparse.Namespace) -> int:
    from studio.present.runs import rename, run_name_problem
    from studio.store import StoreError

    problem = run_name_problem(args.name)
    if problem:
        raise InputError("command line", "NAME", problem, "e.g. studio rename 3 \"first draft\", or '' to clear it")
    store = open_store(args.db)
    try:
        print(rename(store, run_id(args.run), args.name))
    except StoreError as exc:
        raise InputError("command line", "RUN", str(exc), "see 'studio runs --all'") from None
    return 0


def archive_run(args: argparse.Namespace) -> int:
    from studio.present.runs import archive
    from studio.store import StoreError

    store = open_store(args.db)
    try:
        print(archive(store, run_id(args.run), args.undo))
    except StoreError as exc:
        raise InputError("command line", "RUN", str(exc), "see 'studio runs --all'") from None
    return 0


def delete_run(args: argparse.Namespace) -> int:
    """Asks first, naming the run, unless --yes; with no terminal to ask on, --yes is required."""
    import sys

    from studio.present.runs import delete, describe
    from studio.store import StoreError

    store = open_store(args.db)
    number = run_id(args.run)
    try:
        said = describe(store, number)
        if store.trial_of(number):
            store.delete_run(number)  # refused with the store's own words
        if not args.yes:
            if not sys.stdin.isatty():
                raise InputError("command line", "--yes", f"deleting {said} cannot be undone and there is no "
                                 "terminal to ask on", f"add --yes: studio delete {number} --yes")
            try:
                answer = input(f"Delete {said} for good? This cannot be undone. [y/N] ")
            except EOFError:  # Ctrl-D: no answer is not a yes
                print()
                answer = ""
            if answer.strip().lower() not in ("y", "yes"):
                print(f"Run {number} is kept.")
                return 0
        print(delete(store, number))
    except StoreError as exc:
        raise InputError("command line", "RUN", str(exc), "see 'studio runs --all'; 'studio archive' hides a run "
                         "without deleting it") from None
    return 0
