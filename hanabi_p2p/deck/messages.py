"""Deck protocol messages: frozen dataclasses with a wire form and a validating parser.

Wire form: a list whose first item is the kind string, then the fields below, using only
msgpack types (bytes, int, str, list). `decode_message(obj, peer)` accepts anything a peer
may have sent and either returns a message whose fields have the right types and sizes or
raises RemoteProtocolError naming the peer. Group validity of points and scalars, and sizes
that depend on the table (deck size, seats), are checked later by the receiving DeckPeer.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, ClassVar, TypeVar

from hanabi_p2p.deck.channel import SHARE_CIPHERTEXT_BYTES
from hanabi_p2p.deck.derive import COMMITMENT_BYTES, SEED_BYTES, X25519_BYTES
from hanabi_p2p.deck.dleq import PROOF_BYTES
from hanabi_p2p.deck.group import POINT_BYTES, SCALAR_BYTES
from hanabi_p2p.errors import RemoteProtocolError
from hanabi_p2p.limits import MAX_PLAYERS

MAX_DECK_SIZE = 60
MAX_POINTS_BYTES = MAX_DECK_SIZE * POINT_BYTES
MAX_PROOFS_BYTES = MAX_DECK_SIZE * PROOF_BYTES


def _fail(peer: str, reason: str) -> RemoteProtocolError:
    return RemoteProtocolError(peer, f"deck message: {reason}")


def _bytes(value: object, peer: str, name: str, size: int) -> bytes:
    if type(value) is not bytes or len(value) != size:
        raise _fail(peer, f"{name} must be {size} bytes")
    return value


def _vector(value: object, peer: str, name: str, item: int, max_bytes: int) -> bytes:
    if type(value) is not bytes or not 0 < len(value) <= max_bytes or len(value) % item:
        raise _fail(peer, f"{name} must be 1..{max_bytes // item} items of {item} bytes")
    return value


def _int(value: object, peer: str, name: str, limit: int) -> int:
    if type(value) is not int or not 0 <= value < limit:  # rejects bool too
        raise _fail(peer, f"{name} must be an integer in [0, {limit})")
    return value


def _split(blob: bytes, size: int) -> tuple[bytes, ...]:
    return tuple(blob[i:i + size] for i in range(0, len(blob), size))


class _WireMessage:
    """Shared by every message: `from_wire` parses one and insists on its kind."""

    __slots__ = ()
    KIND: ClassVar[str]

    @classmethod
    def from_wire(cls: type[_M], obj: object, peer: str) -> _M:
        message = decode_message(obj, peer)
        if not isinstance(message, cls):
            raise _fail(peer, f"expected {cls.KIND}, got {message.KIND}")
        return message


_M = TypeVar("_M", bound=_WireMessage)


@dataclass(frozen=True, slots=True)
class Commit(_WireMessage):
    """Before any deck data: the seed's commitment and the pairwise-channel public key."""

    KIND: ClassVar[str] = "deck.commit"
    commitment: bytes
    x25519_pub: bytes

    def to_wire(self) -> list[Any]:
        return [self.KIND, self.commitment, self.x25519_pub]

    @classmethod
    def from_fields(cls, fields: list[Any], peer: str) -> Commit:
        return cls(_bytes(fields[0], peer, "commitment", COMMITMENT_BYTES),
                   _bytes(fields[1], peer, "x25519_pub", X25519_BYTES))


@dataclass(frozen=True, slots=True)
class Shuffle(_WireMessage):
    """Phase 1: S = s·G, the permuted and re-masked points, DLEQ(G→S, ΣX→ΣZ)."""

    KIND: ClassVar[str] = "deck.shuffle"
    shuffle_point: bytes
    points: tuple[bytes, ...]
    sum_proof: bytes

    def to_wire(self) -> list[Any]:
        return [self.KIND, self.shuffle_point, b"".join(self.points), self.sum_proof]

    @classmethod
    def from_fields(cls, fields: list[Any], peer: str) -> Shuffle:
        return cls(_bytes(fields[0], peer, "S", POINT_BYTES),
                   _split(_vector(fields[1], peer, "points", POINT_BYTES, MAX_POINTS_BYTES),
                          POINT_BYTES),
                   _bytes(fields[2], peer, "sum_proof", PROOF_BYTES))


@dataclass(frozen=True, slots=True)
class Lock(_WireMessage):
    """Phase 2: per position Y = (k/s)·X, K = k·G and DLEQ(S→K, X→Y)."""

    KIND: ClassVar[str] = "deck.lock"
    points: tuple[bytes, ...]
    keys: tuple[bytes, ...]
    proofs: tuple[bytes, ...]

    def to_wire(self) -> list[Any]:
        return [self.KIND, b"".join(self.points), b"".join(self.keys), b"".join(self.proofs)]

    @classmethod
    def from_fields(cls, fields: list[Any], peer: str) -> Lock:
        points = _split(_vector(fields[0], peer, "points", POINT_BYTES, MAX_POINTS_BYTES),
                        POINT_BYTES)
        keys = _split(_vector(fields[1], peer, "keys", POINT_BYTES, MAX_POINTS_BYTES),
                      POINT_BYTES)
        proofs = _split(_vector(fields[2], peer, "proofs", PROOF_BYTES, MAX_PROOFS_BYTES),
                        PROOF_BYTES)
        if not len(points) == len(keys) == len(proofs):
            raise _fail(peer, "points, keys and proofs differ in length")
        return cls(points, keys, proofs)


