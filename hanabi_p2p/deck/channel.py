"""The pairwise encrypted channel that carries a non-owner's key to another non-owner.

Key = HKDF-SHA512(IKM = X25519(own private, peer public), salt = empty, info = frame(label,
table_id, the two peer ids and the two X25519 keys in seat order)), 32 bytes, for
ChaCha20-Poly1305. The nonce is (position, sender seat, recipient seat), unique per key for
the one key each sender ever sends to a recipient for a position; the associated data binds
the table, both identities, the position and the owner. Both X25519 key pairs derive from the
seeds, so after the audit anyone can recompute every ciphertext byte for byte.
"""

from __future__ import annotations

import hmac

from nacl.bindings import (
    crypto_aead_chacha20poly1305_ietf_decrypt,
    crypto_aead_chacha20poly1305_ietf_encrypt,
    crypto_scalarmult,
    crypto_scalarmult_base,
)
from nacl.exceptions import CryptoError

from hanabi_p2p.deck.derive import frame

LABEL_PAIR_KEY = "hanabi-p2p/v1/deck/pair-key"
LABEL_SHARE_AD = "hanabi-p2p/v1/deck/share"
SHARE_PLAINTEXT_BYTES = 32
SHARE_CIPHERTEXT_BYTES = SHARE_PLAINTEXT_BYTES + 16
X25519_KEY_BYTES = 32
PAIR_KEY_BYTES = 32
# HKDF with no salt uses a string of zeros as long as the hash (RFC 5869 section 2.2)
_HKDF_NO_SALT = bytes(64)

# The 32-byte ChaCha20-Poly1305 key of one pair. libsodium (PyNaCl), not OpenSSL: the same
# bytes either way, and `log verify`, which recomputes every share, then loads no second
# cryptographic library (the `cryptography` package and its OpenSSL cost a cold run some
# 50 ms to import and start).
PairKey = bytes


class ChannelError(ValueError):
    """The pairwise key cannot be made (an all-zero X25519 result) or a share is forged."""


def x25519_public_key(private: bytes) -> bytes:
    """The X25519 public key of a 32-byte private key (RFC 7748: clamped, times the base)."""
    return crypto_scalarmult_base(private)


def _hkdf_sha512(secret: bytes, info: bytes) -> bytes:
    """HKDF-SHA512 (RFC 5869) with no salt, 32 bytes of output: one block of the expand."""
    prk = hmac.digest(_HKDF_NO_SALT, secret, "sha512")
    return hmac.digest(prk, info + b"\x01", "sha512")[:PAIR_KEY_BYTES]


def derive_pair_key(table_id: bytes, private: bytes, *, my_seat: int,
                    other_seat: int, peer_ids: dict[int, bytes],
                    x25519_pubs: dict[int, bytes]) -> PairKey:
    """The 32-byte ChaCha20-Poly1305 key both ends of a pair derive."""
    lo, hi = sorted((my_seat, other_seat))
    public = x25519_pubs[other_seat]
    if len(public) != X25519_KEY_BYTES or len(private) != X25519_KEY_BYTES:
        raise ChannelError("an X25519 key is 32 bytes")
    try:
        shared = crypto_scalarmult(private, public)
    except RuntimeError:  # a low-order public key: the shared secret would be zero
        raise ChannelError("X25519 exchange gave the all-zero secret") from None
    info = frame(LABEL_PAIR_KEY, table_id, peer_ids[lo], peer_ids[hi],
                 x25519_pubs[lo], x25519_pubs[hi])
    return _hkdf_sha512(shared, info)


def pair_key(table_id: bytes, private: bytes, *, my_seat: int, other_seat: int,
             peer_ids: dict[int, bytes], x25519_pubs: dict[int, bytes]) -> PairKey:
    return derive_pair_key(table_id, private, my_seat=my_seat, other_seat=other_seat,
                           peer_ids=peer_ids, x25519_pubs=x25519_pubs)


def share_nonce(position: int, sender_seat: int, recipient_seat: int) -> bytes:
    return (position.to_bytes(4, "big") + sender_seat.to_bytes(4, "big")
            + recipient_seat.to_bytes(4, "big"))


def share_ad(table_id: bytes, sender_id: bytes, recipient_id: bytes, position: int,
             owner_seat: int) -> bytes:
    return frame(LABEL_SHARE_AD, table_id, sender_id, recipient_id, position, owner_seat)


def seal(pair: PairKey, table_id: bytes, peer_ids: dict[int, bytes], *, position: int,
         owner_seat: int, sender_seat: int, recipient_seat: int, key: bytes) -> bytes:
    sealed: bytes = crypto_aead_chacha20poly1305_ietf_encrypt(
        key, share_ad(table_id, peer_ids[sender_seat], peer_ids[recipient_seat], position,
                      owner_seat),
        share_nonce(position, sender_seat, recipient_seat), pair)
    return sealed


def open_share(pair: PairKey, table_id: bytes, peer_ids: dict[int, bytes], *,
               position: int, owner_seat: int, sender_seat: int, recipient_seat: int,
               ciphertext: bytes) -> bytes:
    try:
        plaintext: bytes = crypto_aead_chacha20poly1305_ietf_decrypt(
            ciphertext,
            share_ad(table_id, peer_ids[sender_seat], peer_ids[recipient_seat], position,
                     owner_seat),
            share_nonce(position, sender_seat, recipient_seat), pair)
    except (CryptoError, ValueError, TypeError):  # (too short to hold a tag: no share)
        raise ChannelError("the share does not decrypt") from None
    if len(plaintext) != SHARE_PLAINTEXT_BYTES:
        raise ChannelError("the share is not one scalar")
    return plaintext
