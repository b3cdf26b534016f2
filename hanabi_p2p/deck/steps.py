"""The deterministic steps of the protocol, shared by DeckPeer (to act) and audit (to redo).

Given the seed-derived secrets and the public input, each step's output is unique down to the
byte (the proof nonces are derived too), which is what makes the audit a plain comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305

from hanabi_p2p.deck import channel, dleq, group
from hanabi_p2p.deck.derive import PeerSecrets
from hanabi_p2p.deck.group import DeckGroup, Point, Scalar
from hanabi_p2p.deck.messages import Lock, SharedKeys, Shuffle


def shuffle_step(secrets: PeerSecrets, inputs: tuple[Point, ...], input_sum: Point) -> Shuffle:
    """Phase 1: Z[i] = s·X[perm[i]], S = s·G and DLEQ(G→S, ΣX→ΣZ) (ΣZ = s·ΣX)."""
    perm = secrets.permutation(len(inputs))
    s = secrets.shuffle_scalar
    g = secrets.group
    points = tuple(g.mul(s, inputs[perm[i]]) for i in range(len(inputs)))
    statement = (g.base_point, secrets.shuffle_point, input_sum, g.mul(s, input_sum))
    ctx = dleq.ProofContext(g, secrets.table_id, secrets.peer_id, "shuffle", 0)
    proof = dleq.prove(ctx, statement, s, secrets.nonce("shuffle", 0, statement))
    return Shuffle(secrets.shuffle_point, points, proof)


def lock_step(secrets: PeerSecrets, inputs: tuple[Point, ...]) -> Lock:
    """Phase 2: per position Y = e·X with e = k/s, K = k·G, DLEQ(S→K, X→Y) with secret e."""
    s = secrets.shuffle_scalar
    g = secrets.group
    s_inverse = group.scalar_invert(s)
    points, keys, proofs = [], [], []
    for position, x in enumerate(inputs):
        k = secrets.lock_scalar(position)
        e = group.scalar_mul(k, s_inverse)  # removes s and applies k in one multiplication
        y = g.mul(e, x)
        key = g.base_mul(k)  # K = k·G = e·S
        statement = (secrets.shuffle_point, key, x, y)
        nonce = secrets.nonce("lock", position, statement)
        # nonce·S = (nonce·s)·G: a base-point multiplication instead of a variable-base one.
        a1 = g.base_mul(group.scalar_mul(nonce, s))
        ctx = dleq.ProofContext(g, secrets.table_id, secrets.peer_id, "lock", position)
        proofs.append(dleq.prove(ctx, statement, e, nonce, a1=a1))
        points.append(y)
        keys.append(key)
    return Lock(tuple(points), tuple(keys), tuple(proofs))


def share_step(secrets: PeerSecrets, pair: Callable[[int], ChaCha20Poly1305],
               peer_ids: dict[int, bytes], *, my_seat: int, position: int,
               owner: int) -> SharedKeys:
    """Reveal to all but the owner: k for `position`, sealed for every other non-owner."""
    key = secrets.lock_scalar(position)
    shares = tuple(
        (seat, channel.seal(pair(seat), secrets.table_id, peer_ids, position=position,
                            owner_seat=owner, sender_seat=my_seat, recipient_seat=seat,
                            key=key))
        for seat in sorted(peer_ids) if seat not in (my_seat, owner))
    return SharedKeys(position, owner, shares)


def unlock(deck_group: DeckGroup, keys: Iterable[Scalar], locked: Point) -> Point:
    """The card point under `locked`: (Π k)^-1 · locked, one variable-base multiplication."""
    return deck_group.mul(group.scalar_invert(group.scalar_product(keys)), locked)
