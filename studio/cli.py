"""The `studio` command: the root parser, each command's own module registered in a fixed order, and one
dispatch. Bad input exits 2 with one clear message. The commands live in studio/commands/, one module
each (or a few that belong together); each adds its parser and names its function with `set_defaults`."""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

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
    "settings": "settings", "delete": "archive",
}


class _Version(argparse.Action):
    """`studio --version`; the package's metadata is read only when asked (importlib.metadata costs the
    app's first frame a few milliseconds)."""

    def __call__(self, parser: argparse.ArgumentParser, namespace: argparse.Namespace,
                 values: object, option_string: str | None = None) -> None:
        print(f"studio {_version()}")
        parser.exit()


def _version() -> str:
    """The installed package's version (pyproject.toml's), as CHANGELOG.md names its releases."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("studio")
    except PackageNotFoundError:  # run from a checkout that was never installed
        return "unknown (not installed: pip install -e .)"



def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The whole parser, every command's included (the CLI reference is generated from it); with `command`
    (one of OWNERS), the root parser with that command's module alone."""
    import importlib

    parser = _Parser(prog="studio", description="A terminal playwriting studio.")
    parser.add_argument("--version", action=_Version, nargs=0,
                        help="print the studio's version (its changes are in CHANGELOG.md) and exit")
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
    """The `studio` command: one message and a status for every ending, a closed pipe's included."""
    try:
        status = _command(argv)
        sys.stdout.flush()  # here, not at exit, where a reader gone away is a warning no one can catch
    except BrokenPipeError:
        _closed_pipe()
        return 0
    return status


def _closed_pipe() -> None:
    """The reader (e.g. `| head -1`) went away: end quietly. What is still buffered for it goes to the null
    device, since Python's own flush at exit would otherwise fail again and say so on stderr."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, sys.stdout.fileno())
        os.close(null)
    except (OSError, ValueError, AttributeError):  # a stdout with no file (a test's capture): nothing to flush
        pass


def _trouble(exc: Any) -> str:
    """A store's file failing (studio.store.StoreTrouble), said as one message with its fix."""
    from studio.clean import one_line, redact_secrets

    return f"studio: {one_line(redact_secrets(str(exc)))}\n  fix: {one_line(redact_secrets(exc.fix))}"


def _command(argv: Sequence[str] | None) -> int:
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
        except Exception as exc:
            from studio.commands.common import opened_trouble

            said = opened_trouble(exc)
            if said is None:
                raise
            raise said from None
        finally:
            from studio.commands.common import close_opened

            close_opened()
    except InputError as exc:
        from studio.store import StoreTrouble

        trouble = exc.__context__
        if isinstance(trouble, StoreTrouble) and exc.fix != trouble.fix:
            # a command's own words around a store that cannot do what was asked: the store says what to do
            exc = InputError(exc.where, exc.field, exc.problem, trouble.fix)
        print(f"studio: {exc.message}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        _closed_pipe()
        return 0
    except Exception as exc:
        from studio.store import StoreError, StoreTrouble
        from studio.store.db import HeadMoved, RunGone

        if isinstance(exc, RunGone):  # a command that wrote to a run another process deleted meanwhile
            print(f"studio: {exc}. 'studio runs' lists the runs there are.", file=sys.stderr)
            return 1
        if isinstance(exc, HeadMoved):
            print("studio: another process moved this run on while this one was playing; nothing unsaved "
                  "was kept. 'studio show RUN' prints where it stands now.", file=sys.stderr)
            return 1
        if isinstance(exc, StoreTrouble):  # the store's file: a full disk, a read-only or damaged store
            print(_trouble(exc), file=sys.stderr)
            return EXIT_BAD_INPUT
        if isinstance(exc, StoreError):
            print(f"studio: {exc}; 'studio runs' lists the runs.", file=sys.stderr)
            return EXIT_BAD_INPUT
        raise


if __name__ == "__main__":
    sys.exit(main())
