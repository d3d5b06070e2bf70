"""`studio lab`: the papers' experiments in batch: the iterated Prisoner's Dilemma, the social game's two and the
personality interview (studio/commands/lab_interview.py)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Any

from studio.commands.common import console as make_console
from studio.commands.common import db_option, model_name, open_store


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    lab = sub.add_parser("lab", help="run the papers' experiments in batch, with statistics")
    lab.set_defaults(func=main)
    labs = lab.add_subparsers(dest="lab_command", required=True, metavar="EXPERIMENT")
    from studio.commands import lab_run  # `lab run EXPERIMENT.toml` and `lab report`: any kind of experiment

    lab_run.register(labs)
    pdp = labs.add_parser("pd", help="the iterated Prisoner's Dilemma: six groups against four rule partners")
    pdp.add_argument("--group", action="append", default=[], metavar="NAME", help="a group to run (repeatable; default all six)")
    pdp.add_argument("--partner", action="append", default=[], metavar="NAME", help="a partner (repeatable; default all four)")
    pdp.add_argument("--reps", type=int, default=30, metavar="N", help="trials per group and partner (default 30, as the paper)")
    pdp.add_argument("--concurrency", type=int, default=8, metavar="K", help="trials at once (the embedded model: 1)")
    pdp.add_argument("--model", type=model_name, default=None, metavar="M", help="the simulacra's model (default local/smollm2)")
    pdp.add_argument("--endpoint", action="append", default=[], metavar="URL",
                     help="a server of the model (repeatable): calls are spread over them, e.g. http://127.0.0.1:8000/v1")
    pdp.add_argument("--max-parallel", type=int, default=4, metavar="N",
                     help="with --endpoint: calls in flight at each server at most (default 4)")
    pdp.add_argument("--json", action="store_true", help="print the cells and the hypotheses as JSON")
    db_option(pdp)
    game = labs.add_parser("game", help="the social game's experiments: architecture or persona against placement")
    game.add_argument("experiment", choices=("architecture", "persona"), help="what is varied between players")
    game.add_argument("--games", type=int, default=10, metavar="N", help="games to play (default 10)")
    game.add_argument("--split", default="3:3", metavar="C:A", help="persona: charismatic:aloof players (default 3:3)")
    game.add_argument("--players", type=int, default=None, metavar="N",
                      help="keep N of the play's players per game (the paper's persona games have 6)")
    game.add_argument("--play", default=None, metavar="PLAY", help="the game's play (default: the project's plays/island.toml)")
    game.add_argument("--model", type=model_name, default=None, metavar="M", help="the players' model (default local/smollm2)")
    game.add_argument("--first-round", action="store_true", help="keep players voted out in round 1 (the paper leaves them out)")
    game.add_argument("--json", action="store_true", help="print the result as JSON")
    db_option(game)
    from studio.commands import lab_interview

    lab_interview.register(labs)
    status = labs.add_parser("status", help="what each experiment has done and what failed")
    db_option(status)


def main(args: argparse.Namespace) -> int:
    return run(args, open_store, make_console())


def run(args: argparse.Namespace, open_store: Any, console: Any) -> int:
    from studio.commands import lab_run

    if args.lab_command in ("run", "report"):
        return lab_run.run(args, open_store, console)
    store = open_store(args.db)
    if args.lab_command == "status":
        lab_run.status(store, console)
        return 0
    if args.lab_command == "game":
        return _game(args, store, console)
    if args.lab_command == "interview":
        from studio.commands import lab_interview

        return lab_interview.run(args, store, console)
    return _pd(args, store, console)


def _pd(args: argparse.Namespace, store: Any, console: Any) -> int:
    from studio.lab.runner import run_sync
    from studio.lab.stats import Trial

    experiment, model, gateway, on = _pd_experiment(args)
    total = len(experiment.kind.plan(experiment.spec))
    err = console.__class__(stderr=True, highlight=False)
    with err.status(f"{total} trials on {model}{on}…") as status:
        def progress(tally: Any) -> None:
            if tally.current:
                status.update(f"{tally.done}/{tally.total} trials done, {tally.failed} failed · {tally.current}")

        outcome = run_sync(store, experiment, gateway=gateway, progress=progress)
    finished = [Trial(r["group"], r["partner"], float(r["cooperation"]), int(r["total"]), int(r["wording"]), int(r.get("rep", -1)))
                for _, r in sorted(outcome.finished.items())]
    return _pd_print(args, console, model, finished, outcome.failed)


def _pd_experiment(args: argparse.Namespace) -> tuple[Any, str, Any, str]:
    """The Prisoner's Dilemma experiment the flags ask for, once they are checked; its model, its gateway
    and the words that say where it runs."""
    from studio.engine.forms.dilemma import game as pd
    from studio.lab.experiment import built
    from studio.llm import check_model
    from studio.llm.sampling import is_embedded
    from studio.model import InputError
    from studio.model.play import DEFAULT_MODEL

    for flag, chosen, known in (("--group", args.group, pd.GROUPS), ("--partner", args.partner, pd.PARTNERS)):
        for name in chosen:
            if name not in known:
                raise InputError(flag, name, "is not one of the experiment's", f"use one of: {', '.join(known)}")
    if not 1 <= args.reps <= 1000:
        raise InputError("--reps", None, f"must be between 1 and 1000, not {args.reps}", "e.g. --reps 30")
    if not 1 <= args.concurrency <= 256:
        raise InputError("--concurrency", None, f"must be between 1 and 256, not {args.concurrency}", "e.g. --concurrency 8")
    model = args.model or DEFAULT_MODEL
    problem = check_model(model)
    if problem:
        raise InputError("--model", model, problem, "see 'studio models'")
    gateway, on = _endpoints(args, model)
    experiment = built("pd", {"name": f"pd:{model}", "model": model, "reps": args.reps, "concurrency": args.concurrency,
                              "pd": {"groups": args.group or list(pd.GROUPS), "partners": args.partner or list(pd.PARTNERS),
                                     # the embedded 135M model names a project only when held to a shape
                                     "hold_to_schema": is_embedded(model)}})
    return experiment, model, gateway, on


def _pd_print(args: argparse.Namespace, console: Any, model: str, finished: list[Any], failed: dict[str, str]) -> int:
    """The cells and the hypotheses, as JSON or as two tables; 1 when a trial failed."""
    from studio.engine.forms.dilemma import game as pd
    from studio.lab.stats import cells, hypotheses

    table = cells(finished)
    found = hypotheses(finished)
    if args.json:
        print(json.dumps({
            "model": model, "trials": len(finished), "failed": failed,
            "cells": [{"group": g, "partner": p, "trials": c["trials"],
                       **{k: c[k].as_dict() for k in ("cooperation", "score")}} for (g, p), c in table.items()],
            "hypotheses": [f.as_dict() for f in found],
        }))
        return 0 if not failed else 1
    from rich.table import Table

    grid = Table("group", "partner", "trials", "personas", "cooperation (95% CI)", "score (95% CI)", title=f"Prisoner's Dilemma on {model}")
    for (group, partner), cell in table.items():
        c, s = cell["cooperation"], cell["score"]
        grid.add_row(group, pd.PARTNER_WORDS[partner], str(cell["trials"]), str(c.n), f"{c.mean:.2f} ({c.low:.2f} to {c.high:.2f})",
                     f"{s.mean:.1f} ({s.low:.1f} to {s.high:.1f})")
    console.print(grid)
    tests = Table("", "claim", "test", "effect", "p", "p (Holm)", "supported", "power")
    for f in found:
        tests.add_row(f.name, f.claim, f.test, "-" if f.effect is None else f"{f.effect:+.2f}",
                      "-" if f.p is None else f"{f.p:.3g}", "-" if f.p_adjusted is None else f"{f.p_adjusted:.3g}",
                      {True: "yes", False: "no", None: "too few data"}[f.supported],
                      "-" if f.power is None else f"{f.power:.0%}")
    console.print(tests)
    if failed:
        print(f"studio: {len(failed)} trials failed (e.g. {next(iter(failed))}: {next(iter(failed.values()))}); "
              "run the same command again to retry them.", file=sys.stderr)
        return 1
    return 0


def _endpoints(args: argparse.Namespace, model: str) -> tuple[Any, str]:
    """A gateway that spreads the model over the --endpoint servers (None without any), and a few words saying so."""
    from studio.model import InputError

    if not args.endpoint:
        return None, ""
    from studio.llm import Gateway
    from studio.clean import redact_url_credentials
    from studio.llm.router import check_endpoints, check_routable, make_router

    check_routable(model, "--model", None)
    urls = check_endpoints(args.endpoint, "--endpoint", None)
    if not 1 <= args.max_parallel <= 256:
        raise InputError("--max-parallel", None, f"must be between 1 and 256, not {args.max_parallel}", "e.g. --max-parallel 4")
    router = make_router(model, urls, args.max_parallel, where="--endpoint", field_name=None)
    shown = ", ".join(redact_url_credentials(u) for u in urls)
    return Gateway(routers=[router]), f" over {len(urls)} endpoints ({shown})"


def _game(args: argparse.Namespace, store: Any, console: Any) -> int:
    from studio.lab.game_analysis import compare_placements, table
    from studio.lab.game_kind import game_report, placements_by_game, placements_by_group
    from studio.lab.runner import run_sync

    experiment, name, model = _game_experiment(args)
    err = console.__class__(stderr=True, highlight=False)
    with err.status(f"{args.games} games on {model}…") as status:
        outcome = run_sync(store, experiment, on_trial=lambda t: status.update(f"game {t.rep + 1}/{args.games}"))
    records = [r for _, r in sorted(outcome.finished.items())]
    failed = outcome.failed
    result = compare_placements(placements_by_group(records, args.first_round),
                                placements_by_game(records, args.first_round))
    wins = game_report(experiment.spec, outcome.finished).tables[0].rows if records else []
    if args.json:
        print(json.dumps({"experiment": name, "games": len(records), "failed": failed,
                          "runs": [r["run"] for r in records], **result.as_dict(),
                          "wins": [{"group": g, "games": n, "wins": w, "rate": c.value, "low": c.low, "high": c.high,
                                    "chance": chance, "p": p} for g, _, n, w, c, chance, p in wins]}))
        return 0 if not failed else 1
    console.print(f"{name}: {len(records)} games (runs {', '.join(str(r['run']) for r in records)})", markup=False)
    console.print(table(result), markup=False, highlight=False)
    for group, _, games, won, rate, chance, p in wins:
        console.print(f"{group}: won {won} of {games} games, {rate} (chance {chance:.2f}, binomial p = {p:.3g})",
                      markup=False, highlight=False)
    if failed:
        print(f"studio: {len(failed)} games failed; run the same command again to retry them.", file=sys.stderr)
        return 1
    return 0


def _game_experiment(args: argparse.Namespace) -> tuple[Any, str, str]:
    """The social game's experiment the flags ask for, once they are checked against each other and the play;
    its readable name (what the results are printed under) and its model."""
    import re

    from studio.engine.forms import load_play
    from studio.lab.experiment import built
    from studio.lab.game_kind import GamePlan, default_island
    from studio.llm import check_model
    from studio.model import InputError
    from studio.model.play import DEFAULT_MODEL

    if not 1 <= args.games <= 10_000:
        raise InputError("--games", None, f"must be between 1 and 10000, not {args.games}", "e.g. --games 10")
    split = re.fullmatch(r"(\d+):(\d+)", args.split.strip())
    if not split or int(split.group(1)) < 1 or int(split.group(2)) < 1:
        raise InputError("--split", args.split, "give charismatic:aloof counts, both at least 1", "e.g. --split 3:3")
    model = args.model or DEFAULT_MODEL
    problem = check_model(model)
    if problem:
        raise InputError("--model", model, problem, "see 'studio models'")
    if args.play is None:
        args.play = str(default_island())
    play = load_play(args.play)
    if play.form != "social_game":
        raise InputError(args.play, "form", "is not a social game", "name a play with form = \"social_game\"")
    players = len(play.cast.characters)
    if args.players is not None and not 3 <= args.players <= players:
        raise InputError("--players", str(args.players), f"must be 3 to the play's {players} players", "e.g. --players 6")
    players = args.players or players
    counts = (int(split.group(1)), int(split.group(2)))
    if args.experiment == "persona" and sum(counts) > players:
        raise InputError("--split", args.split, f"more than the game's {players} players", "e.g. --split 3:3")
    name = GamePlan(args.experiment, args.games, model, Path(args.play), counts, players=args.players).name
    experiment = built("game", {"name": name, "model": model, "reps": args.games, "concurrency": 1,
                                "game": {"experiment": args.experiment, "play": str(Path(args.play).resolve()),
                                         "split": list(counts), "first_round": args.first_round,
                                         "players": args.players, "archetypes": ["charismatic", "aloof"]}})
    return experiment, name, model
