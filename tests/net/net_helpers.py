"""Small shared pieces for the network tests: a test identity and a deterministic RNG."""

from __future__ import annotations

import hashlib

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


class TestIdentity:
    """An Ed25519 identity with the two members the network layer uses."""

    __test__ = False  # not a pytest test class

    def __init__(self, seed: bytes) -> None:
        self._key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed).digest())
        self.peer_id = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)


class CountingRandom:
    """Deterministic `random_bytes(n)`: SHA-256 in counter mode over a label."""

    def __init__(self, label: bytes) -> None:
        self._label = label
        self._counter = 0

    def __call__(self, n: int) -> bytes:
        out = b""
        while len(out) < n:
            out += hashlib.sha256(self._label + self._counter.to_bytes(8, "big")).digest()
            self._counter += 1
        return out[:n]


def identities_sorted(*seeds: bytes) -> list[TestIdentity]:
    """Identities ordered by peer_id (tests about who dials need a known order)."""
    return sorted((TestIdentity(s) for s in seeds), key=lambda i: i.peer_id)
