"""N in-memory peers wired through real replicas and signed entries (like h11's ConnectionPair).

Delivery order is driven by a seeded RNG: every entry a peer posts goes into every other
peer's inbox, and `pump` delivers inbox items in a random interleaving, so tests exercise
arbitrary (but reproducible) arrival orders.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field

from hanabi_p2p.identity import Identity
from hanabi_p2p.log.entry import Entry, make_entry
from hanabi_p2p.log.replica import AddResult, Replica, Status
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.bodies import Address
from hanabi_p2p.session.table import TableSession

TABLE_ID = bytes(range(16))


@dataclass
class Peer:
    identity: Identity
    session: TableSession
    replica: Replica
    inbox: list[Entry] = field(default_factory=list)
    rejected: list[str] = field(default_factory=list)


class Table:
    def __init__(self, config: GameConfig, seed: int = 0, shuffle: bool = True) -> None:
        self.rng = random.Random(seed)
        self.shuffle = shuffle
        self.config = config
        self.peers: list[Peer] = []
        for i in range(config.players):
            identity = Identity.from_seed(bytes([i + 1]) * 32)
            deck_seed = self.rng.randbytes(32)
            session = TableSession(identity, TABLE_ID, seed=deck_seed)
            self.peers.append(Peer(identity, session, Replica(TABLE_ID, session)))
        host = self.peers[0]
        host.session.host_id = host.identity.peer_id
        for p in self.peers[1:]:
            p.session.host_id = host.identity.peer_id

    # ---- plumbing
    def flush(self, peer: Peer) -> None:
        """Sign peer's outbox, apply locally, and queue for everyone else."""
        while True:
            out = peer.session.take_outbox()
            if not out:
                return
            for kind, turn, body in out:
                seq, prev = peer.replica.next_link(peer.identity.peer_id)
                entry = make_entry(peer.identity, table_id=TABLE_ID, seq=seq, prev=prev,
                                   turn=turn, kind=kind, body=body)
                result = peer.replica.add(entry)
                assert result.status in (Status.ACCEPTED, Status.HELD), result
                self.send(peer, entry)

    def send(self, peer: Peer, entry: Entry) -> None:
        """Put one of `peer`'s entries in every other peer's inbox (a hostile table
        overrides this to rewrite or withhold what a cheater sends)."""
        for other in self.peers:
            if other is not peer:
                other.inbox.append(entry)

    def deliver_one(self) -> bool:
        candidates = [p for p in self.peers if p.inbox]
        if not candidates:
            return False
        peer = self.rng.choice(candidates) if self.shuffle else candidates[0]
        index = self.rng.randrange(len(peer.inbox)) if self.shuffle else 0
        entry = peer.inbox.pop(index)
        self.record(peer, peer.replica.add(entry))
        self.flush(peer)
        return True

    def record(self, peer: Peer, result: AddResult) -> None:
        """Keep what `peer`'s replica refused, for the test to inspect."""
        if result.status is Status.REJECTED:
            peer.rejected.append(result.reason)
        for bad in result.dropped:
            peer.rejected.append(str(bad))

    def pump(self, limit: int = 1_000_000,
             eager: Callable[[TableSession], object] | None = None) -> None:
        """Deliver until quiet. With `eager`, a peer acts (via `eager`) the moment it can,
        between deliveries, as real players do: turns then overlap with answers in flight."""
        for p in self.peers:
            self.flush(p)
        for _ in range(limit):
            if eager is not None:
                for p in self.peers:
                    if p.session.can_act():
                        p.session.take_action(eager(p.session))  # type: ignore[arg-type]
                        self.flush(p)
            if not self.deliver_one():
                return
        raise AssertionError("message storm: pump limit reached")

    # ---- scenario helpers
    def seat_everyone(self) -> None:
        host = self.peers[0]
        host.session.open_table("test table", "p0", self.config)
        self.pump()
        for i, p in enumerate(self.peers[1:], start=1):
            p.session.request_seat(f"p{i}", Address("127.0.0.1", 40000 + i))
        self.pump()
        host.session.seat_players(Address("127.0.0.1", 40000))
        self.pump()

    def play(self, choose: Callable[[TableSession], object], max_turns: int = 500) -> None:
        for _ in range(max_turns):
            actor = next((p for p in self.peers if p.session.can_act()), None)
            if actor is None:
                self.pump()
                actor = next((p for p in self.peers if p.session.can_act()), None)
                if actor is None:
                    return
            actor.session.take_action(choose(actor.session))  # type: ignore[arg-type]
            self.pump()
        raise AssertionError("game did not end")


def bot_action(session: TableSession) -> object:
    """What the simple computer player does in `session`'s seat now."""
    from hanabi_p2p.bots.simple import choose_action

    assert session.state is not None and session.my_seat is not None
    return choose_action(session.state, session.my_seat)


def play_bot_game(config: GameConfig, seed: int) -> Table:
    """A finished, audited game between computer players, turns overlapping with answers
    still in flight."""
    table = Table(config, seed=seed)
    table.seat_everyone()
    table.pump(eager=bot_action)
    return table
