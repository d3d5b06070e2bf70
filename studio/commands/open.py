"""`studio open [PLAY.toml|RUN]`: the app, on a new run of a play, on a saved run, or on the picker.

Each branch imports only what it needs: in a terminal, neither the picker nor a play file's run loads
pydantic's models or the engine before the app's first frame (a play is only parsed as TOML here; the
app's worker reads the rest), and no branch imports litellm before it.
"""

from __future__ import annotations

import argparse
import gc
import sys
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
    p.add_argument("--name", default=None,
                   help="your name, as the other windows on a run see you (the cast, the status line, who did "
                        "what); default: 'window' and four letters")
    cast_options(p)
    db_option(p)
    p.set_defaults(func=open_app)


def open_app(args: argparse.Namespace) -> int:
    # What the start allocates (modules, classes, the screen's widgets) is kept, not garbage: the collector
    # would only walk it again and again, a few hundredths of the work before the first frame. The app
    # turns it back on at its first frame, with what the start built set aside (`StudioApp.first_frame`),
    # and its clock takes over from there; here it is back on whatever happens, for an app that never
    # drew or a caller that goes on.
    gc.disable()
    try:
        return _open_app(args)
    finally:
        gc.enable()


def _open_app(args: argparse.Namespace) -> int:
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
        from studio.model.toml_file import read_toml

        # What is cheap to check is checked before the app: the file is there, readable, UTF-8 and TOML.
        data = read_toml(Path(target), "play")
        if sys.stdout.isatty():
            # The rest (fields, characters, the form's rules, the models) costs pydantic and the engine,
            # about a fifth of a second: the app's worker does it after the first frame, and bad input
            # found there still ends as here, with the message and exit 2 once the terminal is restored.
            title = data.get("title")
            start["play"] = (Path(target), None, {"title": title.strip() if isinstance(title, str) else None})
        else:
            # A script gets the message and the exit code before any escape code reaches its output.
            start["play"] = _checked_play(target, args.model, roles)
    from studio.tui.app import StudioApp

    import os

    from studio.store.leases import person

    given = args.name if args.name is not None else os.environ.get("STUDIO_NAME")
    name = person(given)
    if given is not None and given.strip() and not name:
        raise InputError("--name", None, "the name has no letters a window can show", "give a name such as Ana")
    app = StudioApp(store, model=args.model, roles=roles, name=name or None, **start)
    app.run()
    if app.bad_input is not None:
        raise app.bad_input
    return app.return_code or 0


def _checked_play(target: str, model: str | None, roles: dict[str, str]) -> tuple[Path, Any, dict[str, Any]]:
    """The play read, cast and its built-in models checked, before anything is drawn."""
    from studio.engine.forms import load_play, resolve_cast
    from studio.llm import BUILTIN_MODELS

    play = load_play(target)
    cast = resolve_cast(play, target, model=model, roles=roles)
    # Names litellm must route are checked by the app after its first frame: importing litellm takes seconds.
    quick = [r for r in cast.roles if r.model in BUILTIN_MODELS or r.model.startswith(("local/", "scripted/"))]
    check_models(argparse.Namespace(roles=quick), target)
    return Path(target), cast, {"model": model, "roles": roles, "seed": play.seed}
