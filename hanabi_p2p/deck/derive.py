"""Everything derived by hashing: the framing of hash inputs, card points, a peer's secrets.

A peer's secrets all come from its 32-byte seed, so that revealing the seed at the end lets
anyone recompute (and so audit) every step the peer took. Each derivation has its own domain
label; the labels and the exact layouts are normative (protocol/SPEC.md section 1 and 2).
"""

from __future__ import annotations

import functools
import hashlib
import hmac
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from functools import cached_property

from hanabi_p2p.deck.group import DeckGroup, Point, Scalar, reduce_wide, scalar_to_int
from hanabi_p2p.rules.cards import GameConfig

SEED_BYTES = 32
COMMITMENT_BYTES = 64
X25519_BYTES = 32

LABEL_PRK = "hanabi-p2p/v1/deck/seed"
LABEL_SHUFFLE_SCALAR = "hanabi-p2p/v1/deck/shuffle-scalar"
LABEL_PERMUTATION = "hanabi-p2p/v1/deck/permutation"
LABEL_LOCK_SCALAR = "hanabi-p2p/v1/deck/lock-scalar"
LABEL_NONCE = "hanabi-p2p/v1/deck/nonce"
LABEL_X25519 = "hanabi-p2p/v1/deck/x25519"
LABEL_COMMIT = "hanabi-p2p/v1/deck/commit"
CARD_LABEL_PREFIX = "hanabi-p2p/v1/card"

FramePart = bytes | int | str
SHA512_BYTES = 64


def frame(label: str, *parts: FramePart) -> bytes:
    """Unambiguous encoding of a hash input: every part as u32be(length) || bytes.

    The label comes first. Integers are encoded as 4-byte big-endian (so 0 <= n < 2^32),
    strings as UTF-8.
    """
    pieces = [_framed_str(label)]
    for part in parts:
        if isinstance(part, str):
            pieces.append(_framed_str(part))
        elif isinstance(part, int):
            pieces.append(_FOUR + part.to_bytes(4, "big"))
        else:
            pieces.append(len(part).to_bytes(4, "big") + part)
    return b"".join(pieces)


_FOUR = (4).to_bytes(4, "big")  # the length of an encoded integer


@functools.lru_cache(maxsize=256)
def _framed_str(text: str) -> bytes:
    # labels and phases repeat thousands of times a game: encode each once
    raw = text.encode("utf-8")
    return len(raw).to_bytes(4, "big") + raw


def sha512(data: bytes) -> bytes:
    return hashlib.sha512(data).digest()


def card_label(suit: str, rank: int, copy: int) -> str:
    return f"{CARD_LABEL_PREFIX}/{suit}/{rank}/copy{copy}"


def card_point(deck_group: DeckGroup, suit: str, rank: int, copy: int) -> Point:
    """Hash-to-group of the copy's label: nobody knows a discrete log of it."""
    return deck_group.hash_to_point(sha512(frame(card_label(suit, rank, copy))))


def card_points(config: GameConfig, deck_group: DeckGroup) -> list[Point]:
    """One distinct point per physical card, in the canonical deck_composition() order."""
    return list(_card_points(config, deck_group))


@functools.lru_cache(maxsize=64)
def _card_points(config: GameConfig, deck_group: DeckGroup) -> tuple[Point, ...]:
    # Every DeckPeer, audit, spectator and verifier of a table needs them (a 60-card deck is
    # 60 hashes to the group): computed once per configuration and group in a process.
    points = tuple(card_point(deck_group, card.suit.value, card.rank, copy)
                   for card, copy in config.deck_composition())
    if len(set(points)) != len(points):  # would need a SHA-512 collision; never silently
        raise AssertionError("two card copies hashed to the same point")
    return points


def commitment(table_id: bytes, peer_id: bytes, seed: bytes, x25519_pub: bytes) -> bytes:
    return sha512(frame(LABEL_COMMIT, table_id, peer_id, seed, x25519_pub))


def draw_below(words: Iterator[int], bound: int) -> int:
    """Unbiased integer in [0, bound): reject words at or above the largest multiple of
    `bound` below 2^32, then reduce."""
    limit = 2**32 - (2**32 % bound)
    for word in words:
        if word < limit:
            return word % bound
    raise AssertionError("word stream is infinite")


