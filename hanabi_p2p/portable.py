"""The file-system guarantees that differ between the systems friends bring to a table.

Linux and macOS give all three the game's files rely on: an exclusive lock on an open file
(`flock`), opening a path without following a symbolic link (`O_NOFOLLOW`), and the owner of
a file compared with who we are (`geteuid`). Windows has none of those names: it locks byte
ranges (`msvcrt.locking`), has no no-follow flag, and reports no file owner in `stat`. Each is
asked for here by what the system offers, never by its name, and none is looked up at import
time, so that every command starts on every system.

Standard-library calls rather than a locking package (portalocker): one call per system is
all a game log needs, and the Windows form locks one byte far past the end of the file, where
no reader ever reads (Windows byte-range locks are mandatory: a lock on the data would make
`log list` and `replay` fail while a game is played).

Where a system cannot give a guarantee, the check is skipped with a one-line notice on
stderr, once per program: a missing guarantee must never keep anyone from playing.
"""

from __future__ import annotations

import contextlib
import errno
import os
import sys
from pathlib import Path

# Windows opens files in text mode unless told otherwise (its C library would turn "\n" into
# "\r\n" in a game log); elsewhere the flag does not exist and means nothing.
BINARY = getattr(os, "O_BINARY", 0)
# Where the Windows lock is taken: one byte no game log reaches (they stay below a few MB)
# and no reader reads. Within 31 bits, which every Windows C library can seek to.
WINDOWS_LOCK_OFFSET = 2**31 - 2

_said: set[str] = set()


def notice(text: str) -> None:
    """Say `text` on stderr, once per program: what this system cannot guarantee."""
    if text in _said:
        return
    _said.add(text)
    print(f"hanabi-p2p: note: {text}", file=sys.stderr, flush=True)


NO_LOCK = ("this system cannot lock game logs: do not play the same game in two windows at "
           "once (it would sign two different moves)")
NO_OWNER = ("this system does not say who owns a file: the data directory and game logs are "
            "not checked to be yours")


# ---------------------------------------------------------------------------- no-follow open


def _link_error(path: Path) -> OSError:
    return OSError(errno.ELOOP, "is a symbolic link", str(path))


def open_no_follow(path: Path, flags: int, mode: int = 0o600) -> int:
    """`os.open(path, flags, mode)`, in binary mode, refusing a symbolic link at `path` with
    OSError(ELOOP). With O_NOFOLLOW the system refuses it; without (Windows), `path` is
    looked at before it is opened, and what was opened must be what `path` names, not what
    a link made in between points to."""
    nofollow = getattr(os, "O_NOFOLLOW", None)
    if nofollow is not None:
        return os.open(path, flags | nofollow | BINARY, mode)
    if os.path.islink(path):
        raise _link_error(path)
    fd = os.open(path, flags | BINARY, mode)
    try:
        same = os.path.samestat(os.fstat(fd), os.lstat(path))
    except OSError:
        same = False  # renamed or removed since: not the file `path` names
    if not same:
        os.close(fd)
        raise _link_error(path)
    return fd


# ---------------------------------------------------------------------------- ownership


def our_uid() -> int | None:
    """The user id files we write must belong to, or None (after a notice) on a system that
    reports no owner (Windows: `stat` gives every file the owner 0)."""
    geteuid = getattr(os, "geteuid", None)
    if geteuid is None:
        notice(NO_OWNER)
        return None
    uid: int = geteuid()
    return uid


def permission_bits_apply() -> bool:
    """Whether a file's mode says who may read it. Windows keeps POSIX bits only for
    read-only (a private file reads as 0666 there): who may read is its own access lists."""
    return os.name != "nt"


# ---------------------------------------------------------------------------- locking


def lock_exclusive(fd: int) -> bool:
    """Take the exclusive lock of the open file `fd` without waiting: True once taken (the
    system drops it when `fd` is closed or the program ends); BlockingIOError when another
    program holds it; False, after a notice, where this system or file system cannot lock
    (the lock only guards against a second window of our own)."""
    try:
        import fcntl
    except ImportError:
        return _lock_windows(fd)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        raise
    except OSError:  # some network file systems
        notice(NO_LOCK)
        return False
    return True


def _lock_windows(fd: int) -> bool:
    if sys.platform != "win32":  # no flock and no msvcrt: nothing to lock with
        notice(NO_LOCK)
        return False
    import msvcrt

    position = os.lseek(fd, 0, os.SEEK_CUR)
    try:
        os.lseek(fd, WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        msvcrt.locking(fd, msvcrt.LK_NBLCK, 1)
    except OSError as exc:
        if exc.errno in {errno.EACCES, errno.EDEADLK}:  # held by another program
            raise BlockingIOError(exc.errno, exc.strerror) from None
        notice(NO_LOCK)
        return False
    finally:
        os.lseek(fd, position, os.SEEK_SET)
    return True


def unlock(fd: int) -> None:
    """Release the lock `lock_exclusive` took on `fd`, before `fd` is closed: Windows drops
    the lock of a closed file only "at some point", and a game reopened at once (a check
    that the game is free, then the game itself) would find its own lock still there.
    Nothing happens where no lock was taken."""
    try:
        import fcntl
    except ImportError:
        _unlock_windows(fd)
        return
    with contextlib.suppress(OSError):
        fcntl.flock(fd, fcntl.LOCK_UN)


def _unlock_windows(fd: int) -> None:
    if sys.platform != "win32":
        return
    import msvcrt

    position = os.lseek(fd, 0, os.SEEK_CUR)
    try:
        os.lseek(fd, WINDOWS_LOCK_OFFSET, os.SEEK_SET)
        with contextlib.suppress(OSError):  # not locked: nothing to release
            msvcrt.locking(fd, msvcrt.LK_UNLCK, 1)
    finally:
        os.lseek(fd, position, os.SEEK_SET)
