"""`studio rewind RUN`, `studio override RUN EVENT TEXT` and `studio continue RUN EVENT`: a run moved back
or branched at a line; what is left behind stays in the log as a take."""

from __future__ import annotations

import argparse

from studio.commands.common import console, db_option, event_id, gone, open_engine, playing
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    rewind = sub.add_parser("rewind", help="move a run back; the abandoned lines stay as a take")
    rewind.add_argument("run", help="a run number")
    rewind.add_argument("--turns", type=int, default=1, metavar="N", help="how many turns back (default 1)")
    db_option(rewind)
    rewind.set_defaults(func=rewind_run)
    override = sub.add_parser("override", help="replace a committed line with your own; the run branches there")
    override.add_argument("run", help="a run number")
    override.add_argument("event", type=event_id, help="the event id of the line (see 'studio show RUN --ids')")
    override.add_argument("text", help="the new line")
    db_option(override)
    override.set_defaults(func=override_line)
    override.error = _override_error(override.error)  # type: ignore[method-assign]  # argparse has no hook for one parser's message
    go_on = sub.add_parser("continue", help="let the model go on from where a spoken line stopped, as a new take")
    go_on.add_argument("run", help="a run number")
    go_on.add_argument("event", type=event_id, help="the event id of the line (see 'studio show RUN --ids')")
    go_on.add_argument("--direction", metavar="NOTE", help="a short note for the model on what comes next")
    db_option(go_on)
    go_on.set_defaults(func=continue_line)


def rewind_run(args: argparse.Namespace) -> int:
    if args.turns < 1:
        raise InputError("--turns", None, f"must be at least 1, not {args.turns}", "e.g. studio rewind RUN --turns 2")
    engine = open_engine(args, args.run, gateway=object())
    before = engine.head
    head = engine.rewind(args.turns)
    console().print(
        f"Run {engine.run_id}: head moved from event {before} to {head}. The lines after it are kept as a take; "
        f"'studio resume {engine.run_id}' plays on from here."
    )
    return 0


def _override_error(error, example: str = "studio override RUN EVENT -- '---'"):
    """A new line that starts with `-` (`---`, `-- no`) reads as an option: say how to give it."""
    def refuse(message: str):
        if "required: text" in message:
            raise InputError("command line", "TEXT", "no new line was given (one that starts with '-' reads as an "
                             "option)", "give the words after the event id; put '--' before a line that starts with "
                             f"'-': {example}")
        error(message)

    return refuse


def override_line(args: argparse.Namespace) -> int:
    from studio.store import StoreError

    if isinstance(args.text, list):  # `override RUN EVENT -- --`: argparse hands back what followed `--` as a list
        args.text = " ".join(args.text)
    if not args.text.strip():
        raise InputError("TEXT", None, "the new line is empty", "give the words the line should say instead")
    engine = open_engine(args, args.run, gateway=object())
    try:
        event = engine.override(args.event, args.text)
    except StoreError as exc:
        raise InputError("command line", "EVENT", str(exc), "see 'studio show RUN --ids' for event ids") from None
    except ValueError as exc:
        raise InputError("command line", "TEXT", str(exc), "give the words the line should say instead") from None
    console().print(
        f"Run {engine.run_id}: event {args.event} replaced by event {event.id}, a new take; the lines after it "
        f"are kept as written. 'studio resume {engine.run_id}' plays on from the end, 'studio undo "
        f"{engine.run_id}' takes it back."
    )
    return 0


def continue_line(args: argparse.Namespace) -> int:
    import asyncio

    from studio.commands.common import esc
    from studio.engine import EngineError
    from studio.present.terminal import StagePrinter
    from studio.engine.steer import MAX_NOTE
    from studio.store import RunGone, StoreError

    if args.direction is not None and len(args.direction) > MAX_NOTE:
        raise InputError("command line", "--direction", f"is {len(args.direction):,} characters; a direction is "
                         f"at most {MAX_NOTE:,}", "give a short note on what comes next (a sentence or two)")
    engine = open_engine(args, args.run)
    out = console()
    printer = StagePrinter(out, engine.cast)
    engine.token_listeners.append(printer.token)
    engine.event_listeners.append(printer.event)
    engine.retry_listeners.append(printer.retry)
    before = engine.head
    try:
        try:
            with playing(engine):
                event = asyncio.run(engine.continue_line(args.event, direction=args.direction))
        finally:
            printer.quiet()
    except RunGone:
        return gone(printer, engine.run_id)
    except KeyboardInterrupt:
        printer.broke_off()
        if engine.head != before:  # the engine moved back to the line; Ctrl-C skips its own way back
            engine.rewind_to(before)
        out.print(f"Stopped. Run {engine.run_id} is kept as it was.")
        return 130
    except StoreError as exc:
        raise InputError("command line", "EVENT", str(exc), "see 'studio show RUN --ids' for event ids") from None
    except EngineError as exc:
        printer.broke_off()
        out.print(f"[red]Model error:[/] {esc(exc)}")
        out.print(f"Run {engine.run_id} is kept as it was.")
        return 1
    printer.end_line()
    out.print(
        f"Run {engine.run_id}: event {args.event} continued as event {event.id}, a new take; the old line stays. "
        f"'studio resume {engine.run_id}' plays on."
    )
    return 0