@dataclass(frozen=True, slots=True)
class OwnerKey(_WireMessage):
    """Reveal to all but the owner: the owner publishes its own k for the position."""

    KIND: ClassVar[str] = "deck.owner-key"
    position: int
    key: bytes

    def to_wire(self) -> list[Any]:
        return [self.KIND, self.position, self.key]

    @classmethod
    def from_fields(cls, fields: list[Any], peer: str) -> OwnerKey:
        return cls(_int(fields[0], peer, "position", MAX_DECK_SIZE),
                   _bytes(fields[1], peer, "k", SCALAR_BYTES))


@dataclass(frozen=True, slots=True)
class SharedKeys(_WireMessage):
    """Reveal to all but the owner: a non-owner's k, encrypted for each other non-owner."""

    KIND: ClassVar[str] = "deck.shared-keys"
    position: int
    owner: int
    shares: tuple[tuple[int, bytes], ...]  # (recipient seat, ciphertext), seats ascending

    def to_wire(self) -> list[Any]:
        return [self.KIND, self.position, self.owner,
                [[seat, ciphertext] for seat, ciphertext in self.shares]]

    @classmethod
    def from_fields(cls, fields: list[Any], peer: str) -> SharedKeys:
        position = _int(fields[0], peer, "position", MAX_DECK_SIZE)
        owner = _int(fields[1], peer, "owner", MAX_PLAYERS)
        raw = fields[2]
        if type(raw) is not list or len(raw) > MAX_PLAYERS:
            raise _fail(peer, f"shares must be a list of at most {MAX_PLAYERS}")
        shares: list[tuple[int, bytes]] = []
        for item in raw:
            if type(item) is not list or len(item) != 2:
                raise _fail(peer, "each share must be [seat, ciphertext]")
            seat = _int(item[0], peer, "recipient", MAX_PLAYERS)
            if shares and seat <= shares[-1][0]:
                raise _fail(peer, "share recipients must be strictly ascending")
            shares.append((seat, _bytes(item[1], peer, "ciphertext", SHARE_CIPHERTEXT_BYTES)))
        return cls(position, owner, tuple(shares))


@dataclass(frozen=True, slots=True)
class PublicKey(_WireMessage):
    """Reveal to all (play, discard): a peer publishes its k for the position."""

    KIND: ClassVar[str] = "deck.public-key"
    position: int
    key: bytes

    def to_wire(self) -> list[Any]:
        return [self.KIND, self.position, self.key]

    @classmethod
    def from_fields(cls, fields: list[Any], peer: str) -> PublicKey:
        return cls(_int(fields[0], peer, "position", MAX_DECK_SIZE),
                   _bytes(fields[1], peer, "k", SCALAR_BYTES))


@dataclass(frozen=True, slots=True)
class SeedReveal(_WireMessage):
    """Audit at the end: the seed behind the commitment."""

    KIND: ClassVar[str] = "deck.seed"
    seed: bytes

    def to_wire(self) -> list[Any]:
        return [self.KIND, self.seed]

    @classmethod
    def from_fields(cls, fields: list[Any], peer: str) -> SeedReveal:
        return cls(_bytes(fields[0], peer, "seed", SEED_BYTES))


DeckMessage = Commit | Shuffle | Lock | OwnerKey | SharedKeys | PublicKey | SeedReveal
RevealMessage = OwnerKey | SharedKeys | PublicKey

_FIELD_COUNTS: dict[str, tuple[type[DeckMessage], int]] = {
    Commit.KIND: (Commit, 2),
    Shuffle.KIND: (Shuffle, 3),
    Lock.KIND: (Lock, 3),
    OwnerKey.KIND: (OwnerKey, 2),
    SharedKeys.KIND: (SharedKeys, 3),
    PublicKey.KIND: (PublicKey, 2),
    SeedReveal.KIND: (SeedReveal, 1),
}


def decode_message(obj: object, peer: str) -> DeckMessage:
    """Parse a wire object from `peer` (a label for errors) or raise RemoteProtocolError."""
    if type(obj) is not list or not obj or type(obj[0]) is not str:
        raise _fail(peer, "expected a list starting with the kind")
    entry = _FIELD_COUNTS.get(obj[0])
    if entry is None:
        raise _fail(peer, f"unknown kind {obj[0][:40]!r}")
    cls, count = entry
    if len(obj) != count + 1:
        raise _fail(peer, f"{obj[0]} takes {count} fields, not {len(obj) - 1}")
    return cls.from_fields(obj[1:], peer)