@dataclass(frozen=True)
class PeerSecrets:
    """The secrets one peer derives from its seed for one table (also used by the audit).
    Only `shuffle_point` depends on the table's group; every scalar is the same in both."""

    table_id: bytes
    peer_id: bytes
    seed: bytes
    group: DeckGroup

    @cached_property
    def prk(self) -> bytes:
        # HKDF-Extract(salt = frame(label, table_id, peer_id), IKM = seed), RFC 5869.
        salt = frame(LABEL_PRK, self.table_id, self.peer_id)
        return hmac.new(salt, self.seed, hashlib.sha512).digest()

    def expand(self, info: bytes, length: int = 64) -> bytes:
        """HKDF-Expand (RFC 5869) with SHA-512: T(i) = HMAC(PRK, T(i-1) || info || i), the
        first `length` bytes of T(1) || T(2) ... Written out because it runs for every
        scalar of every position (thousands a game) and one HMAC block is all it takes
        for 64 bytes: a fresh HKDFExpand object per call cost more than the hashing."""
        blocks, previous = [], b""
        for counter in range(1, -(-length // SHA512_BYTES) + 1):
            previous = hmac.digest(self.prk, previous + info + bytes((counter,)), "sha512")
            blocks.append(previous)
        return b"".join(blocks)[:length]

    @cached_property
    def _lock_scalars(self) -> dict[int, Scalar]:
        return {}

    def scalar(self, label: str, *parts: FramePart) -> Scalar:
        """A non-zero scalar: reduce(HKDF-Expand(frame(label, *parts, attempt), 64))."""
        attempt = 0
        while True:
            value = reduce_wide(self.expand(frame(label, *parts, attempt)))
            if scalar_to_int(value) != 0:
                return value
            attempt += 1  # probability 2^-252: unreachable in practice, but specified

    @cached_property
    def shuffle_scalar(self) -> Scalar:
        return self.scalar(LABEL_SHUFFLE_SCALAR)

    @cached_property
    def shuffle_point(self) -> Point:
        return self.group.base_mul(self.shuffle_scalar)

    def lock_scalar(self, position: int) -> Scalar:
        # asked for again and again (our lock, every decode, every reveal, the audit)
        known = self._lock_scalars.get(position)
        if known is None:
            known = self._lock_scalars[position] = self.scalar(LABEL_LOCK_SCALAR, position)
        return known

    def nonce(self, phase: str, position: int, statement: Sequence[Point]) -> Scalar:
        """Proof nonce bound to the whole statement, so one nonce never answers two
        different challenges (that would reveal the secret)."""
        return self.scalar(LABEL_NONCE, phase, position, b"".join(statement))

    def permutation_words(self) -> Iterator[int]:
        """u32be words of HKDF-Expand(frame(permutation label, block)) for block = 0, 1, ..."""
        block = 0
        while True:
            data = self.expand(frame(LABEL_PERMUTATION, block))
            for offset in range(0, len(data), 4):
                yield int.from_bytes(data[offset:offset + 4], "big")
            block += 1

    def permutation(self, size: int) -> list[int]:
        """Fisher–Yates over [0, size): for i = size-1 down to 1 swap i with draw_below(i+1)."""
        perm = list(range(size))
        words = self.permutation_words()
        for i in range(size - 1, 0, -1):
            j = draw_below(words, i + 1)
            perm[i], perm[j] = perm[j], perm[i]
        return perm

    @cached_property
    def x25519_private(self) -> bytes:
        """The X25519 private key (RFC 7748: 32 bytes, clamped where it is used)."""
        return self.expand(frame(LABEL_X25519), X25519_BYTES)

    @cached_property
    def x25519_public(self) -> bytes:
        from hanabi_p2p.deck.channel import x25519_public_key  # (channel imports this module)

        return x25519_public_key(self.x25519_private)

    @cached_property
    def commitment(self) -> bytes:
        return commitment(self.table_id, self.peer_id, self.seed, self.x25519_public)
