"""`studio lab interview`: a character's personality measured by interview (after Wang et al.,
2024, InCharacter), or followed over a run."""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from dataclasses import asdict
from pathlib import Path
from typing import Any

from studio.commands.common import db_option, model_name, run_id

METHOD_CHOICES = ("oc", "doc", "er", "er_all", "er_batch", "all")


def register(labs: Any) -> None:
    p = labs.add_parser("interview", help="interview a character with a Big-Five scale and compare with its sheet (Wang et al., 2024)")
    p.add_argument("character", nargs="?", metavar="CHARACTER", help="a character file or a name in characters/")
    p.add_argument("--scale", choices=("mini", "ipip50"), default="mini", help="the Mini-IPIP (20 items, default) or the 50 IPIP markers")
    p.add_argument("--method", choices=METHOD_CHOICES, default="all",
                   help="oc, doc (d-OC), er (ER all at once and in batches), er_all, er_batch or all (default)")
    p.add_argument("--reps", type=int, default=1, metavar="N", help="interviews to run (default 1)")
    p.add_argument("--model", type=model_name, default=None, metavar="M", help="the character's model (default local/smollm2)")
    p.add_argument("--assessor", type=model_name, default=None, metavar="M", help="the assessor's model (default: the same as --model)")
    p.add_argument("--run", type=run_id, default=None, metavar="RUN", help="interview at the end of every scene of this run instead")
    p.add_argument("--as", dest="as_name", default=None, metavar="NAME", help="with --run: the character to follow (default the protagonist)")
    p.add_argument("--out", default=None, metavar="FILE", help="also draw the chart to FILE (.png or .svg)")
    p.add_argument("--json", action="store_true", help="print the result as JSON")
    db_option(p)


def _methods(choice: str) -> list[str]:
    from studio.lab.interview import METHODS

    return {"all": list(METHODS), "er": ["er_all", "er_batch"]}.get(choice, [choice])


def run(args: argparse.Namespace, store: Any, console: Any) -> int:
    from studio.model import InputError

    model = _checked_model(args)
    if args.run is not None:
        if args.character:
            raise InputError("command line", "CHARACTER", "give a CHARACTER or --run RUN, not both",
                             "use --as NAME to choose the run's character")
        return _development(args, store, console, model)
    if args.as_name:
        raise InputError("--as", args.as_name, "only follows a character through a run", "add --run RUN, or leave --as out")
    if not args.character:
        raise InputError("command line", "CHARACTER", "names no character to interview",
                         "e.g. studio lab interview mara_lighthouse, or --run RUN")
    if not 1 <= args.reps <= 1000:
        raise InputError("--reps", None, f"must be between 1 and 1000, not {args.reps}", "e.g. --reps 3")
    return _interview(args, store, console, model)


def _checked_model(args: argparse.Namespace) -> str:
    """The interviewee's model, once it, the assessor's and the chart's file type are known to be usable."""
    from studio.llm import check_model
    from studio.model import InputError
    from studio.model.play import DEFAULT_MODEL

    if args.out is not None and Path(args.out).suffix.lower() not in (".png", ".svg"):
        raise InputError("--out", args.out, "charts are written as PNG or SVG", "e.g. --out mara.png")
    model: str = args.model or DEFAULT_MODEL
    for flag, name in (("--model", model), ("--assessor", args.assessor)):
        problem = check_model(name) if name else None
        if problem:
            raise InputError(flag, name, problem, "see 'studio models'")
    return model


