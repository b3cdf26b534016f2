"""Closing a link over real loopback TCP without losing its last frames (a lingering close).

A socket closed while bytes it received are still unread is reset, not ended, and the reset
makes the other kernel drop what its program has not read yet. These tests close a link that
has unread input and check what the other end still gets; and that the linger after our BYE
neither hangs on a peer that never ends its side nor lets anything it says reach the layer
above. Every wait is bounded by `asyncio.timeout(WAIT_S)` only so that a broken build fails
instead of hanging: no test asserts how long anything takes.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from dataclasses import dataclass

import pytest
from net_helpers import TestIdentity, raw_handshake

from hanabi_p2p.net.errors import LinkClosedError
from hanabi_p2p.net.frames import (
    Bye,
    Entry,
    Frame,
    FrameDecoder,
    FrameProtector,
    Ping,
    encode_frame,
)
from hanabi_p2p.net.handshake import Handshake
from hanabi_p2p.net.link import Link, LinkTiming, open_link

# every test opens a real link over loopback TCP
pytestmark = pytest.mark.socket

TABLE = b"C" * 16
WAIT_S = 10.0  # upper bound for anything to happen; only reached when a test is failing
# Far longer than WAIT_S: a close that ends within WAIT_S did not wait out its linger bound.
ENDLESS = LinkTiming(close_linger=600.0)
LINK_SIDE, OTHER_SIDE = TestIdentity(b"close-link"), TestIdentity(b"close-other")


@dataclass
class RawPeer:
    """The other end driven by hand after the handshake: what it reads is decoded (opened
    with the link key); `protector.seal(frame)` is what an honest peer would send."""

    reader: asyncio.StreamReader
    writer: asyncio.StreamWriter
    decoder: FrameDecoder
    protector: FrameProtector

    async def read_to_the_end(self) -> list[Frame]:
        """Every frame until the stream ends, or is reset (then what the reset lost is
        missing); keepalive PINGs left out."""
        frames: list[Frame] = []
        try:
            while data := await self.reader.read(64 * 1024):
                self.decoder.feed(data)
                while (frame := self.decoder.next_frame()) is not None:
                    frames.append(frame)
        except ConnectionResetError:
            pass
        return [f for f in frames if not isinstance(f, Ping)]


async def _listening(timing: LinkTiming, peer_label: str,
                     ) -> tuple[asyncio.Future[Link], asyncio.Server, int]:
    """A loopback server whose first connection becomes a Link (the future), and its port."""
    accepted: asyncio.Future[Link] = asyncio.get_running_loop().create_future()

    async def on_connection(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        handshake = Handshake(LINK_SIDE, TABLE, initiator=False, peer_label=peer_label)
        accepted.set_result(await open_link(reader, writer, handshake, timing))

    server = await asyncio.start_server(on_connection, "127.0.0.1", 0)
    return accepted, server, server.sockets[0].getsockname()[1]


async def link_and_raw_peer(timing: LinkTiming,
                            group: asyncio.TaskGroup) -> tuple[Link, RawPeer]:
    """A Link (the listening side) started in `group`, and a hand-driven peer that dialled
    it."""
    accepted, server, port = await _listening(timing, "raw peer")
    reader, writer, decoder, protector = await raw_handshake(port, OTHER_SIDE, TABLE, "link")
    link = await accepted
    server.close()
    link.start(group)
    return link, RawPeer(reader, writer, decoder, protector)


async def linked_pair(timing: LinkTiming, group: asyncio.TaskGroup) -> tuple[Link, Link]:
    """Two Links to each other (dialler first), started in `group`."""
    accepted, server, port = await _listening(timing, "dialler")
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    handshake = Handshake(OTHER_SIDE, TABLE, initiator=True, peer_label="listener")
    dialler = await open_link(reader, writer, handshake, timing)
    listener = await accepted
    server.close()
    for link in (dialler, listener):
        link.start(group)
    return dialler, listener


async def until(condition: Callable[[], bool]) -> None:
    while not condition():
        await asyncio.sleep(0.01)


def test_a_link_closed_with_unread_input_still_delivers_its_last_frames_and_bye() -> None:
    """The game-end case: the peer had sent us things we never read, we send our last
    entries and BYE, and the peer is slow to read them. Closed with its bytes unread, the
    socket was reset and the peer lost nearly all of them (a loopback probe of the old close
    got 1 of 16 entries and 'connection reset', no BYE)."""

    async def main() -> None:
        async with asyncio.timeout(WAIT_S), asyncio.TaskGroup() as group:
            link, peer = await link_and_raw_peer(LinkTiming(), group)
            # Half a MiB the link never reads: more than its stream reader buffers, so some
            # of it waits, unread, in the socket when the link closes.
            for _ in range(32):
                peer.writer.write(peer.protector.seal(Entry(b"n" * 16 * 1024)))
            await until(lambda: peer.writer.transport.get_write_buffer_size() == 0)
            last = [Entry(bytes([i]) * 64 * 1024) for i in range(16)]
            for entry in last:
                link.send(entry)
            await link.close("game over: last words")  # the peer reads only afterwards
            frames = await peer.read_to_the_end()
            peer.writer.close()
        assert frames == [*last, Bye("game over: last words")]

    asyncio.run(main())


def test_a_peer_that_never_ends_its_side_neither_holds_the_close_nor_is_heard_after_bye() -> None:
    """A hostile peer reads our BYE, then talks on (valid frames, sealed with the link key)
    and never ends its side: the close still ends (the linger has a time bound that bytes do
    not extend), and none of what it said after our BYE reaches the layer above."""

    async def main() -> None:
        async with asyncio.timeout(WAIT_S), asyncio.TaskGroup() as group:
            link, peer = await link_and_raw_peer(LinkTiming(close_linger=0.2), group)
            waiting = asyncio.create_task(link.recv())  # the layer above, as the mesh's pump
            said_after_bye = 0

            async def talk_on() -> None:
                nonlocal said_after_bye
                frames: list[Frame] = []
                while not any(isinstance(f, Bye) for f in frames):
                    peer.decoder.feed(await peer.reader.read(4096))
                    while (frame := peer.decoder.next_frame()) is not None:
                        frames.append(frame)
                while not peer.writer.transport.is_closing():
                    peer.writer.write(peer.protector.seal(Entry(b"heard after your bye?")))
                    said_after_bye += 1
                    await asyncio.sleep(0.005)

            talker = asyncio.create_task(talk_on())
            await asyncio.sleep(0)  # the reader is waiting before we close
            await link.close("leaving")
            with pytest.raises(LinkClosedError, match="closed by us"):
                await waiting
            talker.cancel()
            peer.writer.close()
        assert said_after_bye > 0

    asyncio.run(main())


def test_both_ends_closing_at_once_end_on_each_others_end_of_stream() -> None:
    """Each end sends its BYE and end of stream before it lingers, so neither waits for the
    other's close: both end with a linger bound far longer than the test allows."""

    async def main() -> None:
        async with asyncio.timeout(WAIT_S), asyncio.TaskGroup() as group:
            a, b = await linked_pair(ENDLESS, group)
            a.send(Entry(b"a's last"))
            b.send(Entry(b"b's last"))
            await asyncio.gather(a.close("done"), b.close("done"))
        assert a.closed and b.closed

    asyncio.run(main())


