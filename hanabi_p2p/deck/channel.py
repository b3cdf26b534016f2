"""The pairwise encrypted channel that carries a non-owner's key to another non-owner.

Key = HKDF-SHA512(IKM = X25519(own private, peer public), salt = empty, info = frame(label,
table_id, the two peer ids and the two X25519 keys in seat order)), 32 bytes, for
ChaCha20-Poly1305. The nonce is (position, sender seat, recipient seat), unique per key for
the one key each sender ever sends to a recipient for a position; the associated data binds
the table, both identities, the position and the owner. Both X25519 key pairs derive from the
seeds, so after the audit anyone can recompute every ciphertext byte for byte.
"""

from __future__ import annotations

from cryptography.exceptions import InvalidTag
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric.x25519 import X25519PrivateKey, X25519PublicKey
from cryptography.hazmat.primitives.ciphers.aead import ChaCha20Poly1305
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from hanabi_p2p.deck.derive import frame

LABEL_PAIR_KEY = "hanabi-p2p/v1/deck/pair-key"
LABEL_SHARE_AD = "hanabi-p2p/v1/deck/share"
SHARE_PLAINTEXT_BYTES = 32
SHARE_CIPHERTEXT_BYTES = SHARE_PLAINTEXT_BYTES + 16


class ChannelError(ValueError):
    """The pairwise key cannot be made (an all-zero X25519 result) or a share is forged."""


def derive_pair_key(table_id: bytes, private: X25519PrivateKey, *, my_seat: int,
                    other_seat: int, peer_ids: dict[int, bytes],
                    x25519_pubs: dict[int, bytes]) -> bytes:
    """The 32-byte ChaCha20-Poly1305 key both ends of a pair derive."""
    lo, hi = sorted((my_seat, other_seat))
    try:
        shared = private.exchange(X25519PublicKey.from_public_bytes(x25519_pubs[other_seat]))
    except ValueError as exc:  # low-order public key: the shared secret would be zero
        raise ChannelError("X25519 exchange gave the all-zero secret") from exc
    info = frame(LABEL_PAIR_KEY, table_id, peer_ids[lo], peer_ids[hi],
                 x25519_pubs[lo], x25519_pubs[hi])
    return HKDF(hashes.SHA512(), 32, None, info).derive(shared)


def pair_key(table_id: bytes, private: X25519PrivateKey, *, my_seat: int, other_seat: int,
             peer_ids: dict[int, bytes], x25519_pubs: dict[int, bytes]) -> ChaCha20Poly1305:
    return ChaCha20Poly1305(derive_pair_key(table_id, private, my_seat=my_seat,
                                            other_seat=other_seat, peer_ids=peer_ids,
                                            x25519_pubs=x25519_pubs))


def share_nonce(position: int, sender_seat: int, recipient_seat: int) -> bytes:
    return (position.to_bytes(4, "big") + sender_seat.to_bytes(4, "big")
            + recipient_seat.to_bytes(4, "big"))


def share_ad(table_id: bytes, sender_id: bytes, recipient_id: bytes, position: int,
             owner_seat: int) -> bytes:
    return frame(LABEL_SHARE_AD, table_id, sender_id, recipient_id, position, owner_seat)


def seal(aead: ChaCha20Poly1305, table_id: bytes, peer_ids: dict[int, bytes], *, position: int,
         owner_seat: int, sender_seat: int, recipient_seat: int, key: bytes) -> bytes:
    return aead.encrypt(
        share_nonce(position, sender_seat, recipient_seat), key,
        share_ad(table_id, peer_ids[sender_seat], peer_ids[recipient_seat], position,
                 owner_seat))


def open_share(aead: ChaCha20Poly1305, table_id: bytes, peer_ids: dict[int, bytes], *,
               position: int, owner_seat: int, sender_seat: int, recipient_seat: int,
               ciphertext: bytes) -> bytes:
    try:
        plaintext = aead.decrypt(
            share_nonce(position, sender_seat, recipient_seat), ciphertext,
            share_ad(table_id, peer_ids[sender_seat], peer_ids[recipient_seat], position,
                     owner_seat))
    except InvalidTag:
        raise ChannelError("the share does not decrypt") from None
    if len(plaintext) != SHARE_PLAINTEXT_BYTES:
        raise ChannelError("the share is not one scalar")
    return plaintext
