"""Every cheat the issue lists is detected and blamed on the peer that did it."""

from __future__ import annotations

import dataclasses
import hashlib
from collections.abc import Callable

import pytest
from deck_helpers import ready_table, secrets_of

from hanabi_p2p.deck import (
    Check,
    Commit,
    DeckCheatError,
    DeckCorruptError,
    Lock,
    OwnerKey,
    Phase,
    PublicKey,
    SeedReveal,
    SharedKeys,
    Shuffle,
    audit,
    checks,
    group,
)
from hanabi_p2p.deck.channel import pair_key, seal
from hanabi_p2p.deck.derive import card_point
from hanabi_p2p.deck.group import EDWARDS25519, RISTRETTO255, DeckGroup
from hanabi_p2p.deck.messages import DeckMessage
from hanabi_p2p.deck.table import DeckTable
from hanabi_p2p.errors import LocalProtocolError, RemoteProtocolError
from hanabi_p2p.rules.cards import GameConfig

G = RISTRETTO255  # the group of live tables
FIELD_PRIME = 2**255 - 19
SOME_POINT = card_point(G, "multicolor", 5, 0)  # valid, but not a card of the standard deck


def _top_bit_set(point: bytes) -> bytes:
    return point[:31] + bytes([point[31] | 0x80])


# Encodings that must never be accepted, per group.
ORDER_8 = bytes.fromhex("c7176a703d4dd84fba3c0b760d10670f2a2053fa2c39ccc64ec7fd7792ac037a")
_ED_SOME_POINT = card_point(EDWARDS25519, "multicolor", 5, 0)
BAD_POINTS: dict[DeckGroup, dict[str, bytes]] = {
    RISTRETTO255: {
        "noncanonical": (FIELD_PRIME + 2).to_bytes(32, "little"),  # s >= p
        # the same element as SOME_POINT, but libsodium 1.0.18 alone would accept it
        "top-bit": _top_bit_set(SOME_POINT),
        "negative": (1).to_bytes(32, "little"),  # s odd
        "identity": bytes(32),
        "not-a-point": (2).to_bytes(32, "little"),  # s^2 gives no square root
    },
    EDWARDS25519: {  # 0.2.0 tables, checked by the verifier of old logs
        "noncanonical": b"\xff" * 32,  # y >= p
        "identity": (1).to_bytes(32, "little"),  # order 1
        "order4": bytes(32),  # y = 0
        "order8": ORDER_8,
        # on the curve, outside the prime-order subgroup
        "mixed-order": EDWARDS25519.add(_ED_SOME_POINT, ORDER_8),
    },
}
BAD_POINT_CASES = [pytest.param(g, bad, id=f"{g.name}-{name}")
                   for g, points in BAD_POINTS.items() for name, bad in points.items()]

Tamper = Callable[[int, DeckMessage], DeckMessage | None]


def tampering(cheater: int, kind: type, change: Callable[[DeckMessage], DeckMessage]) -> Tamper:
    def tamper(seat: int, message: DeckMessage) -> DeckMessage | None:
        if seat == cheater and isinstance(message, kind):
            return change(message)
        return message
    return tamper


def replace_item(items: tuple[bytes, ...], index: int, value: bytes) -> tuple[bytes, ...]:
    return (*items[:index], value, *items[index + 1:])


def setup_with(tamper: Tamper, players: int = 3, label: str = "cheat",
               deck_group: DeckGroup = G) -> DeckTable:
    table = DeckTable(GameConfig(players), label, tamper=tamper, group=deck_group)
    table.setup()
    return table


def assert_blamed(error: pytest.ExceptionInfo[DeckCheatError], seat: int, check: Check,
                  table_label: str = "cheat") -> None:
    assert error.value.seat == seat
    assert error.value.check is check
    assert error.value.peer_id == hashlib.sha256(f"{table_label}/peer/{seat}".encode()).digest()
    assert isinstance(error.value, RemoteProtocolError)
    assert f"seat {seat}" in str(error.value)


@pytest.mark.parametrize(("deck_group", "bad"), BAD_POINT_CASES)
def test_invalid_point_in_shuffle_is_blamed(deck_group: DeckGroup, bad: bytes) -> None:
    tamper = tampering(1, Shuffle, lambda m: dataclasses.replace(
        m, points=replace_item(m.points, 7, bad)))
    with pytest.raises(DeckCheatError) as error:
        setup_with(tamper, deck_group=deck_group)
    assert_blamed(error, 1, Check.INVALID_POINT)


