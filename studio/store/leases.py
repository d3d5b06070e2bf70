"""Leases: how a process says it is using something in the store (a lab trial it plays, a run open in a
window or a terminal) so another process leaves it alone, without a lock that a crash would leave held.

A lease names its holder (the machine, the process and a draw of its own) and when it runs out; a
heartbeat renews it while the holder lives. A lease stops holding when it runs out, or at once when its
holder was a process of this machine that has ended (kill -9 included): a process of another machine
cannot be asked, so its lease is waited out.
"""

from __future__ import annotations

import os
import socket
import threading
from collections.abc import Callable

# Seconds a lease lasts without a heartbeat; the heartbeat renews it three times in that span.
LEASE = float(os.environ.get("STUDIO_LEASE_SECONDS") or 30.0)


NAME_LENGTH = 24
"""Characters of a playwright's name a window keeps."""


def person(name: str | None) -> str:
    """A playwright's name as a window carries it: one line of printable characters, no colon (the holder's
    separator) and no square bracket (a name shown anywhere the app reads markup stays a name), at most
    NAME_LENGTH; empty when nothing is left."""
    kept = "".join(c if c.isprintable() and c not in ":[]=" else " " for c in str(name or ""))
    return " ".join(kept.split())[:NAME_LENGTH].strip()


def holder_name(name: str | None = None) -> str:
    """A name for one holder's leases: the machine, the process and a draw of its own (from the system's
    random source, as `secrets` draws it: importing `secrets` would load OpenSSL's hashes before the app's
    first frame), then the playwright's name, if the window was given one (`studio open --name`, or the name
    a tab asks for)."""
    draw = os.urandom(4).hex()
    said = person(name)
    return f"{socket.gethostname()}:{os.getpid()}:{draw}={said}" if said else \
        f"{socket.gethostname()}:{os.getpid()}:{draw}"


def given_name(holder: str) -> str:
    """The playwright's name a holder carries, or "" for a window that was given none."""
    return holder.rsplit(":", 1)[-1].partition("=")[2]


def window_name(holder: str) -> str:
    """What the room calls a holder: the playwright's name, if the window has one; else "window" and the
    first letters of its draw, the part no two windows share (the machine and the process are the same for
    every tab of one server)."""
    return given_name(holder) or "window " + holder.rsplit(":", 1)[-1][:4]


def gone(holder: str | None) -> bool:
    """Whether the holder of a lease is known to be gone without waiting for the lease to run out: only a
    process of this machine can be asked, and one that has ended has let go."""
    if not holder or holder.count(":") < 2:
        return True
    host, pid_text, _ = holder.rsplit(":", 2)
    if host != socket.gethostname():
        return False
    try:
        pid = int(pid_text)
    except ValueError:
        return True
    if pid == os.getpid():
        return False  # this process gives its own leases back as it stops
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except (PermissionError, OSError):
        return False
    return False


def holds(holder: str | None, until: float | None, now: float) -> bool:
    """Whether a lease still holds: not run out, and its holder not known to be gone."""
    return bool(holder) and until is not None and until > now and not gone(holder)


def heartbeat(renew: Callable[[], None], name: str) -> threading.Event:
    """Call `renew` in a thread of its own, three times a lease, until the returned event is set, so a
    holder whose event loop is busy (a long local call) never lets its lease run out."""
    stop = threading.Event()

    def beat() -> None:
        while not stop.wait(LEASE / 3):
            try:
                renew()
            except Exception:  # a busy or closed store: the next beat tries again, or the holder has ended
                pass

    threading.Thread(target=beat, name=name, daemon=True).start()
    return stop
