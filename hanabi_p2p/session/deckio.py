"""The session's bridge to the deck protocol: wire decoding, our own echoes, the transcript.

A seated peer drives a real ``DeckPeer``. An observer (``my_seat=None``) runs no deck
secrets at all; it collects the public transcript. The log verifier, given the faces the
audit decoded, knows every card once the deck is locked; a spectator (``watching``) decodes
what its keys open with a ``WatchDeck``: the public cards, and every hand at a table that
sends spectators its keys.

A peer core with a thread pool calls `defer_checks` once seated: from then on its DeckPeer
sends its own shuffle or lock before checking its predecessors' proofs, and the costly checks
wait for `take_checks` (run them anywhere, then report with `finish_checks`); the deck is not
ready, so nothing is revealed, until every one of them has passed (SPEC 2.8).
"""

from __future__ import annotations

import hashlib
from collections.abc import Iterable, Sequence
from typing import Any

from hanabi_p2p.deck import (
    AuditResult,
    Commit,
    DeckCheatError,
    DeckCorruptError,
    DeckMessage,
    DeckPeer,
    Lock,
    OwnerKey,
    Phase,
    PublicKey,
    Shuffle,
    audit,
)
from hanabi_p2p.deck import decode_message as _decode
from hanabi_p2p.deck.group import EDWARDS25519, RISTRETTO255, DeckGroup
from hanabi_p2p.deck.peer import ProofCheck
from hanabi_p2p.deck.watch import WatchDeck
from hanabi_p2p.rules.cards import Card, GameConfig
from hanabi_p2p.session.bodies import DeckGroupName

__all__ = ["AuditResult", "DeckAdapter", "deck_group", "purpose_of_wire"]

_GROUPS: dict[DeckGroupName, DeckGroup] = {
    DeckGroupName.RISTRETTO255: RISTRETTO255,
    DeckGroupName.EDWARDS25519: EDWARDS25519,
}


def deck_group(name: DeckGroupName) -> DeckGroup:
    """The group a table's `table.open` names (edwards25519 for a 0.2.0 log)."""
    return _GROUPS[name]


def purpose_of_wire(body: Any) -> str:
    """A key naming what a deck entry is for, derived from its messages' kinds and positions.

    Two entries of ours with the same purpose would be the same answer posted twice; a
    resumed peer uses this to recognise what it already posted before a crash.
    """
    parts: list[str] = []
    msgs = body.get("deck", []) if isinstance(body, dict) else []
    for msg in msgs:
        if isinstance(msg, list) and msg and isinstance(msg[0], str):
            position = msg[1] if msg[0].endswith(("key", "keys")) and len(msg) > 1 else ""
            parts.append(f"{msg[0]}:{position}")
    return hashlib.sha256("|".join(parts).encode()).hexdigest()[:16]


