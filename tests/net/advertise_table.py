"""Test helper process: advertise one table (or a junk record) until stdin closes.

Prints "ready" once announced. Reads commands from stdin: "seats N" updates seats taken and
prints "updated". Run inside a test namespace: python advertise_table.py --interface IP ...

With ``--replay-hello HOST:PORT`` it also listens on ``--port`` as an impostor that has no key
of its own would: every connection gets the first frame (the HELLO) of the real host at
HOST:PORT, byte for byte, and nothing more.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import socket
import struct
import sys

from zeroconf.asyncio import AsyncServiceInfo

from hanabi_p2p.net.discovery import SERVICE_TYPE, TableAd, TableAdvertiser, _zeroconf_on


async def advertise(args: argparse.Namespace) -> None:
    ad = TableAd(
        table_id=bytes.fromhex(args.table_id),
        name=args.name,
        variant=args.variant,
        options=tuple(args.option),
        seats_taken=args.taken,
        seats_total=args.total,
        host_fingerprint=args.fp,
        host_name=args.host_name,
    )
    server = None
    if args.replay_hello:
        server = await replay_hello(args.interface, args.port, args.replay_hello)
    advertiser = TableAdvertiser(args.interface, args.port, ad)
    await advertiser.start()
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    while line := await loop.run_in_executor(None, sys.stdin.readline):
        command, _, value = line.strip().partition(" ")
        if command == "seats":
            ad = TableAd(**{**{f: getattr(ad, f) for f in ad.__slots__}, "seats_taken": int(value)})
            await advertiser.update(ad)
            print("updated", flush=True)
    await advertiser.close()
    if server is not None:
        server.close()


async def replay_hello(interface: str, port: int, target: str) -> asyncio.Server:
    """Listen on interface:port; answer each connection with the real host's HELLO frame."""
    host, _, target_port = target.rpartition(":")

    async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        real_reader, real_writer = await asyncio.open_connection(host, int(target_port))
        try:
            prefix = await real_reader.readexactly(4)
            (length,) = struct.unpack(">I", prefix)
            writer.write(prefix + await real_reader.readexactly(length))
            await writer.drain()
            await reader.read(1 << 16)  # whatever the joiner answers leads nowhere
        finally:
            for w in (real_writer, writer):
                w.close()
                with contextlib.suppress(Exception):
                    await w.wait_closed()

    return await asyncio.start_server(serve, interface, port)


async def advertise_junk(args: argparse.Namespace) -> None:
    """A record under our service type with a malformed TXT (as a broken or hostile host)."""
    zc = _zeroconf_on(args.interface)
    info = AsyncServiceInfo(
        SERVICE_TYPE,
        f"junk-{args.name}.{SERVICE_TYPE}",
        port=args.port,
        addresses=[socket.inet_aton(args.interface)],
        properties={b"v": b"1", b"id": b"zz" * 16, b"name": b"\x1b[2Jjunk", b"seats": b"9/2"},
        server="junk.local.",
    )
    await (await zc.async_register_service(info))
    print("ready", flush=True)
    loop = asyncio.get_running_loop()
    while await loop.run_in_executor(None, sys.stdin.readline):
        pass
    await zc.async_close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--interface", required=True)
    parser.add_argument("--port", type=int, default=4000)
    parser.add_argument("--name", default="Friday")
    parser.add_argument("--table-id", default="00" * 16)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--option", action="append", default=[])
    parser.add_argument("--taken", type=int, default=1)
    parser.add_argument("--total", type=int, default=4)
    parser.add_argument("--fp", default="K7QF-2M9D")
    parser.add_argument("--host-name", default="")
    parser.add_argument("--replay-hello", metavar="HOST:PORT", default="")
    parser.add_argument("--junk", action="store_true")
    args = parser.parse_args()
    asyncio.run(advertise_junk(args) if args.junk else advertise(args))


if __name__ == "__main__":
    main()