@pytest.mark.slow
@pytest.mark.parametrize(("deck_group", "bad"), BAD_POINT_CASES)
@pytest.mark.parametrize("field", ["points", "keys"])
def test_invalid_point_in_lock_is_blamed(deck_group: DeckGroup, bad: bytes, field: str) -> None:
    tamper = tampering(2, Lock, lambda m: dataclasses.replace(
        m, **{field: replace_item(getattr(m, field), 11, bad)}))
    with pytest.raises(DeckCheatError) as error:
        setup_with(tamper, deck_group=deck_group)
    assert_blamed(error, 2, Check.INVALID_POINT)


@pytest.mark.parametrize(("deck_group", "bad"), BAD_POINT_CASES)
def test_invalid_shuffle_point_S_is_blamed(deck_group: DeckGroup, bad: bytes) -> None:
    tamper = tampering(0, Shuffle, lambda m: dataclasses.replace(m, shuffle_point=bad))
    with pytest.raises(DeckCheatError) as error:
        setup_with(tamper, deck_group=deck_group)
    assert_blamed(error, 0, Check.INVALID_POINT)


def test_the_top_bit_makes_no_second_encoding_of_a_shuffled_card() -> None:
    """libsodium 1.0.18 (rbcl) decodes a ristretto255 encoding with its top bit set to the
    same element: "no point twice" compares encodings, so the group must refuse it."""
    tamper = tampering(1, Shuffle, lambda m: dataclasses.replace(
        m, points=replace_item(m.points, 3, _top_bit_set(m.points[9]))))
    with pytest.raises(DeckCheatError) as error:
        setup_with(tamper)
    assert_blamed(error, 1, Check.INVALID_POINT)


def test_bad_lock_proof_is_blamed() -> None:
    def flip(m: DeckMessage) -> DeckMessage:
        assert isinstance(m, Lock)
        proof = bytearray(m.proofs[4])
        proof[40] ^= 1
        return dataclasses.replace(m, proofs=replace_item(m.proofs, 4, bytes(proof)))
    with pytest.raises(DeckCheatError) as error:
        setup_with(tampering(1, Lock, flip))
    assert_blamed(error, 1, Check.LOCK_PROOF)
    assert "position 4" in str(error.value)


def test_lock_that_skips_removing_the_shuffle_scalar_is_blamed() -> None:
    """Re-using a valid proof for a different Y: the proof no longer matches."""
    def swap(m: DeckMessage) -> DeckMessage:
        assert isinstance(m, Lock)
        points = replace_item(m.points, 0, m.points[1])
        points = replace_item(points, 1, m.points[0])
        return dataclasses.replace(m, points=points)
    with pytest.raises(DeckCheatError) as error:
        setup_with(tampering(0, Lock, swap))
    assert_blamed(error, 0, Check.LOCK_PROOF)


def test_duplicated_card_in_phase_1_is_blamed() -> None:
    tamper = tampering(0, Shuffle, lambda m: dataclasses.replace(
        m, points=replace_item(m.points, 3, m.points[9])))
    with pytest.raises(DeckCheatError) as error:
        setup_with(tamper)
    assert_blamed(error, 0, Check.DUPLICATE_POINT)


@pytest.mark.parametrize("cheater", [0, 1, 2])
def test_substituted_card_in_phase_1_is_blamed(cheater: int) -> None:
    """The cheater swaps one card for a card that is not in the deck, masked like the rest."""
    table = DeckTable(GameConfig(3), "cheat")
    s = secrets_of(table, cheater, "cheat").shuffle_scalar
    forged = G.mul(s, SOME_POINT)
    tamper = tampering(cheater, Shuffle, lambda m: dataclasses.replace(
        m, points=replace_item(m.points, 5, forged)))
    with pytest.raises(DeckCheatError) as error:
        setup_with(tamper)
    assert_blamed(error, cheater, Check.SHUFFLE_PROOF)


def test_wrong_number_of_cards_is_blamed() -> None:
    tamper = tampering(1, Shuffle, lambda m: dataclasses.replace(m, points=m.points[:-1]))
    with pytest.raises(DeckCheatError) as error:
        setup_with(tamper)
    assert_blamed(error, 1, Check.MALFORMED)


