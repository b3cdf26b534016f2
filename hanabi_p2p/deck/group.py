"""The deck's prime-order group: ristretto255 (rbcl), or edwards25519 for 0.2.0 logs (PyNaCl).

Why rbcl, a small package reached through its bundled library: no well-kept package that
installs from wheels alone offers ristretto255 through a public API (looked at again for
issue 34). PyNaCl (1.6.2) binds libsodium's edwards25519 core but not its ristretto255 one
(the pull request adding it, pyca/pynacl#646, was never merged), and its compiled module
exports none of those symbols; `cryptography` offers Ed25519 and X25519 only; `oblivious`
is itself built on rbcl; `pysodium` loads the system's libsodium (none on Windows or macOS
by default) and `pyristretto` compiles against it. rbcl ships libsodium 1.0.18 in
pure-Python wheels for every system, which is why it stays, pinned to the 1.1 series whose
loader we rely on (`hanabi_p2p.sodium_library` removes the copy of the library it writes).

Points and scalars stay plain 32-byte strings (the wire encoding) so that nothing has to be
converted on the way in or out. Both groups have the same order L, so scalars and their
arithmetic are shared; only the point operations differ, behind a `DeckGroup`.

Live tables use `RISTRETTO255` (protocol 3): its encoding names an element of the
prime-order group and nothing else, so decoding a point is the whole validation, about a
tenth of edwards25519's subgroup check, and a multiplication needs no per-call subgroup
check. `EDWARDS25519` is kept only so that games saved by 0.2.0, whose `table.open` names no
group, still verify and replay (protocol/SPEC.md §1 "Group").

A `DeckGroup` is stateless and immutable, so the node's worker threads share it freely.
Every refusal (not canonical, not a point, the identity, a zero scalar) raises `GroupError`,
which the protocol turns into blame.
"""

from __future__ import annotations

import ctypes
import functools
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

import nacl.bindings as nacl_sodium

POINT_BYTES = 32
SCALAR_BYTES = 32
HASH_BYTES = 64  # what `hash_to_point` takes: a SHA-512 digest
# Order of both groups: L = 2^252 + 27742317777372353535851937790883648493.
GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493

Point = bytes
Scalar = bytes


class GroupError(ValueError):
    """A point or scalar is not acceptable (raised to the protocol layer, never to users)."""


@functools.cache
def _sodium() -> Any:
    """rbcl's libsodium (ctypes), loaded on first use: importing rbcl writes its bundled
    library to a file and loads it (60-90 ms), which commands that never compute in the
    group (`log list` with cached verdicts, `--help`) should not pay. `sodium_library` loads
    it so that no copy of that file is left behind, even by a process killed meanwhile.
    Calls go to the library directly: rbcl's add and sub wrappers ignore libsodium's refusal
    of an invalid operand, and every call here checks the return code itself."""
    from hanabi_p2p.sodium_library import load

    return load()


def load_library() -> None:
    """Load the group's library now, e.g. on a worker thread while a peer waits for its
    table to fill, so that the first deck step at the table does not pay for it."""
    _sodium()


def library() -> Any:
    """The deck's libsodium (ctypes), loaded on first use: the deck's other primitives (the
    pairwise channel's X25519 and ChaCha20-Poly1305) call it too, rather than load a second
    library or go through a slower binding."""
    return _sodium()


# libsodium writes its 32-byte results into these (one fresh buffer per call: thread-safe)
_Out32 = ctypes.c_char * 32


# ---------------------------------------------------------------------------- scalars


def scalar_from_int(value: int) -> Scalar:
    return (value % GROUP_ORDER).to_bytes(SCALAR_BYTES, "little")


def scalar_to_int(scalar: Scalar) -> int:
    return int.from_bytes(scalar, "little")


def is_canonical_scalar(scalar: bytes) -> bool:
    """32 bytes, little-endian, strictly below the group order."""
    return len(scalar) == SCALAR_BYTES and scalar_to_int(scalar) < GROUP_ORDER


def _scalar_operand(scalar: bytes) -> None:
    # libsodium reads exactly 32 bytes through the pointer: never hand it fewer
    if len(scalar) != SCALAR_BYTES:
        raise GroupError("a scalar is 32 bytes")


