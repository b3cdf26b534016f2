"""The game's native libraries load once per process, on a thread, started by the game
commands before they dial (peer/preload.py)."""

from __future__ import annotations

import asyncio
import socket
import subprocess
import sys
from concurrent.futures import Future
from pathlib import Path

import pytest

from hanabi_p2p.peer import preload


def test_every_caller_gets_the_one_load_and_it_leaves_the_group_usable() -> None:
    first = preload.start_loading()
    assert preload.start_loading() is first
    assert first.result(timeout=30) is None
    from hanabi_p2p.deck.group import RISTRETTO255, scalar_from_int

    two = RISTRETTO255.base_mul(scalar_from_int(2))
    assert RISTRETTO255.add(RISTRETTO255.base_point, RISTRETTO255.base_point) == two


def test_a_failed_load_is_raised_to_whoever_awaits_it() -> None:
    def broken() -> None:
        raise OSError("libsodium: cannot map the library")

    future: Future[None] = Future()
    future.set_running_or_notify_cancel()
    preload._load_into(future, (broken,))
    with pytest.raises(OSError, match="cannot map"):
        asyncio.run(_awaited(future))


async def _awaited(future: Future[None]) -> None:
    await asyncio.wrap_future(future)


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port  # closed again: nothing listens there


@pytest.mark.process
@pytest.mark.parametrize("attempt", range(2))
def test_a_join_that_starts_the_load_still_imports_the_game(tmp_path: Path,
                                                            attempt: int) -> None:
    """`join --address` starts the load, then imports the rest of the program on the main
    thread. When the load's thread imported our modules itself, the two imports met
    half-way and every joiner died at once with a traceback (`cannot import name 'frame'
    from partially initialized module 'hanabi_p2p.deck.derive'`) before dialling."""
    done = subprocess.run(
        [sys.executable, "-m", "hanabi_p2p", "join", "--address", f"127.0.0.1:{_closed_port()}",
         "--bot", "--interface", "127.0.0.1", "--data-dir", str(tmp_path)],
        capture_output=True, text=True, timeout=60, check=False)
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert "cannot reach a table at 127.0.0.1" in done.stderr
