"""What every `studio` command shares: the options several take, reading their values, the store, the
console. One copy here, so a message about a bad --role or an unknown run reads the same everywhere.

Nothing heavy is imported at the top: `studio --help` builds every command's parser through this module.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from studio.model.errors import InputError


def db_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--db", metavar="PATH", help="the run database (default .studio/studio.db, or $STUDIO_DB)")


def model_name(text: str) -> str:
    """A model named on the command line (--model, --critic, --assessor, --role ROLE=MODEL), held to what a
    play file's `model` may be, so no run stores a name no file could: at most MAX_MODEL_NAME characters of
    one printable line."""
    from studio.model.limits import MAX_MODEL_NAME

    if len(text.strip()) > MAX_MODEL_NAME:
        raise InputError("command line", "MODEL", f"a model's name is at most {MAX_MODEL_NAME} characters, not "
                         f"{len(text.strip())}", "see 'studio models' for the names")
    if text.isascii() and text.isprintable():  # no control can be in it: studio.clean's patterns not compiled
        return text
    from studio.clean import LINE_CONTROLS

    if LINE_CONTROLS.search(text):
        raise InputError("command line", "MODEL", "a model's name is one line of printable text, and this one "
                         "holds control characters", "type the name again, e.g. --model ollama/llama3.2")
    return text


def cast_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--model", type=model_name, metavar="M",
                   help="model for every role (a litellm name, local/smollm2 or scripted)")
    p.add_argument(
        "--role",
        action="append",
        default=[],
        metavar="ROLE=MODEL|human",
        help="who plays a role: ego, superego, other, director or a character's name; repeatable",
    )


# the stores the command now running opened: closed as it ends (close_opened), whether it is run as its
# own process or called in another's (a test, a script), so its database is left whole and unheld
_opened: list[Any] = []


def open_store(path: str | None) -> Any:
    from studio.store import Store, StoreError, default_db_path as store_path

    try:
        store = Store(path)
    except StoreError as exc:
        raise InputError(str(path or store_path()), "--db", str(exc).split(": ", 1)[-1],
                         getattr(exc, "fix", "name another file with --db")) from None
    _opened.append(store)
    return store


def opened_trouble(exc: BaseException) -> Any:
    """What a failure of a store this command opened means (a full disk, a read-only or damaged file),
    said by that store, or None when it is no such failure. For failures raised past the store's own
    methods (the lab's tables, a cursor read after a page was found damaged)."""
    for store in reversed(_opened):
        said = store.trouble(exc)
        if said is not None:
            return said
    return None


def close_opened() -> None:
    """Close every store a command opened. Left to the collector, a connection held in a reference cycle
    outlived the command: the database kept its write-ahead files, and a copy taken meanwhile could
    find them gone halfway through."""
    while _opened:
        _opened.pop().close()


def run_id(text: str) -> int:
    return _number(text, "run", "see 'studio runs'")


def event_id(text: str) -> int:
    return _number(text, "event", "see 'studio show RUN --ids' for event ids")


def _number(text: str, what: str, fix: str) -> int:
    from studio.store import StoreError, parse_id

    try:
        return parse_id(text, what)
    except StoreError as exc:
        raise InputError("command line", what.upper(), str(exc), fix) from None


def open_engine(args: argparse.Namespace, run: str, gateway: Any = None) -> Any:
    """The engine of run `run` in `args.db`. A `gateway` of `object()` reads the run without any model
    (show, rewind, mind); without one the run's models are checked first, since it is about to play."""
    from studio.engine import Engine
    from studio.store import StoreError

    store = open_store(args.db)
    number = run_id(run)
    try:
        engine = Engine(store, number, gateway=gateway)
    except StoreError as exc:
        raise InputError("command line", "RUN", str(exc), "see 'studio runs'") from None
    if gateway is None:
        check_models(engine.cast, f"run {number}")
    return engine


@contextmanager
def playing(engine: Any) -> Iterator[None]:
    """While a command plays a run, the run is leased to it (studio/store/leases.py): `studio delete` and
    the app's picker refuse it until the command ends, or its process dies and the lease runs out."""
    from studio.store import StoreTrouble
    from studio.store.leases import heartbeat, holder_name

    store, run, me = engine.store, engine.run_id, holder_name()
    store.hold(run, me)
    beating = heartbeat(lambda: store.renew(run, me), "run-lease")
    try:
        yield
    finally:
        beating.set()
        try:
            store.let_go(run, me)
        except StoreTrouble:  # a full disk: the lease is stale the moment this process ends, and the
            pass  # reason the command stopped is the one to say


def gone(printer: Any, run: int) -> int:
    """A run deleted while this command played it (past a lease that ran out): one message, exit 1."""
    printer.broke_off()
    printer.console.print(f"Run {run} was deleted while it was being played; nothing more of it is saved. "
                          "'studio runs' lists the runs there are.")
    return 1


def parse_roles(items: Sequence[str]) -> dict[str, str]:
    roles: dict[str, str] = {}
    for item in items:
        if "=" not in item or not item.split("=", 1)[1].strip():
            raise InputError("--role", item, "expected ROLE=MODEL or ROLE=human", "e.g. --role ego=human")
        key, value = item.split("=", 1)
        roles[key.strip()] = model_name(value).strip()
    return roles


def parse_strategies(text: str | None) -> list[str] | None:
    from studio.model.play import STRATEGIES, STRATEGY_NUMBERS

    if text is None:
        return None
    if text.strip().lower() == "none":
        return []
    out = []
    for part in text.split(","):
        part = part.strip().lower().replace("-", "_")
        name = STRATEGY_NUMBERS.get(part, part)
        if name not in STRATEGIES:
            raise InputError(
                "--strategies", part, "is not a strategy", "use 1/rewrite_prompt, 2/rewrite_speech, 3/critique or none"
            )
        out.append(name)
    return out


def take_head(store: Any, run: int, take: str | None) -> int | None:
    from studio.store import StoreError
    from studio.store.takes import resolve_take

    try:
        return resolve_take(store, run, take)
    except StoreError as exc:
        raise InputError("--take", take, str(exc).split(": ", 1)[-1], "name a take in the app, or give an event id from "
                         "'studio show RUN --json --all'") from None


def check_models(cast: Any, where: str) -> None:
    from studio.llm import check_cast_models

    check_cast_models(cast, where)


def esc(value: object) -> str:
    """Text from a play file, a model or a provider goes through this before any Rich print, so `[/]`
    or `[link=...]` in it is shown as typed instead of crashing the print or becoming a live link."""
    from rich.markup import escape

    return escape(str(value))


def console() -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)
