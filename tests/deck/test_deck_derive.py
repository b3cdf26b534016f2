"""Derivations: framing, card points, seed secrets, the unbiased permutation."""

from __future__ import annotations

import collections

import nacl.bindings as sodium
import pytest

from hanabi_p2p.deck.derive import PeerSecrets, card_point, card_points, draw_below, frame, sha512
from hanabi_p2p.deck.group import (
    EDWARDS25519,
    RISTRETTO255,
    DeckGroup,
    GroupError,
    scalar_from_int,
)
from hanabi_p2p.rules.cards import GameConfig, Variant

G = RISTRETTO255


def secrets(seed: int = 1) -> PeerSecrets:
    return PeerSecrets(bytes(16), bytes(32), bytes([seed]) * 32, G)


def test_frame_is_length_prefixed_so_parts_cannot_slide() -> None:
    assert frame("ab", b"c") != frame("a", b"bc")
    assert frame("x", 1) == b"\0\0\0\x01x\0\0\0\x04\0\0\0\x01"


@pytest.mark.parametrize("deck_group", [RISTRETTO255, EDWARDS25519], ids=lambda g: g.name)
@pytest.mark.parametrize("variant", list(Variant))
def test_card_points_are_distinct_valid_and_one_per_copy(variant: Variant,
                                                         deck_group: DeckGroup) -> None:
    config = GameConfig(2, variant)
    points = card_points(config, deck_group)
    assert len(points) == len(set(points)) == config.deck_size
    assert all(deck_group.validate_point(p) == p for p in points)


def test_card_points_per_group_follow_the_spec() -> None:
    """SPEC 2.2: ristretto255 maps the whole SHA-512 of the label; 0.2.0's edwards25519 took
    Elligator 2 of its first half (the points of old logs must not change)."""
    digest = sha512(frame("hanabi-p2p/v1/card/red/1/copy0"))
    ristretto = card_point(RISTRETTO255, "red", 1, 0)
    edwards = card_point(EDWARDS25519, "red", 1, 0)
    assert edwards == sodium.crypto_core_ed25519_from_uniform(digest[:32])
    assert sodium.crypto_core_ed25519_is_valid_point(edwards)
    assert ristretto == RISTRETTO255.hash_to_point(digest) != edwards
    # a different second half gives a different ristretto255 point: all 64 bytes are used
    assert RISTRETTO255.hash_to_point(digest[:32] + bytes(32)) != ristretto


def test_secrets_depend_on_seed_table_and_peer() -> None:
    base = secrets()
    others = [secrets(2), PeerSecrets(b"\1" * 16, bytes(32), base.seed, G),
              PeerSecrets(bytes(16), b"\1" * 32, base.seed, G)]
    for other in others:
        assert other.shuffle_scalar != base.shuffle_scalar
        assert other.lock_scalar(0) != base.lock_scalar(0)
        assert other.commitment != base.commitment
    assert len({base.lock_scalar(i) for i in range(60)}) == 60
    assert base.shuffle_scalar == secrets().shuffle_scalar  # deterministic


def test_permutation_is_a_permutation_and_deterministic() -> None:
    perm = secrets().permutation(60)
    assert sorted(perm) == list(range(60))
    assert perm == secrets().permutation(60)
    assert perm != secrets(2).permutation(60)


def test_draw_below_rejects_words_that_would_bias() -> None:
    # 2^32 mod 3 == 1, so the single word 2^32 - 1 must be rejected.
    assert draw_below(iter([2**32 - 1, 5]), 3) == 2
    assert draw_below(iter([2**32 - 2]), 3) == (2**32 - 2) % 3


def test_first_card_of_the_permutation_is_roughly_uniform() -> None:
    counts = collections.Counter(secrets(seed).permutation(5)[0] for seed in range(250))
    assert set(counts) == set(range(5))
    assert max(counts.values()) < 90  # expected 50 each; a stuck draw would give 250


def test_nonces_differ_per_statement() -> None:
    s = secrets()
    a = s.nonce("lock", 0, [G.base_point])
    assert a != s.nonce("lock", 1, [G.base_point])
    assert a != s.nonce("lock", 0, [s.shuffle_point])
    assert a != s.nonce("shuffle", 0, [G.base_point])


def test_ristretto255_follows_rfc_9496() -> None:
    """The group is RFC 9496's: the encoding of 2·G (appendix A.1) and the one-way map of a
    64-byte input (A.3) are the RFC's, and encodings it calls invalid (A.2: non-canonical,
    negative, top bit set) are refused."""
    assert RISTRETTO255.base_mul(scalar_from_int(2)).hex() == (
        "6a493210f7499cd17fecb510ae0cea23a110e8d5b901f8acadd3095c73a3b919")
    # the generator the module writes down as a constant is 1·G (RFC 9496 A.1's first row)
    assert RISTRETTO255.base_mul(scalar_from_int(1)) == RISTRETTO255.base_point
    assert RISTRETTO255.base_point.hex() == (
        "e2f2ae0a6abc4e71a884a961c500515f58e30b6aa582dd8db6a65945e08d2d76")
    digest = bytes.fromhex(
        "5d1be09e3d0c82fc538112490e35701979d99e06ca3e2b5b54bffe8b4dc772c1"
        "4d98b696a1bbfb5ca32c436cc61c16563790306c79eaca7705668b47dffe5bb6")
    assert RISTRETTO255.hash_to_point(digest).hex() == (
        "3066f82a1a747d45120d1740f14358531a8f04bbffe6a819f86dfe50f44a0a46")
    field_prime = 2**255 - 19
    for bad in [field_prime.to_bytes(32, "little"), (field_prime + 6).to_bytes(32, "little"),
                (2**255 - 1).to_bytes(32, "little"), b"\x00" + b"\xff" * 31,
                (1).to_bytes(32, "little"), bytes(32)]:
        with pytest.raises(GroupError):
            RISTRETTO255.validate_point(bad)


@pytest.mark.parametrize("length", [1, 32, 64, 65, 128, 200])
def test_expand_is_rfc_5869_hkdf_expand(length: int) -> None:
    """The written-out HKDF-Expand gives what `cryptography`'s does, for one block and more."""
    from cryptography.hazmat.primitives import hashes
    from cryptography.hazmat.primitives.kdf.hkdf import HKDFExpand

    secrets = PeerSecrets(bytes(16), bytes(range(32)), bytes(range(32, 64)), RISTRETTO255)
    info = frame("hanabi-p2p/v1/test", length, b"\x00\xff")
    assert secrets.expand(info, length) == HKDFExpand(hashes.SHA512(), length, info).derive(
        secrets.prk)