def reduce_wide(data: bytes) -> Scalar:
    """Reduce 64 uniformly random bytes modulo L (bias about 2^-259)."""
    if len(data) != HASH_BYTES:
        raise GroupError("reduce takes 64 bytes")
    out = _Out32()
    _sodium().crypto_core_ristretto255_scalar_reduce(out, data)
    return out.raw


def scalar_mul(a: Scalar, b: Scalar) -> Scalar:
    _scalar_operand(a)
    _scalar_operand(b)
    out = _Out32()
    _sodium().crypto_core_ristretto255_scalar_mul(out, a, b)
    return out.raw


def scalar_add(a: Scalar, b: Scalar) -> Scalar:
    _scalar_operand(a)
    _scalar_operand(b)
    out = _Out32()
    _sodium().crypto_core_ristretto255_scalar_add(out, a, b)
    return out.raw


def scalar_sub(a: Scalar, b: Scalar) -> Scalar:
    _scalar_operand(a)
    _scalar_operand(b)
    out = _Out32()
    _sodium().crypto_core_ristretto255_scalar_sub(out, a, b)
    return out.raw


def scalar_invert(a: Scalar) -> Scalar:
    _scalar_operand(a)
    if scalar_to_int(a) % GROUP_ORDER == 0:
        raise GroupError("zero has no inverse")
    out = _Out32()
    if _sodium().crypto_core_ristretto255_scalar_invert(out, a) != 0:
        raise GroupError("zero has no inverse")
    return out.raw


def scalar_product(scalars: Iterable[Scalar]) -> Scalar:
    product = scalar_from_int(1)
    for scalar in scalars:
        product = scalar_mul(product, scalar)
    return product


# ---------------------------------------------------------------------------- groups


class DeckGroup(ABC):
    """The point operations of one prime-order group of order L (scalars are shared)."""

    name: str  # as SPEC 5.1 `group` and `log verify` name it
    base_point: Point

    @abstractmethod
    def validate_point(self, point: bytes) -> Point:
        """Return `point` if it is the canonical encoding of a group element other than the
        identity; else raise GroupError."""

    @abstractmethod
    def mul(self, scalar: Scalar, point: Point) -> Point:
        """scalar·point; refuses an invalid point and a zero or identity result."""

    @abstractmethod
    def base_mul(self, scalar: Scalar) -> Point:
        """scalar·G for the group's base point G (several times faster than `mul`)."""

    @abstractmethod
    def add(self, a: Point, b: Point) -> Point: ...

    @abstractmethod
    def sub(self, a: Point, b: Point) -> Point: ...

    @abstractmethod
    def hash_to_point(self, digest: bytes) -> Point:
        """The group element of a 64-byte SHA-512 digest, with no known discrete log."""

    def point_sum(self, points: Iterable[Point]) -> Point:
        """Sum of a non-empty sequence of points (the identity is never a valid result here)."""
        iterator = iter(points)
        try:
            total = next(iterator)
        except StopIteration:
            raise GroupError("sum of no points") from None
        for point in iterator:
            total = self.add(total, point)
        return total

    def __repr__(self) -> str:
        return f"<deck group {self.name}>"


def _point_operand(point: bytes) -> None:
    """What libsodium 1.0.18's ristretto255 decoding misses: the top bit of the last byte
    must be 0 (it ignores that bit, so a point would have two encodings, and "no point
    twice" compares encodings). Also never hands libsodium fewer than 32 bytes."""
    if len(point) != POINT_BYTES or point[31] & 0x80:
        raise GroupError("not a canonical ristretto255 encoding")


_IDENTITY = bytes(POINT_BYTES)


def _combine(operation: Any, a: Point, b: Point, what: str) -> Point:
    """a + b or a - b in ristretto255, refusing an invalid operand."""
    _point_operand(a)
    _point_operand(b)
    out = _Out32()
    if operation(out, a, b) != 0:
        raise GroupError(f"point {what} rejected an operand")
    return out.raw


