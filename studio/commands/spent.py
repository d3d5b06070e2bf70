"""`studio show`'s closing lines: what the run's model calls cost, in all and per role."""

from __future__ import annotations

from typing import Any

from rich.markup import escape

from studio import usage


def print_usage(console: Any, store: Any, engine: Any) -> None:
    spent = usage.run_usage(store, engine.run_id)
    if not spent.total.calls:
        return
    console.print(f"[dim]Model calls, every take: {usage.summary(spent.total)}[/]")
    names = {role.key: role.name for role in engine.cast.roles}
    for key, tally in spent.roles.items():
        who = f"{names[key]} ({key})" if key in names else key
        models = ", ".join(sorted(tally.models))
        console.print(f"[dim]  {escape(who)}, {escape(models)}: {usage.summary(tally)}[/]")
