"""Hostile strangers and relays against real meshes on 127.0.0.0/8 (loopback only).

- A relay in the path that alters, replays, reorders, drops or injects one frame after the
  handshake: the receiving end closes that link as a link problem (`LinkAuthError`, counted in
  `auth_failures`), never delivers the frame, and the link comes back on the redial.
- 200 idle connections (issue 10 item 2): a joiner still sits down.
- Table-code guessing (issue 10 item 5): back-off per source, counted; a seated player's id
  cannot be used to guess.

Other loopback addresses (127.0.0.2, ...) stand for other machines: Linux routes all of
127.0.0.0/8 to lo, so a socket bound to one is a distinct source address to the mesh.
Timings are shortened; waits are bounded only so a broken build fails instead of hanging.
"""

from __future__ import annotations

import asyncio
import random
from collections.abc import Callable, Coroutine
from typing import Any, TypeVar

import pytest
from net_helpers import TestIdentity, identities_sorted, next_matching
from relay import Mode, Plan, Relay

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.net.errors import (
    BadSignatureError,
    LinkAuthError,
    PeerRefusedError,
    WrongCodeGuessError,
)
from hanabi_p2p.net.frames import Entry
from hanabi_p2p.net.gate import SourceCodeGuard
from hanabi_p2p.net.handshake import Handshake
from hanabi_p2p.net.link import LinkTiming, open_link
from hanabi_p2p.net.mesh import (
    MAX_PENDING_HANDSHAKES,
    MAX_PENDING_PER_SOURCE,
    Mesh,
    MeshConfig,
)
from hanabi_p2p.net.mesh_events import LinkFailed, MeshEvent, PeerDown, PeerUp, Received

TABLE = b"H" * 16
TIMING = LinkTiming(handshake_timeout=2.0, keepalive_interval=0.1, idle_timeout=1.0)
# Idle connections must stay pending for the whole test unless the mesh drops them itself.
PATIENT = LinkTiming(handshake_timeout=60.0, keepalive_interval=0.1, idle_timeout=1.0)
WAIT_S = 20.0  # upper bound for anything to happen; only reached when a test is failing

T = TypeVar("T")


def run(coro: Coroutine[Any, Any, T]) -> T:
    return asyncio.run(coro)


def config(timing: LinkTiming = TIMING, **kw: Any) -> MeshConfig:
    return MeshConfig(
        timing=timing, backoff_initial=0.05, backoff_max=0.2, rng=random.Random(3), **kw
    )


async def started(identity: TestIdentity, **kw: Any) -> Mesh:
    conf = kw.pop("config", None) or config()
    mesh = Mesh(identity, TABLE, "127.0.0.1", 0, config=conf, **kw)
    await mesh.__aenter__()  # (its tasks are ended by `close`)
    return mesh


async def wait_event(
    mesh: Mesh, match: Callable[[MeshEvent], bool], seen: list[MeshEvent] | None = None
) -> MeshEvent:
    return await next_matching(mesh, match, seen, WAIT_S)


async def until(condition: Callable[[], bool]) -> None:
    async with asyncio.timeout(WAIT_S):
        while not condition():
            await asyncio.sleep(0.01)


def pid(mesh: Mesh) -> bytes:
    return mesh.identity.peer_id


# -- a relay in the path ------------------------------------------------------------------


