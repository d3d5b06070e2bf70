"""`studio resume RUN`: a run continued where it stopped, after any change of hands (--role) or of who
speaks next (--next, --policy), on the same loop as `studio run`."""

from __future__ import annotations

import argparse

from studio.commands.common import (
    check_models,
    console,
    db_option,
    open_store,
    parse_roles,
    run_id,
)
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("resume", help="continue a run where it stopped")
    p.add_argument("run", help="a run number")
    p.add_argument("--backstage", action="store_true", help="also stream the backstage")
    p.add_argument("--role", action="append", default=[], metavar="ROLE=human|model",
                   help="take over a role (human) or give it back (model) before continuing")
    p.add_argument("--next", metavar="NAME", help="the character who speaks next (an ensemble)")
    p.add_argument("--policy", metavar="POLICY", help="switch who speaks next from here on")
    db_option(p)
    p.set_defaults(func=resume)


def resume(args: argparse.Namespace) -> int:
    from studio.engine import Engine
    from studio.store import StoreError

    store = open_store(args.db)
    number = run_id(args.run)
    try:
        engine = Engine(store, number)
    except StoreError as exc:
        raise InputError("command line", "RUN", str(exc), "see 'studio runs'") from None
    for word, choice in parse_roles(args.role).items():
        roles = engine.cast.matching(word)
        if not roles:
            raise InputError("--role", word, "this run has no such role or character", "see 'studio show RUN'")
        for role in roles:
            try:
                (engine.take_over if choice == "human" else engine.release)(role.key)
            except ValueError as refused:  # a window of the app holds the role
                raise InputError("--role", word, str(refused), "close that window, or hand the role back "
                                 "there (t)") from None
    if not engine.finished and (args.next or args.policy):
        from studio.commands.ensemble import steer

        steer(engine, args.next, args.policy)
    if engine.finished:
        console().print(f"Run {number} is finished. 'studio show {number}' prints it.")
        return 0
    check_models(engine.cast, f"run {number}")
    from studio.commands.run import drive

    return drive(engine, args.backstage, resumed=True)
