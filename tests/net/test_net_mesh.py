"""Mesh and links over real loopback TCP: exchange, hostile peers, timeouts, reconnects.

Timings are shortened through MeshConfig so the suite stays fast; every wait is bounded by
`asyncio.timeout` only so a broken build fails instead of hanging (no test asserts speed).
"""

from __future__ import annotations

import asyncio
import dataclasses
import random
import socket
import struct
from collections.abc import Awaitable, Callable, Coroutine
from typing import Any, TypeVar

import pytest
from net_helpers import TestIdentity, identities_sorted, next_matching, raw_handshake

from hanabi_p2p.errors import UserError
from hanabi_p2p.net.errors import (
    FrameError,
    LinkAuthError,
    LinkClosedError,
    LinkTimeoutError,
    PeerRefusedError,
    UnexpectedPeerError,
    WrongSecretError,
    WrongTableError,
)
from hanabi_p2p.net.frames import (
    MAX_FRAME_BYTES,
    Entry,
    Error,
    Frame,
    FrameDecoder,
    FrameProtector,
    Have,
    Message,
    Ping,
    Pong,
    encode_frame,
    encode_payload,
)
from hanabi_p2p.net.gate import BudgetRule
from hanabi_p2p.net.link import Link, LinkTiming
from hanabi_p2p.net.mesh import Mesh, MeshConfig
from hanabi_p2p.net.mesh_events import LinkFailed, MeshEvent, PeerDown, PeerUp, Received

# every test runs real meshes over loopback TCP
pytestmark = pytest.mark.socket

TABLE = b"T" * 16
OTHER_TABLE = b"O" * 16
TIMING = LinkTiming(handshake_timeout=0.5, keepalive_interval=0.1, idle_timeout=0.5)
WAIT_S = 10.0  # upper bound for anything to happen; only reached when a test is failing

T = TypeVar("T")


def config() -> MeshConfig:
    return MeshConfig(timing=TIMING, backoff_initial=0.05, backoff_max=0.2, rng=random.Random(7))


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


async def started(identity: TestIdentity, table: bytes = TABLE, **kw: Any) -> Mesh:
    """A running mesh, left with `closing` by the same task (its task group's owner)."""
    mesh = Mesh(identity, table, "127.0.0.1", 0, config=config(), **kw)
    await mesh.__aenter__()
    return mesh


async def wait_event(
    mesh: Mesh, match: Callable[[MeshEvent], bool], seen: list[MeshEvent] | None = None
) -> MeshEvent:
    return await next_matching(mesh, match, seen, WAIT_S)


def up(peer: bytes) -> Callable[[MeshEvent], bool]:
    return lambda e: isinstance(e, PeerUp) and e.peer_id == peer


def down(peer: bytes) -> Callable[[MeshEvent], bool]:
    return lambda e: isinstance(e, PeerDown) and e.peer_id == peer


def failed(e: MeshEvent) -> bool:
    return isinstance(e, LinkFailed)


def got(peer: bytes, frame: Frame) -> Callable[[MeshEvent], bool]:
    return lambda e: isinstance(e, Received) and e.peer_id == peer and e.frame == frame


async def closing(*meshes: Mesh) -> None:
    """Close the meshes together (their links say BYE at once), then leave each: a bug in
    one of its tasks is raised here."""
    await asyncio.gather(*(m.close() for m in meshes))
    for mesh in meshes:
        await mesh.__aexit__(None, None, None)


async def read_until_closed(reader: asyncio.StreamReader, decoder: FrameDecoder) -> list[Frame]:
    frames: list[Frame] = []
    async with asyncio.timeout(WAIT_S):
        while data := await reader.read(4096):
            decoder.feed(data)
            while (frame := decoder.next_frame()) is not None:
                frames.append(frame)
    return frames


