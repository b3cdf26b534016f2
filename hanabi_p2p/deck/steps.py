"""The deterministic steps of the protocol, shared by DeckPeer (to act) and audit (to redo).

Given the seed-derived secrets and the public input, each step's output is unique down to the
byte (the proof nonces are derived too), which is what makes the audit a plain comparison.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

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


def verified_lock_reproduces(secrets: PeerSecrets, inputs: tuple[Point, ...],
                             lock: Lock) -> bool:
    """Whether `lock_step(secrets, inputs)` would give `lock`, for a lock whose every proof
    the caller has verified against `inputs` and `secrets.shuffle_point` (a live peer whose
    deck became ready): then only K and each proof's response need recomputing.

    Why this is the same verdict: a verified proof shows Y[i] = e'·X[i] and K[i] = e'·S for
    one e'; with K[i] = k[i]·G and S = s·G that e' is k[i]/s, the e of lock_step, so Y is the
    one lock_step makes. Its proof then reproduces iff z = r + c·e for the derived nonce r
    (SPEC §2.10): that z gives A1 = z·S - c·K = r·S and A2 = r·X, hence the same challenge.
    This costs one base-point multiplication per position instead of two variable-base and
    two base-point ones."""
    if not len(lock.points) == len(lock.keys) == len(lock.proofs) == len(inputs):
        return False
    g = secrets.group
    s_inverse = group.scalar_invert(secrets.shuffle_scalar)
    for position, x in enumerate(inputs):
        k = secrets.lock_scalar(position)
        key = lock.keys[position]
        if g.base_mul(k) != key:
            return False
        statement = (secrets.shuffle_point, key, x, lock.points[position])
        nonce = secrets.nonce("lock", position, statement)
        proof = lock.proofs[position]
        c, z = proof[:32], proof[32:]
        e = group.scalar_mul(k, s_inverse)
        if group.scalar_add(nonce, group.scalar_mul(c, e)) != z:
            return False
    return True


def share_step(secrets: PeerSecrets, pair: Callable[[int], channel.PairKey],
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
