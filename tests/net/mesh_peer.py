"""Test helper process: one player's Mesh, driven by stdin, reporting events on stdout.

Prints one JSON object per line: {"event": "listening", "port": N} first, then "up" / "down"
/ "recv" / "failed" events. Commands on stdin: "dial HOST PORT" (dial whoever is there),
"send HEX" (broadcast an ENTRY), "stats" (the mesh's counters of hostile traffic), EOF to
close. `--secret` sets a table password. Timings are short so tests stay fast.
"""

from __future__ import annotations

import argparse
import asyncio
import dataclasses
import json
import random
import sys

from net_helpers import TestIdentity

from hanabi_p2p.net.frames import Entry
from hanabi_p2p.net.link import LinkTiming
from hanabi_p2p.net.mesh import Mesh, MeshConfig
from hanabi_p2p.net.mesh_events import LinkFailed, PeerDown, PeerUp, Received

TIMING = LinkTiming(handshake_timeout=2.0, keepalive_interval=0.2, idle_timeout=1.0)


def emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


async def report(mesh: Mesh) -> None:
    async for event in mesh.events():
        if isinstance(event, PeerUp):
            emit(event="up", peer=event.peer_id.hex())
        elif isinstance(event, PeerDown):
            emit(event="down", peer=event.peer_id.hex(), reason=event.reason)
        elif isinstance(event, Received) and isinstance(event.frame, Entry):
            emit(event="recv", peer=event.peer_id.hex(), data=event.frame.data.hex())
        elif isinstance(event, LinkFailed):
            emit(event="failed", address=event.address, reason=str(event.error))


async def main(args: argparse.Namespace) -> None:
    timing = dataclasses.replace(TIMING, handshake_timeout=args.handshake_timeout)
    config = MeshConfig(timing=timing, backoff_initial=0.1, backoff_max=0.5, rng=random.Random(1))
    secret = args.secret.encode() if args.secret else None
    mesh = Mesh(
        TestIdentity(args.seed.encode()),
        bytes.fromhex(args.table),
        args.listen,
        0,
        secret,
        config=config,
    )
    async with mesh:
        await serve(mesh)


async def serve(mesh: Mesh) -> None:
    emit(event="listening", port=mesh.port)
    reporter = asyncio.create_task(report(mesh))
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        command, *rest = line.split()
        if command == "dial":
            peer = await mesh.dial(rest[0], int(rest[1]))
            emit(event="dialled", peer=peer.hex())
        elif command == "send":
            emit(event="sent", count=mesh.broadcast(Entry(bytes.fromhex(rest[0]))))
        elif command == "stats":
            emit(
                event="stats",
                failed_code_attempts=mesh.failed_code_attempts,
                failed_code_by_source=mesh.failed_code_by_source,
                refused_during_backoff=mesh.refused_during_backoff,
                evicted_handshakes=mesh.evicted_handshakes,
                pending_handshakes=mesh.pending_handshakes,
                auth_failures=mesh.auth_failures,
            )
    await mesh.close()
    await reporter


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", required=True)
    parser.add_argument("--listen", required=True)
    parser.add_argument("--table", default="54" * 16)
    parser.add_argument("--secret", default="")
    parser.add_argument("--handshake-timeout", type=float, default=TIMING.handshake_timeout)
    asyncio.run(main(parser.parse_args()))
