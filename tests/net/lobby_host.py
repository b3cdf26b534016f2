"""Test helper process: a table's mesh in its lobby, under an open-file limit of its own.

    lobby_host.py --interface IP --open-files N

Prints {"event": "listening", "port": P, "lobby_links": L, "pending": W} once it listens
(the caps it chose for the limit), then for each line read on stdin a report
{"event": "report", "links": N, "closed_lobby_links": C, "evicted": E, "out_of_files": F,
"joined": bool} ("joined": the peer that sent an ENTRY b"lobby.join" is linked). Ends when
stdin closes. Whatever goes wrong is on stderr, which the test reads whole.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import resource
import sys

from net_helpers import TestIdentity

from hanabi_p2p.net.frames import Entry
from hanabi_p2p.net.mesh import Mesh
from hanabi_p2p.net.mesh_events import Received

TABLE = bytes.fromhex("54" * 16)


def emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


async def main(interface: str) -> None:
    async with Mesh(TestIdentity(b"lobby-host"), TABLE, interface, 0) as mesh:
        emit(event="listening", port=mesh.port, lobby_links=mesh.shares.lobby_links,
             pending=mesh.shares.pending)
        joiners: set[bytes] = set()

        async def read_events() -> None:
            while (event := await mesh.next_event()) is not None:
                if isinstance(event, Received) and event.frame == Entry(b"lobby.join"):
                    joiners.add(event.peer_id)

        reader = asyncio.create_task(read_events())
        loop = asyncio.get_running_loop()
        while await loop.run_in_executor(None, sys.stdin.readline):
            emit(event="report", links=len(mesh.connected),
                 closed_lobby_links=mesh.closed_lobby_links, evicted=mesh.evicted_handshakes,
                 out_of_files=mesh.out_of_files, joined=bool(joiners & mesh.connected))
        reader.cancel()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("--interface", required=True)
    parser.add_argument("--open-files", type=int, required=True)
    args = parser.parse_args()
    resource.setrlimit(resource.RLIMIT_NOFILE, (args.open_files, args.open_files))
    asyncio.run(main(args.interface))
