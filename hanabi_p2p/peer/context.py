"""What every machine of a peer core shares: who we are, the session, the time, the links
we have, and the effects and events on their way out.

The machines (`lobby`, `admission`, `replication`, `waiting`, `ending`, `spectators`) each
own their own state; this object holds only what all of them read, and the two queues they
all write to. Nothing here decides anything.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from hanabi_p2p.log.replica import Replica
from hanabi_p2p.net import frames as fr
from hanabi_p2p.net.handshake import Signer
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.sync import SyncTracker
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import Address
from hanabi_p2p.session.table import TableSession

# How often we tell every peer what we hold, so gaps left by a dropped link get filled.
SYNC_INTERVAL_S = 1.0
# After the game, how long (at least) we stay for peers that still lack some of our entries;
# at most as long as the wait timeout, when that is longer (a peer cut off during the audit
# waits that long for what it lacks).
LINGER_S = 20.0
# After the game, how long (at most) we also stay for the spectators linked to us that still
# lack some of it (their HAVE says what they hold), so that one who came late, or is still
# catching up, sees the end of the game. Players come first: this never shortens the wait
# for them; and a spectator that claims to lack entries for ever keeps us this long at most.
SPECTATOR_LINGER_S = 10.0


@dataclass
class Timing:
    """Tunables; tests shorten them."""

    sync_interval: float = SYNC_INTERVAL_S
    # give up on what keeps the game waiting this long (seconds; None = never)
    wait_timeout: float | None = 600.0
    linger: float = LINGER_S
    spectator_linger: float = SPECTATOR_LINGER_S
    # end a lobby nobody completes within this long (None = wait for ever, as people do)
    lobby_timeout: float | None = None


@dataclass
class Counters:
    """What the core refused or saw go wrong, for screens and tests."""

    link_problems: int = 0
    strangers_refused: int = 0
    rate_dropped: int = 0
    # MSG frames of a topic no machine of ours handles (a newer or odd client): ignored
    unknown_topics: int = 0
    # inputs that came in a stage whose table has no row for them (see `lifecycle`)
    out_of_stage: int = 0
    # entry hash -> the core's time when it applied the entry: the `now` of the call that
    # did (a frame's arrival at the core, or our own command), not when that call returned
    applied_at: dict[bytes, float] = field(default_factory=dict)


@dataclass
class PeerContext:
    """The shared part of one peer's core (see the module docstring)."""

    identity: Signer
    session: TableSession
    replica: Replica
    timing: Timing
    address: Address  # where peers reach us (what we put in our lobby entries)
    now: float
    counters: Counters = field(default_factory=Counters)
    sync: SyncTracker = field(default_factory=SyncTracker)
    connected: set[bytes] = field(default_factory=set)
    effects: list[fx.Effect] = field(default_factory=list)
    events: list[ev.Event] = field(default_factory=list)
    # when each peer's current link came up
    up_at: dict[bytes, float] = field(default_factory=dict)

    @property
    def me(self) -> bytes:
        return self.identity.peer_id

    def emit(self, effect: fx.Effect) -> None:
        self.effects.append(effect)

    def send(self, peer_id: bytes, frame: fr.Frame) -> None:
        self.effects.append(fx.Send(peer_id, frame))

    def event(self, event: ev.Event) -> None:
        self.events.append(event)

    def link_problem(self, peer_id: bytes | None, reason: str, address: str = "") -> None:
        """Bytes that are nobody's signed word went wrong: counted and shown, never blamed."""
        self.counters.link_problems += 1
        self.events.append(fx.LinkProblem(peer_id, reason, address))

    def flush_events(self, always: bool = False) -> None:
        # a Notify even without events when asked: learning faces changes what one can do
        if self.events or always:
            self.effects.append(fx.Notify(tuple(self.events)))
            self.events = []

    def seated(self) -> set[bytes]:
        return {s.peer_id for s in self.session.seats}

    def describe(self, peer_id: bytes) -> str:
        return self.session.describe(peer_id)
