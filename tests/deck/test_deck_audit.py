"""The audit names the first peer whose step does not reproduce, or says the deck is valid."""

from __future__ import annotations

import dataclasses
import hashlib

import pytest
from deck_helpers import ready_table, secrets_of

from hanabi_p2p.deck import (
    Check,
    Lock,
    OwnerKey,
    PublicKey,
    SeedReveal,
    SharedKeys,
    Shuffle,
    audit,
    check_steps,
    checks,
    dleq,
    group,
)
from hanabi_p2p.deck.messages import DeckMessage
from hanabi_p2p.deck.table import DeckTable
from hanabi_p2p.session.deckio import DeckAdapter

Transcript = list[tuple[int, DeckMessage]]


@pytest.fixture(scope="module")
def finished() -> DeckTable:
    table = ready_table(3, label="audit")
    table.initial_deal()
    table.reveal_all(2)
    table.reveal_seeds()
    return table


def run(table: DeckTable, transcript: Transcript) -> tuple[bool, int | None, Check | None]:
    result = audit(table.config, table.table_id, table.peer_ids, transcript, group=table.group)
    return result.ok, result.blamed_seat, result.check


def replace(transcript: Transcript, pick: type, seat: int, new: DeckMessage) -> Transcript:
    out, done = [], False
    for s, m in transcript:
        if not done and s == seat and isinstance(m, pick):
            out.append((s, new))
            done = True
        else:
            out.append((s, m))
    assert done
    return out


def first(transcript: Transcript, pick: type, seat: int) -> DeckMessage:
    return next(m for s, m in transcript if s == seat and isinstance(m, pick))


def test_honest_game_passes_with_every_face(finished: DeckTable) -> None:
    result = audit(finished.config, finished.table_id, finished.peer_ids, finished.sent,
                   group=finished.group)
    assert result.ok and result.blamed_seat is None
    assert sorted(result.faces) == list(range(50))
    assert sorted(result.faces.values()) == sorted(finished.config.deck_faces())
    assert all(result.faces[p] == finished.peers[1].known_face(p) for p in range(5))
    assert finished.peers[2].audit() == result


def test_missing_seed_is_blamed(finished: DeckTable) -> None:
    transcript = [(s, m) for s, m in finished.sent
                  if not (s == 1 and isinstance(m, SeedReveal))]
    assert run(finished, transcript) == (False, 1, Check.MISSING)


def test_seed_not_matching_commitment_is_blamed(finished: DeckTable) -> None:
    transcript = replace(finished.sent, SeedReveal, 2, SeedReveal(bytes(32)))
    assert run(finished, transcript) == (False, 2, Check.COMMITMENT)


def test_lock_that_does_not_reproduce_is_blamed(finished: DeckTable) -> None:
    lock = first(finished.sent, Lock, 1)
    assert isinstance(lock, Lock)
    forged = dataclasses.replace(lock, proofs=(lock.proofs[1], *lock.proofs[1:]))
    transcript = replace(finished.sent, Lock, 1, forged)
    assert run(finished, transcript) == (False, 1, Check.MISMATCH)


def test_missing_lock_is_blamed(finished: DeckTable) -> None:
    transcript = [(s, m) for s, m in finished.sent if not (s == 2 and isinstance(m, Lock))]
    assert run(finished, transcript) == (False, 2, Check.MISSING)


def test_wrong_revealed_key_is_blamed(finished: DeckTable) -> None:
    key = first(finished.sent, OwnerKey, 0)
    assert isinstance(key, OwnerKey)
    transcript = [*finished.sent, (0, PublicKey(key.position + 1, key.key))]
    assert run(finished, transcript) == (False, 0, Check.MISMATCH)


def test_shares_that_do_not_reproduce_are_blamed(finished: DeckTable) -> None:
    shares = first(finished.sent, SharedKeys, 2)
    assert isinstance(shares, SharedKeys)
    (seat, _ciphertext), = shares.shares
    forged = dataclasses.replace(shares, shares=((seat, bytes(48)),))
    transcript = replace(finished.sent, SharedKeys, 2, forged)
    assert run(finished, transcript) == (False, 2, Check.MISMATCH)


def test_equivocation_in_the_transcript_is_blamed(finished: DeckTable) -> None:
    lock = first(finished.sent, Lock, 0)
    assert isinstance(lock, Lock)
    forged = dataclasses.replace(lock, points=(lock.points[1], lock.points[0], *lock.points[2:]))
    assert run(finished, [*finished.sent, (0, forged)]) == (False, 0, Check.EQUIVOCATION)


