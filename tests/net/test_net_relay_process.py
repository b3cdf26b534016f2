"""The relay as a real process between two meshes on 127.0.0.1 (the shape namespace tests
use): a transparent relay changes nothing; a tampering one, with or without a table
password, only ever causes link problems that heal on the redial."""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from net_helpers import identities_sorted

from hanabi_p2p.net.errors import LinkAuthError
from hanabi_p2p.net.frames import Entry
from hanabi_p2p.net.link import LinkTiming
from hanabi_p2p.net.mesh import Mesh, MeshConfig
from hanabi_p2p.net.mesh_events import MeshEvent, PeerDown, Received

# a relay process between two meshes on loopback
pytestmark = [pytest.mark.process, pytest.mark.socket]

RELAY = Path(__file__).with_name("relay.py")
TABLE = b"R" * 16
TIMING = LinkTiming(handshake_timeout=2.0, keepalive_interval=0.05, idle_timeout=1.0)
WAIT_S = 20.0  # upper bound for anything to happen; only reached when a test is failing


async def wait_event(mesh: Mesh, match: Callable[[MeshEvent], bool]) -> MeshEvent:
    async with asyncio.timeout(WAIT_S):
        while True:
            event = await mesh.next_event()
            assert event is not None, "mesh closed while waiting"
            if match(event):
                return event


async def relay_process(target_port: int, *args: str) -> tuple[asyncio.subprocess.Process, int]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, str(RELAY), "--listen", "127.0.0.1:0",
        "--target", f"127.0.0.1:{target_port}", *args,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
    )  # fmt: skip
    assert proc.stdout is not None
    async with asyncio.timeout(WAIT_S):
        first: dict[str, Any] = json.loads(await proc.stdout.readline())
    assert first["event"] == "listening"
    return proc, int(first["port"])


async def stop(proc: asyncio.subprocess.Process) -> list[dict[str, Any]]:
    assert proc.stdin is not None and proc.stdout is not None
    proc.stdin.close()
    async with asyncio.timeout(WAIT_S):
        out = await proc.stdout.read()
        await proc.wait()
    return [json.loads(line) for line in out.decode().splitlines()]


@pytest.mark.parametrize(
    ("args", "secret", "tampered_connections"),
    [
        (["--mode", "pass"], None, 0),
        (["--mode", "inject", "--every", "3", "--limit", "1", "--connections", "2"], None, 2),
        (["--mode", "flip", "--direction", "both", "--limit", "1", "--connections", "1"], b"pw", 1),
        (["--mode", "drop", "--every", "2", "--limit", "1", "--connections", "1"], b"pw", 1),
    ],
    ids=["transparent", "inject-twice", "flip-with-password", "drop-with-password"],
)
def test_relay_process_in_the_path(
    args: list[str], secret: bytes | None, tampered_connections: int
) -> None:
    async def main() -> None:
        alice, bob = identities_sorted(b"proc-relay-a", b"proc-relay-b")
        conf = MeshConfig(timing=TIMING, backoff_initial=0.05, backoff_max=0.2,
                          rng=random.Random(5))  # fmt: skip
        a = Mesh(alice, TABLE, "127.0.0.1", 0, secret, config=conf)
        b = Mesh(bob, TABLE, "127.0.0.1", 0, secret, config=conf)
        await a.__aenter__()  # (their tasks are ended by `close`)
        await b.__aenter__()
        proc, port = await relay_process(b.port, *args)
        assert proc.stdout is not None
        seen: list[dict[str, Any]] = []
        try:
            a.connect(bob.peer_id, "127.0.0.1", port)
            # The relay tampers only with its first connections; keepalives (every 50 ms)
            # make sure a tampered record comes on each. Wait for the first clean one.
            async with asyncio.timeout(WAIT_S):
                while not any(
                    e == {"event": "connection", "connection": tampered_connections} for e in seen
                ):
                    seen.append(json.loads(await proc.stdout.readline()))
            # Frames flow on it (sent again until one lands: a send may still meet the
            # link that is being replaced).
            entry = Entry(b"through the relay")
            async with asyncio.timeout(WAIT_S):
                while True:
                    a.send(bob.peer_id, entry)
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(0.2):
                            await wait_event(b, lambda e: e == Received(alice.peer_id, entry))
                            break
            assert (a.auth_failures + b.auth_failures > 0) == (tampered_connections > 0)
        finally:
            seen += await stop(proc)
            await asyncio.gather(a.close(), b.close())
        tampered = {e["connection"] for e in seen if e["event"] == "tampered"}
        assert tampered == set(range(tampered_connections))

    asyncio.run(main())


def test_link_auth_error_is_what_a_tampered_link_reports() -> None:
    """The PeerDown a tampering relay causes carries LinkAuthError (a link problem)."""

    async def main() -> None:
        alice, bob = identities_sorted(b"proc-relay-c", b"proc-relay-d")
        conf = MeshConfig(timing=TIMING, backoff_initial=0.05, backoff_max=0.2)
        a = Mesh(alice, TABLE, "127.0.0.1", 0, config=conf)
        b = Mesh(bob, TABLE, "127.0.0.1", 0, config=conf)
        await a.__aenter__()  # (their tasks are ended by `close`)
        await b.__aenter__()
        proc, port = await relay_process(b.port, "--mode", "replay", "--limit", "1",
                                         "--connections", "1")  # fmt: skip
        try:
            a.connect(bob.peer_id, "127.0.0.1", port)
            down = await wait_event(b, lambda e: isinstance(e, PeerDown))
            assert isinstance(down, PeerDown) and isinstance(down.error, LinkAuthError)
            assert "failed authentication" in down.reason
        finally:
            await stop(proc)
            await asyncio.gather(a.close(), b.close())

    asyncio.run(main())
