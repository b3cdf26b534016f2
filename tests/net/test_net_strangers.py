"""A stranger can only be refused, round two (issue 31): real meshes on 127.0.0.0/8.

One test per attack, named after it:
- lobby links that never say a word, from many addresses: capped per address and in all,
  idle the longest closed first, and a joiner still gets in (case 2);
- 400 idle connections from 100 addresses while a joiner's handshake is under way (case 5);
- password guessing spread over many addresses: bounded in total, and the per-address
  back-off cannot be flushed by using more addresses (case 3);
- a spectator flooding frames: dropped over its budget, counted, never ahead of a seated
  player's frames, and its link closed as a link problem (case 1).

Other loopback addresses (127.0.0.2, ...) stand for other machines. Timings are shortened;
waits are bounded only so that a broken build fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import contextlib
import random
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest
from net_helpers import TestIdentity, identities_sorted, next_matching

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.net import mesh as mesh_module
from hanabi_p2p.net.errors import LinkFloodError, PeerRefusedError, RetryLaterError
from hanabi_p2p.net.frames import Entry, Have, encode_frame
from hanabi_p2p.net.gate import BudgetRule, FdShares, Slot, handshake_to_drop, link_to_close
from hanabi_p2p.net.handshake import Handshake
from hanabi_p2p.net.link import Link, LinkTiming, open_link
from hanabi_p2p.net.mesh import MAX_LOBBY_LINKS, Mesh, MeshConfig
from hanabi_p2p.net.mesh_events import GUEST_QUEUE_LIMIT, MeshEvent, PeerDown, PeerUp, Received

pytestmark = pytest.mark.socket

TABLE = b"S" * 16
TIMING = LinkTiming(handshake_timeout=5.0, keepalive_interval=0.2, idle_timeout=5.0)
PATIENT = LinkTiming(handshake_timeout=60.0, keepalive_interval=0.2, idle_timeout=5.0)
WAIT_S = 20.0

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def config(timing: LinkTiming = TIMING, **kw: Any) -> MeshConfig:
    return MeshConfig(timing=timing, backoff_initial=0.05, backoff_max=0.2,
                      rng=random.Random(5), **kw)


async def started(identity: TestIdentity, **kw: Any) -> Mesh:
    conf = kw.pop("config", None) or config()
    mesh = Mesh(identity, TABLE, "127.0.0.1", 0, config=conf, **kw)
    await mesh.__aenter__()  # (its tasks are ended by `close`)
    return mesh


async def until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(WAIT_S):
        while not condition():
            await asyncio.sleep(0.01)


def up(peer: bytes) -> Callable[[MeshEvent], bool]:
    return lambda e: isinstance(e, PeerUp) and e.peer_id == peer


async def link_from(port: int, identity: Any, source: str, secret: bytes | None = None,
                    timing: LinkTiming = TIMING, group: asyncio.TaskGroup | None = None) -> Link:
    """A handshaked link to the listener at loopback `port`, from `source`; started (its
    writer and keepalive) in `group` if one is given."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    hs = Handshake(identity, TABLE, initiator=True, peer_label="host", secret=secret)
    link = await open_link(reader, writer, hs, timing)
    if group is not None:
        link.start(group)
    return link


async def drain(mesh: Mesh) -> None:
    """Read the mesh's events for ever (the layer above would)."""
    while await mesh.next_event() is not None:
        pass


# ---------------------------------------------------------------------------- case 2


