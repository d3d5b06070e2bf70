"""The one reader of files the playwright names: plays, characters, experiments, cards, lorebooks, images,
prompt tables. Only a regular file is read, and never more than a bound, so `/dev/zero` or
`/dev/urandom` is one message instead of memory run out, and a FIFO is refused instead of waited on
forever. Every failure is one InputError naming the file and the fix."""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from studio.model.errors import InputError

# What a play, character or experiment file may weigh: a thousand scene briefs of 4,000 characters, each
# up to four bytes, with room to spare. Cards and lorebooks carry their own bounds.
MAX_TEXT_FILE_BYTES = 32 * 1024 * 1024


def refuse_unwritable(path: Path | str, field: str, fix: str) -> None:
    """Before a report is written where the playwright said: a pipe or a socket there is refused, since
    opening one to write waits for a reader that may never come. A device (`/dev/null`) is written as asked."""
    try:
        info = os.stat(path)
    except OSError:  # not there yet (or unreachable: the write itself says why)
        return
    if stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode):
        kind = "a pipe" if stat.S_ISFIFO(info.st_mode) else "a socket"
        raise InputError(str(path), field, f"is {kind}, not a file; nothing is written to it", fix)


def _megabytes(size: int) -> str:
    return f"{size // (1024 * 1024)} MB"


def read_outside(path: Path | str, what: str, limit: int = MAX_TEXT_FILE_BYTES, field: str | None = None,
                 fix: str | None = None) -> bytes:
    """The file's bytes. `what` names the kind of file in the messages ("play", "card"); `field`, when the
    file was named inside another file, is where; `fix` replaces the advice for a missing file."""
    name = str(path)
    # Not blocking on open: opening a FIFO for reading would otherwise wait for a writer that never comes.
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        raise InputError(name, field, f"no such {what} file",
                         fix or f"check the path; {what}s live in {what}s/") from None
    except IsADirectoryError:
        raise InputError(name, field, "is a folder, not a file", f"name a {what} file") from None
    except OSError as exc:
        if exc.errno == errno.ENXIO:  # a socket, or a FIFO on a system that refuses a non-blocking open
            raise InputError(name, field, "is not a regular file", f"name a {what} file") from None
        raise InputError(name, field, f"cannot be read ({exc.strerror})", "check its permissions") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise InputError(name, field, "is a folder, not a file", f"name a {what} file")
        if not stat.S_ISREG(info.st_mode):
            kind = "a pipe" if stat.S_ISFIFO(info.st_mode) else "a device" if stat.S_ISCHR(info.st_mode) or \
                stat.S_ISBLK(info.st_mode) else "a socket" if stat.S_ISSOCK(info.st_mode) else "not a file"
            raise InputError(name, field, f"is {kind}, not a regular file",
                             f"name a {what} file saved on disk (a pipe or a device is never read)")
        if info.st_size > limit:
            raise InputError(name, field, f"is {info.st_size / 1e6:.1f} MB; a {what} is at most {_megabytes(limit)}",
                             f"check that this is a {what} file")
        os.set_blocking(fd, True)
        # The size said by stat may be wrong (a file still growing, /proc): the read itself is bounded.
        chunks: list[bytes] = []
        got = 0
        while got <= limit:
            chunk = os.read(fd, min(1024 * 1024, limit + 1 - got))
            if not chunk:
                break
            chunks.append(chunk)
            got += len(chunk)
        if got > limit:
            raise InputError(name, field, f"holds more than {_megabytes(limit)}; a {what} is at most that",
                             f"check that this is a {what} file")
        return b"".join(chunks)
    except OSError as exc:
        raise InputError(name, field, f"cannot be read ({exc.strerror})", "check its permissions") from None
    finally:
        os.close(fd)
