"""Test helper process: an honest joiner. Dials the table, says `lobby.join` (an ENTRY the
lobby host helper recognises) and prints {"event": "joined"} once linked, or
{"event": "failed", "reason": ...}; then holds the link until stdin closes.

    lobby_joiner.py HOST PORT --interface IP
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys

from net_helpers import TestIdentity

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.net.frames import Entry
from hanabi_p2p.net.mesh import Mesh

TABLE = bytes.fromhex("54" * 16)


async def main(host: str, port: int, interface: str) -> None:
    async with Mesh(TestIdentity(b"lobby-joiner"), TABLE, interface, 0) as mesh:
        try:
            host_id = await mesh.dial(host, port)
        except HanabiError as exc:
            print(json.dumps({"event": "failed", "reason": str(exc)}), flush=True)
            return
        mesh.send(host_id, Entry(b"lobby.join"))
        print(json.dumps({"event": "joined"}), flush=True)
        loop = asyncio.get_running_loop()
        await loop.run_in_executor(None, sys.stdin.read)


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--interface", required=True)
    args = parser.parse_args()
    asyncio.run(main(args.host, args.port, args.interface))