def test_the_caps_fit_the_open_file_limit() -> None:
    usual = FdShares.of(1024, 16, MAX_LOBBY_LINKS, 8)
    assert (usual.pending, usual.lobby_links, usual.lobby_links_per_source) == (16, 32, 8)
    for limit in (64, 128, 256, 1024, 4096):
        shares = FdShares.of(limit, 16, MAX_LOBBY_LINKS, 8)
        assert shares.pending + shares.lobby_links <= max(limit // 4, 12)
    assert FdShares.of(None, 16, 32, 8) == FdShares(16, 32, 8)


def test_silent_lobby_links_from_many_addresses_are_capped_and_a_joiner_sits_down() -> None:
    async def main() -> None:
        host_id, joiner_id = identities_sorted(b"lobby-host", b"lobby-joiner")
        # an open-file limit of 160 leaves the lobby 26 links (FdShares)
        host = await started(host_id, config=config(open_file_limit=160))
        shares = host.shares
        assert shares.lobby_links < MAX_LOBBY_LINKS
        joiner = await started(joiner_id)
        reader = asyncio.create_task(drain(host))
        silent: list[Link] = []
        group = asyncio.TaskGroup()
        await group.__aenter__()  # (the silent links' keepalives)
        try:
            for i in range(120):  # 12 addresses, 10 links each: none ever says a word
                silent.append(await link_from(host.port, TestIdentity(b"s%d" % i),
                                              f"127.0.1.{i % 12 + 1}", group=group))
            await until(lambda: host.closed_lobby_links >= 120 - shares.lobby_links)
            assert len(host.connected) <= shares.lobby_links
            assert host.closed_lobby_links == 120 - len(host.connected)
            # the joiner gets in, says something, and stays while more silent links come
            assert await joiner.dial("127.0.0.1", host.port) == host_id.peer_id
            joiner.send(host_id.peer_id, Entry(b"lobby.join"))
            for i in range(120, 160):
                silent.append(await link_from(host.port, TestIdentity(b"s%d" % i),
                                              f"127.0.1.{i % 12 + 1}", group=group))
            await until(lambda: host.closed_lobby_links >= 160 - shares.lobby_links)
            assert joiner_id.peer_id in host.connected
        finally:
            reader.cancel()
            await asyncio.gather(*(link.close() for link in silent))
            await group.__aexit__(None, None, None)
            await asyncio.gather(host.close(), joiner.close())

    run(main())


def test_the_link_idle_the_longest_is_closed_first() -> None:
    links = [Slot("a", True, 5.0), Slot("b", True, 1.0), Slot("a", True, 3.0)]
    assert link_to_close(links, per_source=8, total=3) is None
    assert link_to_close(links, per_source=1, total=8) == 2  # "a" over its cap: idle longest
    assert link_to_close([*links, Slot("c", True, 0.5)], per_source=8, total=3) == 2


# ---------------------------------------------------------------------------- case 5


def test_an_idle_connection_is_dropped_long_before_a_working_handshake() -> None:
    joiner = Slot("10.0.0.9", True, 0.0)  # the oldest, but its handshake is under way
    idle = [Slot(f"10.0.1.{i % 100}", False, 1.0 + i) for i in range(15)]
    drop = handshake_to_drop([joiner, *idle], "10.0.1.50", per_source=4, total=16)
    assert drop and 0 not in drop
    # among working ones, the source holding the most gives way first
    working = [joiner, *(Slot("10.0.2.1", True, 1.0 + i) for i in range(15))]
    assert handshake_to_drop(working, "10.0.3.1", per_source=4, total=16) == [1]


def test_400_idle_connections_from_100_addresses_never_keep_a_joiner_out() -> None:
    joiners_among_stalled_connections(hello=False)


def test_400_connections_stalled_after_their_hello_never_keep_a_joiner_out() -> None:
    # a HELLO makes a connection look at work; one that says nothing more soon is idle again
    joiners_among_stalled_connections(hello=True)


def joiners_among_stalled_connections(hello: bool) -> None:
    """Three joiners in a row dial a host that 100 addresses keep 4 connections each open to
    (silent, or silent after a HELLO), again as soon as the host drops them."""
    async def main() -> None:
        host_id, joiner_id = identities_sorted(b"idle-host", b"idle-joiner")
        host = await started(host_id, config=config(PATIENT))
        reader = asyncio.create_task(drain(host))
        writers: list[asyncio.StreamWriter] = []

        first = Handshake(TestIdentity(b"idle-stranger"), TABLE, initiator=True,
                          peer_label="host").start()
        opening = b"".join(encode_frame(frame) for frame in first) if hello else b""

        async def flood() -> None:
            # 4 from each of 100 addresses, and again as soon as the host drops them
            while True:
                for n in range(400):
                    _, writer = await asyncio.open_connection(
                        "127.0.0.1", host.port, local_addr=(f"127.0.2.{n % 100 + 1}", 0))
                    writer.write(opening)
                    writers.append(writer)
                await asyncio.sleep(0)

        flooding = asyncio.create_task(flood())
        try:
            await until(lambda: host.evicted_handshakes > 100)
            for attempt in range(3):  # three joiners in a row, each in the thick of it
                joiner = await started(TestIdentity(b"idle-joiner-%d" % attempt))
                try:
                    assert await joiner.dial("127.0.0.1", host.port) == host_id.peer_id
                finally:
                    await joiner.close()
            assert host.pending_handshakes <= mesh_module.MAX_PENDING_HANDSHAKES
        finally:
            flooding.cancel()
            reader.cancel()
            for writer in writers:
                writer.close()
            await host.close()
        del joiner_id

    run(main())


# ---------------------------------------------------------------------------- case 3


async def guess(port: int, identity: Any, code: bytes, source: str) -> HanabiError | None:
    try:
        link = await link_from(port, identity, source, secret=code)
    except HanabiError as exc:
        return exc
    await link.close()
    return None


def test_password_guessing_spread_over_many_addresses_is_bounded_in_total() -> None:
    async def main() -> None:
        host_id, friend_id = identities_sorted(b"guess-host", b"guess-friend")
        conf = config(code_backoff_initial=60.0, table_code_free_guesses=4,
                      table_code_backoff_initial=0.5, table_code_backoff_max=1.0)
        host = await started(host_id, secret=b"moon", config=conf)
        reader = asyncio.create_task(drain(host))
        try:
            waits = 0
            for i in range(40):  # 40 addresses, one guess each, as fast as they can
                told = await guess(host.port, TestIdentity(b"g%d" % i), b"sun%d" % i,
                                   f"127.0.3.{i + 1}")
                assert isinstance(told, PeerRefusedError)
                waits += "from anywhere: try again in" in told.reason
            # at most the free guesses, then one per table-wide wait (0.5 s, then 1 s)
            assert host.failed_code_attempts <= 4 + 3
            assert waits == host.refused_table_wide >= 40 - host.failed_code_attempts
            assert host.table_code_wait > 0
            # the wait over, the right code gets in and ends the streak
            await asyncio.sleep(conf.table_code_backoff_max + 0.1)
            assert await guess(host.port, friend_id, b"moon", "127.0.0.1") is None
            assert host.table_code_wait == 0
        finally:
            reader.cancel()
            await host.close()

    run(main())


def honest_joiner_against_guessers(grace: float) -> tuple[int, int]:
    """Guessers from 8 addresses hammer a table (their own back-off tiny: only the
    table-wide wait holds them), while a friend with the right code, from an address of its
    own, waits each time as told and tries again: (the friend's tries until it got in or gave
    up after 4, the guessers' wrong codes meanwhile)."""
    async def main() -> tuple[int, int]:
        host_id, friend_id = identities_sorted(b"grace-host", b"grace-friend")
        conf = config(code_backoff_initial=0.01, code_backoff_max=0.01,
                      table_code_free_guesses=2, table_code_backoff_initial=0.5,
                      table_code_backoff_max=1.0, table_code_grace=grace)
        host = await started(host_id, secret=b"moon", config=conf)
        reader = asyncio.create_task(drain(host))
        stop = asyncio.Event()

        async def guesser(i: int) -> None:
            identity = TestIdentity(b"hammer%d" % i)
            while not stop.is_set():
                await guess(host.port, identity, b"sun", f"127.0.6.{i + 1}")
                await asyncio.sleep(0.005)

        guessers = [asyncio.create_task(guesser(i)) for i in range(8)]
        try:
            await until(lambda: host.table_code_wait > 0)
            for tries in range(1, 5):
                told = await guess(host.port, friend_id, b"moon", "127.0.0.9")
                if told is None:
                    return tries, host.failed_code_attempts
                assert isinstance(told, RetryLaterError) and told.table_wide, told
                await asyncio.sleep(told.retry_after + 0.05)  # as `join` does
            return 0, host.failed_code_attempts
        finally:
            stop.set()
            await asyncio.gather(*guessers)
            reader.cancel()
            await host.close()

    return run(main())


def test_a_joiner_who_waits_as_told_gets_in_while_others_keep_guessing() -> None:
    # the table-wide wait over, addresses that never guessed wrong go first for a moment
    # (without that moment, the guessers took every slot the waits left: 4 tries of 4 lost)
    tries, wrong = honest_joiner_against_guessers(grace=1.5)
    assert tries in (1, 2), tries
    # still bounded: the free guesses, those in flight as each wait began (one per guesser
    # at most), about one a wait; unbounded, 8 guessers would have made hundreds meanwhile
    assert wrong <= 2 + 8 + 4, wrong


def test_join_waits_out_a_table_wide_refusal_saying_why_and_sits_down() -> None:
    from hanabi_p2p.frontends.launch import _dial_with_retries

    async def main() -> None:
        host_id, joiner_id = identities_sorted(b"patient-host", b"patient-joiner")
        conf = config(code_backoff_initial=60.0, table_code_free_guesses=1,
                      table_code_backoff_initial=2.0, table_code_backoff_max=2.0)
        host = await started(host_id, secret=b"moon", config=conf)
        joiner = await started(joiner_id, secret=b"moon")
        reader = asyncio.create_task(drain(host))
        told: list[str] = []
        try:
            for i in range(2):  # someone else guesses wrong twice: every newcomer waits 2 s
                await guess(host.port, TestIdentity(b"other%d" % i), b"sun", f"127.0.7.{i + 1}")
            assert host.table_code_wait > 0
            await _dial_with_retries(joiner, "127.0.0.1", host.port, host_id.peer_id,
                                     told.append)
            assert host_id.peer_id in joiner.connected
            assert len(told) == 1 and "someone may be guessing it" in told[0], told
        finally:
            reader.cancel()
            await asyncio.gather(joiner.close(), host.close())

    run(main())


def test_more_addresses_cannot_flush_the_per_address_back_off(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(mesh_module, "MAX_TRACKED_SOURCES", 4)

    async def main() -> None:
        conf = config(code_backoff_initial=60.0, table_code_free_guesses=100)
        host = await started(TestIdentity(b"flush-host"), secret=b"moon", config=conf)
        reader = asyncio.create_task(drain(host))
        try:
            for i in range(12):  # three times as many addresses as are remembered
                await guess(host.port, TestIdentity(b"f%d" % i), b"sun", f"127.0.4.{i + 1}")
            assert host.code_backoff_left("127.0.4.1") > 0  # the first is still waiting
            again = await guess(host.port, TestIdentity(b"f-again"), b"star", "127.0.4.1")
            assert isinstance(again, PeerRefusedError) and "too many wrong" in again.reason
            assert host.failed_code_attempts == 12
        finally:
            reader.cancel()
            await host.close()

    run(main())


# ---------------------------------------------------------------------------- case 1


def test_a_spectator_flooding_frames_never_delays_a_player_and_is_closed() -> None:
    async def main() -> None:
        host_id, player_id, watcher_id = identities_sorted(b"fl-host", b"fl-player",
                                                           b"fl-watcher")
        guest = BudgetRule(rate=50.0, burst=100.0, close_after=1.5)
        host = await started(host_id, config=config(guest_budget=guest))
        host.seat([player_id.peer_id])
        host.accepting_new = False
        host.max_guests = 2
        group = asyncio.TaskGroup()
        await group.__aenter__()  # (the two links' writers and keepalives)
        player = await link_from(host.port, player_id, "127.0.0.1", group=group)
        watcher = await link_from(host.port, watcher_id, "127.0.5.1", group=group)
        seen: list[MeshEvent] = []
        try:
            await next_matching(host, up(watcher_id.peer_id), seen, WAIT_S)
            stop = asyncio.Event()
            sent = 0

            async def flood() -> None:
                nonlocal sent
                with contextlib.suppress(HanabiError):  # (the host closes us in the end)
                    while not stop.is_set():
                        for _ in range(200):
                            watcher.send(Have({}))
                            sent += 1
                        await asyncio.sleep(0.001)

            flooding = asyncio.create_task(flood())
            await until(lambda: host.dropped_frames > 50)  # nobody reads the host for now
            player.send(Entry(b"my move"))
            # the player's frame comes out ahead of the guests' queue, full as it is
            first = await next_matching(
                host, lambda e: isinstance(e, Received) and e.peer_id == player_id.peer_id,
                seen, WAIT_S)
            assert isinstance(first, Received) and first.frame == Entry(b"my move")
            from_watcher = [e for e in seen if isinstance(e, Received)
                            and e.peer_id == watcher_id.peer_id]
            assert len(from_watcher) <= GUEST_QUEUE_LIMIT + guest.burst
            down = await next_matching(
                host, lambda e: isinstance(e, PeerDown) and e.peer_id == watcher_id.peer_id,
                seen, WAIT_S)
            stop.set()
            await flooding
            assert isinstance(down, PeerDown) and isinstance(down.error, LinkFloodError)
            assert "127.0.5.1" in down.reason and "frames a second" in down.reason
            assert host.flood_closed == 1
            assert player_id.peer_id in host.connected  # the player is untouched
            # Over its budget the link was not read on: the host decoded a small part of
            # what was sent, and TCP held the rest back in the buffers
            read = host.dropped_frames + len(from_watcher)
            assert read < sent / 4, (read, sent)
        finally:
            await asyncio.gather(player.close(), watcher.close())
            await group.__aexit__(None, None, None)
            await host.close()

    run(main())
