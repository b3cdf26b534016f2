"""Chaum–Pedersen proofs of discrete-log equality, made non-interactive (Fiat–Shamir).

Statement: P1 = x·B1 and P2 = x·B2 for one secret x. Proof = c || z (64 bytes) with
A1 = r·B1, A2 = r·B2, c = H(context, B1, P1, B2, P2, A1, A2), z = r + c·x. The verifier
recomputes A1 = z·B1 - c·P1, A2 = z·B2 - c·P2 and the challenge. The context binds the
table, the proving peer, the phase and the deck position, so a proof cannot be replayed in
another table, by another peer, or for another position.
"""

from __future__ import annotations

from dataclasses import dataclass

from hanabi_p2p.deck import group
from hanabi_p2p.deck.derive import frame, sha512
from hanabi_p2p.deck.group import DeckGroup, Point, Scalar

PROOF_BYTES = 64
LABEL_DLEQ = "hanabi-p2p/v1/deck/dleq"


@dataclass(frozen=True, slots=True)
class ProofContext:
    group: DeckGroup  # the table's group (not hashed: the table fixes it, SPEC 5.1)
    table_id: bytes
    peer_id: bytes
    phase: str  # "shuffle" or "lock"
    position: int  # deck position (0 for the single shuffle proof)


def challenge(ctx: ProofContext, statement: tuple[Point, Point, Point, Point],
              a1: Point, a2: Point) -> Scalar:
    return group.reduce_wide(sha512(frame(
        LABEL_DLEQ, ctx.table_id, ctx.peer_id, ctx.phase, ctx.position, *statement, a1, a2)))


def _mul(deck_group: DeckGroup, scalar: Scalar, point: Point) -> Point:
    # Base-point multiplication is about three to five times faster than a variable-base one.
    if point == deck_group.base_point:
        return deck_group.base_mul(scalar)
    return deck_group.mul(scalar, point)


def prove(ctx: ProofContext, statement: tuple[Point, Point, Point, Point], secret: Scalar,
          nonce: Scalar, a1: Point | None = None) -> bytes:
    """Prove the statement (B1, P1, B2, P2). `a1` may be passed when the caller can compute
    nonce·B1 more cheaply (e.g. as (nonce·s)·G when B1 = s·G)."""
    b1, _, b2, _ = statement
    first = a1 if a1 is not None else _mul(ctx.group, nonce, b1)
    second = _mul(ctx.group, nonce, b2)
    c = challenge(ctx, statement, first, second)
    z = group.scalar_add(nonce, group.scalar_mul(c, secret))
    return c + z


def verify(ctx: ProofContext, statement: tuple[Point, Point, Point, Point],
           proof: bytes) -> bool:
    """True iff the proof is valid, False if it is not.

    Raises GroupError if a point of the statement is invalid: every point multiplied is
    validated (decoded) by the group, so an invalid point is never silently treated as a bad
    proof.
    """
    if len(proof) != PROOF_BYTES:
        return False
    c, z = proof[:32], proof[32:]
    if not (group.is_canonical_scalar(c) and group.is_canonical_scalar(z)):
        return False
    if group.scalar_to_int(c) == 0 or group.scalar_to_int(z) == 0:
        return False  # never produced honestly (probability 2^-252); libsodium refuses 0
    b1, p1, b2, p2 = statement
    g = ctx.group
    a1 = g.sub(_mul(g, z, b1), g.mul(c, p1))
    a2 = g.sub(_mul(g, z, b2), g.mul(c, p2))
    return challenge(ctx, statement, a1, a2) == c
