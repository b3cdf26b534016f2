"""Test helper process: a stranger on the LAN attacking a table's listener.

    attacker.py flood HOST PORT --count 200     open COUNT connections and say nothing
    attacker.py guess HOST PORT --count 30 [--table HEX]   try COUNT wrong table passwords
    attacker.py links HOST PORT --count 300 [--table HEX]  open COUNT handshaked links, silent

Prints one JSON object per line: for `flood` {"event": "holding", "open": N} once all
connections are made (then it holds them until stdin closes); for `guess` one
{"event": "guessed", "wrong_code": W, "refused": R, "other": O} at the end: W attempts whose
password the host checked and refused, R refused unchecked (the host's back-off), O anything
else; for `links` {"event": "holding", "open": N, "failed": F} once all are tried, then
{"event": "still", "open": N} for each line read on stdin (how many the host kept). Every
attempt uses a fresh identity key, as a stranger would.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.net.errors import PeerRefusedError
from hanabi_p2p.net.handshake import Handshake
from hanabi_p2p.net.link import LinkTiming, open_link

TIMING = LinkTiming(handshake_timeout=5.0)


class Stranger:
    def __init__(self) -> None:
        self._key = Ed25519PrivateKey.generate()
        self.peer_id = self._key.public_key().public_bytes(Encoding.Raw, PublicFormat.Raw)

    def sign(self, message: bytes) -> bytes:
        return self._key.sign(message)


def emit(**fields: object) -> None:
    print(json.dumps(fields), flush=True)


async def flood(host: str, port: int, count: int) -> None:
    writers = []
    for _ in range(count):
        _, writer = await asyncio.open_connection(host, port)
        writers.append(writer)
    emit(event="holding", open=len(writers))
    loop = asyncio.get_running_loop()
    await loop.run_in_executor(None, sys.stdin.read)  # until the test closes stdin
    for writer in writers:
        writer.close()


async def guess(host: str, port: int, count: int, table_id: bytes) -> None:
    wrong = refused = other = 0
    for _ in range(count):
        reader, writer = await asyncio.open_connection(host, port)
        password = os.urandom(8).hex().encode()
        hs = Handshake(Stranger(), table_id, initiator=True, peer_label=host,
                       secret=password)  # fmt: skip
        try:
            link = await open_link(reader, writer, hs, TIMING)
        except PeerRefusedError as exc:
            if "too many wrong table passwords" in exc.reason:
                refused += 1
            elif "table password" in exc.reason:
                wrong += 1
            else:
                other += 1
        except HanabiError:
            other += 1
        else:
            await link.close()
            other += 1
    emit(event="guessed", wrong_code=wrong, refused=refused, other=other)


async def links(host: str, port: int, count: int, table_id: bytes) -> None:
    held, failed = [], 0
    async with asyncio.TaskGroup() as group:  # (each link's writer and keepalive)
        for _ in range(count):
            try:
                reader, writer = await asyncio.open_connection(host, port)
                hs = Handshake(Stranger(), table_id, initiator=True, peer_label=host)
                link = await open_link(reader, writer, hs, TIMING)
            except (HanabiError, OSError):
                failed += 1
                continue
            link.start(group)  # (answers keepalives: a live link that never says a word)
            held.append(link)
        emit(event="holding", open=sum(not link.closed for link in held), failed=failed)
        loop = asyncio.get_running_loop()
        while await loop.run_in_executor(None, sys.stdin.readline):
            emit(event="still", open=sum(not link.closed for link in held))
        for link in held:
            await link.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=["flood", "guess", "links"])
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--table", default="54" * 16, help="table id (hex) for guess")
    args = parser.parse_args()
    if args.mode == "flood":
        asyncio.run(flood(args.host, args.port, args.count))
    elif args.mode == "links":
        asyncio.run(links(args.host, args.port, args.count, bytes.fromhex(args.table)))
    else:
        asyncio.run(guess(args.host, args.port, args.count, bytes.fromhex(args.table)))


if __name__ == "__main__":
    main()
