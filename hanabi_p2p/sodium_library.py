"""rbcl's libsodium (the deck's ristretto255), loaded without leaving a copy of it behind.

rbcl ships no compiled extension: its module ``rbcl._sodium`` holds libsodium's bytes, writes
them at import to a ``tempfile.NamedTemporaryFile(delete=False)`` (2.7 MB, ``tmpXXXX.so``),
loads that file with ctypes and never removes it. We remove it once it is loaded (POSIX keeps
the mapping; Windows refuses while it is loaded, so there it goes at a later start). A process
killed between rbcl's write and that removal would leave it in the system's temporary
directory under a random name that no later run could tell from anyone else's file; so rbcl
writes it into a directory of our own, named with our process id, and every load first
removes the directories of processes that are gone.

Here rather than in deck/group.py: the deck stays free of threads and clocks (the lock below
makes two threads asking at once load it once; the age of a leftover is read from the clock).
"""

from __future__ import annotations

import contextlib
import os
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

LEFTOVER_PREFIX = "hanabi-p2p-sodium-"
# Where a process cannot be asked whether it runs (Windows), a directory is only removed once
# this old: its process has long loaded its library by then (which Windows keeps from
# removal while it is in use).
MIN_LEFTOVER_AGE_S = 60.0

_lock = threading.Lock()


def load() -> Any:
    """rbcl's libsodium (a ctypes library); imports rbcl on the first call."""
    with _lock:
        if "rbcl" not in sys.modules:
            _import_rbcl()
    return sys.modules["rbcl"]._sodium


def _import_rbcl() -> None:
    base = Path(tempfile.gettempdir())
    remove_leftovers(base)
    own = Path(tempfile.mkdtemp(prefix=f"{LEFTOVER_PREFIX}{os.getpid()}-", dir=base))
    saved = tempfile.tempdir
    tempfile.tempdir = str(own)  # where rbcl's NamedTemporaryFile goes
    try:
        import rbcl  # noqa: F401 (writes and loads its library)
    finally:
        tempfile.tempdir = saved
    _remove_dir(own)


def _remove_dir(directory: Path) -> None:
    """Remove the library file(s) in `directory`, then `directory`; what the system refuses
    (a library in use on Windows) stays for a later run."""
    with contextlib.suppress(OSError):
        for path in directory.iterdir():
            with contextlib.suppress(OSError):
                path.unlink()
        directory.rmdir()


def _process_gone(pid: int) -> bool | None:
    """Whether process `pid` has ended; None where this system cannot say without harm
    (on Windows, os.kill ends the process it is given)."""
    if os.name != "posix":
        return None
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except OSError:
        return False  # another user's process: it runs
    return False


def remove_leftovers(base: Path) -> None:
    """Remove the library directories in `base` that processes killed mid-import left."""
    with contextlib.suppress(OSError):
        for directory in base.glob(LEFTOVER_PREFIX + "*"):
            pid_text = directory.name.removeprefix(LEFTOVER_PREFIX).split("-", 1)[0]
            if not pid_text.isdigit() or int(pid_text) == os.getpid():
                continue
            gone = _process_gone(int(pid_text))
            if gone is False:
                continue
            if gone is None:
                with contextlib.suppress(OSError):
                    if time.time() - directory.stat().st_mtime < MIN_LEFTOVER_AGE_S:
                        continue
            _remove_dir(directory)
