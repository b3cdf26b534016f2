"""A player's long-term identity: an Ed25519 key pair, shown as name + readable fingerprint.

A peer *is* its 32-byte raw public key (``peer_id``). The private key lives in
``<data>/identity.pem`` (PKCS#8 PEM, mode 0600), created on first use. People compare
fingerprints aloud, so a fingerprint is 8 Crockford base32 characters in two groups
("K7QF-2M9D"): no I/L/O/U to confuse, 40 bits of a domain-separated SHA-256 of the key.

40 bits are enough to tell friends apart at a table, not to stop someone grinding a
look-alike key offline; the table code compared at seating (net layer) is the real
man-in-the-middle check.
"""

from __future__ import annotations

import functools
import hashlib
import os
import stat
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING

from nacl.bindings import (
    crypto_core_ed25519_is_valid_point,
    crypto_sign,
    crypto_sign_open,
    crypto_sign_seed_keypair,
)
from nacl.exceptions import BadSignatureError

from hanabi_p2p.datadir import DataDir, atomic_write
from hanabi_p2p.errors import UserError
from hanabi_p2p.limits import PEER_ID_BYTES, SIGNATURE_BYTES
from hanabi_p2p.portable import open_no_follow, permission_bits_apply
from hanabi_p2p.safe_text import REPLACEMENT, safe_name

if TYPE_CHECKING:
    # (imported where a key is made or read: checking signatures, all `log verify` does,
    # needs public keys alone, and the `cryptography` package costs a cold run 30-50 ms)
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

SEED_BYTES = 32
KEY_FILE_MODE = 0o600
MAX_KEY_FILE_BYTES = 4096

FINGERPRINT_DOMAIN = b"hanabi-p2p/v1/fingerprint"
CROCKFORD_ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"
FINGERPRINT_CHARS = 8

Rng = Callable[[int], bytes]


class Identity:
    """Our Ed25519 key. Only ``peer_id`` and ``sign`` leave this object."""

    __slots__ = ("_key", "_sodium_key", "peer_id")

    def __init__(self, private_key: Ed25519PrivateKey) -> None:
        self._key = private_key
        self.peer_id: bytes = private_key.public_key().public_bytes_raw()
        # The same key as libsodium holds it: it signs in about half of OpenSSL's time, and
        # every entry we post is signed on the way out (Ed25519 signatures are
        # deterministic: the bytes are the same either way).
        public, self._sodium_key = crypto_sign_seed_keypair(private_key.private_bytes_raw())
        if public != self.peer_id:
            raise ValueError("libsodium and OpenSSL derive different public keys")

    @classmethod
    def from_seed(cls, seed: bytes) -> Identity:
        """Deterministic identity from a 32-byte seed (tests, known-answer vectors)."""
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        if len(seed) != SEED_BYTES:
            raise ValueError(f"an Ed25519 seed is {SEED_BYTES} bytes, got {len(seed)}")
        return cls(Ed25519PrivateKey.from_private_bytes(seed))

    @classmethod
    def generate(cls, rng: Rng = os.urandom) -> Identity:
        return cls.from_seed(rng(SEED_BYTES))

    def sign(self, data: bytes) -> bytes:
        signed: bytes = crypto_sign(data, self._sodium_key)  # signature || data
        return signed[:SIGNATURE_BYTES]

    @property
    def fingerprint(self) -> str:
        return fingerprint(self.peer_id)

    def __repr__(self) -> str:  # never print key material
        return f"Identity({self.fingerprint})"

    def to_pem(self) -> bytes:
        # (imported here: reading a key file is rare, and the PEM and SSH formats cost a
        # `log verify`, which checks signatures with public keys alone, 10 ms to import)
        from cryptography.hazmat.primitives import serialization

        return self._key.private_bytes(
            serialization.Encoding.PEM,
            serialization.PrivateFormat.PKCS8,
            serialization.NoEncryption(),
        )

    @classmethod
    def from_pem(cls, data: bytes, source: str = "key file") -> Identity:
        from cryptography.hazmat.primitives import serialization
        from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

        try:
            key = serialization.load_pem_private_key(data, password=None)
        except (ValueError, TypeError) as exc:
            raise UserError(f"{source} is not a valid private key: {exc}") from exc
        if not isinstance(key, Ed25519PrivateKey):
            raise UserError(f"{source} holds a {type(key).__name__}, not an Ed25519 key")
        return cls(key)

    @classmethod
    def load_or_create(cls, data_dir: DataDir, rng: Rng = os.urandom) -> Identity:
        """This installation's identity: created (mode 0600) in ``data_dir`` on first use.

        Refuses a key file that other users can read or that another user owns.
        """
        return cls.load_or_create_at(data_dir.ensure().identity_path, rng)

    @classmethod
    def load_or_create_at(cls, key_path: Path, rng: Rng = os.urandom) -> Identity:
        """Like ``load_or_create`` for an explicit key file path."""
        try:
            return _load_key(key_path)
        except FileNotFoundError:
            pass
        except OSError as exc:  # unreadable, a symlink (O_NOFOLLOW), a directory...
            raise UserError(f"cannot read identity key {key_path}: {exc.strerror}") from exc
        identity = cls.generate(rng)
        try:
            atomic_write(key_path, identity.to_pem(), mode=KEY_FILE_MODE, replace=False)
        except FileExistsError:
            # Another process created it between our look and our write: use theirs,
            # so both share one identity.
            return _load_key(key_path)
        except OSError as exc:
            raise UserError(f"cannot create identity key {key_path}: {exc.strerror}") from exc
        return identity


