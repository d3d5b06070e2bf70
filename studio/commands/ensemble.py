"""CLI bodies for an ensemble's stage: one step at a time, who speaks next, entrances and exits."""

from __future__ import annotations

import argparse
import asyncio
from typing import Any

from studio.commands.common import console, db_option, esc, open_engine, playing
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    step = sub.add_parser("step", help="play one turn of a run (an ensemble: --next picks who speaks)")
    step.add_argument("run", help="a run number")
    step.add_argument("--next", metavar="NAME", help="the character who speaks next (an ensemble)")
    step.add_argument("--policy", metavar="POLICY", help="switch who speaks next from here on: alternate, "
                      "round_robin, moderator, director, mentions, random or human")
    step.add_argument("--switch", action="append", default=[], metavar="VOICE:STRATEGY=on|off",
                      help="switch one inner voice's strategy from here on, e.g. Pride:critique=off")
    step.add_argument("--backstage", action="store_true", help="also print the backstage")
    db_option(step)
    step.set_defaults(func=cmd_step)
    stage = sub.add_parser("stage", help="send characters on or off stage in an ensemble run")
    stage.add_argument("run", help="a run number")
    stage.add_argument("--enter", action="append", default=[], metavar="NAME", help="bring a character on")
    stage.add_argument("--exit", action="append", default=[], metavar="NAME", help="send a character off")
    db_option(stage)
    stage.set_defaults(func=cmd_stage)


def steer(engine: Any, next_name: str | None, policy: str | None) -> None:
    """Apply --policy then --next before the run goes on; each is an event, so takes keep them."""
    try:
        if policy:
            engine.switch_policy(policy)
        if next_name:
            engine.pick(next_name)
    except ValueError as exc:
        raise InputError("--next" if next_name and not policy else "--policy", next_name or policy, str(exc),
                         "see 'studio show RUN --backstage' for who is on stage") from None


def switch_voices(engine: Any, switches: list[str]) -> None:
    """`--switch Pride:critique=off`: one inner voice's strategy, as the app's `v` does (a control event)."""
    from studio.model.play import STRATEGIES

    voices = {r.key: r for r in engine.cast.roles if r.key.endswith(".voice")}
    for item in switches:
        name, _, rest = item.partition(":")
        strategy, _, word = rest.partition("=")
        found = [k for k, r in voices.items() if name.strip().casefold() in (k, r.name.casefold())]
        fix = (f"e.g. --switch {next(iter(voices.values())).name}:critique=off; voices: "
               + ", ".join(r.name for r in voices.values())) if voices else "this run has no inner voice"
        if len(found) != 1 or strategy not in STRATEGIES or word not in ("on", "off"):
            raise InputError("--switch", item, f"expected VOICE:STRATEGY=on|off with a strategy of "
                             f"{', '.join(STRATEGIES)}", fix)
        engine.switch_strategy(strategy, word == "on", voice=found[0])


def cmd_step(args: argparse.Namespace) -> int:
    from studio.engine import EngineError, HeldElsewhere, NeedsHuman, NeedsPick
    from studio.present.terminal import StagePrinter

    engine = open_engine(args, args.run)
    out = console()
    if engine.finished:
        out.print(f"Run {engine.run_id} is finished.")
        return 0
    switch_voices(engine, args.switch)
    steer(engine, args.next, args.policy)
    printer = StagePrinter(out, engine.cast, backstage=args.backstage)
    try:
        with playing(engine):
            events = asyncio.run(engine.play_turn())
    except NeedsPick as exc:
        out.print(f"Who speaks next? {esc(', '.join(exc.choices))}: "
                  f"'studio step {engine.run_id} --next NAME'.")
        return 0
    except NeedsHuman as exc:
        out.print(f"{esc(exc)}: 'studio resume {engine.run_id}' asks for the line.")
        return 0
    except HeldElsewhere as exc:
        out.print(f"{esc(exc)}; 'studio step {engine.run_id}' goes on once it is written.")
        return 0
    except EngineError as exc:
        out.print(f"[red]Model error:[/] {esc(exc)}")
        return 1
    printer.replay(events)
    printer.end_line()
    return 0


def cmd_stage(args: argparse.Namespace) -> int:
    engine = open_engine(args, args.run, gateway=object())
    out = console()
    if not args.enter and not args.exit:
        raise InputError("command line", "--enter/--exit", "nothing to do", "e.g. studio stage 3 --enter Ben")
    _keeps_someone_on(engine, args.enter, args.exit)
    # Entrances first: `--enter B --exit A` hands the stage over even when A stood there alone.
    for names, enter in ((args.enter, True), (args.exit, False)):
        for name in names:
            try:
                event = engine.stage_move(name, enter)
            except ValueError as exc:
                raise InputError("--enter" if enter else "--exit", name, str(exc),
                                 "see 'studio show RUN' for who is on stage") from None
            out.print(f"[italic]{esc(event.text)}[/]")
    return 0


def _keeps_someone_on(engine: Any, enters: list[str], exits: list[str]) -> None:
    """Refuse, before any move is saved, exits that would leave the running scene with no one on stage."""
    if engine.finished or not exits:
        return
    stage = set(engine.on_stage())
    for names, enter in ((enters, True), (exits, False)):
        for name in names:
            try:
                key = engine.character(name).key
            except ValueError as exc:
                raise InputError("--enter" if enter else "--exit", name, str(exc),
                                 "see 'studio show RUN' for who is on stage") from None
            (stage.add if enter else stage.discard)(key)
    if not stage:
        raise InputError("--exit", ", ".join(exits), "would leave no one on stage, and the scene cannot go on "
                         "without someone on it; nothing was moved",
                         f"keep someone on, or bring someone on in the same command: "
                         f"studio stage {engine.run_id} --enter NAME --exit {exits[-1]}")
