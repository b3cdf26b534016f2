"""Benchmark of the link layer's own cost: the handshake and the protection of each frame.

Measured in CPU time (`time.process_time`) of this process, so other load on the machine
changes the figures little. Everything is sans-IO and in memory (no sockets):

* handshake: both ends of one link handshake, without and with a table password (CPace);
* frame: one ENTRY of a given size sealed (ChaCha20-Poly1305, counter nonce), opened and
  decoded, against the same frame encoded and decoded in clear (what version 1 did);
* per turn: the extra cost of protection for the frames a 5-player turn sends (one action
  entry and four acks, each broadcast to four links, plus a HAVE per link), the figure the
  issue asks about ("the AEAD must not cost a user-visible millisecond").

Usage: .venv/bin/python bench/net_link.py [--rounds N]
The last line printed is one JSON object with the headline figures.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import time
from collections.abc import Callable

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from hanabi_p2p.net.frames import (
    LENGTH_PREFIX,
    Entry,
    Frame,
    FrameDecoder,
    FrameProtector,
    Have,
    encode_payload,
)
from hanabi_p2p.net.handshake import Handshake

TABLE = bytes(16)
ENTRY_SIZES = (300, 2_000, 20_000)
TYPICAL_ENTRY = 300  # an action or ack entry of a standard game is a few hundred bytes
# A 5-player turn: 1 action + 4 acks, each sent on 4 links, and a HAVE per link (20 links).
FRAMES_PER_TURN = 5 * 4 + 20


class Identity:
    def __init__(self, seed: bytes) -> None:
        self._key = Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed).digest())
        self.peer_id = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)


ALICE, BOB = Identity(b"bench-alice"), Identity(b"bench-bob")


def cpu_per_call(fn: Callable[[], object], rounds: int) -> float:
    """CPU seconds per call of `fn`, averaged over `rounds` calls."""
    start = time.process_time()
    for _ in range(rounds):
        fn()
    return (time.process_time() - start) / rounds


def handshake(secret: bytes | None) -> None:
    a = Handshake(ALICE, TABLE, initiator=True, peer_label="b", secret=secret)
    b = Handshake(BOB, TABLE, initiator=False, peer_label="a", secret=secret)
    to_b, to_a = a.start(), b.start()
    while to_a or to_b:
        next_b = [f for x in to_b for f in b.receive(x)]
        to_b = [f for x in to_a for f in a.receive(x)]
        to_a = next_b


def protected_round_trip(frame: Frame) -> Callable[[], object]:
    sealer = FrameProtector(bytes(32), bytes(range(32)), initiator=True, peer="b")
    opener = FrameProtector(bytes(range(32)), bytes(32), initiator=False, peer="a")
    decoder = FrameDecoder("a")
    decoder.protect(opener)
    payload = encode_payload(frame)

    def run() -> object:
        decoder.feed(sealer.seal_payload(payload))
        return decoder.next_frame()

    return run


def clear_round_trip(frame: Frame) -> Callable[[], object]:
    decoder = FrameDecoder("a")
    payload = encode_payload(frame)

    def run() -> object:
        decoder.feed(LENGTH_PREFIX.pack(len(payload)) + payload)
        return decoder.next_frame()

    return run


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=2000)
    rounds = parser.parse_args().rounds

    hs_plain = cpu_per_call(lambda: handshake(None), max(rounds // 20, 10))
    hs_code = cpu_per_call(lambda: handshake(b"blue moon"), max(rounds // 20, 10))
    print(f"{'handshake, both ends':<34} {hs_plain * 1e3:8.2f} ms CPU")
    print(f"{'handshake with a password':<34} {hs_code * 1e3:8.2f} ms CPU")
    print(f"{'frame (seal + open + decode)':<34} {'protected':>10} {'clear':>10} {'extra':>10}")
    extra: dict[int, float] = {}
    for size in ENTRY_SIZES:
        frame = Entry(b"\x00" * size)
        sealed = cpu_per_call(protected_round_trip(frame), rounds)
        clear = cpu_per_call(clear_round_trip(frame), rounds)
        extra[size] = sealed - clear
        print(
            f"{f'ENTRY of {size} bytes':<34} {sealed * 1e6:7.1f} us {clear * 1e6:7.1f} us "
            f"{(sealed - clear) * 1e6:7.1f} us"
        )
    have = Have({bytes([i]) * 32: i for i in range(5)})
    have_extra = cpu_per_call(protected_round_trip(have), rounds) - cpu_per_call(
        clear_round_trip(have), rounds
    )
    per_turn = 20 * extra[TYPICAL_ENTRY] + 20 * have_extra
    print(f"{'extra per 5-player turn (all peers)':<34} {per_turn * 1e3:8.3f} ms CPU")
    print(
        json.dumps(
            {
                "handshake_ms": round(hs_plain * 1e3, 3),
                "handshake_password_ms": round(hs_code * 1e3, 3),
                "aead_extra_us_300B": round(extra[TYPICAL_ENTRY] * 1e6, 2),
                "aead_extra_us_20kB": round(extra[20_000] * 1e6, 2),
                "aead_extra_ms_per_turn_5p": round(per_turn * 1e3, 4),
                "frames_per_turn_5p": FRAMES_PER_TURN,
            }
        )
    )


if __name__ == "__main__":
    main()