def with_meshes(n: int) -> Callable[[Callable[..., Awaitable[None]]], Callable[[], None]]:
    """Run the test body with n started meshes (ordered by peer_id), always closing them."""

    def wrap(body: Callable[..., Awaitable[None]]) -> Callable[[], None]:
        def test() -> None:
            async def main() -> None:
                ids = identities_sorted(*(f"{body.__name__}-{i}".encode() for i in range(n)))
                meshes = [await started(i) for i in ids]
                try:
                    await body(*meshes)
                finally:
                    await closing(*meshes)

            run(main())

        test.__name__ = body.__name__
        return test

    return wrap


def pid(mesh: Mesh) -> bytes:
    return mesh.identity.peer_id


# -- exchange ---------------------------------------------------------------------------------


@with_meshes(3)
async def test_three_meshes_exchange_and_broadcast(a: Mesh, b: Mesh, c: Mesh) -> None:
    a.connect(pid(b), "127.0.0.1", b.port)
    a.connect(pid(c), "127.0.0.1", c.port)
    b.connect(pid(c), "127.0.0.1", c.port)
    await wait_event(b, up(pid(a)))
    await wait_event(c, up(pid(a)))
    await wait_event(c, up(pid(b)))
    assert a.connected == {pid(b), pid(c)}

    entry = Entry(b"signed log entry")
    assert a.send(pid(b), entry)
    await wait_event(b, got(pid(a), entry))

    have = Have({pid(a): 3})
    assert a.broadcast(have) == 2
    await wait_event(b, got(pid(a), have))
    await wait_event(c, got(pid(a), have))

    reply = Message("lobby", b"hi")
    assert c.send(pid(b), reply)
    await wait_event(b, got(pid(c), reply))


@with_meshes(3)
async def test_broadcast_reaches_the_players_before_the_spectators(
        host: Mesh, fan: Mesh, player: Mesh) -> None:
    # the spectator links up first; the host's dict of links keeps that order
    host.seat([pid(player)])
    fan.connect(pid(host), "127.0.0.1", host.port)
    await wait_event(host, up(pid(fan)))
    player.connect(pid(host), "127.0.0.1", host.port)
    await wait_event(host, up(pid(player)))
    sealed: list[bytes] = []
    real = Link.send_payload

    def recording(link: Link, payload: bytes) -> int:
        sealed.append(link.peer_id)
        return real(link, payload)

    entry = Entry(b"a turn's entry")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(Link, "send_payload", recording)
        assert host.broadcast(entry) == 2
    assert sealed == [pid(player), pid(fan)]
    await wait_event(player, got(pid(host), entry))
    await wait_event(fan, got(pid(host), entry))


def test_a_seated_players_message_is_not_lost_behind_its_flood_of_sync_frames() -> None:
    # a seated flooder's one signed `complete` was dropped with its HAVEs and WANTs, and the
    # honest host waited for that word until its wait timeout (CI, issue 33's session)
    async def main() -> None:
        ids = identities_sorted(b"flooded-host", b"flooding-player")
        tight = dataclasses.replace(config(), seated_budget=BudgetRule(1.0, 20, 60.0))
        host = Mesh(ids[0], TABLE, "127.0.0.1", 0, config=tight)
        await host.__aenter__()
        player = await started(ids[1])
        try:
            host.seat([pid(player)])
            player.connect(pid(host), "127.0.0.1", host.port)
            await wait_event(host, up(pid(player)))
            word = Message("complete", b"signed word")
            for _ in range(200):
                assert player.send(pid(host), Have({}))
            assert player.send(pid(host), word)
            await wait_event(host, got(pid(player), word))
            assert host.dropped_frames > 100  # the flood itself was dropped
        finally:
            await closing(host, player)

    run(main())


@with_meshes(2)
async def test_send_to_unknown_peer_returns_false(a: Mesh, b: Mesh) -> None:
    assert not a.send(pid(b), Entry(b"x"))
    assert a.broadcast(Entry(b"x")) == 0


