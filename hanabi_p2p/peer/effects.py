"""What comes out of the peer core, and the commands a player gives it: small immutable
records (what goes in is in ``hanabi_p2p.peer.inputs``).

The core (``hanabi_p2p.peer.core``, or ``watcher`` for a spectator) is fed link events,
frames, commands and the time, and answers with effects the IO shell carries out in order.
Order matters: an own entry's ``StoreEntry`` always comes before the ``Broadcast`` of its
frame, so nothing we said is lost to a crash (a resumed peer must never sign a second,
different entry with the same number).
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from dataclasses import dataclass

from hanabi_p2p.deck.errors import DeckCheatError
from hanabi_p2p.errors import Refusal
from hanabi_p2p.log.entry import Entry
from hanabi_p2p.net.frames import Frame
from hanabi_p2p.rules.actions import Action
from hanabi_p2p.session import events as ev

# -- events the core adds to the session's own (for front ends) ------------------------------


@dataclass(frozen=True, slots=True)
class PeerLink(ev.Event):
    """The link to a peer came up or went down (never a fault of that peer)."""

    peer_id: bytes
    up: bool
    reason: str = ""


@dataclass(frozen=True, slots=True)
class LinkProblem(ev.Event):
    """A connection misbehaved: bytes that do not authenticate or decode, a failed
    handshake, a peer whose entries stopped arriving. Shown and counted, never blamed:
    ``peer_id`` is the identity the link was verified for, if any; ``address`` where known."""

    peer_id: bytes | None
    reason: str
    address: str = ""


@dataclass(frozen=True, slots=True)
class JoinerLeft(ev.Event):
    """A joiner said it left the lobby (`lobby.left`): the host no longer waits for it."""

    peer_id: bytes
    name: str  # as it asked to sit: peer text, to sanitise


@dataclass(frozen=True, slots=True)
class LobbyChanged(ev.Event):
    """Who is waiting in the lobby changed (a join, a kick); hosts update their advert."""

    waiting: int


@dataclass(frozen=True, slots=True)
class Watcher:
    """A spectator of this table. ``name`` is what it calls itself: peer text, to sanitise
    before display; ``sees_hands`` when the table gives spectators the players' keys."""

    peer_id: bytes
    name: str
    sees_hands: bool


@dataclass(frozen=True, slots=True)
class WatchersChanged(ev.Event):
    """Who is watching the table changed (see ``PeerCore.watchers``)."""


# -- commands (from the player, the computer player or the launcher) --------------------------


@dataclass(frozen=True, slots=True)
class Act:
    """Play, discard, clue or move a card (refused with a reason when not allowed)."""

    action: Action


@dataclass(frozen=True, slots=True)
class Say:
    text: str


@dataclass(frozen=True, slots=True)
class Resign:
    reason: str = ""


@dataclass(frozen=True, slots=True)
class Abandon:
    """Ask to end the game by agreement, or agree to it (session ``abandon``)."""


@dataclass(frozen=True, slots=True)
class Start:
    """Host: seat the players waiting in the lobby and start the deal."""


@dataclass(frozen=True, slots=True)
class Kick:
    """Host: remove a player from the lobby before the deal; it may ask for a seat again
    (under a new name, or from a new program), unless ``ban``: then never."""

    peer_id: bytes
    ban: bool = False


@dataclass(frozen=True, slots=True)
class Rename:
    """Joiner: ask for our seat again under another name, before the deal."""

    name: str


@dataclass(frozen=True, slots=True)
class Leave:
    """Stop this peer (the game waits for us to come back, unless it is over).
    ``forget``: the player quit a lobby for good; nothing of it is worth keeping."""

    reason: str
    forget: bool = False


Command = Act | Say | Resign | Abandon | Start | Kick | Rename | Leave


# -- effects (for the IO shell) ---------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class StoreEntry:
    """Append ``entry`` to the game file. ``own`` entries must be durable (fsync'd) before
    the next effect runs; received ones may be synced in a batch."""

    entry: Entry
    own: bool


@dataclass(frozen=True, slots=True)
class Send:
    peer_id: bytes
    frame: Frame


@dataclass(frozen=True, slots=True)
class Broadcast:
    """Send to every connected peer."""

    frame: Frame


@dataclass(frozen=True, slots=True)
class Connect:
    """Keep a link to this seated peer (dial it and redial whenever it drops)."""

    peer_id: bytes
    host: str
    port: int


@dataclass(frozen=True, slots=True)
class AdmitOnly:
    """Seating is decided: from now on only these peers may connect, and at most
    ``guests`` others at a time (spectators; the core keeps only those that say so)."""

    peer_ids: tuple[bytes, ...]
    guests: int = 0


@dataclass(frozen=True, slots=True)
class Disconnect:
    peer_id: bytes
    reason: str


@dataclass(frozen=True, slots=True)
class Notify:
    """Events for the front end, in the order they happened."""

    events: tuple[ev.Event, ...]


@dataclass(frozen=True, slots=True)
class CheckDeck:
    """Run these deck proof checks (pure; any thread, in parallel: libsodium releases the
    GIL) and report with the ``DeckChecked`` input: the DeckCheatError the first failing job
    in list order raised (so the blame never depends on timing), or None. Until then the
    deck is not ready and nothing is revealed; our own shuffle or lock is sent already."""

    jobs: tuple[Callable[[], None], ...]


CheckOutcome = DeckCheatError | None


class EndKind(enum.Enum):
    AUDITED = "audited"  # the game is over and its deck audit ran
    ABORTED = "aborted"  # stopped for a reason (a cheat, an unreachable player, a resign)
    LEFT = "left"  # we left (the player quit, the table filled without us)


@dataclass(frozen=True, slots=True)
class Finished:
    """The peer is done; ``failure`` says why when the game did not finish well, and
    ``refusal`` the same typed, when it is one of ours (why a lobby ended without a game:
    the front end words it in the player's language from its class)."""

    kind: EndKind
    failure: str | None = None
    forget: bool = False  # see Leave.forget
    chosen: bool = False  # our player chose to leave (a Leave command)
    refusal: Refusal | None = None


Effect = (StoreEntry | Send | Broadcast | Connect | AdmitOnly | Disconnect | Notify | CheckDeck
          | Finished)
