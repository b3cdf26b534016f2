"""An in-memory table of N DeckPeers wired together (like h11's ConnectionPair).

For tests and the benchmark: every message a peer sends is broadcast to every other peer, in
sending order, unless a test intercepts it. Deterministic: seeds and identities come from a
label, never from global randomness.
"""

from __future__ import annotations

import hashlib
from collections import deque
from collections.abc import Callable

from hanabi_p2p.deck.group import LIVE_GROUP, DeckGroup
from hanabi_p2p.deck.messages import DeckMessage
from hanabi_p2p.deck.peer import DeckPeer
from hanabi_p2p.rules.cards import GameConfig

# Lets a test replace (or drop, by returning None) a message on its way out of a seat.
Tamper = Callable[[int, DeckMessage], DeckMessage | None]


def seat_identity(label: str, seat: int) -> tuple[bytes, bytes]:
    """(peer_id, seed) for a seat of a labelled test table: stand-ins, not real keys."""
    peer_id = hashlib.sha256(f"{label}/peer/{seat}".encode()).digest()
    seed = hashlib.sha256(f"{label}/seed/{seat}".encode()).digest()
    return peer_id, seed


class DeckTable:
    """N peers, a shared FIFO of in-flight messages, and a record of every message sent."""

    def __init__(self, config: GameConfig, label: str = "table", *,
                 table_id: bytes | None = None, tamper: Tamper | None = None,
                 defer_checks: bool = False, group: DeckGroup = LIVE_GROUP) -> None:
        self.config = config
        self.group = group
        self.label = label
        self.table_id = table_id or hashlib.sha256(f"{label}/table".encode()).digest()[:16]
        identities = [seat_identity(label, seat) for seat in range(config.players)]
        self.peer_ids = [peer_id for peer_id, _ in identities]
        self.peers = [DeckPeer(config, self.table_id, self.peer_ids, seat, seed,
                               defer_checks=defer_checks, group=group)
                      for seat, (_, seed) in enumerate(identities)]
        self.tamper = tamper
        self.sent: list[tuple[int, DeckMessage]] = []  # the public transcript, in order
        self.inbox: deque[tuple[int, DeckMessage]] = deque()

    def post(self, seat: int, messages: list[DeckMessage]) -> None:
        for message in messages:
            changed = self.tamper(seat, message) if self.tamper else message
            if changed is not None:
                self.sent.append((seat, changed))
                self.inbox.append((seat, changed))

    def deliver(self) -> None:
        """Deliver until quiet; each message goes to every other seat in seat order. A peer
        that defers its checks sends what `receive` gave first, then runs them (as an IO
        shell would)."""
        while self.inbox:
            sender, message = self.inbox.popleft()
            for seat, peer in enumerate(self.peers):
                if seat != sender:
                    self.post(seat, peer.receive(sender, message))
                    if peer.checks_pending:
                        self.post(seat, peer.run_checks())

    def setup(self) -> None:
        """Commit, shuffle and lock: leaves every peer with the deck ready."""
        for seat, peer in enumerate(self.peers):
            self.post(seat, peer.start())
        self.deliver()

    def deal(self, position: int, owner: int) -> None:
        """Reveal `position` to every seat but `owner` (dealing or drawing)."""
        for seat, peer in enumerate(self.peers):
            self.post(seat, peer.deal_shares(position, owner))
        self.deliver()

    def reveal_all(self, position: int) -> None:
        """Reveal `position` to everyone (a play or a discard)."""
        for seat, peer in enumerate(self.peers):
            self.post(seat, peer.public_share(position))
        self.deliver()

    def initial_deal(self) -> None:
        """Deal the opening hands in the engine's order: seat 0 gets positions 0..H-1, ..."""
        hand = self.config.hand_size
        for owner in range(self.config.players):
            for position in range(owner * hand, (owner + 1) * hand):
                self.deal(position, owner)

    def reveal_seeds(self) -> None:
        for seat, peer in enumerate(self.peers):
            self.post(seat, peer.seed_reveal())
        self.deliver()
