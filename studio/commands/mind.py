"""`studio mind RUN NAME`: a character's inner life in a run, and the playwright's hand on it.

Without options it prints the mood, goals, knowledge, impressions and reflections the take has; with
--mood, --unlock, --goal or --fact it commits the change as a human event, which the character's next
prompt carries and which a rewind drops with the rest of the take.
"""

from __future__ import annotations

import argparse

from studio.commands.common import console, db_option, esc, open_engine
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mind = sub.add_parser("mind", help="show a character's inner life in a run, or set a mood, unlock, goals or a fact")
    mind.add_argument("run", help="a run number")
    mind.add_argument("name", help="the character")
    mind.add_argument("--mood", help="set the mood (one the sheet lists)")
    mind.add_argument("--unlock", type=int, metavar="N", help="unlock knowledge item N (1 = the sheet's first)")
    mind.add_argument("--goal", action="append", metavar="TEXT", help="replace the goals (repeat for several)")
    mind.add_argument("--fact", action="append", default=[], metavar="KEY=VALUE",
                      help="set a world fact (VALUE read as JSON if it parses: true, 3, \"rising\")")
    db_option(mind)
    mind.set_defaults(func=cmd_mind)


def cmd_mind(args: argparse.Namespace) -> int:
    from rich.text import Text

    from studio.engine.minds import world
    from studio.mind import edits
    from studio.present.mind import inner_life

    engine = open_engine(args, args.run, gateway=object())
    out = console()
    matches = [r for r in engine.cast.matching(args.name) if r.is_character]
    if len(matches) != 1:
        names = ", ".join(r.name for r in engine.cast.characters)
        raise InputError("command line", "NAME", f"no single character called {args.name!r}", f"use one of: {names}")
    role = matches[0]
    sheet = role.sheet
    at = {"scene": engine.state.scene or 1, "turn": engine.state.turn}
    changes = []
    flags = {"mood": "--mood", "unlock": "--unlock", "goals": "--goal", "fact": "--fact"}
    try:  # every change is checked before any is committed: one bad option commits nothing
        if args.mood:
            changes.append(edits.mood(sheet, role.name, args.mood, **at))
        if args.unlock is not None:
            changes.append(edits.unlock(sheet, role.name, world(engine).mind(role.name), args.unlock, **at))
        if args.goal:
            changes.append(edits.goals(role.name, args.goal, **at))
        for item in args.fact:
            changes.append(edits.fact(item, **at))
    except edits.EditError as exc:
        raise InputError("command line", flags[exc.field], exc.problem, exc.fix) from None
    for fields in changes:
        event = engine.mind_event(fields)
        out.print(f"[dim]({esc(event.text)})[/]")
    if not changes:
        text = Text(role.name.upper(), style="bold")
        if sheet.has_inner_life:
            inner_life(engine, role, text)
        else:
            text.append("\nno inner life on this sheet (traits, moods, knowledge, goals, memory)", style="dim")
        out.print(text)
    return 0
