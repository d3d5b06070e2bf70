"""`studio runs`: the saved runs, as the app's picker lists them, with what each one's calls cost."""

from __future__ import annotations

import argparse
import json
from typing import Any

from studio.commands.common import console, db_option, open_store


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("runs", help="list saved runs")
    p.add_argument("--json", action="store_true", help="one JSON object per run")
    p.add_argument("--all", action="store_true", help="also list archived runs")
    db_option(p)
    p.set_defaults(func=runs)


def runs(args: argparse.Namespace) -> int:
    from studio import usage
    from studio.present.runs import summarize

    store = open_store(args.db)
    if args.json:
        for info in store.runs():
            if info.archived and not args.all:
                continue
            summary = summarize(store, info)
            print(json.dumps({**info.as_dict(), "status": summary.status, "models": summary.models,
                              "usage": usage.run_usage(store, info.id).as_dict()}))
        return 0
    shown = table(store, archived=args.all)
    out = console()
    if shown.row_count:
        out.print(shown)
    elif store.runs():
        out.print(f"Every run in {store.path} is archived: 'studio runs --all' lists them.")
    else:
        out.print(f"No runs in {store.path} yet. Start one: studio run plays/interview.toml")
    return 0


def table(store: Any, archived: bool = False) -> Any:
    """The rows of `studio runs`: what the picker shows, plus tokens and cost."""
    from rich.table import Table
    from rich.text import Text

    from studio import usage
    from studio.present.runs import day_and_time, summaries

    out = Table("run", "name", "status", "models", "started", "last line", "tokens", "cost")
    for summary in summaries(store, archived=archived):
        spent = usage.run_usage(store, summary.id).total
        name = Text(summary.title)
        if summary.archived:
            name.append(" (archived)", style="dim")
        out.add_row(str(summary.id), name, Text(summary.status), Text(", ".join(summary.models)),
                    day_and_time(summary.started), summary.when,
                    usage.tokens(spent.prompt_tokens + spent.completion_tokens), usage.money(spent.cost))
    return out