class _Ristretto255(DeckGroup):
    """ristretto255 (RFC 9496) through rbcl's libsodium. Decoding checks everything but the
    top bit (see `_point_operand`): canonical field element, non-negative, a valid element;
    every operation decodes its operands and fails on an invalid one."""

    name = "ristretto255"
    # RFC 9496 section 4: the generator's encoding (a constant, so that importing this module
    # does not load the library; a test checks it is 1*G)
    base_point = bytes.fromhex(
        "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76")

    def validate_point(self, point: bytes) -> Point:
        _point_operand(point)
        if point == _IDENTITY or _sodium().crypto_core_ristretto255_is_valid_point(point) != 1:
            raise GroupError("not a valid ristretto255 point")
        return point

    def mul(self, scalar: Scalar, point: Point) -> Point:
        _scalar_operand(scalar)
        _point_operand(point)
        out = _Out32()
        if _sodium().crypto_scalarmult_ristretto255(out, scalar, point) != 0:
            raise GroupError("scalar multiplication rejected the point or gave the identity")
        return out.raw

    def base_mul(self, scalar: Scalar) -> Point:
        _scalar_operand(scalar)
        out = _Out32()
        if _sodium().crypto_scalarmult_ristretto255_base(out, scalar) != 0:
            raise GroupError("scalar is zero")
        return out.raw

    def add(self, a: Point, b: Point) -> Point:
        return _combine(_sodium().crypto_core_ristretto255_add, a, b, "addition")

    def sub(self, a: Point, b: Point) -> Point:
        return _combine(_sodium().crypto_core_ristretto255_sub, a, b, "subtraction")

    def hash_to_point(self, digest: bytes) -> Point:
        if len(digest) != HASH_BYTES:
            raise GroupError("hash_to_point takes a 64-byte digest")
        out = _Out32()
        _sodium().crypto_core_ristretto255_from_hash(out, digest)
        return out.raw


def _nacl(operation: Any, operands: tuple[bytes, ...], refusal: str) -> Point:
    """One PyNaCl edwards25519 call; whatever it raises on a refused operand (RuntimeError,
    TypeError, ValueError variants) becomes a GroupError."""
    try:
        result: bytes = operation(*operands)
    except Exception as exc:
        raise GroupError(refusal) from exc
    return result


class _Edwards25519(DeckGroup):
    """The prime-order subgroup of edwards25519 through PyNaCl: the group of 0.2.0 logs.
    Every point that comes from a peer passes through `validate_point` or `mul`, whose
    libsodium implementation makes the very same checks (canonical, on the curve, not of
    small order, in the subgroup) before multiplying."""

    name = "edwards25519"

    def __init__(self) -> None:
        self.base_point = self.base_mul(scalar_from_int(1))

    def validate_point(self, point: bytes) -> Point:
        if len(point) != POINT_BYTES or not nacl_sodium.crypto_core_ed25519_is_valid_point(
                point):
            raise GroupError("not a valid point of the prime-order subgroup")
        return point

    def mul(self, scalar: Scalar, point: Point) -> Point:
        return _nacl(nacl_sodium.crypto_scalarmult_ed25519_noclamp, (scalar, point),
                     "scalar multiplication rejected the point or gave the identity")

    def base_mul(self, scalar: Scalar) -> Point:
        return _nacl(nacl_sodium.crypto_scalarmult_ed25519_base_noclamp, (scalar,),
                     "scalar is zero")

    def add(self, a: Point, b: Point) -> Point:
        return _nacl(nacl_sodium.crypto_core_ed25519_add, (a, b),
                     "point addition rejected an operand")

    def sub(self, a: Point, b: Point) -> Point:
        return _nacl(nacl_sodium.crypto_core_ed25519_sub, (a, b),
                     "point subtraction rejected an operand")

    def hash_to_point(self, digest: bytes) -> Point:
        """Elligator 2 of the digest's first 32 bytes, cofactor cleared (0.2.0's card points)."""
        if len(digest) != HASH_BYTES:
            raise GroupError("hash_to_point takes a 64-byte digest")
        result: bytes = nacl_sodium.crypto_core_ed25519_from_uniform(digest[:32])
        return result


RISTRETTO255: DeckGroup = _Ristretto255()
EDWARDS25519: DeckGroup = _Edwards25519()
# The group of every table this program opens or joins (protocol 3).
LIVE_GROUP = RISTRETTO255
