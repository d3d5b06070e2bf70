"""`studio game RUN`: the game report of a social-game run (placements, votes, alliances)."""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

from studio.commands.common import db_option, open_engine


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    game = sub.add_parser("game", help="the report of a social-game run: placements, votes, alliances")
    game.add_argument("run", help="a run number")
    game.add_argument("--out", metavar="FILE", help="write the report as Markdown to FILE")
    game.add_argument("--json", action="store_true", help="print the report as JSON")
    db_option(game)
    game.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from studio.game.report import build, markdown
    from studio.model import InputError
    from studio.model.outside_file import refuse_unwritable

    engine = open_engine(args, args.run, gateway=object())
    number = engine.run_id
    try:
        report = build(engine)
    except ValueError as exc:
        raise InputError("command line", "RUN", f"run {number}: {exc}", "name a run of a play with form = \"social_game\"") from None
    if args.json:
        print(json.dumps(report, ensure_ascii=False, default=list))
        return 0
    text = markdown(report)
    if args.out:
        out = Path(args.out)
        refuse_unwritable(out, "--out", "name a file, e.g. --out reports/game.md")
        try:
            out.parent.mkdir(parents=True, exist_ok=True)
            out.write_text(text, encoding="utf-8")
        except OSError as exc:
            raise InputError(str(out), None, f"cannot be written ({exc.strerror})", "choose another --out") from None
        print(f"Wrote {out}", file=sys.stderr)
        return 0
    sys.stdout.write(text)
    return 0
