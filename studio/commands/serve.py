"""`studio serve`: the app in browser tabs, one process per tab, on this machine's address and a token."""

from __future__ import annotations

import argparse

from studio.commands.common import db_option, open_store
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="serve the app to browser tabs (loopback unless --host says otherwise)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on (default 127.0.0.1, this machine only; 0.0.0.0 is every network, "
                        "unencrypted)")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0 picks a free one)")
    p.add_argument("--tabs", type=int, default=None, metavar="N",
                   help="tabs open at once, each its own process (default 8)")
    p.add_argument("--no-shared-model", action="store_true",
                   help="let each tab load the embedded model itself, instead of one copy served for all tabs")
    db_option(p)
    p.set_defaults(func=serve)


def serve(args: argparse.Namespace) -> int:
    try:
        from studio.serve import TABS, StudioServer, app_command
    except ImportError as exc:
        raise InputError("studio serve", None, f"serving needs textual-serve ({exc.name} is missing)",
                         "pip install -e . (it is among the studio's dependencies)") from None
    if not 0 <= args.port <= 65535:
        raise InputError("--port", str(args.port), "not a port number", "give 0 to 65535 (0 picks a free one)")
    tabs = TABS if args.tabs is None else args.tabs
    if tabs < 1:
        raise InputError("--tabs", str(tabs), "at least one tab must be allowed", "give --tabs 1 or more")
    store = open_store(args.db)
    path = store.path
    store.close()
    server = StudioServer(app_command(str(path)), host=args.host, port=args.port, tabs=tabs)
    shared = None
    if not args.no_shared_model:
        from studio.serve.model import SharedModel, unavailable

        why = unavailable()
        if why is None:
            shared = SharedModel()
            shared.start()
            print(f"The embedded model is served once for every tab, on {shared.url}.")
        else:
            print(f"Each tab loads the embedded model itself if a play uses it: {why}.")
    try:
        server.serve()
    except OSError as exc:
        raise InputError("--port", str(args.port), f"cannot listen on {args.host}:{args.port} ({exc.strerror})",
                         "pick another --port, or 0 for a free one") from None
    finally:
        if shared is not None:
            shared.stop()
    return 0