def test_sum_preserving_forgery_is_caught_at_decode_and_blamed_by_the_audit() -> None:
    """Keeping the point sum defeats the phase-1 proof; the decode check and audit don't."""
    delta = card_point(G, "multicolor", 1, 0)

    def forge(m: DeckMessage) -> DeckMessage:
        assert isinstance(m, Shuffle)
        points = replace_item(m.points, 0, G.add(m.points[0], delta))
        points = replace_item(points, 1, G.sub(m.points[1], delta))
        return dataclasses.replace(m, points=points)

    table = setup_with(tampering(1, Shuffle, forge))
    assert all(peer.deck_ready for peer in table.peers)
    with pytest.raises(DeckCorruptError):
        for position in range(table.config.deck_size):
            table.deal(position, position % 3)
    table.tamper = None
    table.inbox.clear()
    table.reveal_seeds()  # seed_reveal works even after the error
    result = audit(table.config, table.table_id, table.peer_ids, table.sent, group=G)
    assert (result.ok, result.blamed_seat, result.check) == (False, 1, Check.MISMATCH)
    stopped = table.peers[0]
    assert stopped.phase is Phase.ERROR and len(stopped.seeds) == 3
    assert stopped.audit().blamed_seat == 1


def test_wrong_owner_key_is_blamed() -> None:
    table = ready_table(3, label="cheat")
    table.tamper = tampering(2, OwnerKey, lambda m: dataclasses.replace(
        m, key=group.scalar_from_int(12345)))
    with pytest.raises(DeckCheatError) as error:
        table.deal(8, owner=2)
    assert_blamed(error, 2, Check.WRONG_KEY)


