"""One line, once, when the listener cannot accept connections (out of file descriptors).

asyncio's listener reports every failed accept with a traceback: tens of thousands of them
once filled 39 MB of stderr. `quiet_accept_errors` says it in one line, the first time, and
counts each; any other report goes on to the handler there was.
"""

from __future__ import annotations

import asyncio
import sys
from collections.abc import Callable


def quiet_accept_errors(count_failed_accept: Callable[[], int]) -> None:
    """Install the handler on the running loop; `count_failed_accept` counts one failed
    accept and returns how many there have been."""
    loop = asyncio.get_running_loop()
    previous = loop.get_exception_handler()

    def handler(loop: asyncio.AbstractEventLoop, context: dict[str, object]) -> None:
        error = context.get("exception")
        if isinstance(error, OSError) and "accept" in str(context.get("message", "")):
            if count_failed_accept() == 1:
                print(f"hanabi-p2p: note: cannot accept connections for now "
                      f"({error.strerror or error}); strangers are being dropped",
                      file=sys.stderr, flush=True)
            return
        if previous is not None:
            previous(loop, context)
        else:
            loop.default_exception_handler(context)

    loop.set_exception_handler(handler)
