"""The prime-order subgroup of edwards25519, through libsodium (PyNaCl).

Points and scalars stay plain 32-byte strings (the wire encoding) so that nothing has to be
converted on the way in or out. Every point that comes from a peer passes through
`validate_point` or through `mul`, whose libsodium implementation performs the very same
checks (canonical encoding, on the curve, not of small order, in the prime-order subgroup)
before multiplying; both raise `GroupError`, which the protocol turns into blame.
"""

from __future__ import annotations

from collections.abc import Iterable

import nacl.bindings as sodium

POINT_BYTES = 32
SCALAR_BYTES = 32
# Order of the prime-order subgroup: L = 2^252 + 27742317777372353535851937790883648493.
GROUP_ORDER = 2**252 + 27742317777372353535851937790883648493

Point = bytes
Scalar = bytes


class GroupError(ValueError):
    """A point or scalar is not acceptable (raised to the protocol layer, never to users)."""


def scalar_from_int(value: int) -> Scalar:
    return (value % GROUP_ORDER).to_bytes(SCALAR_BYTES, "little")


def scalar_to_int(scalar: Scalar) -> int:
    return int.from_bytes(scalar, "little")


def is_canonical_scalar(scalar: bytes) -> bool:
    """32 bytes, little-endian, strictly below the group order."""
    return len(scalar) == SCALAR_BYTES and scalar_to_int(scalar) < GROUP_ORDER


def reduce_wide(data: bytes) -> Scalar:
    """Reduce 64 uniformly random bytes modulo L (bias about 2^-259)."""
    result: bytes = sodium.crypto_core_ed25519_scalar_reduce(data)
    return result


def scalar_mul(a: Scalar, b: Scalar) -> Scalar:
    result: bytes = sodium.crypto_core_ed25519_scalar_mul(a, b)
    return result


def scalar_add(a: Scalar, b: Scalar) -> Scalar:
    result: bytes = sodium.crypto_core_ed25519_scalar_add(a, b)
    return result


def scalar_sub(a: Scalar, b: Scalar) -> Scalar:
    result: bytes = sodium.crypto_core_ed25519_scalar_sub(a, b)
    return result


def scalar_invert(a: Scalar) -> Scalar:
    if scalar_to_int(a) % GROUP_ORDER == 0:
        raise GroupError("zero has no inverse")
    result: bytes = sodium.crypto_core_ed25519_scalar_invert(a)
    return result


def scalar_product(scalars: Iterable[Scalar]) -> Scalar:
    product = scalar_from_int(1)
    for scalar in scalars:
        product = scalar_mul(product, scalar)
    return product


def validate_point(point: bytes) -> Point:
    """Return `point` if it is a canonical element of the prime-order subgroup, not 0."""
    if len(point) != POINT_BYTES or not sodium.crypto_core_ed25519_is_valid_point(point):
        raise GroupError("not a valid point of the prime-order subgroup")
    return point


def mul(scalar: Scalar, point: Point) -> Point:
    """scalar·point. libsodium validates `point` exactly as `validate_point` does first."""
    try:
        result: bytes = sodium.crypto_scalarmult_ed25519_noclamp(scalar, point)
    except Exception as exc:  # PyNaCl raises RuntimeError/TypeError/ValueError variants
        raise GroupError("scalar multiplication rejected the point or gave the identity") from exc
    return result


def base_mul(scalar: Scalar) -> Point:
    """scalar·G for the standard base point G (several times faster than `mul`)."""
    try:
        result: bytes = sodium.crypto_scalarmult_ed25519_base_noclamp(scalar)
    except Exception as exc:
        raise GroupError("scalar is zero") from exc
    return result


def add(a: Point, b: Point) -> Point:
    try:
        result: bytes = sodium.crypto_core_ed25519_add(a, b)
    except Exception as exc:
        raise GroupError("point addition rejected an operand") from exc
    return result


def sub(a: Point, b: Point) -> Point:
    try:
        result: bytes = sodium.crypto_core_ed25519_sub(a, b)
    except Exception as exc:
        raise GroupError("point subtraction rejected an operand") from exc
    return result


def point_sum(points: Iterable[Point]) -> Point:
    """Sum of a non-empty sequence of points (the identity is never a valid result here)."""
    iterator = iter(points)
    try:
        total = next(iterator)
    except StopIteration:
        raise GroupError("sum of no points") from None
    for point in iterator:
        total = add(total, point)
    return total


def from_uniform(data: bytes) -> Point:
    """Elligator 2 map of 32 bytes to the prime-order subgroup (cofactor cleared)."""
    result: bytes = sodium.crypto_core_ed25519_from_uniform(data)
    return result


BASE_POINT: Point = base_mul(scalar_from_int(1))