def test_a_peer_that_answers_bye_by_closing_ends_the_linger() -> None:
    """The usual end: the peer reads our BYE and closes its link, as the mesh does; that
    ends our linger (its bound is far longer than the test allows) and it heard why."""

    async def main() -> None:
        async with asyncio.timeout(WAIT_S), asyncio.TaskGroup() as group:
            closer, other = await linked_pair(ENDLESS, group)
            heard: list[Frame] = []

            async def read_until_bye() -> str:
                while True:
                    try:
                        heard.append(await other.recv())
                    except LinkClosedError as exc:
                        await other.close(exc.reason)
                        return exc.reason

            answer = asyncio.create_task(read_until_bye())
            closer.send(Entry(b"the last entry"))
            await closer.close("game over")
            reason = await answer
        assert heard == [Entry(b"the last entry")]
        assert "the peer left (game over)" in reason

    asyncio.run(main())


def test_a_refused_handshake_still_delivers_its_error_when_the_peer_sent_more() -> None:
    """A table refuses a dialler (here: another table's) that had sent more after its HELLO
    (a pipelining client, or one that keeps talking): closed with those bytes unread, the
    socket was reset and the dialler lost the ERROR that says why it was refused."""
    from hanabi_p2p.errors import HanabiError
    from hanabi_p2p.net.frames import Error

    async def main() -> list[Frame]:
        async def refuse(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
            handshake = Handshake(LINK_SIDE, TABLE, initiator=False, peer_label="dialler")
            with contextlib.suppress(HanabiError):
                await open_link(reader, writer, handshake)

        async with asyncio.timeout(WAIT_S):
            server = await asyncio.start_server(refuse, "127.0.0.1", 0)
            port = server.sockets[0].getsockname()[1]
            reader, writer = await asyncio.open_connection("127.0.0.1", port)
            dialler = Handshake(OTHER_SIDE, b"D" * 16, initiator=True, peer_label="table")
            for hello in dialler.start():
                writer.write(encode_frame(hello))
            writer.write(b"\x00" * (1 << 20))  # more than the table reads before refusing
            await asyncio.sleep(0.3)  # the refusal is made and sent; we read it only now
            decoder = FrameDecoder("table")
            frames: list[Frame] = []
            try:
                while data := await reader.read(64 * 1024):
                    decoder.feed(data)
                    while (frame := decoder.next_frame()) is not None:
                        frames.append(frame)
            except ConnectionResetError:
                pass
            writer.close()
            server.close()
            return frames

    frames = asyncio.run(main())
    errors = [frame for frame in frames if isinstance(frame, Error)]
    assert len(errors) == 1 and "table" in errors[0].reason, frames
