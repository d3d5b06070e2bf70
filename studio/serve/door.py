"""The door of `studio serve`: what a connection meets before any token is read.

A stranger on the machine (or, off loopback, on the network) needs no token to open connections: kept
open and idle, or sending a request a byte a minute, enough of them would use up the server's files and
leave the room's own tabs waiting. So every connection is counted by address and in all, and one past
either cap is closed at once; a connection that has not sent a whole request within HEADERS seconds is
closed; and each wrong token waits, longer for each one from the same address and for each one from
anywhere, one refusal at a time, so many addresses guessing at once are as slow as one. A refusal is said
once per address, not per connection.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Callable
from typing import Any

PER_ADDRESS = 32
"""Connections one address may hold open at once: a browser opens six or so per page, and a tab's socket."""
ALL = 256
"""Connections open at once from everyone, well under the common limit of 1,024 open files."""
HEADERS = 10.0
"""Seconds a new connection has to send a whole request before it is closed."""
IDLE = 15.0
"""Seconds a connection may sit idle between requests before it is closed."""
SLOWEST_REFUSAL = 8.0
"""Seconds the slowest refusal waits: a wrong token waits a quarter second, then twice as long each time."""
QUIET_FORGIVES = 600.0
"""Seconds without a wrong token after which a count of them starts again."""
EVERYONE = "*"


class Door:
    """Counts connections and wrong tokens. `wrap(factory)` is the protocol factory the listening socket
    uses: each connection is counted when it opens and forgotten when it closes."""

    def __init__(self, say: Callable[[str], None], *, per_address: int = PER_ADDRESS, all_at_once: int = ALL,
                 headers: float = HEADERS, first_wait: float = 0.25) -> None:
        self.say = say
        self.first_wait = first_wait
        self.per_address = per_address
        self.all_at_once = all_at_once
        self.headers = headers
        self.open: Counter[str] = Counter()
        self.waiting: dict[Any, asyncio.TimerHandle] = {}  # transports that have not sent a request yet
        self.refused = 0  # connections closed at the door, for the tests and the log
        self._said: set[str] = set()
        self._failures: dict[str, tuple[int, float]] = {}
        self._one_at_a_time = asyncio.Lock()

    # -- connections -----------------------------------------------------------------------------

    def wrap(self, factory: Callable[[], Any]) -> Callable[[], asyncio.Protocol]:
        return lambda: _Counted(self, factory())

    @staticmethod
    def address(transport: Any) -> str:
        peer = transport.get_extra_info("peername")
        return str(peer[0]) if isinstance(peer, tuple) and peer else "?"

    def admit(self, transport: Any) -> bool:
        address = self.address(transport)
        if self.open[address] >= self.per_address or sum(self.open.values()) >= self.all_at_once:
            self.refused += 1
            if address not in self._said:  # once per address, not a line per connection
                self._said.add(address)
                cap = (f"{self.per_address} from one address" if self.open[address] >= self.per_address
                       else f"{self.all_at_once} in all")
                self.say(f"Refusing connections from {address}: more than {cap} are open.")
            return False
        self.open[address] += 1
        loop = asyncio.get_running_loop()
        self.waiting[transport] = loop.call_later(self.headers, self._too_slow, transport)
        return True

    def left(self, address: str, transport: Any) -> None:
        self.open[address] -= 1
        if self.open[address] <= 0:
            del self.open[address]
            self._said.discard(address)
        handle = self.waiting.pop(transport, None)
        if handle is not None:
            handle.cancel()

    def arrived(self, transport: Any) -> None:
        """A whole request came in on this connection: it is no longer held to HEADERS."""
        handle = self.waiting.pop(transport, None)
        if handle is not None:
            handle.cancel()

    def _too_slow(self, transport: Any) -> None:
        self.waiting.pop(transport, None)
        if not transport.is_closing():
            transport.abort()

    # -- wrong tokens ------------------------------------------------------------------------------

    def _count(self, key: str, now: float) -> int:
        count, last = self._failures.get(key, (0, now))
        if now - last > QUIET_FORGIVES:
            count = 0
        self._failures[key] = (count + 1, now)
        return count

    def refusal_wait(self, client: str) -> float:
        """How long this refusal waits: it doubles with each wrong token from this address, and with every
        fourth from anywhere, up to SLOWEST_REFUSAL."""
        now = time.monotonic()
        mine, everyone = self._count(client, now), self._count(EVERYONE, now)
        if len(self._failures) > 10_000:  # many addresses guessing: forget the oldest, keep the table small
            for stale in sorted(self._failures, key=lambda key: self._failures[key][1])[:5_000]:
                if stale != EVERYONE:
                    del self._failures[stale]
        return min(SLOWEST_REFUSAL, self.first_wait * 2 ** min(max(mine, everyone // 4), 8))

    async def refuse(self, client: str) -> None:
        """Wait out a wrong token's refusal: one at a time, so that guesses sent at once queue up."""
        wait = self.refusal_wait(client)
        async with self._one_at_a_time:
            await asyncio.sleep(wait)


class _Counted(asyncio.Protocol):
    """aiohttp's protocol for one connection, behind the door: refused before it sees a byte if a cap is
    reached, and counted out when it closes."""

    def __init__(self, door: Door, inner: Any) -> None:
        self.door, self.inner = door, inner
        self.counted: str | None = None
        self.transport: Any = None

    def connection_made(self, transport: Any) -> None:
        if not self.door.admit(transport):
            transport.abort()
            return
        self.counted, self.transport = self.door.address(transport), transport
        self.inner.connection_made(transport)

    def connection_lost(self, exc: BaseException | None) -> None:
        if self.counted is None:
            return
        self.door.left(self.counted, self.transport)
        self.counted = None
        self.inner.connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        if self.counted is not None:
            self.inner.data_received(data)

    def eof_received(self) -> bool | None:
        return self.inner.eof_received() if self.counted is not None else None

    def pause_writing(self) -> None:
        self.inner.pause_writing()

    def resume_writing(self) -> None:
        self.inner.resume_writing()
