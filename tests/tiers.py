"""The test tiers: which markers take a test out of the fast tier, and the guard that keeps
the fast tier in memory.

A test that reaches outside the process carries a marker saying how (pyproject.toml
registers them; tests/conftest.py applies them):

    process  starts an OS process: a subprocess, the installed command, a worker pool
    socket   opens a real network socket: TCP or UDP on loopback, zeroconf (mDNS)
    tmux     drives the real program in a tmux session (counts as process and socket too)
    netns    builds a LAN of network namespaces, needs root (counts as process and socket too)
    real_io  added to every test that carries one of the four above, to select them at once
    slow     too slow for the fast tier though it stays in memory (whole games, long
             property tests)
    alone    a real-IO test that floods or measures the machine (thousands of frames or
             links a second, a game's seconds): the whole suite runs it by itself, after
             the real-IO tests that run several at a time, as they and it would skew each
             other (tasks.py)

A test using the `procs` fixture (tests/e2e) counts as marked `process`, one using `netlab`
as marked `netns`. The fast tier (`pytest --fast`) is every test with neither `real_io` nor
`slow`.

Every test without `real_io` -- the fast tier and the in-memory slow tests, in every run,
the full one included -- runs under `GUARD`: creating a socket other than a local (AF_UNIX)
one, binding or connecting any socket, or starting a process raises `RealIOForbidden` and
is recorded, and a recorded attempt fails the test even if the code under test caught the
error. So a socket test added without its marker fails at once instead of slipping into the
fast tier. (asyncio's event loop makes a local socket pair to wake itself: that one stays
allowed, as it never leaves the process.)
"""

from __future__ import annotations

import _posixsubprocess
import os
import socket
import subprocess
import threading
from collections.abc import Callable
from typing import Any

# The markers for reaching outside the process; a test with any of them is real_io.
REAL_IO_MARKERS = ("process", "socket", "tmux", "netns")
REAL_IO = "real_io"
SLOW = "slow"
ALONE = "alone"
# The markers that take a test out of the fast tier.
NOT_FAST = (REAL_IO, SLOW)
# What a marker means on top of itself: tmux runs the real program (a process listening
# on loopback), a namespace LAN is built with `ip` and carries real traffic.
IMPLIED = {"tmux": ("process", "socket"), "netns": ("process", "socket")}
# Fixtures that reach outside the process whatever the test does with them.
FIXTURE_MARKERS = {"procs": ("process",), "netlab": ("netns",)}


def tier_markers(marker_names: set[str], fixture_names: set[str]) -> set[str]:
    """The tier markers a test carries, given its own markers and the fixtures it uses:
    its own, those its fixtures and markers imply, and `real_io` if any of them reaches
    outside the process."""
    names = {name for name in marker_names if name in (*REAL_IO_MARKERS, SLOW)}
    for fixture in fixture_names:
        names.update(FIXTURE_MARKERS.get(fixture, ()))
    for name in list(names):
        names.update(IMPLIED.get(name, ()))
    if names & set(REAL_IO_MARKERS):
        names.add(REAL_IO)
    return names


def in_fast_tier(tier: set[str]) -> bool:
    return not tier & set(NOT_FAST)


def longest_first(marker_names: set[str]) -> tuple[bool, bool]:
    """The sort key that puts the longest kinds of test first: those that start processes
    (whole games between programs, namespace LANs, a fresh install), then the slow ones.
    Spread over pytest-xdist's workers, none of them is then left to run alone at the end."""
    return "process" not in marker_names, SLOW not in marker_names


class RealIOForbidden(BaseException):
    """A test without a real-IO marker tried to open a socket or start a process.

    A BaseException, so that code under test catching OSError (or Exception) to retry a
    connection does not swallow it and spin."""


class Guard:
    """While `active`, refuses (and records) sockets that could leave the process and new
    processes. Installed once per pytest run; tests/conftest.py switches it per test."""

    def __init__(self) -> None:
        self.active = False
        self.attempts: list[str] = []
        self._lock = threading.Lock()
        self._undo: list[Callable[[], None]] = []

    def refuse(self, what: str) -> None:
        if not self.active:
            return
        with self._lock:
            self.attempts.append(what)
        raise RealIOForbidden(
            f"{what} in a test without a real-IO marker: mark it "
            f"{' / '.join(REAL_IO_MARKERS)} (see tests/tiers.py)"
        )

    def take_attempts(self) -> list[str]:
        with self._lock:
            taken, self.attempts = self.attempts, []
        return taken

    def install(self) -> None:
        if self._undo:
            return
        self._wrap_socket()
        for name in ("fork", "forkpty", "system", "posix_spawn", "posix_spawnp"):
            self._refuse_call(os, name, f"os.{name}()")
        # subprocess.Popen (and so asyncio's subprocesses) starts its child through its
        # own reference to this function, multiprocessing's spawn and forkserver through
        # the module's
        self._refuse_call(subprocess, "_fork_exec", "starting a process")
        self._refuse_call(_posixsubprocess, "fork_exec", "starting a process")

    def uninstall(self) -> None:
        while self._undo:
            self._undo.pop()()

    def _refuse_call(self, owner: Any, name: str, what: str) -> None:
        original = getattr(owner, name, None)
        if original is None:
            return

        def refused(*args: Any, **kwargs: Any) -> Any:
            self.refuse(what)
            return original(*args, **kwargs)

        setattr(owner, name, refused)
        self._undo.append(lambda: setattr(owner, name, original))

    def _wrap_socket(self) -> None:
        cls = socket.socket
        original_init = cls.__init__
        guard = self

        def init(sock: socket.socket, family: int = -1, type: int = -1, proto: int = -1,
                 fileno: int | None = None) -> None:
            if guard.active and fileno is None and family in (-1, socket.AF_INET,
                                                              socket.AF_INET6):
                named = "AF_INET6" if family == socket.AF_INET6 else "AF_INET"
                guard.refuse(f"opening an {named} socket")  # before it exists
            original_init(sock, family, type, proto, fileno)
            if guard.active and sock.family != socket.AF_UNIX:  # any other, or from an fd
                named = socket.AddressFamily(sock.family).name
                sock.close()
                guard.refuse(f"opening an {named} socket")

        cls.__init__ = init  # type: ignore[method-assign]
        self._undo.append(lambda: setattr(cls, "__init__", original_init))
        for name in ("bind", "connect", "connect_ex"):
            self._refuse_method(cls, name)

    def _refuse_method(self, cls: type[socket.socket], name: str) -> None:
        original = getattr(cls, name)
        guard = self

        def refused(sock: socket.socket, *args: Any, **kwargs: Any) -> Any:
            guard.refuse(f"socket.{name}()")
            return original(sock, *args, **kwargs)

        own = name in vars(cls)  # else inherited from _socket.socket
        setattr(cls, name, refused)
        self._undo.append(
            (lambda: setattr(cls, name, original)) if own else (lambda: delattr(cls, name))
        )


GUARD = Guard()
