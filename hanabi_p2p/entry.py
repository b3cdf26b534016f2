"""The installed `hanabi-p2p` command: the program, then an exit without the teardown.

When `cli.main` returns, everything that matters is done: the game log is closed and
durable, the result printed. What the interpreter would still do is tear down every module
and object (tens of milliseconds after a game, more on a loaded machine), which a person
waits for at the end of every game. So, once no other thread is alive, this runs the exit
handlers (anything registered with `atexit`), flushes the standard streams and ends the
process at once. With any other thread still alive it exits the usual way, which waits
for that thread. Tests call `cli.main` itself and are unaffected.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
import threading
from typing import NoReturn

from hanabi_p2p.cli import main


def run() -> NoReturn:
    leave(main())


def leave(code: int) -> NoReturn:
    if threading.active_count() > 1:
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        # a closed pipe or stream: there is nobody left to tell
        with contextlib.suppress(OSError, ValueError):
            stream.flush()
    os._exit(code)