def test_a_key_check_is_made_once_per_process_and_per_published_point(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The seats one program runs check the same public keys: k·G = K is computed once for a
    (k, K) pair, and the same k against another K gets its own (false) answer."""
    k = group.reduce_wide(hashlib.sha512(b"a key checked twice").digest())
    published, other = G.base_mul(k), G.base_mul(group.scalar_from_int(7))
    calls: list[bytes] = []
    real_base_mul = G.base_mul

    def counting_base_mul(scalar: bytes) -> bytes:
        calls.append(scalar)
        return real_base_mul(scalar)

    monkeypatch.setattr(G, "base_mul", counting_base_mul)
    assert checks.key_matches(G, k, published)
    assert checks.key_matches(G, k, published)
    assert len(calls) == 1
    assert not checks.key_matches(G, k, other)
    assert len(calls) == 2


def test_key_for_another_position_is_blamed() -> None:
    table = ready_table(3, label="cheat")
    other = secrets_of(table, 1, "cheat").lock_scalar(9)
    table.tamper = tampering(1, PublicKey, lambda m: dataclasses.replace(m, key=other))
    with pytest.raises(DeckCheatError) as error:
        table.reveal_all(8)
    assert_blamed(error, 1, Check.WRONG_KEY)


def test_wrong_key_inside_an_encrypted_share_is_blamed() -> None:
    """The share decrypts fine but carries the key of another position."""
    table = ready_table(3, label="cheat")
    cheater = secrets_of(table, 0, "cheat")
    pubs = {seat: secrets_of(table, seat, "cheat").x25519_public for seat in range(3)}
    peer_ids = dict(enumerate(table.peer_ids))
    aead = pair_key(table.table_id, cheater.x25519_private, my_seat=0, other_seat=1,
                    peer_ids=peer_ids, x25519_pubs=pubs)
    wrong = seal(aead, table.table_id, peer_ids, position=4, owner_seat=2, sender_seat=0,
                 recipient_seat=1, key=cheater.lock_scalar(5))
    table.tamper = tampering(0, SharedKeys, lambda m: dataclasses.replace(
        m, shares=((1, wrong),)))
    with pytest.raises(DeckCheatError) as error:
        table.deal(4, owner=2)
    assert_blamed(error, 0, Check.WRONG_KEY)


def test_share_that_does_not_decrypt_is_blamed() -> None:
    table = ready_table(3, label="cheat")

    def garble(m: DeckMessage) -> DeckMessage:
        assert isinstance(m, SharedKeys)
        seat, _ciphertext = m.shares[0]
        return dataclasses.replace(m, shares=((seat, bytes(48)),))
    table.tamper = tampering(1, SharedKeys, garble)
    with pytest.raises(DeckCheatError) as error:
        table.deal(4, owner=0)
    assert_blamed(error, 1, Check.BAD_SHARE)


def test_owner_key_from_a_non_owner_is_blamed() -> None:
    table = ready_table(3, label="cheat")
    table.tamper = tampering(1, SharedKeys, lambda m: OwnerKey(
        m.position, secrets_of(table, 1, "cheat").lock_scalar(m.position)))
    with pytest.raises(DeckCheatError) as error:
        table.deal(4, owner=0)
    assert_blamed(error, 1, Check.WRONG_OWNER)


def test_shares_for_the_wrong_owner_are_blamed() -> None:
    table = ready_table(3, label="cheat")
    table.tamper = tampering(1, SharedKeys, lambda m: dataclasses.replace(m, owner=2))
    with pytest.raises(DeckCheatError) as error:
        table.deal(4, owner=0)
    assert_blamed(error, 1, Check.WRONG_OWNER)


def test_seed_not_matching_commitment_is_blamed() -> None:
    table = ready_table(3, label="cheat")
    table.tamper = tampering(2, SeedReveal, lambda m: SeedReveal(bytes(32)))
    with pytest.raises(DeckCheatError) as error:
        table.reveal_seeds()
    assert_blamed(error, 2, Check.COMMITMENT)


def test_two_different_commitments_are_blamed() -> None:
    table = DeckTable(GameConfig(2), "cheat")
    first = table.peers[1].start()[0]
    assert isinstance(first, Commit)
    table.peers[0].receive(1, first)
    with pytest.raises(DeckCheatError) as error:
        table.peers[0].receive(1, dataclasses.replace(first, commitment=bytes(64)))
    assert_blamed(error, 1, Check.EQUIVOCATION)


def test_low_order_x25519_key_is_blamed() -> None:
    tamper = tampering(1, Commit, lambda m: dataclasses.replace(m, x25519_pub=bytes(32)))
    with pytest.raises(DeckCheatError) as error:
        setup_with(tamper)
    assert_blamed(error, 1, Check.INVALID_POINT)


def _other_table(label: str) -> DeckTable:
    """Same identities and seeds as `label`, another table id: a replay source."""
    return DeckTable(GameConfig(3), label, table_id=bytes(range(16)))


def test_shuffle_replayed_from_another_table_is_blamed() -> None:
    """Seat 0's input is the same fixed card points at every table, so its shuffle from
    another table is a perfectly good shuffle: only the table binding exposes it."""
    other = _other_table("cheat")
    other.setup()
    replayed = next(m for seat, m in other.sent if seat == 0 and isinstance(m, Shuffle))
    with pytest.raises(DeckCheatError) as error:
        setup_with(tampering(0, Shuffle, lambda m: replayed))
    assert_blamed(error, 0, Check.SHUFFLE_PROOF)


def test_share_replayed_from_another_table_is_blamed() -> None:
    other = _other_table("cheat")
    other.setup()
    other.deal(4, owner=2)
    replayed = next(m for seat, m in other.sent if seat == 0 and isinstance(m, SharedKeys))
    table = ready_table(3, label="cheat")
    table.tamper = tampering(0, SharedKeys, lambda m: replayed)
    with pytest.raises(DeckCheatError) as error:
        table.deal(4, owner=2)
    assert_blamed(error, 0, Check.BAD_SHARE)


def test_owner_key_replayed_from_another_table_is_blamed() -> None:
    other = _other_table("cheat")
    other.setup()
    other.deal(4, owner=2)
    replayed = next(m for seat, m in other.sent if isinstance(m, OwnerKey))
    table = ready_table(3, label="cheat")
    table.tamper = tampering(2, OwnerKey, lambda m: replayed)
    with pytest.raises(DeckCheatError) as error:
        table.deal(4, owner=2)
    assert_blamed(error, 2, Check.WRONG_KEY)


def test_after_a_cheat_the_peer_refuses_everything_but_its_seed() -> None:
    table = ready_table(3, label="cheat")
    table.tamper = tampering(1, PublicKey, lambda m: dataclasses.replace(
        m, key=group.scalar_from_int(7)))
    with pytest.raises(DeckCheatError):
        table.reveal_all(0)
    victim = table.peers[0]
    assert victim.phase is Phase.ERROR and isinstance(victim.error, DeckCheatError)
    with pytest.raises(LocalProtocolError, match="stopped"):
        victim.public_share(1)
    with pytest.raises(LocalProtocolError, match="stopped"):
        victim.receive(2, PublicKey(0, group.scalar_from_int(1)))
    assert isinstance(victim.seed_reveal()[0], SeedReveal)
    # Seeds of others are still taken (for the audit); nothing held is processed any more.
    seed = table.peers[2].seed_reveal()[0]
    assert victim.receive(2, seed) == []
    assert set(victim.seeds) == {0, 2}
    assert victim.phase is Phase.ERROR
    with pytest.raises(DeckCheatError):
        victim.receive(1, SeedReveal(bytes(32)))


def test_flooding_with_early_messages_is_blamed() -> None:
    table = DeckTable(GameConfig(2), "flood")
    table.peers[0].start()
    with pytest.raises(DeckCheatError) as error:
        for position in range(200):
            table.peers[0].receive(1, PublicKey(position % 50, group.scalar_from_int(1)))
    assert error.value.seat == 1 and error.value.check is Check.UNEXPECTED


def _sum_preserving_forgery(m: DeckMessage) -> DeckMessage:
    assert isinstance(m, Shuffle)
    points = replace_item(m.points, 0, G.add(m.points[0], G.base_point))
    points = replace_item(points, 1, G.sub(m.points[1], G.base_point))
    return dataclasses.replace(m, points=points)


def _seeds_but(table: DeckTable, withheld: int) -> list[tuple[int, DeckMessage]]:
    return [(seat, SeedReveal(secrets_of(table, seat, table.label).seed))
            for seat in range(len(table.peers)) if seat != withheld]


def test_a_forger_that_keeps_its_seed_back_is_named_by_the_others_seeds() -> None:
    """SPEC 5.7: with only the forger's seed missing, the other seats' steps reproduce and a
    card its revealed key opens is no card: the forger is named without its seed."""
    from hanabi_p2p.deck.withheld import audit_withheld_seed

    table = setup_with(tampering(1, Shuffle, _sum_preserving_forgery))
    with pytest.raises(DeckCorruptError):
        for position in range(table.config.deck_size):
            table.deal(position, position % 3)
    transcript = [*table.sent, *_seeds_but(table, 1)]
    result = audit_withheld_seed(table.config, table.table_id, table.peer_ids, transcript,
                                 group=G)
    assert result is not None and not result.ok
    assert (result.blamed_seat, result.check) == (1, Check.MISSING)
    assert "never revealed its seed" in result.reason
    # the forger's seed would have told the same story
    full = audit(table.config, table.table_id, table.peer_ids,
                 [*transcript, (1, SeedReveal(secrets_of(table, 1, table.label).seed))],
                 group=G)
    assert (full.ok, full.blamed_seat) == (False, 1)


@pytest.mark.parametrize("withheld", [0, 1, 2])
def test_an_honest_seat_gone_without_its_seed_is_never_named(withheld: int) -> None:
    """An honest deck with one seed missing proves nothing: no verdict at all."""
    from hanabi_p2p.deck.withheld import audit_withheld_seed

    table = DeckTable(GameConfig(3), "honest", group=G)
    table.setup()
    table.initial_deal()
    table.reveal_all(0)
    result = audit_withheld_seed(table.config, table.table_id, table.peer_ids,
                                 [*table.sent, *_seeds_but(table, withheld)], group=G)
    assert result is None


def test_a_seat_whose_step_does_not_reproduce_is_named_when_another_keeps_its_seed() -> None:
    """The forger reveals its seed and an honest seat keeps its own back: the forger's
    shuffle does not reproduce from its seed, and it is the one named."""
    from hanabi_p2p.deck.withheld import audit_withheld_seed

    table = setup_with(tampering(1, Shuffle, _sum_preserving_forgery))
    result = audit_withheld_seed(table.config, table.table_id, table.peer_ids,
                                 [*table.sent, *_seeds_but(table, 2)], group=G)
    assert result is not None
    assert (result.blamed_seat, result.check) == (1, Check.MISMATCH)
