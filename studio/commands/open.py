"""`studio open [PLAY.toml|RUN]`: the app, on a new run of a play, on a saved run, or on the picker.

Each branch imports only what it needs: the picker draws its first frame without pydantic's models, and
no branch imports litellm before the app's first frame.
"""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from studio.commands.common import (
    cast_options,
    check_models,
    db_option,
    open_store,
    parse_roles,
    run_id,
)
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("open", help="open the app: a new run of a play, a saved run, or (no argument) a picker")
    p.add_argument("target", nargs="?", metavar="PLAY.toml|RUN", help="a play file or a run number")
    cast_options(p)
    db_option(p)
    p.set_defaults(func=open_app)


def open_app(args: argparse.Namespace) -> int:
    store = open_store(args.db)
    roles = parse_roles(args.role)
    start: dict[str, Any] = {}
    target = args.target
    if target is not None and target.isdigit():
        from studio.model import ResolvedCast
        from studio.store import StoreError

        number = run_id(target)
        if args.model:
            raise InputError(
                "--model", None, "a saved run keeps the models it started with",
                f"start a new run of its play instead: studio open PLAY.toml --model {args.model}",
            )
        try:
            cast = ResolvedCast.model_validate_json(store.run(number).cast_json)
        except StoreError as exc:
            raise InputError("command line", "RUN", str(exc), "see 'studio runs'") from None
        for word in roles:
            if not cast.matching(word):
                raise InputError("--role", word, "this run has no such role or character", "see 'studio show RUN'")
        start["run_id"] = number
    elif target is not None:
        from studio.llm import BUILTIN_MODELS
        from studio.engine.forms import load_play, resolve_cast

        play = load_play(target)
        cast = resolve_cast(play, target, model=args.model, roles=roles)
        # Names litellm must route are checked by the app after its first frame: importing litellm takes seconds.
        quick = [r for r in cast.roles if r.model in BUILTIN_MODELS or r.model.startswith(("local/", "scripted/"))]
        check_models(argparse.Namespace(roles=quick), target)
        start["play"] = (Path(target), cast, {"model": args.model, "roles": roles, "seed": play.seed})
    from studio.tui.app import StudioApp

    app = StudioApp(store, model=args.model, roles=roles, **start)
    app.run()
    return app.return_code or 0
