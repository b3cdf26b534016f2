"""Small shared pieces for the network tests: a test identity and a deterministic RNG."""

from __future__ import annotations

import asyncio
import hashlib
import json
import queue
import subprocess
import sys
import threading
from collections.abc import Callable
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from netlab import Host

from hanabi_p2p.net.frames import FrameDecoder, FrameProtector, encode_frame
from hanabi_p2p.net.handshake import Handshake
from hanabi_p2p.net.mesh import Mesh
from hanabi_p2p.net.mesh_events import MeshEvent


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


class JsonLinesProcess:
    """A Python helper process in a namespace that reports one JSON object per line and
    takes commands on stdin; `expect()` waits (at most `wait_s`) for a matching line."""

    def __init__(self, host: Host, *argv: str, wait_s: float = 20.0) -> None:
        self.wait_s = wait_s
        self.process = host.popen(
            sys.executable, *argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE
        )
        self._lines: queue.Queue[dict[str, Any]] = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        assert self.process.stdout is not None
        for line in self.process.stdout:
            self._lines.put(json.loads(line))

    def expect(self, match: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
        while True:
            try:
                event = self._lines.get(timeout=self.wait_s)
            except queue.Empty:
                raise AssertionError("expected event did not come") from None
            if match(event):
                return event

    def command(self, line: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(line + "\n")
        self.process.stdin.flush()

    def close_stdin(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.close()


async def next_matching(
    mesh: Mesh, match: Callable[[MeshEvent], bool], seen: list[MeshEvent] | None,
    wait_s: float,
) -> MeshEvent:
    """Consume `mesh` events until one matches (all consumed events go to `seen`)."""
    async with asyncio.timeout(wait_s):
        while True:
            event = await mesh.next_event()
            assert event is not None, "mesh closed while waiting"
            if seen is not None:
                seen.append(event)
            if match(event):
                return event


async def raw_handshake(
    port: int, identity: TestIdentity, table: bytes, label: str = "mesh"
) -> tuple[asyncio.StreamReader, asyncio.StreamWriter, FrameDecoder, FrameProtector]:
    """A hand-driven client of the listener on loopback `port`: does the handshake, then
    leaves the raw socket to the test (with the link's protector: `protector.seal(frame)`
    is what an honest peer would send; the decoder already opens what the other end sends;
    `label` names that end in errors)."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    hs = Handshake(identity, table, initiator=True, peer_label=label)
    decoder = FrameDecoder(label)
    for hello in hs.start():
        writer.write(encode_frame(hello))
    while not hs.done:
        decoder.feed(await reader.read(4096))
        while not hs.done and (frame := decoder.next_frame()) is not None:
            for answer in hs.receive(frame):
                writer.write(encode_frame(answer))
    await writer.drain()
    protector = hs.result.protector(label)
    decoder.protect(protector)
    return reader, writer, decoder, protector
