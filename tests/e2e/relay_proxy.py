"""A real TCP relay in the path between peers: forwards frames, and on cue alters the stream.

Usage::

    relay_proxy.py --listen IP:PORT (--target HOST:PORT | --transparent)
                   [--toward ADDR] [--from ADDR] [--action KIND@N ...] [--repeat]

It accepts connections on --listen and dials, for each, either the fixed --target or (with
--transparent, behind an iptables REDIRECT as in NETLAB.md's "host behind a relay") the
destination the connection was really meant for (`SO_ORIGINAL_DST`). Bytes are cut into the
project's frames (a u32 big-endian length, then that many bytes) and forwarded one frame at a
time, so an action hits exactly one frame.

Frames of the handshake travel in clear msgpack (HELLO, AUTH, PAKE, CONFIRM, ERROR); every
frame after it is a sealed record. Actions count only the sealed ones, per direction of each
connection, from 1, and only in the directions selected by --toward (the receiver's address)
and --from (the sender's address). KIND is one of:

    flip     flip one bit in the middle of the Nth frame
    replay   forward the Nth frame, then inject a second copy of the first sealed frame
    forge    inject a frame of random bytes as long as the Nth one, just before it
    drop     never forward the Nth frame (the next one arrives with the wrong counter)
    swallow  forward nothing from the Nth frame on in that direction, keeping TCP up

Without --repeat the actions fire once each, in the order given, each on its own connection:
the first selected direction that reaches the next action's frame N (the receiver closes a link
at its first bad frame, so the next action waits for the connection that replaces it). With
--repeat every action fires on every selected direction. A stream that is not in our framing
(a length over MAX_FRAME_BYTES) is forwarded raw from there on.

Prints one JSON line per connection and per action carried out, flushed at once, so a test
can wait for "the attack happened" and show what the relay did when it fails.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import signal
import socket
import struct
import sys
from dataclasses import dataclass, field
from enum import Enum
from typing import Any

import msgpack

LENGTH = struct.Struct(">I")
# The project's limit on one frame's record (hanabi_p2p.net.frames.MAX_FRAME_BYTES): a
# length above it means the stream is not ours (then we only pass bytes through).
MAX_FRAME_BYTES = 256 * 1024
HANDSHAKE_TAGS = frozenset({"HELLO", "AUTH", "PAKE", "CONFIRM", "ERROR"})
# linux/netfilter_ipv4.h: the destination a REDIRECTed connection was addressed to.
SO_ORIGINAL_DST = 80
SOCKADDR_IN_BYTES = 16
DIAL_TIMEOUT_S = 10.0
RAW_CHUNK_BYTES = 65536


class Kind(Enum):
    FLIP = "flip"
    REPLAY = "replay"
    FORGE = "forge"
    DROP = "drop"
    SWALLOW = "swallow"


@dataclass
class Action:
    kind: Kind
    frame: int
    fired: int = 0

    @classmethod
    def parse(cls, text: str) -> Action:
        kind, _, number = text.partition("@")
        try:
            action = cls(Kind(kind), int(number))
        except ValueError:
            raise argparse.ArgumentTypeError(f"not KIND@N: {text!r}") from None
        if action.frame < 1:
            raise argparse.ArgumentTypeError("frames are counted from 1")
        return action


def emit(**fields: Any) -> None:
    print(json.dumps(fields, sort_keys=True), flush=True)


def is_handshake_record(record: bytes) -> bool:
    """A clear handshake frame (a msgpack array with a handshake tag), not a sealed record."""
    try:
        value = msgpack.unpackb(record, raw=False)
    except Exception:  # a sealed record is random bytes to msgpack: any error means "not clear"
        return False
    return isinstance(value, list) and bool(value) and value[0] in HANDSHAKE_TAGS


@dataclass
class Direction:
    """One direction of one relayed connection."""

    connection: int
    sender: str
    receiver: str
    selected: bool
    sealed: int = 0
    first_sealed: bytes | None = None
    swallowing: bool = False
    fired: set[int] = field(default_factory=set)


class Relay:
    def __init__(self, args: argparse.Namespace) -> None:
        self.args = args
        self.actions: list[Action] = list(args.action)
        self.connections = 0

    def selects(self, sender: str, receiver: str) -> bool:
        return ((self.args.toward is None or receiver == self.args.toward)
                and (self.args.sender is None or sender == self.args.sender))

    def destination(self, writer: asyncio.StreamWriter) -> tuple[str, int]:
        if not self.args.transparent:
            host, port = self.args.target
            return host, port
        sock: socket.socket = writer.get_extra_info("socket")
        raw = sock.getsockopt(socket.SOL_IP, SO_ORIGINAL_DST, SOCKADDR_IN_BYTES)
        port = int.from_bytes(raw[2:4], "big")
        return socket.inet_ntoa(raw[4:8]), port

    async def on_client(self, c_reader: asyncio.StreamReader,
                        c_writer: asyncio.StreamWriter) -> None:
        self.connections += 1
        number = self.connections
        client = c_writer.get_extra_info("peername")[0]
        server, port = self.destination(c_writer)
        try:
            s_reader, s_writer = await asyncio.wait_for(
                asyncio.open_connection(server, port), DIAL_TIMEOUT_S)
        except (OSError, TimeoutError) as exc:
            emit(event="dial-failed", connection=number, to=f"{server}:{port}", error=str(exc))
            c_writer.close()
            return
        emit(event="connection", connection=number, dialler=client, to=f"{server}:{port}")
        up = Direction(number, client, server, self.selects(client, server))
        down = Direction(number, server, client, self.selects(server, client))
        pumps = [asyncio.create_task(self.pump(c_reader, s_writer, up)),
                 asyncio.create_task(self.pump(s_reader, c_writer, down))]
        # when either side ends, end both: the relay never holds a half-dead connection
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        for task in pumps:
            task.cancel()
        for writer in (c_writer, s_writer):
            writer.close()
        emit(event="closed", connection=number)

    async def pump(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter,
                   way: Direction) -> None:
        with contextlib.suppress(OSError, asyncio.IncompleteReadError, ConnectionError):
            while True:
                prefix = await reader.readexactly(LENGTH.size)
                (length,) = LENGTH.unpack(prefix)
                if not 1 <= length <= MAX_FRAME_BYTES:
                    writer.write(prefix)
                    await self.pass_raw(reader, writer)
                    return
                record = await reader.readexactly(length)
                for out in self.transform(way, record):
                    writer.write(LENGTH.pack(len(out)) + out)
                await writer.drain()

    async def pass_raw(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        while chunk := await reader.read(RAW_CHUNK_BYTES):
            writer.write(chunk)
            await writer.drain()

    def transform(self, way: Direction, record: bytes) -> list[bytes]:
        """The records to forward in place of `record`."""
        if way.sealed == 0 and is_handshake_record(record):
            return [record]
        way.sealed += 1
        if way.first_sealed is None:
            way.first_sealed = record
        if way.swallowing:
            return []
        if not way.selected:
            return [record]
        out = [record]
        for index in self.due(way):
            action = self.actions[index]
            action.fired += 1
            way.fired.add(index)
            emit(event=action.kind.value, connection=way.connection, sender=way.sender,
                 receiver=way.receiver, frame=way.sealed)
            out = self.apply(action.kind, way, out)
        return out

    def due(self, way: Direction) -> list[int]:
        """The actions to carry out on this frame: with --repeat, every action set for it;
        else the next unfired action in order, on a direction no action has hit yet (the
        receiver closes a link at the first bad frame, so each action gets a fresh one)."""
        if self.args.repeat:
            return [i for i, a in enumerate(self.actions)
                    if a.frame == way.sealed and i not in way.fired]
        pending = [i for i, a in enumerate(self.actions) if not a.fired]
        if way.fired or not pending or self.actions[pending[0]].frame != way.sealed:
            return []
        return pending[:1]

    @staticmethod
    def apply(kind: Kind, way: Direction, out: list[bytes]) -> list[bytes]:
        record = out[-1] if out else b"\0"
        if kind is Kind.FLIP:
            middle = len(record) // 2
            flipped = record[:middle] + bytes([record[middle] ^ 0x01]) + record[middle + 1:]
            return [*out[:-1], flipped]
        if kind is Kind.REPLAY:
            assert way.first_sealed is not None
            return [*out, way.first_sealed]
        if kind is Kind.FORGE:
            return [os.urandom(len(record)), *out]
        if kind is Kind.DROP:
            return out[:-1]
        way.swallowing = True
        return []


def address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


def parse_args(argv: list[str]) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--listen", type=address, required=True)
    where = parser.add_mutually_exclusive_group(required=True)
    where.add_argument("--target", type=address)
    where.add_argument("--transparent", action="store_true")
    parser.add_argument("--toward", help="alter only frames sent to this address")
    parser.add_argument("--from", dest="sender", help="alter only frames sent from this address")
    parser.add_argument("--action", type=Action.parse, action="append", default=[])
    parser.add_argument("--repeat", action="store_true")
    return parser.parse_args(argv)


async def serve(args: argparse.Namespace) -> None:
    relay = Relay(args)
    host, port = args.listen
    server = await asyncio.start_server(relay.on_client, host, port, reuse_address=True)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    emit(event="listening", port=server.sockets[0].getsockname()[1])
    async with server:
        await stop.wait()
    emit(event="done", connections=relay.connections,
         fired={f"{a.kind.value}@{a.frame}": a.fired for a in relay.actions})


def main(argv: list[str]) -> int:
    asyncio.run(serve(parse_args(argv)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