@with_meshes(2)
async def test_keepalive_keeps_an_idle_link_up(a: Mesh, b: Mesh) -> None:
    a.connect(pid(b), "127.0.0.1", b.port)
    await wait_event(a, up(pid(b)))
    await wait_event(b, up(pid(a)))
    await asyncio.sleep(4 * TIMING.idle_timeout)  # nothing sent by the layers above
    assert a.connected == {pid(b)} and b.connected == {pid(a)}
    entry = Entry(b"still here")
    assert b.send(pid(a), entry)
    event = await wait_event(a, lambda e: isinstance(e, Received | PeerDown))
    assert event == Received(pid(b), entry)  # no PeerDown came first


@pytest.mark.alone  # (it counts frames against the clock: a stalled loop would ping)
def test_a_link_that_carries_frames_sends_no_keepalive() -> None:
    """A PING goes only when nothing else was sent for the keepalive interval: `a`, which
    sends a frame every fifth of it, sends none (only PONGs to `b`'s), while `b`, which
    sends nothing, still keeps the link up with its own."""
    timing = LinkTiming(handshake_timeout=2.0, keepalive_interval=0.5, idle_timeout=3.0)

    async def main() -> None:
        ids = identities_sorted(b"carries-0", b"carries-1")
        a, b = [Mesh(i, TABLE, "127.0.0.1", 0,
                     config=dataclasses.replace(config(), timing=timing)) for i in ids]
        for mesh in (a, b):
            await mesh.__aenter__()
        try:
            a.connect(pid(b), "127.0.0.1", b.port)
            await wait_event(a, up(pid(b)))
            await wait_event(b, up(pid(a)))
            link_a, link_b = a._links[pid(b)], b._links[pid(a)]
            for n in range(20):  # four keepalive intervals
                assert a.send(pid(b), Entry(bytes([n])))
                await asyncio.sleep(timing.keepalive_interval / 5)
            # (each link numbers its PINGs from 1: the next number says how many it sent)
            assert next(link_a._ping_nonces) == 1
            assert next(link_b._ping_nonces) >= 3
            assert a.connected == {pid(b)} and b.connected == {pid(a)}
        finally:
            await closing(a, b)

    run(main())


@with_meshes(2)
async def test_simultaneous_dials_converge_on_one_link(a: Mesh, b: Mesh) -> None:
    a.connect(pid(b), "127.0.0.1", b.port)
    b.connect(pid(a), "127.0.0.1", a.port)
    await wait_event(a, up(pid(b)))
    await wait_event(b, up(pid(a)))
    await asyncio.sleep(5 * 0.2)  # let any duplicate link be closed and redials settle
    # Both ends kept the same link: it was dialled by one end and accepted by the other.
    link_a, link_b = a._links[pid(b)], b._links[pid(a)]
    assert link_a.initiator != link_b.initiator
    assert link_a.result.transcript_hash == link_b.result.transcript_hash
    for n in range(3):
        assert a.send(pid(b), Entry(bytes([n])))
        await wait_event(b, got(pid(a), Entry(bytes([n]))))


# -- hostile or broken peers ------------------------------------------------------------------


@pytest.mark.parametrize(
    ("junk", "why"),
    [
        (b"\x00\x00\x00\x02\xc1\xc1", "msgpack"),
        (struct.pack(">I", MAX_FRAME_BYTES + 1), "limit"),
        (encode_frame(Ping(1))[:4] + b"\x92\xa4NOPE\x01", "unknown frame type"),
    ],
)
def test_junk_before_handshake_is_refused_and_mesh_keeps_serving(junk: bytes, why: str) -> None:
    async def main() -> None:
        a, b = identities_sorted(b"junk-a", b"junk-b")
        ma, mb = await started(a), await started(b)
        try:
            reader, writer = await asyncio.open_connection("127.0.0.1", mb.port)
            writer.write(junk)
            event = await wait_event(mb, failed)
            assert isinstance(event, LinkFailed)
            assert isinstance(event.error, FrameError)
            assert why in event.error.reason
            assert event.error.peer == event.address  # named by its address
            # The sender is told why before being cut off.
            frames = await read_until_closed(reader, FrameDecoder("b"))
            assert [type(f) for f in frames][-1] is Error
            writer.close()
            # Others are still served.
            ma.connect(pid(mb), "127.0.0.1", mb.port)
            await wait_event(mb, up(pid(ma)))
        finally:
            await closing(ma, mb)

    run(main())


