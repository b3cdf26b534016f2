"""What goes into a peer core: one small record per kind of input (`PeerCore.handle`).

Every input but `Load` carries the time: the core has no clock of its own.
"""

from __future__ import annotations

from dataclasses import dataclass

from hanabi_p2p.log.entry import Entry
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import effects as fx


@dataclass(frozen=True, slots=True)
class Load:
    """Replay our stored entries (a resumed peer) before going online."""

    entries: tuple[Entry, ...]


@dataclass(frozen=True, slots=True)
class Start:
    """Go online: post whatever the session wants to say."""

    now: float


@dataclass(frozen=True, slots=True)
class PeerUp:
    peer_id: bytes
    now: float


@dataclass(frozen=True, slots=True)
class PeerDown:
    peer_id: bytes
    reason: str
    now: float


@dataclass(frozen=True, slots=True)
class LinkFailed:
    """A connection that never became a link, or one closed for misbehaving bytes."""

    reason: str
    now: float
    address: str = ""
    peer_id: bytes | None = None


@dataclass(frozen=True, slots=True)
class Received:
    """A frame from a linked peer. ``settle=False`` (entries only): apply it (store, relay)
    but sign nothing yet — what it calls for (an ack, a deck step) waits for `Settle`, so a
    shell can take in every entry that has arrived before it signs anything."""

    peer_id: bytes
    frame: fr.Frame
    now: float
    settle: bool = True


@dataclass(frozen=True, slots=True)
class Settle:
    """Sign and send what the entries taken in with ``Received(settle=False)`` call for."""

    now: float


@dataclass(frozen=True, slots=True)
class Command:
    """Our player's command; refused with a HanabiError (nothing sent) when not allowed."""

    command: fx.Command
    now: float


@dataclass(frozen=True, slots=True)
class DeckChecked:
    """The shell ran the jobs of our last `CheckDeck` effect."""

    outcome: fx.CheckOutcome
    now: float


@dataclass(frozen=True, slots=True)
class ActionSent:
    """The shell stored and sent our turn action (see `PeerCore.action_unapplied`): the
    core applies it now."""

    now: float


@dataclass(frozen=True, slots=True)
class Tick:
    """Time passed."""

    now: float


Input = (Load | Start | PeerUp | PeerDown | LinkFailed | Received | Settle | Command
         | DeckChecked | ActionSent | Tick)
