"""`studio insert`, `studio cut`, `studio move`, `studio undo` and `studio redo`: the playwright's own
writing put into a run's take (studio/engine/pen.py), and the playwright's actions taken back or done
again (studio/engine/history.py). Each edit is one new take; the old one stays."""

from __future__ import annotations

import argparse
from typing import Any

from studio.commands.common import console, db_option, esc, event_id, open_engine
from studio.commands.takes import _override_error
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    insert = sub.add_parser("insert", help="write a line of your own before or after a line of a run")
    insert.add_argument("run", help="a run number")
    insert.add_argument("event", type=event_id, help="the event id of the line it goes beside (see 'studio show "
                        "RUN --json')")
    where = insert.add_mutually_exclusive_group(required=True)
    where.add_argument("--before", action="store_true", help="put it just before that line")
    where.add_argument("--after", action="store_true", help="put it just after that line")
    what = insert.add_mutually_exclusive_group(required=True)
    what.add_argument("--as", dest="character", metavar="NAME",
                      help="a speech by this character (a name not in the cast brings a new character in)")
    what.add_argument("--direction", action="store_true", help="a direction (action) line")
    what.add_argument("--heading", action="store_true", help="a scene heading, e.g. 'INT. KITCHEN - NIGHT'")
    insert.add_argument("text", help="the words of the line")
    insert.add_argument("--parenthetical", default="", metavar="P", help="how a speech is said, e.g. quietly")
    # the shapes are checked by the pen itself (studio/engine/pen.py), which names them in its message
    insert.add_argument("--shape", default="action", metavar="SHAPE",
                        help="how a direction is set on the page: action (the default), centered, transition or lyric")
    db_option(insert)
    insert.set_defaults(func=insert_line)
    insert.error = _override_error(  # type: ignore[method-assign]  # argparse has no hook for one parser's message
        insert.error, "studio insert RUN EVENT --after --direction -- '- a beat -'")
    cut = sub.add_parser("cut", help="take a line out of a run; the lines after it stay as written")
    cut.add_argument("run", help="a run number")
    cut.add_argument("event", type=event_id, help="the event id of the line (see 'studio show RUN --ids')")
    db_option(cut)
    cut.set_defaults(func=cut_line)
    move = sub.add_parser("move", help="move a line of a run before or after another")
    move.add_argument("run", help="a run number")
    move.add_argument("event", type=event_id, help="the event id of the line to move")
    side = move.add_mutually_exclusive_group(required=True)
    side.add_argument("--before", metavar="EVENT2", type=event_id, help="put it just before this line")
    side.add_argument("--after", metavar="EVENT2", type=event_id, help="put it just after this line")
    db_option(move)
    move.set_defaults(func=move_line)
    for name, helping in (("undo", "take back your last action on a run (an edit, insert, cut, move, rewind, new "
                                   "take, take switch or import)"),
                          ("redo", "do again the action 'studio undo' took back last")):
        parser = sub.add_parser(name, help=helping)
        parser.add_argument("run", help="a run number")
        db_option(parser)
        parser.set_defaults(func=undo_or_redo)


def _edit(engine: Any, field: str, act: Any, other: tuple[str, int] | None = None, command: str = "insert") -> Any:
    """Carry out an edit; a bad event or line is one message naming the field, exit 2. `other`: a second
    event the command names (its field, its id), named instead when the message is about it."""
    from studio.store import StoreError

    try:
        return act()
    except StoreError as exc:
        if other is not None and str(exc).startswith(f"event {other[1]} "):
            field = other[0]
        raise InputError("command line", field, str(exc), "see 'studio show RUN --ids' for event ids") from None
    except ValueError as exc:
        said = str(exc)
        named = said.split(" ", 1)[0].rstrip(":") if said.startswith("--") else "TEXT" if said.startswith("the line") else field
        raise InputError("command line", named, said, f"see 'studio {command} --help'") from None


def insert_line(args: argparse.Namespace) -> int:
    if isinstance(args.text, list):
        args.text = " ".join(args.text)
    if not args.text.strip():
        raise InputError("command line", "TEXT", "the line is empty", "give the words the line should say")
    engine = open_engine(args, args.run, gateway=object())
    event = _edit(engine, "EVENT", lambda: engine.insert(
        args.event, args.text, before=args.before, character=args.character, direction=args.direction,
        heading=args.heading, parenthetical=args.parenthetical, shape=args.shape))
    who = f"{esc(event.character)}'s line" if event.character else "a heading" if args.heading else "a direction"
    console().print(f"Run {engine.run_id}: {who} written as event {event.id}, {'before' if args.before else 'after'}"
                    f" event {args.event}; {_kept(engine, event)} 'studio undo {engine.run_id}' takes it back.")
    return 0


def _kept(engine: Any, event: Any, inclusive: bool = False) -> str:
    """How many lines of the new take, from `event` on (or after it), were kept as written."""
    at = next(i for i, e in enumerate(engine.path) if e.id == event.id) + (0 if inclusive else 1)
    lines = sum(1 for e in engine.path[at:] if e.on_stage)
    return f"{lines} line{'s' if lines != 1 else ''} after it kept as written." if lines else "nothing follows it."


def cut_line(args: argparse.Namespace) -> int:
    engine = open_engine(args, args.run, gateway=object())
    first = _edit(engine, "EVENT", lambda: engine.cut(args.event))
    rest = _kept(engine, first, inclusive=True) if first is not None else "nothing follows it."
    console().print(f"Run {engine.run_id}: event {args.event} cut; {rest} The old take stays; "
                    f"'studio undo {engine.run_id}' brings it back.")
    return 0


def move_line(args: argparse.Namespace) -> int:
    engine = open_engine(args, args.run, gateway=object())
    anchor = args.before if args.before is not None else args.after
    event = _edit(engine, "EVENT", lambda: engine.move(args.event, anchor, before=args.before is not None),
                  other=("EVENT2", anchor) if anchor != args.event else None, command="move")
    console().print(f"Run {engine.run_id}: event {args.event} moved {'before' if args.before else 'after'} event "
                    f"{anchor} (now event {event.id}); the lines from there are kept as written. "
                    f"'studio undo {engine.run_id}' takes it back.")
    return 0


def undo_or_redo(args: argparse.Namespace) -> int:
    engine = open_engine(args, args.run, gateway=object())
    said = engine.undo() if args.command == "undo" else engine.redo()
    if said is None:
        nothing = "undo" if args.command == "undo" else "redo (an undo comes first)"
        console().print(f"Run {engine.run_id}: nothing to {nothing} from the command line.")
        return 0
    where = f"at event {engine.head}" if engine.head is not None else "before the first line (the take is empty)"
    console().print(f"Run {engine.run_id}: {esc(said)}; the head is {where}.")
    return 0
