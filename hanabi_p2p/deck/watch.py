"""WatchDeck: what a spectator decodes of the deck, with no seat and no secrets (SPEC §2.12).

A spectator holds no lock of its own, so a card decodes for it once it holds every seat's
key k for that position: the public ones from the log (a play or discard's `PublicKey`, a
deal's `OwnerKey`) and, at a table that consents to it, the keys each seated peer sends it
privately over its link (`add_private_keys`). Without that consent it holds at most N−1 keys
of a card in a hand (the owner's, and none of the others), so a hand card stays locked: the
deck protocol itself gives a spectator the public view and nothing more.

Every key is checked against the K = k·G its seat published in its lock before it is used,
so a wrong key is refused, never decoded into a wrong card. The shuffle and lock proofs are
the players' to check during the game (they stop at the first bad one) and the audit's at
the end; the spectator runs the audit too, on the same transcript.

Pure code (messages in, faces out); a single-threaded caller.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable

from hanabi_p2p.deck import checks, group, steps
from hanabi_p2p.deck.derive import card_points
from hanabi_p2p.deck.errors import Check, DeckCheatError
from hanabi_p2p.deck.group import LIVE_GROUP, DeckGroup, Point, Scalar
from hanabi_p2p.deck.messages import DeckMessage, Lock, OwnerKey, PublicKey
from hanabi_p2p.rules.cards import Card, GameConfig


class WatchKeyError(ValueError):
    """A privately sent key that is not the sender's key for that position (or no key at
    all). It came over a link, unsigned: a link problem to report, never a blame."""


class WatchDeck:
    """One spectator's view of the deck at one table."""

    def __init__(self, config: GameConfig, seats: list[bytes], *,
                 group: DeckGroup = LIVE_GROUP) -> None:
        self.size = config.deck_size
        self.seats = list(seats)
        self.group = group
        points = card_points(config, group)
        self._card_of_point: dict[Point, Card] = {
            p: card for p, (card, _copy) in zip(points, config.deck_composition(), strict=True)
        }
        self._locks: dict[int, Lock] = {}
        self._keys: dict[tuple[int, int], Scalar] = {}  # (seat, position) -> checked k
        # private keys that came before their seat's lock (the link overtook the log)
        self._early: dict[tuple[int, int], bytes] = {}
        self._faces: dict[int, Card] = {}
        self._new: list[tuple[int, Card]] = []

    # ---- from the signed log

    def take(self, seat: int, messages: Iterable[DeckMessage]) -> None:
        """A seat's deck messages from an entry the session took: its lock, and the keys
        it published (already checked with `check_public_key`, which refused the entry
        otherwise: each key costs one check, not two)."""
        for message in messages:
            if isinstance(message, Lock):
                self._on_lock(seat, message)
            elif (isinstance(message, PublicKey | OwnerKey) and seat in self._locks
                  and 0 <= message.position < self.size):
                self._keys[(seat, message.position)] = message.key
                self._decode(message.position)

    def _on_lock(self, seat: int, lock: Lock) -> None:
        if seat in self._locks or len(lock.keys) != self.size:
            return  # (the players refuse a malformed or second lock; so does our session)
        self._locks[seat] = lock
        early = [(p, key) for (s, p), key in self._early.items() if s == seat]
        for position, key in early:
            del self._early[(seat, position)]
            # a wrong one is dropped: its link is long past reporting, and the seat's next
            # sending (a new link, a resumed peer) brings the right key again
            with contextlib.suppress(WatchKeyError):
                self._take(seat, position, key)
        self._decode_all()

    def check_public_key(self, seat: int, position: int, key: bytes) -> None:
        """A key published in a signed entry (deal or reveal): its author's fault if wrong,
        as it is for the players, so the entry is refused the same way (DeckCheatError).
        Call it for every key of an entry before `take`."""
        lock = self._locks.get(seat)
        if lock is None or not 0 <= position < self.size:
            return  # the session refuses what comes before the deck is locked
        if not _matches(self.group, key, lock.keys[position]):
            raise DeckCheatError(seat, self.seats[seat], Check.WRONG_KEY,
                                 f"k for position {position} does not match its K")

    # ---- from a seated peer's link, at a table that lets spectators see the hands

    def add_private_keys(self, seat: int, keys: Iterable[tuple[int, bytes]]) -> list[str]:
        """Take `seat`'s own keys; returns a reason per key refused (wrong, or out of range)."""
        problems: list[str] = []
        for position, key in keys:
            if not 0 <= position < self.size:
                problems.append(f"position {position} is not in the deck")
                continue
            if seat not in self._locks:
                if len(self._early) < self.size * len(self.seats):  # bounded by the deck
                    self._early[(seat, position)] = key
                continue
            try:
                self._take(seat, position, key)
            except WatchKeyError as exc:
                problems.append(str(exc))
        self._decode_all()
        return problems

    # ---- results

    def pop_decoded(self) -> list[tuple[int, Card]]:
        """Faces decoded since the last call, as (position, face), in decoding order."""
        out, self._new = self._new, []
        return out

    @property
    def faces(self) -> dict[int, Card]:
        return dict(self._faces)

    def has_key(self, seat: int, position: int) -> bool:
        return (seat, position) in self._keys

    # ---- inside

    def _take(self, seat: int, position: int, key: bytes) -> None:
        if (seat, position) in self._keys:
            return
        if not _matches(self.group, key, self._locks[seat].keys[position]):
            raise WatchKeyError(f"the key for position {position} does not match its lock")
        self._keys[(seat, position)] = key

    def _decode_all(self) -> None:
        for position in sorted({p for _s, p in self._keys}):
            self._decode(position)

    def _decode(self, position: int) -> None:
        last = len(self.seats) - 1
        if position in self._faces or last not in self._locks:
            return
        keys = [self._keys.get((seat, position)) for seat in range(len(self.seats))]
        if any(key is None for key in keys):
            return
        point = steps.unlock(self.group, [k for k in keys if k is not None],
                             self._locks[last].points[position])
        face = self._card_of_point.get(point)
        if face is None:
            return  # not a card: the players stop the game; the audit names who
        self._faces[position] = face
        self._new.append((position, face))


def _matches(deck_group: DeckGroup, key: bytes, published: Point) -> bool:
    if len(key) != 32 or not group.is_canonical_scalar(key) or group.scalar_to_int(key) == 0:
        return False
    return checks.key_matches(deck_group, key, published)