def _bad_ping(protector: FrameProtector) -> bytes:
    # Correctly sealed, so it comes from the peer itself: its own (buggy) frame.
    return protector.seal_payload(encode_payload(Ping(5))[:-1] + b"\xff")


@pytest.mark.parametrize(
    ("junk", "why", "auth"),
    [
        (lambda p: b"\x00\x00\x00\x01\xc1", "too short", True),
        (lambda p: encode_frame(Error("Bob here: you cheat")), "failed authentication", True),
        (lambda p: struct.pack(">I", MAX_FRAME_BYTES + 1), "limit", False),
        (_bad_ping, "0..", False),
    ],
)
def test_junk_after_handshake_drops_that_peer_only(
    junk: Callable[[FrameProtector], bytes], why: str, auth: bool
) -> None:
    """Bytes that fail authentication close the link as a link problem (LinkAuthError,
    counted); a peer's own authenticated garbage is a FrameError naming it."""

    async def main() -> None:
        a, b, evil = identities_sorted(b"ja-a", b"ja-b", b"ja-evil")
        ma, mb = await started(a), await started(b)
        try:
            ma.connect(pid(mb), "127.0.0.1", mb.port)
            await wait_event(mb, up(pid(ma)))
            reader, writer, decoder, protector = await raw_handshake(mb.port, evil, TABLE)
            await wait_event(mb, up(evil.peer_id))
            writer.write(junk(protector))
            event = await wait_event(mb, down(evil.peer_id))
            assert isinstance(event, PeerDown)
            assert isinstance(event.error, FrameError)
            assert isinstance(event.error, LinkAuthError) == auth
            assert mb.auth_failures == (1 if auth else 0)
            assert why in event.error.reason
            assert evil.peer_id[:6].hex() in event.error.peer  # the link, by fingerprint
            frames = await read_until_closed(reader, decoder)
            errors = [f for f in frames if isinstance(f, Error)]
            assert errors and why in errors[-1].reason
            writer.close()
            # The honest peer's link is untouched.
            assert mb.connected == {pid(ma)}
            assert mb.send(pid(ma), Entry(b"ok"))
            await wait_event(ma, got(pid(mb), Entry(b"ok")))
        finally:
            await closing(ma, mb)

    run(main())


@with_meshes(1)
async def test_connection_that_never_speaks_times_out(a: Mesh) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", a.port)
    event = await wait_event(a, failed)
    assert isinstance(event, LinkFailed)
    assert isinstance(event.error, LinkTimeoutError)
    assert "no handshake" in event.error.reason
    # Our HELLO went out at once, and after the deadline the connection is closed.
    frames = await read_until_closed(reader, FrameDecoder("a"))
    assert frames and frames[0].TAG == "HELLO"
    writer.close()


@with_meshes(1)
async def test_peer_that_goes_silent_after_handshake_is_dropped(a: Mesh) -> None:
    evil = TestIdentity(b"silent")
    _, writer, _, _ = await raw_handshake(a.port, evil, TABLE)
    await wait_event(a, up(evil.peer_id))
    # It never answers PINGs (nor sends anything else).
    event = await wait_event(a, down(evil.peer_id))
    assert isinstance(event, PeerDown)
    assert isinstance(event.error, LinkTimeoutError)
    writer.close()


