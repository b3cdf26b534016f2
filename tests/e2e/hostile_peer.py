"""A stranger that misbehaves towards a host, for the hostile-peer tests.

Usage: hostile_peer.py MODE HOST PORT [--wait S]

MODE is one of:

    junk         after the host's HELLO, a frame whose payload is not msgpack
    oversize     a length prefix over MAX_FRAME_BYTES, then bytes that never end it
    silent       connect and never say a word (the host must give up on us)
    wrong-table  a well-formed HELLO for another table
    forged       a full, valid handshake (the real Mesh), then an ENTRY that claims to be
                 the host's but is signed with our own key
    flood        a full handshake as a stranger (a spectator would be one), then HAVE and
                 WANT frames as fast as we can for --wait seconds, dialling again whenever
                 the host closes the link

Prints one JSON object: our fingerprint, the frame types the host sent back, the reason of
its ERROR frame if any, and how long the host kept the connection open.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import time
from typing import Any

from hanabi_p2p.identity import Identity, fingerprint
from hanabi_p2p.log.entry import ZERO_HASH, make_entry
from hanabi_p2p.net import frames as fr
from hanabi_p2p.net.handshake import PROTOCOL_VERSION
from hanabi_p2p.net.mesh import Mesh
from hanabi_p2p.peer.probe import probe_table

MODES = ("junk", "oversize", "silent", "wrong-table", "forged", "flood")


async def read_until_closed(reader: asyncio.StreamReader, decoder: fr.FrameDecoder,
                            wait: float) -> tuple[list[str], str | None, bool]:
    """Frames the host sends until it closes (or `wait` passes): (tags, error, closed)."""
    tags: list[str] = []
    error = None
    closed = False
    with contextlib.suppress(TimeoutError):
        async with asyncio.timeout(wait):
            while True:
                while (frame := decoder.next_frame()) is not None:
                    tags.append(frame.TAG)
                    if isinstance(frame, fr.Error):
                        error = frame.reason
                data = await reader.read(65536)
                if not data:
                    closed = True
                    break
                decoder.feed(data)
    return tags, error, closed


async def raw_attack(mode: str, host: str, port: int, wait: float) -> dict[str, Any]:
    reader, writer = await asyncio.open_connection(host, port)
    start = time.monotonic()
    decoder = fr.FrameDecoder(peer=f"{host}:{port}")
    identity = Identity.generate()
    if mode == "junk":
        payload = b"\xc1 this is not msgpack"  # 0xc1 is never used by msgpack
        writer.write(fr.LENGTH_PREFIX.pack(len(payload)) + payload)
    elif mode == "oversize":
        writer.write(fr.LENGTH_PREFIX.pack(fr.MAX_FRAME_BYTES + 1) + bytes(65536))
    elif mode == "wrong-table":
        hello = fr.Hello(PROTOCOL_VERSION, os.urandom(fr.TABLE_ID_BYTES), identity.peer_id,
                         os.urandom(fr.EPHEMERAL_KEY_BYTES), False)
        writer.write(fr.encode_frame(hello))
    with contextlib.suppress(OSError):
        await writer.drain()
    tags, error, closed = await read_until_closed(reader, decoder, wait)
    writer.close()
    return {"fingerprint": fingerprint(identity.peer_id), "frames": tags, "error": error,
            "closed": closed, "open_s": round(time.monotonic() - start, 2)}


async def forged_entry(host: str, port: int, wait: float) -> dict[str, Any]:
    table = await probe_table(host, port)
    identity = Identity.generate()
    async with Mesh(identity, table.table_id, "127.0.0.1", 0) as mesh:
        peer = await mesh.dial(host, port, expected=table.host_id)
        mine = make_entry(identity, table_id=table.table_id, seq=0, prev=ZERO_HASH, turn=0,
                          kind="chat", body={"text": "I am the host, trust me"})
        # the same entry with the host named as its author: its signature cannot verify
        claimed = bytearray(mine.encoded)
        where = claimed.find(identity.peer_id)
        claimed[where:where + len(identity.peer_id)] = table.host_id
        sent = mesh.send(peer, fr.Entry(bytes(claimed)))
        await asyncio.sleep(wait)
        still_up = peer in mesh.connected
    return {"fingerprint": fingerprint(identity.peer_id), "sent": sent, "still_up": still_up}


async def flood(host: str, port: int, wait: float) -> dict[str, Any]:
    """HAVE and WANT as fast as the link takes them; how many, and why the host closed us."""
    from hanabi_p2p.errors import HanabiError
    from hanabi_p2p.net.handshake import Handshake
    from hanabi_p2p.net.link import OUTBOX_MAX_FRAMES, LinkTiming, open_link

    table = await probe_table(host, port)
    identity = Identity.generate()
    sent, links, closed = 0, 0, []
    frames = [fr.Have({}), fr.Want({})]
    end = time.monotonic() + wait
    stopped = asyncio.Event()  # SIGTERM: the test is done with us, report what we did
    asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, stopped.set)
    async with asyncio.TaskGroup() as group:  # (each link's writer and keepalive)
        while time.monotonic() < end and not stopped.is_set():
            try:
                reader, writer = await asyncio.open_connection(host, port)
                hs = Handshake(identity, table.table_id, initiator=True, peer_label=host)
                link = await open_link(reader, writer, hs, LinkTiming())
            except (HanabiError, OSError) as exc:
                closed.append(str(exc))
                await asyncio.sleep(0.2)
                continue
            links += 1
            link.start(group)
            if links == 1:
                print("flooding", flush=True)  # (a test may wait for this before it goes on)
            try:
                while time.monotonic() < end and not stopped.is_set():
                    # as fast as the host takes them, and no faster: a full outbox would close
                    # our own link ("the peer is not reading"), where a determined stranger keeps
                    # its connection and pushes on
                    while link.queued_frames > OUTBOX_MAX_FRAMES // 2 and not stopped.is_set():
                        await asyncio.sleep(0.01)
                    for frame in frames * 50:
                        link.send(frame)
                        sent += 1
                    await asyncio.sleep(0.004)  # (the writer's turn: about 25 k frames a second)
            except HanabiError as exc:
                closed.append(str(exc))
            await link.close()
    return {"fingerprint": fingerprint(identity.peer_id), "sent": sent, "links": links,
            "closed": closed[:20]}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("mode", choices=MODES)
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("--wait", type=float, default=5.0)
    args = parser.parse_args()
    if args.mode == "forged":
        result = asyncio.run(forged_entry(args.host, args.port, args.wait))
    elif args.mode == "flood":
        result = asyncio.run(flood(args.host, args.port, args.wait))
    else:
        result = asyncio.run(raw_attack(args.mode, args.host, args.port, args.wait))
    print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