def _interview(args: argparse.Namespace, store: Any, console: Any, model: str) -> int:
    """A character interviewed `--reps` times; the report printed or given as JSON, the radar drawn."""
    from studio.lab.experiment import built
    from studio.lab.interview import METHODS
    from studio.lab.interview_kind import find_character
    from studio.lab.runner import run_sync

    path = find_character(args.character)
    methods = _methods(args.method)
    name = f"interview:{path.stem}:{args.scale}:{model}:{args.assessor or model}:{'+'.join(m for m in METHODS if m in methods)}"
    experiment = built("interview", {
        "name": name, "model": model, "reps": args.reps, "concurrency": 1,
        "interview": {"character": str(path), "scale": args.scale, "methods": methods,
                      **({"assessor": args.assessor} if args.assessor else {})}})
    spec = experiment.spec
    err = console.__class__(stderr=True, highlight=False)
    with err.status(f"interviewing {path.stem} on {model}…") as status:
        outcome = run_sync(store, experiment,
                           on_trial=lambda t: status.update(f"interview {t.rep + 1} of {args.reps} on {model}…"))
    report, finished, failed = outcome.report, outcome.finished, outcome.failed
    from studio.lab.kinds import Radar

    radar = report.figures[0]
    assert isinstance(radar, Radar)  # the interview kind reports one radar
    saved = _save(radar, args.out) if args.out else None
    if args.json:
        print(json.dumps({"character": str(path), "scale": args.scale, "model": model, "assessor": args.assessor or model,
                          "methods": spec["interview"]["methods"], "trials": finished, "failed": failed,
                          "tables": [asdict(t) for t in report.tables], "radar": asdict(radar),
                          "chart": str(saved) if saved else None}, ensure_ascii=False))
        return 0 if not failed else 1
    _print_report(report, console)
    from studio.lab.radar import terminal

    print(terminal(radar, width=min(console.width, 80)))
    if saved:
        print(f"chart: {saved}")
    if failed:
        print(f"studio: {len(failed)} interviews failed (e.g. {next(iter(failed.values()))}); run the same command "
              "again to retry them.", file=sys.stderr)
        return 1
    return 0


def _development(args: argparse.Namespace, store: Any, console: Any, model: str) -> int:
    from studio.lab.development import develop, development_report
    from studio.model import InputError
    from studio.store import StoreError

    try:
        store.run(args.run)
    except StoreError as exc:
        raise InputError("--run", str(args.run), str(exc).split(": ", 1)[-1], "see 'studio runs'") from None
    methods = _methods(args.method)
    err = console.__class__(stderr=True, highlight=False)
    with err.status(f"interviewing after each scene of run {args.run}…") as status:
        found = asyncio.run(develop(store, args.run, name=args.as_name, scale=args.scale, methods=methods, model=model,
                                    assessor=args.assessor,
                                    on_scene=lambda s, n: status.update(f"after scene {s} of {n} on {model}…")))
    report = development_report(found)
    from studio.lab.kinds import Lines

    lines = report.figures[0]
    assert isinstance(lines, Lines)  # the development report draws one line chart
    saved = _save(lines, args.out) if args.out else None
    if args.json:
        print(json.dumps({**found, "tables": [asdict(t) for t in report.tables], "lines": asdict(lines),
                          "chart": str(saved) if saved else None}, ensure_ascii=False))
        return 0 if not found["failed"] else 1
    _print_report(report, console)
    from studio.lab.radar import lines_terminal

    print(lines_terminal(lines, width=min(console.width, 100)))
    if saved:
        print(f"chart: {saved}")
    if found["failed"]:
        print(f"studio: {len(found['failed'])} scenes' interviews failed; run the same command again to retry them.",
              file=sys.stderr)
        return 1
    return 0


def _save(figure: Any, out: str) -> Path:
    from studio.lab.plots import save

    return save(figure, out)  # a radar through studio.lab.radar, lines as every report draws them


def _print_report(report: Any, console: Any) -> None:
    from rich.table import Table
    from rich.text import Text

    for table in report.tables:
        grid = Table(title=Text(table.title), caption=Text(table.note or ""))
        for column in table.columns:
            grid.add_column(Text(str(column)))
        for row in table.rows:
            grid.add_row(*[Text(str(c)) for c in row])
        console.print(grid)
    for note in report.notes:
        console.print(note, markup=False, highlight=False)