def _load_key(path: Path) -> Identity:
    fd = open_no_follow(path, os.O_RDONLY)
    with os.fdopen(fd, "rb") as f:
        st = os.fstat(f.fileno())
        if st.st_mode & 0o077 and permission_bits_apply():
            raise UserError(
                f"identity key {path} is accessible by other users "
                f"(mode {stat.S_IMODE(st.st_mode):04o}); fix it with: chmod 600 {path}"
            )
        if hasattr(os, "getuid") and st.st_uid != os.getuid():
            raise UserError(f"identity key {path} belongs to another user (uid {st.st_uid})")
        data = f.read(MAX_KEY_FILE_BYTES + 1)
    if len(data) > MAX_KEY_FILE_BYTES:
        raise UserError(f"identity key {path} is too large to be a key")
    return Identity.from_pem(data, source=f"identity key {path}")


def crockford_base32(data: bytes, chars: int) -> str:
    """The first ``chars`` base32 digits (5 bits each, most significant first) of ``data``."""
    bits = len(data) * 8
    if chars * 5 > bits:
        raise ValueError("not enough input bits")
    value = int.from_bytes(data, "big") >> (bits - chars * 5)
    out = []
    for shift in range((chars - 1) * 5, -1, -5):
        out.append(CROCKFORD_ALPHABET[(value >> shift) & 31])
    return "".join(out)


def fingerprint(peer_id: bytes) -> str:
    """Short readable form of a key: e.g. "K7QF-2M9D"."""
    digest = hashlib.sha256(FINGERPRINT_DOMAIN + peer_id).digest()
    code = crockford_base32(digest[:5], FINGERPRINT_CHARS)
    return f"{code[:4]}-{code[4:]}"


def display_name(name: str, peer_id: bytes) -> str:
    """How a player is shown everywhere: "Alice (K7QF-2M9D)"."""
    return f"{safe_name(name) or REPLACEMENT} ({fingerprint(peer_id)})"


# Signature checks whose answer the process keeps (see `verify_signature`): a 5-player game
# has about 800 entries; each answer holds its message, a few hundred bytes.
SIGNATURE_MEMO_SIZE = 4096


@functools.lru_cache(maxsize=256)
def _is_valid_key(peer_id: bytes) -> bool:
    # Reject non-canonical encodings, points off the curve, and small-order or mixed-order
    # points: with such keys one "signature" can verify for many messages, and equivocation
    # proofs against them would prove nothing.
    return len(peer_id) == PEER_ID_BYTES and bool(crypto_core_ed25519_is_valid_point(peer_id))


def is_valid_peer_id(peer_id: bytes) -> bool:
    """True if ``peer_id`` is a usable Ed25519 public key (prime-order, canonical)."""
    return _is_valid_key(bytes(peer_id))


def verify_signature(peer_id: bytes, signature: bytes, message: bytes) -> bool:
    """RFC 8032 Ed25519 verification as libsodium's crypto_sign_verify_detached does it:
    S must be canonical (S < L) and R not of small order (SPEC 3.1). libsodium, not OpenSSL:
    it takes about half the time, and this runs for every entry every peer receives.

    The answer depends on the three byte strings alone, so it is kept for the process
    (`SIGNATURE_MEMO_SIZE` answers): the seats one program runs (a person's and the computer
    players it hosts, each a whole peer) each receive every entry, and verify its bytes once
    between them instead of once each."""
    return _verified(bytes(peer_id), bytes(signature), bytes(message))


@functools.lru_cache(maxsize=SIGNATURE_MEMO_SIZE)
def _verified(peer_id: bytes, signature: bytes, message: bytes) -> bool:
    if len(signature) != SIGNATURE_BYTES or not _is_valid_key(peer_id):
        return False
    try:
        crypto_sign_open(signature + message, peer_id)
    except BadSignatureError:
        return False
    return True
