"""The pairwise channel (deck/channel.py) through the deck's libsodium gives the bytes of the
reference implementations (OpenSSL, through `cryptography`: X25519 of RFC 7748, HKDF of RFC
5869, ChaCha20-Poly1305 of RFC 8439), and refuses what they refuse."""

from __future__ import annotations

import random

import pytest
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from hanabi_p2p.deck import channel
from hanabi_p2p.deck.derive import frame

PEERS = {0: bytes(range(32)), 1: bytes(range(1, 33)), 2: bytes(range(2, 34))}
TABLE = bytes(16)


def _bytes(rng: random.Random, size: int) -> bytes:
    return rng.randbytes(size)


@pytest.mark.parametrize("seed", range(8))
def test_the_pair_key_and_a_share_are_the_references_bytes(seed: int) -> None:
    rng = random.Random(seed)
    mine, theirs = _bytes(rng, 32), _bytes(rng, 32)
    reference = X25519PrivateKey.from_private_bytes(mine)
    their_public = X25519PrivateKey.from_private_bytes(theirs).public_key()
    pubs = {0: channel.x25519_public_key(mine), 2: channel.x25519_public_key(theirs)}
    assert pubs[0] == reference.public_key().public_bytes_raw()
    assert pubs[2] == their_public.public_bytes_raw()

    pair = channel.pair_key(TABLE, mine, my_seat=0, other_seat=2, peer_ids=PEERS,
                            x25519_pubs=pubs)
    info = frame(channel.LABEL_PAIR_KEY, TABLE, PEERS[0], PEERS[2], pubs[0], pubs[2])
    expected = HKDF(hashes.SHA512(), 32, None, info).derive(reference.exchange(their_public))
    assert pair == expected
    # both ends derive the same key
    assert channel.pair_key(TABLE, theirs, my_seat=2, other_seat=0, peer_ids=PEERS,
                            x25519_pubs=pubs) == pair

    k = _bytes(rng, 32)
    sealed = channel.seal(pair, TABLE, PEERS, position=7, owner_seat=1, sender_seat=0,
                          recipient_seat=2, key=k)
    assert sealed == ChaCha20Poly1305(pair).encrypt(
        channel.share_nonce(7, 0, 2), k, channel.share_ad(TABLE, PEERS[0], PEERS[2], 7, 1))
    assert channel.open_share(pair, TABLE, PEERS, position=7, owner_seat=1, sender_seat=0,
                              recipient_seat=2, ciphertext=sealed) == k


def test_a_forged_or_misdirected_share_does_not_open() -> None:
    pair = bytes(range(32))
    sealed = channel.seal(pair, TABLE, PEERS, position=3, owner_seat=1, sender_seat=0,
                          recipient_seat=2, key=bytes(32))
    forged = bytes([sealed[0] ^ 1]) + sealed[1:]
    for ciphertext, position in ((forged, 3), (sealed, 4), (sealed[:15], 3), (b"", 3)):
        with pytest.raises(channel.ChannelError):
            channel.open_share(pair, TABLE, PEERS, position=position, owner_seat=1,
                               sender_seat=0, recipient_seat=2, ciphertext=ciphertext)


def test_a_low_order_public_key_makes_no_pair_key() -> None:
    """X25519 with a low-order point gives the all-zero secret: refused, as OpenSSL does."""
    low_order = bytes(32)  # the point u = 0
    with pytest.raises(ValueError):
        X25519PrivateKey.from_private_bytes(bytes(range(32))).exchange(
            X25519PublicKey.from_public_bytes(low_order))
    with pytest.raises(channel.ChannelError):
        channel.pair_key(TABLE, bytes(range(32)), my_seat=0, other_seat=1, peer_ids=PEERS,
                         x25519_pubs={0: bytes(32), 1: low_order})