class DeckAdapter:
    def __init__(
        self,
        config: GameConfig,
        table_id: bytes,
        seats: Sequence[bytes],
        my_seat: int | None,
        seed: bytes,
        known_faces: dict[int, Card] | None = None,
        *,
        group: DeckGroup,
        watching: bool = False,
    ) -> None:
        self.config = config
        self.group = group
        self.table_id = table_id
        self.seats = list(seats)
        self.my_seat = my_seat
        self.peer = (
            DeckPeer(config, table_id, self.seats, my_seat, seed, group=group)
            if my_seat is not None else None
        )
        self._known_faces = dict(known_faces or {})
        self.watch = (WatchDeck(config, self.seats, group=group)
                      if watching and my_seat is None else None)
        self._faces_given = False
        self._locks_seen: set[int] = set()
        self._public_seen: dict[int, set[int]] = {}
        # every deck message published at the table, as (seat, message), for the audit
        self.transcript: list[tuple[int, DeckMessage]] = []
        self._in_transcript: set[tuple[int, DeckMessage]] = set()

    def _label(self, seat: int) -> str:
        return self.seats[seat].hex()[:16]

    def _record(self, seat: int, message: DeckMessage) -> None:
        if (seat, message) not in self._in_transcript:
            self._in_transcript.add((seat, message))
            self.transcript.append((seat, message))
        if isinstance(message, Lock):
            self._locks_seen.add(seat)
        elif isinstance(message, PublicKey):
            self._public_seen.setdefault(message.position, set()).add(seat)

    def _out(self, msgs: Iterable[DeckMessage]) -> list[Any]:
        wire = []
        for m in msgs:
            assert self.my_seat is not None
            self._record(self.my_seat, m)
            wire.append(m.to_wire())
        return wire

    # ---- protocol

    def start(self) -> list[Any]:
        return self._out(self.peer.start()) if self.peer else []

    def decode(self, seat: int, wire_msgs: Iterable[Any]) -> list[DeckMessage]:
        """Parse one seat's deck messages (RemoteProtocolError naming the seat)."""
        return [_decode(obj, self._label(seat)) for obj in wire_msgs]

    def check_published_keys(self, seat: int, messages: Iterable[DeckMessage]) -> None:
        """Raise DeckCheatError if a key ``seat`` publishes in these messages is wrong,
        taking nothing (a stopped game judging an action that came after its stop)."""
        for message in messages:
            if not isinstance(message, PublicKey | OwnerKey):
                continue
            if self.watch is not None:
                self.watch.check_public_key(seat, message.position, message.key)
            if self.peer is not None:
                self.peer.check_published_key(seat, message)

    def check_late_steps(self, seat: int, messages: Iterable[DeckMessage]) -> None:
        """Raise DeckCheatError if a shuffle or lock ``seat`` sends fails its proofs, taking
        nothing (a stopped game judging a deck step that came after its stop)."""
        if self.peer is None:
            return
        for message in messages:
            if isinstance(message, Shuffle | Lock):
                self.peer.check_late_step(seat, message)

    def record(self, seat: int, messages: Iterable[DeckMessage]) -> None:
        """Add messages to the transcript without processing them (after the game stopped:
        the audit still covers them)."""
        for message in messages:
            self._record(seat, message)

    def receive(self, seat: int, wire_msgs: Iterable[Any]) -> list[Any]:
        """Decode and apply one peer's deck messages; return our answers (wire form)."""
        return self.receive_decoded(seat, self.decode(seat, wire_msgs))

    def receive_decoded(self, seat: int, decoded: Iterable[DeckMessage]) -> list[Any]:
        """Apply one peer's decoded deck messages; return our answers (wire form).

        The messages enter the transcript only once the entry is taken: a failed check of
        the sender refuses its entry and leaves no trace (the audit, like a verifier's,
        covers the entries taken); a failure of ANOTHER seat's held message is not this
        entry's fault, so its messages are recorded before the error goes up, and so are
        they when a card does not decode (DeckCorruptError: nobody's fault until the audit,
        so the entry that completed the card's keys is taken, SPEC §2.9)."""
        messages = list(decoded)
        out: list[Any] = []
        if self.watch is not None:
            # a spectator refuses a wrong published key as the players do (its author's
            # fault, on its signature), before anything of the entry is taken
            for message in messages:
                if isinstance(message, PublicKey | OwnerKey):
                    self.watch.check_public_key(seat, message.position, message.key)
        try:
            for message in messages:
                if self.peer is not None and seat != self.my_seat:
                    # (our own messages come back through the log: the DeckPeer made them)
                    out.extend(self._out(self.peer.receive(seat, message)))
        except DeckCheatError as exc:
            if exc.seat != seat:
                self.record(seat, messages)
            raise
        except DeckCorruptError:
            self.record(seat, messages)
            raise
        self.record(seat, messages)
        if self.watch is not None:
            self.watch.take(seat, messages)  # its keys were checked above
        return out

    # ---- deferred checks (a seated peer whose shell runs them off its event loop)

    def defer_checks(self) -> None:
        if self.peer is not None:
            self.peer.defer_checks()

    def take_checks(self) -> list[ProofCheck]:
        """The deck proof checks to run now (pure, any thread, in parallel), in the order
        whose first failure is the one to blame; empty while a batch is still out."""
        if self.peer is None or self.peer.error is not None:
            return []
        return self.peer.take_checks()

    def finish_checks(self, error: DeckCheatError | None) -> list[Any]:
        """The outcome of the last `take_checks` batch; returns our answers (wire form).
        Raises the DeckCheatError (it names the seat whose signed message failed)."""
        return self._out(self.peer.finish_checks(error)) if self.peer else []

    @property
    def checks_pending(self) -> bool:
        """Deferred proof checks have not all passed yet (a card beyond the deal cannot be
        revealed until they have)."""
        return self.peer is not None and self.peer.error is None and self.peer.checks_pending > 0

    def settle_checks(self) -> list[Any]:
        """Every deferred check passed, running here now those still pending (see
        DeckPeer.settle_checks); our answers (wire form). Raises the DeckCheatError."""
        return self._out(self.peer.settle_checks()) if self.peer else []

    @property
    def ready(self) -> bool:
        if self.peer is not None:
            return self.peer.deck_ready
        return len(self._locks_seen) == len(self.seats)

    def deal_shares(self, position: int, owner: int) -> list[Any]:
        return self._out(self.peer.deal_shares(position, owner)) if self.peer else []

    def public_share(self, position: int) -> list[Any]:
        return self._out(self.peer.public_share(position)) if self.peer else []

    def seed_reveal(self) -> list[Any]:
        return self._out(self.peer.seed_reveal()) if self.peer else []

    def new_faces(self) -> list[tuple[int, Card]]:
        if self.peer is not None:
            return self.peer.pop_decoded()
        if self.watch is not None:
            return self.watch.pop_decoded()
        if self.ready and not self._faces_given:
            self._faces_given = True
            return sorted(self._known_faces.items())
        return []

    def spectator_keys(self) -> dict[int, bytes]:
        """Our own key of every card we dealt to another seat: what a spectator lacks to see
        the hands (SPEC §2.12); empty for an observer."""
        return self.peer.spectator_keys() if self.peer is not None else {}

    def add_watch_keys(self, seat: int, keys: Iterable[tuple[int, bytes]]) -> list[str]:
        """A spectator: `seat`'s keys, sent to us privately; the reasons of those refused."""
        if self.watch is None:
            return ["keys sent to a peer that is not a spectator"]
        return self.watch.add_private_keys(seat, keys)

    # ---- queries for 'waiting for ...'

    def waiting_for(self) -> list[int]:
        """Seats whose shuffle step the deck is waiting for."""
        if self.peer is None:
            return [s for s in range(len(self.seats)) if s not in self._locks_seen]
        phase = self.peer.phase
        if phase is Phase.COMMIT:
            have = {s for s, m in self.transcript if isinstance(m, Commit)}
            return [s for s in range(len(self.seats)) if s not in have]
        if phase is Phase.SHUFFLE:
            done = {s for s, m in self.transcript if isinstance(m, Shuffle)}
            return [min(set(range(len(self.seats))) - done)]
        if phase is Phase.LOCK:
            # every lock in but its proofs still being checked: waiting for nobody
            return sorted(set(range(len(self.seats))) - self._locks_seen)[:1]
        return []

    def missing_keys(self, position: int) -> list[int]:
        """Seats whose key for `position` we lack (to decode a card we are entitled to)."""
        if self.peer is None or self.my_seat is None:
            return []
        return [s for s in range(len(self.seats))
                if s != self.my_seat and not self.peer.has_key(s, position)]

    def missing_public(self, position: int) -> list[int]:
        """Seats that have not yet published their key for a played/discarded card."""
        seen = self._public_seen.get(position, set())
        return [s for s in range(len(self.seats)) if s not in seen]

    def audit(self) -> AuditResult:
        return audit(self.config, self.table_id, self.seats, self.transcript,
                     group=self.group, made_by_us=self._made_by_us(),
                     proofs_verified=self._proofs_verified())

    def _proofs_verified(self) -> bool:
        """Is every shuffle and lock in the transcript one our DeckPeer accepted, with every
        lock proof verified? (Not for a transcript it never checked, e.g. after a resume
        that rebuilt the peer, or a deck that never became ready.)"""
        peer = self.peer
        return peer is not None and all(
            peer.verified_step(seat, message)
            for seat, message in self.transcript if isinstance(message, Shuffle | Lock))

    def _made_by_us(self) -> int | None:
        """Our seat, if every shuffle and lock in our seat's name is one our DeckPeer made
        (so it reproduces by construction); else None, and the audit recomputes them all."""
        peer, seat = self.peer, self.my_seat
        if peer is None or seat is None:
            return None
        ours = [m for s, m in self.transcript if s == seat and isinstance(m, Shuffle | Lock)]
        return seat if all(peer.made(m) for m in ours) else None
