"""The checks a receiver makes on each deck message (protocol/SPEC.md section 2.9).

Pure functions: each takes the sender (seat and peer id), the message and the public state
it is checked against, and raises DeckCheatError naming the sender and the failed check.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

from hanabi_p2p.deck import dleq, group
from hanabi_p2p.deck.derive import PeerSecrets
from hanabi_p2p.deck.errors import Check, DeckCheatError
from hanabi_p2p.deck.group import DeckGroup, Point, Scalar
from hanabi_p2p.deck.messages import Commit, Lock, Shuffle


@dataclass(frozen=True, slots=True)
class Sender:
    """Who sent the message under check, at which table (and so in which group)."""

    table_id: bytes
    seat: int
    peer_id: bytes
    group: DeckGroup

    def blame(self, check: Check, detail: str) -> DeckCheatError:
        return DeckCheatError(self.seat, self.peer_id, check, detail)

    def context(self, phase: str, position: int) -> dleq.ProofContext:
        return dleq.ProofContext(self.group, self.table_id, self.peer_id, phase, position)


def _verify(sender: Sender, ctx: dleq.ProofContext,
            statement: tuple[Point, Point, Point, Point], proof: bytes) -> bool:
    try:
        return dleq.verify(ctx, statement, proof)
    except group.GroupError as exc:
        raise sender.blame(Check.INVALID_POINT, f"{ctx.phase}: {exc}") from None


def shuffle_structure(sender: Sender, message: Shuffle, size: int) -> Point:
    """Phase 1, the cheap part: n distinct points on the curve; returns ΣZ, the next
    shuffle's ΣX. What proves them right is `check_shuffle_proof`."""
    if len(message.points) != size:
        raise sender.blame(Check.MALFORMED,
                           f"shuffle of {len(message.points)} points, deck has {size}")
    if len(set(message.points)) != size:
        raise sender.blame(Check.DUPLICATE_POINT, "shuffle repeats a point")
    try:
        return sender.group.point_sum(message.points)
    except group.GroupError as exc:
        raise sender.blame(Check.INVALID_POINT, f"shuffle: {exc}") from None


def check_shuffle_proof(sender: Sender, message: Shuffle, input_sum: Point,
                        output_sum: Point) -> None:
    """Phase 1, the costly part: S and every point valid, and the sum proof."""
    try:
        for point in (message.shuffle_point, *message.points):
            sender.group.validate_point(point)
    except group.GroupError as exc:
        raise sender.blame(Check.INVALID_POINT, f"shuffle: {exc}") from None
    statement = (sender.group.base_point, message.shuffle_point, input_sum, output_sum)
    if not _verify(sender, sender.context("shuffle", 0), statement, message.sum_proof):
        raise sender.blame(Check.SHUFFLE_PROOF,
                           "sum proof fails: a card was duplicated, dropped or substituted")


def check_shuffle(sender: Sender, message: Shuffle, size: int, input_sum: Point) -> Point:
    """Phase 1, every check; returns ΣZ, the next shuffle's ΣX."""
    output_sum = shuffle_structure(sender, message, size)
    check_shuffle_proof(sender, message, input_sum, output_sum)
    return output_sum


def lock_structure(sender: Sender, message: Lock, size: int) -> None:
    """Phase 2, the cheap part: n points, keys and proofs, no point or key twice."""
    if len(message.points) != size or len(message.keys) != size or len(message.proofs) != size:
        raise sender.blame(Check.MALFORMED,
                           f"lock of {len(message.points)} points, deck has {size}")
    if len(set(message.points)) != size:
        raise sender.blame(Check.DUPLICATE_POINT, "lock repeats a point")
    if len(set(message.keys)) != size:
        raise sender.blame(Check.DUPLICATE_KEY, "lock repeats a key K")


def check_lock_proofs(sender: Sender, message: Lock, shuffle_point: Point,
                      inputs: tuple[Point, ...], positions: range) -> None:
    """Phase 2, the costly part, for some positions: DLEQ(S→K[i], X[i]→Y[i]) each (the
    multiplications validate K, Y, S and X)."""
    for position in positions:
        statement = (shuffle_point, message.keys[position], inputs[position],
                     message.points[position])
        if not _verify(sender, sender.context("lock", position), statement,
                       message.proofs[position]):
            raise sender.blame(Check.LOCK_PROOF, f"proof for position {position}")


def check_lock(sender: Sender, message: Lock, shuffle_point: Point,
               inputs: tuple[Point, ...]) -> None:
    """Phase 2, every check: one DLEQ(S→K[i], X[i]→Y[i]) per position."""
    lock_structure(sender, message, len(inputs))
    check_lock_proofs(sender, message, shuffle_point, inputs, range(len(inputs)))


def check_key(sender: Sender, position: int, key: bytes, published: Point) -> Scalar:
    """A revealed k is used only if k·G equals the K published for that position."""
    if not group.is_canonical_scalar(key) or group.scalar_to_int(key) == 0:
        raise sender.blame(Check.WRONG_KEY, f"k for position {position} is no scalar")
    if not key_matches(sender.group, key, published):
        raise sender.blame(Check.WRONG_KEY, f"k for position {position} does not match its K")
    return key


# k·G = K answers the process keeps (see `key_matches`): a game reveals about 50 keys per seat.
KEY_MEMO_SIZE = 1024


@functools.lru_cache(maxsize=KEY_MEMO_SIZE)
def key_matches(deck_group: DeckGroup, key: Scalar, published: Point) -> bool:
    """k·G = K for a canonical, non-zero k. The answer depends on its operands alone, so the
    process keeps it: a played card's keys are public, and every seat one program runs (a
    person's and its computer players') checks the same ones."""
    return deck_group.base_mul(key) == published


def check_seed(sender: Sender, seed: bytes, committed: Commit) -> None:
    derived = PeerSecrets(sender.table_id, sender.peer_id, seed, sender.group)
    if (derived.x25519_public != committed.x25519_pub
            or derived.commitment != committed.commitment):
        raise sender.blame(Check.COMMITMENT, "the seed does not match its commitment")
