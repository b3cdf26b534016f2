"""The native libraries a game needs, loaded early on a thread of their own, once per process.

The first handshake needs OpenSSL's X25519 (10-20 ms to load) and the first deck step the
deck group's libsodium (60-90 ms). Loaded on the event loop, they stall every peer waiting for
this one, all at once when the table fills; the last player to join is seated the moment its
handshake is done, so its commitment (the first deck step) waited for the load. A game
command therefore starts the load first thing, while it still parses arguments, imports the
rest of the program, probes and dials the table; the node awaits the same load in its task
group, so a failure ends the peer visibly.

This module imports nothing heavy itself (`--help` imports it). `start_loading` imports the
loaders on the calling thread: a thread importing our modules while the main thread imports
others that depend on them can get one of them half-initialised (a circular import across
threads: "cannot import name ... from partially initialized module").
"""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future

_lock = threading.Lock()
_loading: Future[None] | None = None


def start_loading() -> Future[None]:
    """Start loading on a thread, unless this process started it already; the future of
    that one load."""
    from hanabi_p2p.deck.group import load_library
    from hanabi_p2p.net.handshake import load_key_exchange

    global _loading
    with _lock:
        if _loading is None:
            future: Future[None] = Future()
            future.set_running_or_notify_cancel()
            loaders = (load_key_exchange, load_library)
            threading.Thread(target=_load_into, args=(future, loaders),
                             name="load the libraries", daemon=True).start()
            _loading = future
        return _loading


def _load_into(future: Future[None], loaders: tuple[Callable[[], None], ...]) -> None:
    try:
        for load in loaders:
            load()
    except BaseException as exc:  # handed to whoever awaits the load (the node's task group)
        future.set_exception(exc)
    else:
        future.set_result(None)


async def libraries_loaded() -> None:
    """Wait for the load (starting it if nobody has); raises what the load raised."""
    await asyncio.wrap_future(start_loading())
