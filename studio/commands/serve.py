"""`studio serve`: the app in browser tabs, one process per tab, on this machine's address and a token."""

from __future__ import annotations

import argparse
from typing import Any

from studio.commands.common import db_option, open_store
from studio.model.errors import InputError


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("serve", help="serve the app to browser tabs (loopback unless --host says otherwise)")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on: an IP address or localhost (default 127.0.0.1, this machine only; "
                        "0.0.0.0 is every network, and needs --cert and --key, or --insecure)")
    p.add_argument("--cert", default=None, metavar="PEM", help="TLS certificate chain: off loopback, serve https")
    p.add_argument("--key", default=None, metavar="PEM", help="the TLS certificate's private key")
    p.add_argument("--insecure", action="store_true",
                   help="off loopback without TLS: anyone on the network path can read the token and the play")
    p.add_argument("--port", type=int, default=8000, help="port to listen on (default 8000; 0 picks a free one)")
    p.add_argument("--tabs", type=int, default=None, metavar="N",
                   help="tabs open at once, each its own process (default 8)")
    p.add_argument("--no-shared-model", action="store_true",
                   help="let each tab load the embedded model itself, instead of one copy served for all tabs")
    db_option(p)
    p.set_defaults(func=serve)


def serve(args: argparse.Namespace) -> int:
    try:
        from studio.serve import TABS, StudioServer, app_command, is_loopback
    except ImportError as exc:
        raise InputError("studio serve", None, f"serving needs textual-serve ({exc.name} is missing)",
                         "pip install -e . (it is among the studio's dependencies)") from None
    if not 0 <= args.port <= 65535:
        raise InputError("--port", str(args.port), "not a port number", "give 0 to 65535 (0 picks a free one)")
    tabs = TABS if args.tabs is None else args.tabs
    if tabs < 1:
        raise InputError("--tabs", str(tabs), "at least one tab must be allowed", "give --tabs 1 or more")
    host = checked_host(args.host)
    tls = tls_context(args.cert, args.key)
    if tls is None and not is_loopback(host) and not args.insecure:
        raise InputError("--host", host, "beyond this machine the token and the play would travel unencrypted",
                         "give --cert PEM and --key PEM to serve https, keep the default 127.0.0.1 behind a TLS "
                         "proxy (docs/serving.md), or add --insecure on a network you trust")
    store = open_store(args.db)
    path = store.path
    store.close()
    server = StudioServer(app_command(str(path)), host=host, port=args.port, tabs=tabs, tls=tls)
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


def checked_host(host: str) -> str:
    """The address to listen on, as the socket takes it: an IP address or localhost, nothing else (an
    empty --host listens everywhere and prints an address no browser can open)."""
    import ipaddress

    given = host.strip()
    if given == "localhost":
        return given
    try:
        return str(ipaddress.ip_address(given.strip("[]")))
    except ValueError:
        raise InputError("--host", host or "(empty)", "not an IP address",
                         "give 127.0.0.1 (this machine only), an address of this machine, or 0.0.0.0") from None


def tls_context(cert: str | None, key: str | None) -> Any:
    """The TLS context for --cert and --key, or None when neither is given."""
    if cert is None and key is None:
        return None
    if cert is None or key is None:
        flag = "--key" if cert is not None else "--cert"
        raise InputError(flag, None, "--cert and --key go together", "give both, or neither")
    import ssl

    context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    context.minimum_version = ssl.TLSVersion.TLSv1_2
    try:
        context.load_cert_chain(cert, key)
    except (OSError, ssl.SSLError) as exc:
        raise InputError("--cert", cert, f"the certificate and key could not be read together ({exc})",
                         "give a PEM certificate chain and the PEM private key it was made with") from None
    return context