def test_the_first_failing_step_is_named() -> None:
    """Seat 2 forged its lock and seat 0 a later reveal: the lock comes first."""
    table = ready_table(3, label="audit-order")
    table.deal(0, owner=1)
    table.reveal_seeds()
    lock = first(table.sent, Lock, 2)
    assert isinstance(lock, Lock)
    transcript = replace(table.sent, Lock, 2,
                         dataclasses.replace(lock, keys=(lock.keys[1], *lock.keys[1:])))
    transcript.append((0, PublicKey(0, bytes(32))))
    assert run(table, transcript) == (False, 2, Check.MISMATCH)


def _adapter_of(table: DeckTable, seat: int, transcript: Transcript) -> DeckAdapter:
    """The session's view of seat `seat` (its real DeckPeer) holding `transcript`."""
    adapter = DeckAdapter(table.config, table.table_id, table.peer_ids, seat, b"\0" * 32,
                          group=table.group)
    adapter.peer = table.peers[seat]
    for seat_of_message, message in transcript:
        adapter.record(seat_of_message, [message])
    return adapter


def test_a_peer_skips_only_its_own_steps_and_only_when_it_made_them(finished: DeckTable) -> None:
    """A seated peer's audit does not recompute the shuffle and lock its own DeckPeer made
    (same verdict); one in its name that it did not make is recomputed, and blamed."""
    honest = _adapter_of(finished, 1, finished.sent).audit()
    assert honest == audit(finished.config, finished.table_id, finished.peer_ids, finished.sent,
                           group=finished.group)
    lock = first(finished.sent, Lock, 1)
    assert isinstance(lock, Lock)
    forged = dataclasses.replace(lock, proofs=(lock.proofs[1], *lock.proofs[1:]))
    result = _adapter_of(finished, 1, replace(finished.sent, Lock, 1, forged)).audit()
    assert (result.ok, result.blamed_seat, result.check) == (False, 1, Check.MISMATCH)


def _lock_with_valid_proofs(table: DeckTable, seat: int, *, foreign_keys: bool,
                            random_nonces: bool) -> Lock:
    """Seat `seat`'s lock remade so that every proof verifies, but with lock scalars that are
    not its seed's (`foreign_keys`) or proof nonces that are not derived (`random_nonces`):
    live checks accept it; only the audit can tell."""
    secrets = secrets_of(table, seat)
    before = (first(table.sent, Lock, seat - 1) if seat
              else first(table.sent, Shuffle, len(table.peers) - 1))
    assert isinstance(before, Lock | Shuffle)
    inputs = before.points
    s_inverse = group.scalar_invert(secrets.shuffle_scalar)
    g = table.group
    points, keys, proofs = [], [], []
    for position, x in enumerate(inputs):
        k = secrets.lock_scalar(position)
        if foreign_keys:
            k = group.reduce_wide(hashlib.sha512(b"not the seed's k" + k).digest())
        e = group.scalar_mul(k, s_inverse)
        statement = (secrets.shuffle_point, g.base_mul(k), x, g.mul(e, x))
        nonce = (group.reduce_wide(hashlib.sha512(b"a random nonce" + k).digest())
                 if random_nonces else secrets.nonce("lock", position, statement))
        ctx = dleq.ProofContext(g, table.table_id, table.peer_ids[seat], "lock", position)
        proofs.append(dleq.prove(ctx, statement, e, nonce))
        points.append(statement[3])
        keys.append(statement[1])
    forged = Lock(tuple(points), tuple(keys), tuple(proofs))
    sender = checks.Sender(table.table_id, seat, table.peer_ids[seat], g)
    checks.check_lock(sender, forged, secrets.shuffle_point, inputs)  # the live checks pass
    return forged


@pytest.mark.parametrize(("foreign_keys", "random_nonces"),
                         [(True, False), (False, True), (False, False)])
def test_an_audit_after_verified_proofs_gives_the_full_audits_verdict(
        finished: DeckTable, foreign_keys: bool, random_nonces: bool) -> None:
    """A live peer that verified every lock proof checks locks against the seeds without
    remaking them: a lock with valid proofs but keys or nonces not from the seed is blamed
    all the same, and an honest one passes with the same faces."""
    forged = _lock_with_valid_proofs(finished, 1, foreign_keys=foreign_keys,
                                     random_nonces=random_nonces)
    transcript = replace(finished.sent, Lock, 1, forged)
    full = audit(finished.config, finished.table_id, finished.peer_ids, transcript,
                 group=finished.group)
    quick = audit(finished.config, finished.table_id, finished.peer_ids, transcript,
                  group=finished.group, proofs_verified=True)
    assert quick == full
    honest = not (foreign_keys or random_nonces)
    assert (full.ok, full.blamed_seat, full.check) == (
        (True, None, None) if honest else (False, 1, Check.MISMATCH))