@with_meshes(1)
async def test_pings_are_answered_and_not_delivered(a: Mesh) -> None:
    client = TestIdentity(b"pinger")
    reader, writer, decoder, protector = await raw_handshake(a.port, client, TABLE)
    await wait_event(a, up(client.peer_id))
    writer.write(protector.seal(Ping(77)) + protector.seal(Entry(b"after ping")))
    event = await wait_event(a, lambda e: isinstance(e, Received))
    assert event == Received(client.peer_id, Entry(b"after ping"))
    async with asyncio.timeout(WAIT_S):
        while True:
            decoder.feed(await reader.read(4096))
            frames = []
            while (frame := decoder.next_frame()) is not None:
                frames.append(frame)
            if Pong(77) in frames:
                break
    writer.close()


def test_wrong_table_is_refused_both_ways() -> None:
    async def main() -> None:
        a, b = identities_sorted(b"wt-a", b"wt-b")
        ma, mb = await started(a), await started(b, table=OTHER_TABLE)
        try:
            ma.connect(pid(mb), "127.0.0.1", mb.port)
            dial = await wait_event(ma, failed)
            accept = await wait_event(mb, failed)
            assert isinstance(dial, LinkFailed) and isinstance(accept, LinkFailed)
            assert isinstance(dial.error, WrongTableError | PeerRefusedError)
            assert isinstance(accept.error, WrongTableError)
            assert dial.peer_id == pid(mb)
            assert ma.connected == frozenset() and mb.connected == frozenset()
        finally:
            await closing(ma, mb)

    run(main())


@pytest.mark.parametrize(("sa", "sb", "ok"), [(b"moon", b"moon", True), (b"moon", b"sun", False)])
def test_table_code_over_the_mesh(sa: bytes, sb: bytes, ok: bool) -> None:
    async def main() -> None:
        a, b = identities_sorted(b"tc-a", b"tc-b")
        ma, mb = await started(a, secret=sa), await started(b, secret=sb)
        try:
            ma.connect(pid(mb), "127.0.0.1", mb.port)
            if ok:
                await wait_event(mb, up(pid(ma)))
            else:
                event = await wait_event(mb, failed)
                assert isinstance(event, LinkFailed)
                assert isinstance(event.error, WrongSecretError | PeerRefusedError)
                assert mb.connected == frozenset()
        finally:
            await closing(ma, mb)

    run(main())


@with_meshes(3)
async def test_after_lobby_only_seated_peers_may_connect(a: Mesh, b: Mesh, stranger: Mesh) -> None:
    a.seat([pid(b)])
    a.accepting_new = False
    stranger.connect(pid(a), "127.0.0.1", a.port)
    refused = await wait_event(a, failed)
    assert isinstance(refused, LinkFailed)
    assert isinstance(refused.error, UnexpectedPeerError)
    told = await wait_event(stranger, failed)
    assert isinstance(told, LinkFailed)
    assert isinstance(told.error, PeerRefusedError)
    assert "no seat at this table" in told.error.reason
    b.connect(pid(a), "127.0.0.1", a.port)
    await wait_event(a, up(pid(b)))
    assert pid(stranger) not in a.connected


@with_meshes(4)
async def test_after_seating_a_few_guests_may_link_and_no_more(
        a: Mesh, b: Mesh, guest: Mesh, another: Mesh) -> None:
    # spectators: the layer above decides whether each guest stays; the mesh only bounds them
    a.seat([pid(b)])
    a.accepting_new = False
    a.max_guests = 1
    guest.connect(pid(a), "127.0.0.1", a.port)
    await wait_event(a, up(pid(guest)))
    another.connect(pid(a), "127.0.0.1", a.port)
    told = await wait_event(another, failed)
    assert isinstance(told, LinkFailed) and isinstance(told.error, PeerRefusedError)
    assert pid(another) not in a.connected
    b.connect(pid(a), "127.0.0.1", a.port)  # a player always gets in
    await wait_event(a, up(pid(b)))