@pytest.mark.socket
@pytest.mark.parametrize("mode", [m for m in Mode if m is not Mode.PASS], ids=lambda m: m.value)
def test_tampering_relay_closes_the_link_as_a_link_problem_and_it_recovers(mode: Mode) -> None:
    """The first protected record from Alice to Bob on the first connection is tampered."""

    async def main() -> None:
        alice, bob = identities_sorted(b"relay-a", b"relay-b")
        a, b = await started(alice), await started(bob)
        relay = Relay(("127.0.0.1", b.port), Plan(mode, limit=1, connections=1))
        try:
            relay_port = await relay.start()
            a.connect(pid(b), "127.0.0.1", relay_port)
            seen: list[MeshEvent] = []
            await wait_event(b, up(pid(a)), seen)
            # Keepalives flow every 0.1 s, so the tampered frame comes soon.
            event = await wait_event(b, lambda e: isinstance(e, PeerDown), seen)
            assert isinstance(event, PeerDown) and event.peer_id == pid(a)
            assert isinstance(event.error, LinkAuthError)
            assert "cheating" not in event.reason
            assert b.auth_failures == 1
            assert relay.tampered == 1
            # The link comes back through the (now honest) relay, and frames flow again.
            await wait_event(b, up(pid(a)), seen)
            await until(lambda: pid(b) in a.connected)
            assert a.send(pid(b), Entry(b"after the repair"))
            await wait_event(b, lambda e: isinstance(e, Received) and e.frame.TAG == "ENTRY", seen)
            received = [e.frame for e in seen if isinstance(e, Received)]
            assert received == [Entry(b"after the repair")]  # nothing the relay made up
        finally:
            await relay.close()
            await asyncio.gather(a.close(), b.close())

    run(main())


def up(peer: bytes) -> Callable[[MeshEvent], bool]:
    return lambda e: isinstance(e, PeerUp) and e.peer_id == peer


# -- idle connection floods (issue 10 item 2) -----------------------------------------------


async def idle_connections(port: int, count: int, sources: list[str]) -> list[asyncio.StreamWriter]:
    writers = []
    for i in range(count):
        _, writer = await asyncio.open_connection(
            "127.0.0.1", port, local_addr=(sources[i % len(sources)], 0)
        )
        writers.append(writer)
    return writers


@pytest.mark.socket
@pytest.mark.parametrize(
    "sources",
    [["127.0.0.2"], ["127.0.0.1"], [f"127.0.0.{n}" for n in range(2, 12)]],
    ids=["other-address", "joiners-own-address", "ten-addresses"],
)
def test_200_idle_connections_do_not_lock_out_a_joiner(sources: list[str]) -> None:
    async def main() -> None:
        host_id, joiner_id = identities_sorted(b"flood-host", b"flood-joiner")
        host = await started(host_id, config=config(PATIENT))
        joiner = await started(joiner_id)
        writers: list[asyncio.StreamWriter] = []
        try:
            writers = await idle_connections(host.port, 200, sources)
            await until(lambda: host.pending_handshakes + host.evicted_handshakes == 200)
            per_source = min(len(sources) * MAX_PENDING_PER_SOURCE, MAX_PENDING_HANDSHAKES)
            assert host.pending_handshakes == per_source
            assert await joiner.dial("127.0.0.1", host.port) == pid(host)
            await wait_event(host, up(pid(joiner)))
        finally:
            for writer in writers:
                writer.close()
            await asyncio.gather(host.close(), joiner.close())

    run(main())


# -- table-code guessing (issue 10 item 5) ------------------------------------------------------


async def attempt(
    port: int, identity: Any, secret: bytes | None, source: str
) -> HanabiError | None:
    """One handshake from `source`; the error it ended with, or None if it got in."""
    reader, writer = await asyncio.open_connection("127.0.0.1", port, local_addr=(source, 0))
    hs = Handshake(identity, TABLE, initiator=True, peer_label="host", secret=secret)
    try:
        link = await open_link(reader, writer, hs, TIMING)
    except HanabiError as exc:
        return exc
    await link.close()
    return None


def test_a_source_waits_twice_as_long_after_each_wrong_code_up_to_the_cap() -> None:
    conf = MeshConfig(code_backoff_initial=1.0, code_backoff_max=64.0)
    guard = SourceCodeGuard(conf.code_backoff_initial, conf.code_backoff_max, max_sources=4)
    waits = []
    for n in range(9):
        guard.wrong_code("10.0.0.9", now=float(n))
        waits.append(guard.wait_left("10.0.0.9", now=float(n)))
    assert waits == [1, 2, 4, 8, 16, 32, 64, 64, 64]
    assert guard.wait_left("10.0.0.8", now=8.0) == 0  # another source does not wait
    guard.right_code("10.0.0.9")
    assert guard.wait_left("10.0.0.9", now=8.0) == 0


