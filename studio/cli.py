"""The `studio` command: the root parser, each command's own module registered in a fixed order, and one
dispatch. Bad input exits 2 with one clear message. The commands live in studio/commands/, one module
each (or a few that belong together); each adds its parser and names its function with `set_defaults`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from studio.model import InputError

EXIT_BAD_INPUT = 2


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise InputError("command line", None, message, f"see '{self.prog} --help'")


# The module that registers each command: a command line that names one of these builds that command's
# parser alone. Importing and registering every command takes about 15 ms, which `studio open` would pay
# before the app's first frame. A command missing here still works: it gets the whole parser.
OWNERS = {
    "run": "run", "runs": "runs", "show": "show", "resume": "resume", "rewind": "takes", "override": "takes",
    "continue": "takes", "open": "open", "export": "export", "critique": "critique", "compare": "critique",
    "models": "models", "new": "new", "import": "cards", "export-card": "cards", "rename": "archive",
    "archive": "archive", "step": "ensemble", "stage": "ensemble", "mind": "mind", "lab": "lab", "game": "game",
    "serve": "serve", "insert": "pen", "cut": "pen", "move": "pen", "undo": "pen", "redo": "pen",
    "settings": "settings",
}


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, every command's included (the CLI reference is generated from it); with `command`
    (one of OWNERS), the root parser with that command's module alone."""
    import importlib

    parser = _Parser(prog="studio", description="A terminal playwriting studio.")
    sub = parser.add_subparsers(dest="command", parser_class=_Parser)
    if command in OWNERS:
        importlib.import_module(f"studio.commands.{OWNERS[command]}").register(sub)
        return parser
    from studio.commands import (
        archive,
        cards,
        critique,
        ensemble,
        export,
        game,
        lab,
        mind,
        models,
        new,
        pen,
        resume,
        run,
        runs,
        serve,
        settings,
        show,
        takes,
    )
    from studio.commands import open as open_app

    # The order of `studio --help`. A new command is a module under studio/commands/ with a `register(sub)`
    # that adds its parser and names its function with `set_defaults(func=...)`, listed here (and in OWNERS).
    for command_module in (
        run,
        runs,
        show,
        resume,
        takes,  # rewind, override
        pen,  # insert, cut, move, undo, redo
        open_app,
        serve,
        export,
        critique,  # critique, compare
        models,
        new,
        settings,
        cards,  # import, export-card
        archive,  # rename, archive, delete
        ensemble,  # step, stage
        mind,
        lab,
        game,
    ):
        command_module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    # Bytes typed or piped in that are not UTF-8 are read as what they are, not a crash: each stays one
    # character (a lone surrogate) that the one cleaner turns into U+FFFD before anything is stored.
    reconfigure = getattr(sys.stdin, "reconfigure", None)
    if reconfigure is not None:
        try:
            reconfigure(errors="surrogateescape")
        except (ValueError, OSError):  # a closed or unusual stdin: nothing to read from it anyway
            pass
    words = list(sys.argv[1:] if argv is None else argv)
    in_a_terminal = sys.stdin.isatty() and sys.stdout.isatty()
    if not words and in_a_terminal:
        words = ["open"]  # a bare `studio` in a terminal is the picker
    try:
        parser = build_parser(words[0] if words else None)
        args = parser.parse_args(words)
        if args.command is None:
            parser.print_help()
            return 0
        if getattr(args, "db", None) is None and os.environ.get("STUDIO_DB"):
            args.db = os.environ["STUDIO_DB"]
        try:
            return args.func(args)
        finally:
            from studio.commands.common import close_opened

            close_opened()
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
        from studio.store.db import HeadMoved, RunGone

        if isinstance(exc, RunGone):  # a command that wrote to a run another process deleted meanwhile
            print(f"studio: {exc}. 'studio runs' lists the runs there are.", file=sys.stderr)
            return 1
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
