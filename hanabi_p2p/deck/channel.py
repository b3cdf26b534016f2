"""The pairwise encrypted channel that carries a non-owner's key to another non-owner.

Key = HKDF-SHA512(IKM = X25519(own private, peer public), salt = empty, info = frame(label,
table_id, the two peer ids and the two X25519 keys in seat order)), 32 bytes, for
ChaCha20-Poly1305. The nonce is (position, sender seat, recipient seat), unique per key for
the one key each sender ever sends to a recipient for a position; the associated data binds
the table, both identities, the position and the owner. Both X25519 key pairs derive from the
seeds, so after the audit anyone can recompute every ciphertext byte for byte.
"""

from __future__ import annotations

import ctypes
import hmac

from hanabi_p2p.deck.derive import frame
from hanabi_p2p.deck.group import library

LABEL_PAIR_KEY = "hanabi-p2p/v1/deck/pair-key"
LABEL_SHARE_AD = "hanabi-p2p/v1/deck/share"
SHARE_PLAINTEXT_BYTES = 32
SHARE_CIPHERTEXT_BYTES = SHARE_PLAINTEXT_BYTES + 16
AEAD_TAG_BYTES = 16
AEAD_NONCE_BYTES = 12
X25519_KEY_BYTES = 32
PAIR_KEY_BYTES = 32
# HKDF with no salt uses a string of zeros as long as the hash (RFC 5869 section 2.2)
_HKDF_NO_SALT = bytes(64)

# The 32-byte ChaCha20-Poly1305 key of one pair. Through the deck's libsodium (the one its
# group calls), not OpenSSL: the same bytes either way, a seal costs about what OpenSSL's
# does (PyNaCl's checks made it five times that), and `log verify`, which recomputes every
# share, loads no second cryptographic library (importing and starting the `cryptography`
# package and its OpenSSL cost a cold run some 30-50 ms).
PairKey = bytes


class ChannelError(ValueError):
    """The pairwise key cannot be made (an all-zero X25519 result) or a share is forged."""


def x25519_public_key(private: bytes) -> bytes:
    """The X25519 public key of a 32-byte private key (RFC 7748: clamped, times the base)."""
    if len(private) != X25519_KEY_BYTES:
        raise ChannelError("an X25519 key is 32 bytes")
    out = ctypes.create_string_buffer(X25519_KEY_BYTES)
    if library().crypto_scalarmult_base(out, private) != 0:
        raise ChannelError("X25519 of this private key is the all-zero point")
    return out.raw


def _x25519(private: bytes, public: bytes) -> bytes:
    """X25519(private, public) (RFC 7748); ChannelError for a low-order public key, whose
    shared secret would be all zeros (libsodium refuses it)."""
    if len(public) != X25519_KEY_BYTES or len(private) != X25519_KEY_BYTES:
        raise ChannelError("an X25519 key is 32 bytes")
    out = ctypes.create_string_buffer(X25519_KEY_BYTES)
    if library().crypto_scalarmult(out, private, public) != 0:
        raise ChannelError("X25519 exchange gave the all-zero secret")
    return out.raw


def _hkdf_sha512(secret: bytes, info: bytes) -> bytes:
    """HKDF-SHA512 (RFC 5869) with no salt, 32 bytes of output: one block of the expand."""
    prk = hmac.digest(_HKDF_NO_SALT, secret, "sha512")
    return hmac.digest(prk, info + b"\x01", "sha512")[:PAIR_KEY_BYTES]


def pair_key(table_id: bytes, private: bytes, *, my_seat: int, other_seat: int,
             peer_ids: dict[int, bytes], x25519_pubs: dict[int, bytes]) -> PairKey:
    """The 32-byte ChaCha20-Poly1305 key both ends of a pair derive."""
    lo, hi = sorted((my_seat, other_seat))
    shared = _x25519(private, x25519_pubs[other_seat])
    info = frame(LABEL_PAIR_KEY, table_id, peer_ids[lo], peer_ids[hi],
                 x25519_pubs[lo], x25519_pubs[hi])
    return _hkdf_sha512(shared, info)


def _aead_operands(pair: PairKey, nonce: bytes, data: bytes, ad: bytes) -> None:
    # libsodium reads these many bytes through each pointer: never hand it fewer
    if (len(pair) != PAIR_KEY_BYTES or len(nonce) != AEAD_NONCE_BYTES
            or not isinstance(data, bytes) or not isinstance(ad, bytes)):
        raise ChannelError("not a ChaCha20-Poly1305 key, nonce or message")


def _encrypt(pair: PairKey, nonce: bytes, plaintext: bytes, ad: bytes) -> bytes:
    """ChaCha20-Poly1305 (RFC 8439, the IETF variant): ciphertext || tag."""
    _aead_operands(pair, nonce, plaintext, ad)
    out = ctypes.create_string_buffer(len(plaintext) + AEAD_TAG_BYTES)
    library().crypto_aead_chacha20poly1305_ietf_encrypt(
        out, None, plaintext, ctypes.c_ulonglong(len(plaintext)), ad,
        ctypes.c_ulonglong(len(ad)), None, nonce, pair)
    return out.raw


def _decrypt(pair: PairKey, nonce: bytes, ciphertext: bytes, ad: bytes) -> bytes:
    """The plaintext of ciphertext || tag, or ChannelError if the tag does not verify (or
    there is no tag)."""
    _aead_operands(pair, nonce, ciphertext, ad)
    if len(ciphertext) < AEAD_TAG_BYTES:
        raise ChannelError("the share does not decrypt")
    out = ctypes.create_string_buffer(max(len(ciphertext) - AEAD_TAG_BYTES, 1))
    if library().crypto_aead_chacha20poly1305_ietf_decrypt(
            out, None, None, ciphertext, ctypes.c_ulonglong(len(ciphertext)), ad,
            ctypes.c_ulonglong(len(ad)), nonce, pair) != 0:
        raise ChannelError("the share does not decrypt")
    return out.raw[:len(ciphertext) - AEAD_TAG_BYTES]


def share_nonce(position: int, sender_seat: int, recipient_seat: int) -> bytes:
    return (position.to_bytes(4, "big") + sender_seat.to_bytes(4, "big")
            + recipient_seat.to_bytes(4, "big"))


def share_ad(table_id: bytes, sender_id: bytes, recipient_id: bytes, position: int,
             owner_seat: int) -> bytes:
    return frame(LABEL_SHARE_AD, table_id, sender_id, recipient_id, position, owner_seat)


def seal(pair: PairKey, table_id: bytes, peer_ids: dict[int, bytes], *, position: int,
         owner_seat: int, sender_seat: int, recipient_seat: int, key: bytes) -> bytes:
    return _encrypt(
        pair, share_nonce(position, sender_seat, recipient_seat), key,
        share_ad(table_id, peer_ids[sender_seat], peer_ids[recipient_seat], position,
                 owner_seat))


def open_share(pair: PairKey, table_id: bytes, peer_ids: dict[int, bytes], *,
               position: int, owner_seat: int, sender_seat: int, recipient_seat: int,
               ciphertext: bytes) -> bytes:
    plaintext = _decrypt(
        pair, share_nonce(position, sender_seat, recipient_seat), ciphertext,
        share_ad(table_id, peer_ids[sender_seat], peer_ids[recipient_seat], position,
                 owner_seat))
    if len(plaintext) != SHARE_PLAINTEXT_BYTES:
        raise ChannelError("the share is not one scalar")
    return plaintext