def test_a_bug_in_a_mesh_task_ends_the_mesh_visibly_and_a_network_error_does_not() -> None:
    """A network error escaping a task of the mesh is one more link problem (an event, the
    dialler goes on); a bug ends the block that runs the mesh, and leaving it raises the
    bug itself."""
    class Bug(Exception):
        pass

    reached: list[str] = []

    async def main() -> None:
        a, b = [await started(TestIdentity(s)) for s in (b"crash-a", b"crash-b")]
        try:
            async def os_failure(*_: Any, **__: Any) -> Any:
                raise ConnectionResetError(104, "Connection reset by peer")

            a._open = os_failure  # type: ignore[method-assign]
            a.connect(pid(b), "127.0.0.1", b.port)
            event = await wait_event(a, failed)
            assert isinstance(event, LinkFailed)
            reached.append("network error reported")

            async def bug(*_: Any, **__: Any) -> Any:
                raise Bug("a bug in the dial loop")

            a._open = bug  # type: ignore[method-assign]
            a.connect(pid(b), "127.0.0.1", b.port)
            await asyncio.sleep(WAIT_S)  # (cancelled by the bug at once)
            reached.append("the bug went unseen")
        finally:
            await closing(a, b)

    with pytest.raises(Bug, match="dial loop"):
        run(main())
    assert reached == ["network error reported"]


@pytest.mark.parametrize("by_the_writer_task", [True, False], ids=["writer task", "at once"])
def test_a_bug_in_writing_ends_the_mesh_visibly(by_the_writer_task: bool) -> None:
    """A link's writer handles the network itself; anything else escaping it is a bug, and
    it ends the block that runs the mesh instead of the link going quiet: in the writer task,
    or in the sender itself (a frame handed to an idle socket is written at once: the bug
    closes the link, and its reader ends the mesh with it)."""
    class Bug(Exception):
        pass

    reached: list[str] = []
    writers: list[str] = []  # the task that wrote

    async def main() -> None:
        a, b = [await started(TestIdentity(s)) for s in (b"writer-a", b"writer-b")]
        try:
            a.connect(pid(b), "127.0.0.1", b.port)
            await wait_event(a, up(pid(b)))
            link = a._links[pid(b)]

            def broken_write(_data: bytes) -> None:
                task = asyncio.current_task()
                writers.append(task.get_name() if task is not None else "")
                raise Bug("a bug in writing")

            link._writer.write = broken_write  # type: ignore[method-assign]
            if by_the_writer_task:
                link._outbox.append(b"for the writer task")
                link._wakeup.set()
            else:
                a.send(pid(b), Entry(b"written by a broken writer"))
            await asyncio.sleep(WAIT_S)  # (cancelled by the bug at once)
            reached.append("the bug went unseen")
        finally:
            await closing(a, b)

    with pytest.raises(Bug, match="a bug in writing"):
        run(main())
    assert reached == []
    assert len(writers) == 1 and writers[0].startswith("write ") == by_the_writer_task


# -- reconnecting -----------------------------------------------------------------------------


def test_reconnects_after_peer_restarts_on_same_port() -> None:
    async def main() -> None:
        a, b = identities_sorted(b"rc-a", b"rc-b")
        ma, mb = await started(a), await started(b)
        mb2: Mesh | None = None
        try:
            ma.connect(pid(mb), "127.0.0.1", mb.port)
            await wait_event(ma, up(pid(mb)))
            port = mb.port
            await mb.close()
            event = await wait_event(ma, down(pid(mb)))
            assert isinstance(event, PeerDown)
            mb2 = Mesh(b, TABLE, "127.0.0.1", port, config=config())
            await mb2.__aenter__()
            await wait_event(ma, up(pid(mb2)))
            assert ma.send(pid(mb2), Entry(b"welcome back"))
            await wait_event(mb2, got(pid(ma), Entry(b"welcome back")))
        finally:
            await closing(ma, mb, *([mb2] if mb2 else []))

    run(main())


@with_meshes(2)
async def test_redials_after_link_is_cut(a: Mesh, b: Mesh) -> None:
    a.connect(pid(b), "127.0.0.1", b.port)
    await wait_event(a, up(pid(b)))
    b._links[pid(a)]._writer.transport.abort()  # a cut cable, no BYE
    seen: list[MeshEvent] = []
    await wait_event(a, up(pid(b)), seen)
    assert any(isinstance(e, PeerDown) for e in seen)
    assert a.send(pid(b), Entry(b"again"))
    await wait_event(b, got(pid(a), Entry(b"again")))


