"""Reading a file someone may have handed us: a regular file, never more than a cap.

A game log or a hanab.live game can come from anyone (a download, a shared folder, a file
placed in `games/`). Reading one must end, in bounded time and memory, with its bytes or one
line saying why not: a FIFO would block for ever, a device such as /dev/zero never ends, and
a symbolic link may point at either (or at a file of someone else's choosing). So the path is
looked at without following a link (`lstat`), only a regular file is opened (without
following a link, and without blocking, in case it was swapped for a FIFO in between), what
was opened is checked to be that same regular file, and at most `limit` + 1 bytes are read.

Every refusal is a `FileRefused` (a UserError: one line, exit status 2 from the CLI).
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from hanabi_p2p.errors import UserError
from hanabi_p2p.portable import open_no_follow

_READ_CHUNK = 1024 * 1024
# A FIFO swapped in between the look and the open must not block the open.
_NO_WAIT = getattr(os, "O_NONBLOCK", 0)


class FileRefused(UserError):
    """A file we were given cannot be read as one: the message says why, in one line."""


def _kind(mode: int) -> str:
    if stat.S_ISLNK(mode):
        return "a symbolic link"
    if stat.S_ISFIFO(mode):
        return "a FIFO (named pipe)"
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def read_regular_file(path: Path, *, limit: int, what: str) -> bytes:
    """The bytes of the regular file at `path` (a symbolic link is refused, not followed),
    at most `limit` of them; FileRefused, naming `what` ("game log", "game file"), for
    anything else: missing, unreadable, not a regular file, or larger than `limit`."""
    try:
        info = os.lstat(path)
    except OSError as exc:  # (missing too: "cannot read game file X: No such file ...")
        raise FileRefused(f"cannot read {what} {path}: {exc.strerror}") from None
    if not stat.S_ISREG(info.st_mode):
        raise FileRefused(f"{path} is {_kind(info.st_mode)}, not a {what}: refusing to read it")
    _refuse_size(path, info.st_size, limit, what)
    try:
        fd = open_no_follow(path, os.O_RDONLY | _NO_WAIT)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise FileRefused(f"{path} is a symbolic link, not a {what}: refusing to read "
                              "it") from None
        raise FileRefused(f"cannot read {what} {path}: {exc.strerror}") from None
    try:
        opened = os.fstat(fd)
        if not stat.S_ISREG(opened.st_mode):  # swapped since we looked
            raise FileRefused(f"{path} is {_kind(opened.st_mode)}, not a {what}: refusing "
                              "to read it")
        _refuse_size(path, opened.st_size, limit, what)
        chunks: list[bytes] = []
        size = 0
        while size <= limit and (chunk := os.read(fd, min(_READ_CHUNK, limit + 1 - size))):
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise FileRefused(f"cannot read {what} {path}: {exc.strerror}") from None
    finally:
        os.close(fd)
    _refuse_size(path, size, limit, what)  # (a file that grew while it was read)
    return b"".join(chunks)


def _refuse_size(path: Path, size: int, limit: int, what: str) -> None:
    if size > limit:
        raise FileRefused(f"{path} is larger than any {what} ({size:,} bytes; at most "
                          f"{limit:,}): refusing to read it")