def test_a_peer_vouches_only_for_the_steps_it_verified(finished: DeckTable) -> None:
    """`verified_step` (what lets the audit skip remaking proofs) holds for the shuffles and
    locks a ready peer accepted, not for another lock in the same seat's name, nor before
    the deck is ready."""
    peer = finished.peers[0]
    lock = first(finished.sent, Lock, 1)
    shuffle = first(finished.sent, Shuffle, 2)
    assert peer.verified_step(1, lock) and peer.verified_step(2, shuffle)
    forged = _lock_with_valid_proofs(finished, 1, foreign_keys=True, random_nonces=False)
    assert not peer.verified_step(1, forged)
    assert not peer.verified_step(2, lock)
    # the last lock never arrives: every earlier step accepted, but the deck is not ready
    unready = DeckTable(finished.config, "audit-unready",
                        tamper=lambda seat, m: None if isinstance(m, Lock) and seat == 2 else m)
    for seat, deck_peer in enumerate(unready.peers):
        unready.post(seat, deck_peer.start())
    unready.deliver()
    steps = [(seat, m) for seat, m in unready.sent if isinstance(m, Shuffle | Lock)]
    waiting = unready.peers[:2]  # (seat 2 made that lock itself: its own deck is ready)
    assert len(steps) == 5 and not any(p.deck_ready for p in waiting)
    assert not any(p.verified_step(seat, m) for p in waiting for seat, m in steps)


def _check_steps(table: DeckTable, transcript: Transcript) -> tuple[bool, int | None,
                                                                     Check | None]:
    result = check_steps(table.config, table.table_id, table.peer_ids, transcript,
                         group=table.group)
    return result.ok, result.blamed_seat, result.check


def test_false_proofs_are_found_without_any_seed(finished: DeckTable) -> None:
    """`log verify` of a game whose seeds are not all revealed still names a seat that
    signed a false shuffle or lock proof; honest steps, or steps not all there, pass."""
    no_seeds: Transcript = [(s, m) for s, m in finished.sent if not isinstance(m, SeedReveal)]
    assert _check_steps(finished, no_seeds) == (True, None, None)
    lock = first(no_seeds, Lock, 2)
    assert isinstance(lock, Lock)
    bad_lock = dataclasses.replace(lock, proofs=(*lock.proofs[:40], lock.proofs[41],
                                                 *lock.proofs[41:]))
    assert _check_steps(finished, replace(no_seeds, Lock, 2, bad_lock)) == (
        False, 2, Check.LOCK_PROOF)
    shuffle = first(no_seeds, Shuffle, 1)
    assert isinstance(shuffle, Shuffle)
    bad_shuffle = dataclasses.replace(shuffle, sum_proof=shuffle.sum_proof[32:] * 2)
    assert _check_steps(finished, replace(no_seeds, Shuffle, 1, bad_shuffle)) == (
        False, 1, Check.SHUFFLE_PROOF)
    unfinished: Transcript = [(s, m) for s, m in no_seeds
                              if not (isinstance(m, Lock) and s >= 1)]
    assert _check_steps(finished, unfinished) == (True, None, None)


def test_the_faces_read_from_the_permutations_are_the_unlocked_ones(finished: DeckTable) -> None:
    """An audit that recomputes every step reads the faces from the seats' permutations; one
    that takes a seat's steps on its caller's word (`made_by_us`) unlocks every position:
    both give every position the same card, and the deck is the variant's cards."""
    transcript = finished.sent
    recomputed = audit(finished.config, finished.table_id, finished.peer_ids, transcript,
                       group=finished.group)
    unlocked = audit(finished.config, finished.table_id, finished.peer_ids, transcript,
                     group=finished.group, made_by_us=0)
    assert recomputed.ok and unlocked.ok
    assert recomputed.faces == unlocked.faces
    assert sorted(recomputed.faces) == list(range(finished.config.deck_size))
    assert sorted(map(str, recomputed.faces.values())) == sorted(
        map(str, finished.config.deck_faces()))
