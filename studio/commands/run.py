"""`studio run PLAY`: a play on the terminal, the stage streamed as it is written, a human's lines asked for
at the prompt. `drive` is the loop `studio resume` plays on with too."""

from __future__ import annotations

import argparse
from typing import Any

from studio.commands.common import (
    cast_options,
    check_models,
    console,
    db_option,
    esc,
    gone,
    open_store,
    parse_roles,
    parse_strategies,
    playing,
)


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    run = sub.add_parser("run", help="run a play in the terminal, streaming the stage")
    run.add_argument("play", help="a play file, e.g. plays/interview.toml")
    run.add_argument("--turns", type=int, metavar="N", help="turns per scene")
    run.add_argument("--scenes", type=int, metavar="N", help="number of scenes")
    run.add_argument("--no-superego", action="store_true", help="run without the inner voice")
    run.add_argument(
        "--strategies", metavar="LIST", help="superego strategies to use: e.g. 2,3 or rewrite_speech,critique; 'none'"
    )
    cast_options(run)
    run.add_argument("--seed", type=int, metavar="N",
                     help="seed for the embedded model's sampling and for strategies that fire by probability")
    db_option(run)
    run.add_argument("--backstage", action="store_true", help="also stream the backstage")
    run.set_defaults(func=play)


def play(args: argparse.Namespace) -> int:
    from studio.engine import Engine
    from studio.engine.forms import load_play, resolve_cast
    from studio.model.loading import with_overrides

    loaded = with_overrides(load_play(args.play), turns=args.turns, scenes=args.scenes, seed=args.seed)
    cast = resolve_cast(
        loaded,
        args.play,
        model=args.model,
        roles=parse_roles(args.role),
        superego=False if args.no_superego else None,
        strategies=parse_strategies(args.strategies),
    )
    check_models(cast, args.play)
    store = open_store(args.db)
    options = {"model": args.model, "roles": parse_roles(args.role), "no_superego": args.no_superego,
               "strategies": args.strategies, "seed": loaded.seed}
    engine = Engine.create(store, cast, options)
    return drive(engine, args.backstage)


class _Stop(Exception):
    pass


def drive(engine: Any, backstage: bool, resumed: bool = False) -> int:
    import asyncio  # here: `studio --help` and the listing commands need no event loop

    from studio.engine import EngineError, HeldElsewhere
    from studio.present.terminal import StagePrinter
    from studio.store import RunGone, StoreTrouble

    out = console()
    printer = StagePrinter(out, engine.cast, backstage=backstage)
    engine.token_listeners.append(printer.token)
    engine.event_listeners.append(printer.event)
    engine.retry_listeners.append(printer.retry)
    engine.call_listeners.append(printer.calling)
    _announce(out, engine, resumed)
    if resumed:
        printer.replay(engine.stage() if not backstage else engine.path)
    prompt = _Prompt(out, printer, engine)
    try:
        try:
            with playing(engine):
                asyncio.run(engine.play_to_end(prompt.ask))
        finally:
            printer.quiet()
    except RunGone:
        return gone(printer, engine.run_id)
    except StoreTrouble as exc:  # a full disk, a read-only or damaged store: the half line was not saved
        printer.broke_off()
        raise StoreTrouble(str(exc), exc.fix.replace("RUN", str(engine.run_id))) from None
    except _Stop as stop:
        printer.end_line()
        out.print(f"Paused ({stop}). 'studio resume {engine.run_id}' continues from here.")
        return 0
    except KeyboardInterrupt:
        printer.broke_off()
        out.print(f"Paused. Everything committed is kept; 'studio resume {engine.run_id}' continues.")
        return 130
    except HeldElsewhere as exc:
        printer.end_line()
        out.print(f"Paused: {esc(exc)}. 'studio resume {engine.run_id}' continues once it is written.")
        return 0
    except EngineError as exc:
        printer.broke_off()
        out.print(f"[red]Model error:[/] {esc(exc)}")
        out.print(f"Run {engine.run_id} is kept as it was; 'studio resume {engine.run_id}' tries again.")
        return 1
    printer.end_line()
    from studio import usage

    out.print(
        f"[dim]Run {engine.run_id} finished: {usage.summary(usage.run_usage(engine.store, engine.run_id).total)}. "
        f"'studio show {engine.run_id} --backstage' prints it again with the backstage.[/]"
    )
    return 0


def _announce(out: Any, engine: Any, resumed: bool) -> None:
    """The run's first line: its id, the play, who plays whom; and a hint when the embedded model is in it."""
    from studio.llm.sampling import embedded_hint

    verb = "Resuming" if resumed else "Run"
    models = ", ".join(
        f"{r.name} ({r.key}): {'human' if r.key in engine.state.humans else r.model}" for r in engine.cast.roles
    )
    out.print(f"[bold]{verb} {engine.run_id}[/] · {esc(engine.cast.play.title)} · {esc(models)}")
    hint = embedded_hint(r.model for r in engine.cast.roles if r.key not in engine.state.humans)
    if hint:
        out.print(f"[dim]{esc(hint)}[/]")


class _Prompt:
    """The human's side of the play at the terminal: a line for a human's role, or who speaks next when the
    turn policy leaves that to the playwright. The end of input pauses the run rather than ending it."""

    def __init__(self, out: Any, printer: Any, engine: Any):
        self.out = out
        self.printer = printer
        self.engine = engine

    def ask(self, pending: Any) -> str:
        from studio.engine.forms.base import refusal

        self.printer.end_line()
        role = pending.role
        if role is None:  # the turn policy leaves the next speaker to the playwright
            return self.pick(pending)
        refused = refusal(self.engine.path, role.key)
        if refused:  # the answer before was refused (a vote for nobody in the game): say why before asking again
            self.out.print(f"[dim]  (that could not be used: {esc(refused)})[/]")
        label = esc(f"{role.name} ({role.key}, {pending.step.task.replace('_', ' ')})")
        while True:
            text = self._input(f"[bold]{label} ›[/] ")
            if text.strip():
                return text

    def pick(self, pending: Any) -> str:
        from studio.clean import one_line

        while True:
            choices = self.engine.stage_choices()
            if not choices:
                raise _Stop(f"nobody is on stage; 'studio stage {self.engine.run_id} --enter NAME' brings someone on")
            text = self._input(f"[bold]Who speaks next? {esc(', '.join(choices))} ›[/] ")
            word = one_line(text) or choices[0]
            if any(word.casefold() == name.casefold() for name in choices):
                return word
            self.out.print(f"[dim]  ({esc(word)} is not on stage; pick one of {esc(', '.join(choices))})[/]")

    def _input(self, prompt: str) -> str:
        try:
            text: str = self.out.input(prompt)
        except EOFError:
            raise _Stop("no more input") from None
        return text
