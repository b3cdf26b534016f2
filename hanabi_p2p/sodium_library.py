"""rbcl's libsodium (the deck's ristretto255), loaded without leaving a copy of it behind.

rbcl ships no compiled extension: its module ``rbcl._sodium`` holds libsodium's bytes, writes
them at import to a ``tempfile.NamedTemporaryFile(delete=False)`` (2.7 MB, ``tmpXXXX.so``),
loads that file with ctypes and never removes it. We remove it once it is loaded (POSIX keeps
the mapping; Windows refuses while it is loaded, so there it goes at a later start). A process
killed between rbcl's write and that removal would leave it in the system's temporary
directory under a random name that no later run could tell from anyone else's file; so rbcl
writes it into a directory of our own, named with our process id, and every load first
removes the directories of processes that are gone.

Only rbcl's module holding the library (`rbcl._sodium`) is run, not the package: its
`rbcl/__init__.py` imports rbcl's own Python wrappers, which import `doctest` (and with it
`pdb`, `unittest`...) and rewrite their source at import (`barriers`): about 60 ms of a
`log verify` started cold, for functions we never call (group.py calls the library itself).
So the module is loaded from its file, and libsodium initialised (`sodium_init`) as rbcl's
wrappers would have done.

Here rather than in deck/group.py: the deck stays free of threads and clocks (the lock below
makes two threads asking at once load it once; the age of a leftover is read from the clock).
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
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
_library: list[Any] = []  # the library, once loaded


def load() -> Any:
    """rbcl's libsodium (a ctypes library), loaded and initialised on the first call."""
    with _lock:
        if not _library:
            _library.append(_import_rbcl())
    return _library[0]


def _import_rbcl() -> Any:
    base = Path(tempfile.gettempdir())
    remove_leftovers(base)
    own = Path(tempfile.mkdtemp(prefix=f"{LEFTOVER_PREFIX}{os.getpid()}-", dir=base))
    saved = tempfile.tempdir
    tempfile.tempdir = str(own)  # where rbcl's NamedTemporaryFile goes
    try:
        library = _run_library_module()  # (writes and loads its library)
    finally:
        tempfile.tempdir = saved
    _remove_dir(own)
    # 0: initialised now, 1: already (another user of the library in this process)
    if library.sodium_init() < 0:
        raise RuntimeError("libsodium could not be initialised")
    return library


def _run_library_module() -> Any:
    """Run rbcl's `_sodium.py` alone (not the package: see the module docstring) and return
    the library it loaded."""
    package = importlib.util.find_spec("rbcl")  # found, not imported
    if package is None or not package.submodule_search_locations:
        raise ImportError("rbcl is not installed")
    path = Path(next(iter(package.submodule_search_locations))) / "_sodium.py"
    spec = importlib.util.spec_from_file_location("rbcl._sodium", path)
    if spec is None or spec.loader is None:
        raise ImportError(f"rbcl's library module is missing: {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module._sodium


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