@with_meshes(1)
async def test_peer_that_stops_reading_is_dropped_not_waited_for(a: Mesh) -> None:
    lazy = TestIdentity(b"lazy")
    _, writer, _, protector = await raw_handshake(a.port, lazy, TABLE)
    await wait_event(a, up(lazy.peer_id))

    async def stay_alive() -> None:  # it keeps talking, so it is not silent, just not reading
        while True:
            writer.write(protector.seal(Ping(1)))
            await asyncio.sleep(TIMING.keepalive_interval)

    talker = asyncio.create_task(stay_alive())
    chunk = Entry(b"\x00" * 64 * 1024)
    sent = 0
    async with asyncio.timeout(WAIT_S):
        while a.send(lazy.peer_id, chunk):  # never read on the other side
            sent += 1
            if sent % 16 == 0:
                await asyncio.sleep(0)
    event = await wait_event(a, down(lazy.peer_id))
    talker.cancel()
    assert isinstance(event, PeerDown)
    assert "not reading" in event.reason
    writer.close()


@with_meshes(2)
async def test_dial_learns_the_peer_and_keeps_the_link(a: Mesh, b: Mesh) -> None:
    assert await a.dial("127.0.0.1", b.port) == pid(b)
    await wait_event(b, up(pid(a)))
    b._links[pid(a)]._writer.transport.abort()
    await wait_event(a, down(pid(b)))
    await wait_event(a, up(pid(b)))  # redialled without being told again


@with_meshes(3)
async def test_a_mesh_that_stops_listening_keeps_its_links_and_refuses_new_ones(
        a: Mesh, b: Mesh, c: Mesh) -> None:
    port = a.port
    b.connect(pid(a), "127.0.0.1", port)
    await wait_event(a, up(pid(b)))
    a.stop_listening()
    assert a.port == port  # still known (a resumed game is told where it listened)
    with pytest.raises(LinkClosedError, match="cannot connect"):
        await c.dial("127.0.0.1", port)
    entry = Entry(b"still linked")
    assert a.send(pid(b), entry)
    await wait_event(b, got(pid(a), entry))


@with_meshes(1)
async def test_dial_to_nobody_says_why(a: Mesh) -> None:
    with socket.socket() as s:  # a port nobody listens on: bind, never listen
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        with pytest.raises(LinkClosedError, match="cannot connect"):
            await a.dial("127.0.0.1", port)


def test_listening_on_a_port_in_use_is_a_user_error_naming_it() -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        mesh = Mesh(TestIdentity(b"late"), TABLE, "127.0.0.1", port, config=config())
        with pytest.raises(UserError, match=f"cannot listen on 127.0.0.1:{port}: .*in use"):
            run(mesh.__aenter__())


def test_a_handshake_still_under_way_when_the_program_ends_is_ended_quietly() -> None:
    """The program ends (its event loop cancels every task) while a stranger's handshake is
    under way and the mesh was never closed: nothing is reported to the event loop's
    exception handler. (The handshake once ran in a task that asyncio's stream server made
    and nobody owned; cancelled, it was printed as 'Exception in callback ...
    CancelledError' on the player's terminal.)"""
    reported: list[dict[str, Any]] = []

    async def main() -> None:
        asyncio.get_running_loop().set_exception_handler(lambda _loop, ctx: reported.append(ctx))
        host = await started(identities_sorted(b"host-at-exit")[0])
        # a stranger connects and says nothing: its handshake waits for its HELLO
        _reader, writer = await asyncio.open_connection("127.0.0.1", host.port)
        for _ in range(100):
            await asyncio.sleep(0.01)
            if host._pending:  # (the mesh has started on the handshake)
                break
        assert host._pending, "the handshake never started"
        writer.close()

    run(main())
    assert reported == []
