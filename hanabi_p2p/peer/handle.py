"""What a front end may see of a running peer and do with it: a narrow interface.

Front ends (the full-screen table, the headless printer, a computer player) read the
session to draw it and send commands; they never reach into the node, the mesh or the log.
Commands are carried out at once: a refusal raises ``HanabiError`` with the reason and
nothing is sent.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Protocol

from hanabi_p2p.peer.context import Counters
from hanabi_p2p.peer.effects import Command, Watcher
from hanabi_p2p.session.table import TableSession


class PeerHandle(Protocol):
    @property
    def session(self) -> TableSession:
        """The game as this peer sees it: read it, never change it."""
        ...

    @property
    def table_id(self) -> bytes: ...

    @property
    def player_name(self) -> str:
        """The name this player asked to sit under (the table may have made it unique)."""
        ...

    @property
    def address(self) -> str:
        """Where this peer listens, ``host:port``."""
        ...

    @property
    def connected(self) -> frozenset[bytes]:
        """Peers with a link up right now."""
        ...

    @property
    def log_path(self) -> Path | None: ...

    @property
    def finished(self) -> bool:
        """The peer is done (it may still be passing its last entries on)."""
        ...

    @property
    def counters(self) -> Counters: ...

    @property
    def failed_code_attempts(self) -> int:
        """Connections refused for a wrong table password (0 if the table has none)."""
        ...

    @property
    def watching(self) -> bool:
        """This program is a spectator (``hanabi-p2p watch``): it never holds a seat."""
        ...

    def watchers(self) -> tuple[Watcher, ...]:
        """Who watches this table, as far as this peer knows (sorted by name)."""
        ...

    def left_out(self) -> frozenset[bytes]:
        """The joiners the host will not seat: removed (`kick`), gone from the lobby, or
        caught signing two entries with one number."""
        ...

    def describe(self, peer_id: bytes) -> str:
        """How a peer is named in every message: "Name (K7QF-2M9D)"."""
        ...

    def after(self, delay: float, call: Callable[[], None], name: str) -> None:
        """Call ``call`` on the event loop ``delay`` seconds from now, never from inside the
        peer's own processing; an error it raises ends the peer visibly, as any error of the
        peer does (nothing is called once the peer has stopped)."""

    def command(self, command: Command) -> None:
        """Act, say, resign, start, kick or leave; raises HanabiError if refused."""
        ...