@pytest.mark.socket
def test_wrong_code_guesses_are_refused_fast_and_counted_a_right_code_still_works() -> None:
    async def main() -> None:
        host_id, friend_id = identities_sorted(b"code-host", b"code-friend")
        # A long first back-off, so every further guess in this test falls inside it.
        host = await started(host_id, secret=b"moon", config=config(code_backoff_initial=60.0))
        friend = await started(friend_id, secret=b"moon")
        guesser = TestIdentity(b"code-guesser")
        try:
            first = await attempt(host.port, guesser, b"sun", "127.0.0.2")
            assert (
                isinstance(first, PeerRefusedError) and "different table password" in first.reason
            )
            failed = await wait_event(host, lambda e: isinstance(e, LinkFailed))
            assert isinstance(failed, LinkFailed)
            assert isinstance(failed.error, WrongCodeGuessError)
            assert failed.address.startswith("127.0.0.2:")
            for _ in range(20):
                refused = await attempt(host.port, guesser, b"star", "127.0.0.2")
                assert isinstance(refused, PeerRefusedError)
                assert "too many wrong table passwords (--code) from 127.0.0.2" in refused.reason
            assert host.failed_code_attempts == 1
            assert host.failed_code_by_source == {"127.0.0.2": 1}
            assert host.refused_during_backoff == 20
            assert host.code_backoff_left("127.0.0.2") > 0
            # Another address with the right code is not held back by the guesser.
            assert await friend.dial("127.0.0.1", host.port) == pid(host)
            await wait_event(host, up(pid(friend)))
        finally:
            await asyncio.gather(host.close(), friend.close())

    run(main())


class ForgingIdentity:
    """Claims someone else's key but signs with its own."""

    def __init__(self, claimed: TestIdentity, real: TestIdentity) -> None:
        self.peer_id = claimed.peer_id
        self._real = real

    def sign(self, message: bytes) -> bytes:
        return self._real.sign(message)


@pytest.mark.socket
def test_guessing_under_a_seated_players_id_is_refused_before_any_code_exchange() -> None:
    async def main() -> None:
        host_id, bob_id = identities_sorted(b"seat-host", b"seat-bob")
        host = await started(host_id, secret=b"moon")
        host.seat([bob_id.peer_id])
        host.accepting_new = False  # the game has begun: only seated players may connect
        try:
            forger = ForgingIdentity(bob_id, TestIdentity(b"seat-mallory"))
            told = await attempt(host.port, forger, b"sun", "127.0.0.3")
            assert isinstance(told, PeerRefusedError)
            failed = await wait_event(host, lambda e: isinstance(e, LinkFailed))
            assert isinstance(failed, LinkFailed)
            assert isinstance(failed.error, BadSignatureError)
            # Named by address, with the id it only claimed; not as Bob.
            assert failed.error.peer.startswith("127.0.0.3:")
            assert "claims id" in failed.error.peer
            assert host.failed_code_attempts == 0
            assert host.code_backoff_left("127.0.0.3") == 0
            # The real Bob, with the code, still gets in.
            assert await attempt(host.port, bob_id, b"moon", "127.0.0.1") is None
            await wait_event(host, up(bob_id.peer_id))
        finally:
            await host.close()

    run(main())


@pytest.mark.socket
def test_the_oldest_unfinished_handshake_of_a_source_is_the_one_dropped() -> None:
    async def main() -> None:
        host = await started(TestIdentity(b"oldest-host"), config=config(PATIENT))
        try:
            conns = [
                await asyncio.open_connection("127.0.0.1", host.port, local_addr=("127.0.0.2", 0))
                for _ in range(MAX_PENDING_PER_SOURCE)
            ]
            await until(lambda: host.pending_handshakes == MAX_PENDING_PER_SOURCE)
            newest = await asyncio.open_connection(
                "127.0.0.1", host.port, local_addr=("127.0.0.2", 0)
            )
            await until(lambda: host.evicted_handshakes == 1)
            assert host.pending_handshakes == MAX_PENDING_PER_SOURCE
            oldest_reader = conns[0][0]
            async with asyncio.timeout(WAIT_S):  # our HELLO, then the end of the stream
                while await oldest_reader.read(4096):
                    pass
            for _, writer in [*conns, newest]:
                writer.close()
        finally:
            await host.close()

    run(main())
