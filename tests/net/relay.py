"""A hostile relay in the path of hanabi-p2p links: forwards TCP connections to a target and
tampers with the frames after the handshake (inject, drop, flip, replay, reorder).

Used in-process by tests/net/test_net_mesh_hostile.py and, as a process, by namespace tests
(a real relay between real peers)::

    python tests/net/relay.py --listen 10.0.0.9:7000 --target 10.0.0.2:7000 \\
        --mode inject --every 5 [--direction both] [--limit 3]

It prints one JSON object per line: {"event": "listening", "port": N} first, then
{"event": "connection", "connection": n} for each connection it relays and
{"event": "tampered", "mode": ..., "connection": n, "direction": ..., "frame": k} for each
frame it touched. It tells handshake frames (sent in clear: HELLO, AUTH, PAKE, CONFIRM, or a
refusal's ERROR) from protected records by parsing them, so it works with or without a table
password. SIGTERM or EOF on stdin (when run as a process) stops it.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import enum
import json
import signal
import sys
from collections.abc import Callable
from dataclasses import dataclass

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.net.frames import (
    LENGTH_PREFIX,
    Auth,
    Confirm,
    Error,
    Hello,
    Pake,
    decode_payload,
    encode_frame,
)

READ_BYTES = 65536
INJECTED_REASON = "the peer here: your client is cheating"


class Mode(enum.Enum):
    PASS = "pass"  # forward unchanged (a transparent relay)
    INJECT = "inject"  # put a clear ERROR frame before the chosen record
    DROP = "drop"  # leave the chosen record out
    FLIP = "flip"  # flip one bit of the chosen record's last byte
    REPLAY = "replay"  # send the chosen record twice
    REORDER = "reorder"  # send the chosen record after the next one


class Direction(enum.Enum):
    FORWARD = "forward"  # dialler -> listener
    BACKWARD = "backward"  # listener -> dialler
    BOTH = "both"


@dataclass(frozen=True, slots=True)
class Plan:
    """Which protected records to tamper with: the `every`-th of each direction (1 = all),
    at most `limit` per connection (0: no limit), on connections numbered >= `first_connection`
    and < `first_connection + connections` (0: all)."""

    mode: Mode = Mode.PASS
    direction: Direction = Direction.FORWARD
    every: int = 1
    limit: int = 1
    first_connection: int = 0
    connections: int = 1

    def wants(self, connection: int, forward: bool, index: int, done: int) -> bool:
        if self.mode is Mode.PASS or (self.limit and done >= self.limit):
            return False
        if connection < self.first_connection:
            return False
        if self.connections and connection >= self.first_connection + self.connections:
            return False
        if self.direction is not Direction.BOTH and forward != (
            self.direction is Direction.FORWARD
        ):
            return False
        return (index + 1) % self.every == 0


Report = Callable[[dict[str, object]], None]


def _is_handshake_record(record: bytes) -> bool:
    try:
        frame = decode_payload(record, "relay")
    except HanabiError:
        return False
    return isinstance(frame, Hello | Auth | Pake | Confirm | Error)


class Relay:
    """Forwards every connection on its port to `target`, tampering as `plan` says."""

    def __init__(self, target: tuple[str, int], plan: Plan, report: Report | None = None) -> None:
        self._target = target
        self._plan = plan
        self._report = report or (lambda _event: None)
        self._connections = 0
        self._writers: list[asyncio.StreamWriter] = []
        self._tasks: set[asyncio.Task[None]] = set()
        self._server: asyncio.Server | None = None
        self.tampered = 0

    async def start(self, host: str = "127.0.0.1", port: int = 0) -> int:
        self._server = await asyncio.start_server(self._on_connection, host, port)
        bound: int = self._server.sockets[0].getsockname()[1]
        return bound

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
        for writer in self._writers:
            writer.close()
        for task in self._tasks:
            task.cancel()
        await asyncio.gather(*self._tasks, return_exceptions=True)

    async def _on_connection(
        self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter
    ) -> None:
        number = self._connections
        self._connections += 1
        self._report({"event": "connection", "connection": number})
        self._writers.append(writer)
        try:
            up_reader, up_writer = await asyncio.open_connection(*self._target)
        except OSError:
            writer.close()
            return
        self._writers.append(up_writer)
        pumps = [
            asyncio.create_task(self._pump(reader, up_writer, number, forward=True)),
            asyncio.create_task(self._pump(up_reader, writer, number, forward=False)),
        ]
        self._tasks.update(pumps)
        await asyncio.wait(pumps, return_when=asyncio.FIRST_COMPLETED)
        writer.close()
        up_writer.close()

    async def _pump(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        number: int,
        *,
        forward: bool,
    ) -> None:
        buffer = b""
        protected = False  # from the first record that is not a clear handshake frame on
        index = done = 0
        held = b""
        with contextlib.suppress(OSError):
            while data := await reader.read(READ_BYTES):
                buffer += data
                out = b""
                while len(buffer) >= LENGTH_PREFIX.size:
                    (length,) = LENGTH_PREFIX.unpack_from(buffer)
                    end = LENGTH_PREFIX.size + length
                    if len(buffer) < end:
                        break
                    frame, buffer = buffer[:end], buffer[end:]
                    protected = protected or not _is_handshake_record(frame[LENGTH_PREFIX.size :])
                    if not protected:
                        out += frame
                        continue
                    if held:  # a reordered record goes right after the one that followed it
                        out += frame + held
                        held = b""
                        index += 1
                        continue
                    if self._plan.wants(number, forward, index, done):
                        done += 1
                        self.tampered += 1
                        self._report(
                            {
                                "event": "tampered",
                                "mode": self._plan.mode.value,
                                "connection": number,
                                "direction": "forward" if forward else "backward",
                                "frame": index,
                            }
                        )
                        frame, held = _tamper(self._plan.mode, frame)
                    out += frame
                    index += 1
                writer.write(out)
                await writer.drain()


def _tamper(mode: Mode, frame: bytes) -> tuple[bytes, bytes]:
    """(bytes to send now, bytes to hold back until the next record)."""
    if mode is Mode.INJECT:
        return encode_frame(Error(INJECTED_REASON)) + frame, b""
    if mode is Mode.DROP:
        return b"", b""
    if mode is Mode.FLIP:
        return frame[:-1] + bytes([frame[-1] ^ 0x01]), b""
    if mode is Mode.REPLAY:
        return frame + frame, b""
    if mode is Mode.REORDER:
        return b"", frame
    return frame, b""


def _address(text: str) -> tuple[str, int]:
    host, _, port = text.rpartition(":")
    return host, int(port)


async def _main(args: argparse.Namespace) -> None:
    def emit(event: dict[str, object]) -> None:
        print(json.dumps(event), flush=True)

    plan = Plan(
        mode=Mode(args.mode),
        direction=Direction(args.direction),
        every=args.every,
        limit=args.limit,
        first_connection=args.first_connection,
        connections=args.connections,
    )
    relay = Relay(_address(args.target), plan, emit)
    host, port = _address(args.listen)
    emit({"event": "listening", "port": await relay.start(host, port)})
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)
    loop.add_reader(sys.stdin, lambda: None if sys.stdin.readline() else stop.set())
    await stop.wait()
    await relay.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description="a tampering relay for hanabi-p2p links")
    parser.add_argument("--listen", required=True, help="HOST:PORT (port 0: any)")
    parser.add_argument("--target", required=True, help="HOST:PORT to forward to")
    parser.add_argument("--mode", choices=[m.value for m in Mode], default=Mode.PASS.value)
    parser.add_argument(
        "--direction", choices=[d.value for d in Direction], default=Direction.FORWARD.value
    )
    parser.add_argument("--every", type=int, default=1, help="tamper every N-th record")
    parser.add_argument("--limit", type=int, default=0, help="per connection (0: no limit)")
    parser.add_argument("--first-connection", type=int, default=0)
    parser.add_argument("--connections", type=int, default=0, help="0: all connections")
    asyncio.run(_main(parser.parse_args()))
