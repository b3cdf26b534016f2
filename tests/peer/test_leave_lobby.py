"""A player who quits a lobby leaves nothing behind: no game to list or resume."""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.frontends.headless import Frontend
from hanabi_p2p.frontends.launch import PeerOptions, host_table
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.rules.cards import GameConfig


class QuitsAtOnce(Frontend):
    """Leaves the lobby as soon as the table is open, as the screen's `quit` does."""

    def status(self, text: str) -> None:
        assert self.peer is not None
        peer = self.peer
        asyncio.get_running_loop().call_soon(
            lambda: peer.command(fx.Leave("you left the table", forget=True)))


@pytest.mark.socket
def test_quitting_a_lobby_leaves_no_game_to_resume(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "host")
    opts = PeerOptions(name="Ann", data_dir=data, interface="127.0.0.1", advertise=False)
    result = asyncio.run(host_table(opts, "quiet", GameConfig(3), QuitsAtOnce()))
    assert result.failure == "you left the table"
    assert list(data.game_files()) == []
    assert not any((data.root / "private").glob("*"))


@pytest.mark.socket
def test_over_tcp_a_removed_joiner_and_then_the_others_are_told_at_once(tmp_path: Path) -> None:
    """Real links on loopback: the host removes Bob, who stops with the reason; then the host
    quits its lobby, and Carol stops saying the host closed the table. Nobody waits for a
    lobby timeout (there is none by default)."""
    import socket

    from hanabi_p2p import refusals as rf
    from hanabi_p2p.frontends.launch import GameResult, Peer, join_address
    from hanabi_p2p.peer.core import PeerCore

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    host_front, bob_front, carol_front = Frontend(), Frontend(), Frontend()

    def opts(name: str, listen: int = 0) -> PeerOptions:
        return PeerOptions(name=name, data_dir=DataDir(tmp_path / name), interface="127.0.0.1",
                           port=listen, advertise=False, auto_start=False)

    def host_core() -> PeerCore | None:
        peer = host_front.peer
        return peer.core if isinstance(peer, Peer) else None

    async def waiting(count: int) -> PeerCore:
        while (core := host_core()) is None or len(core.lobby()) < count:
            await asyncio.sleep(0.02)
        return core

    async def table() -> tuple[GameResult, GameResult, GameResult]:
        host = asyncio.ensure_future(host_table(opts("Ann", port), "lobby", GameConfig(3),
                                                host_front))
        await waiting(0)  # listening
        bob = asyncio.ensure_future(join_address(opts("Bob"), "127.0.0.1", port, bob_front))
        await waiting(1)
        carol = asyncio.ensure_future(join_address(opts("Carol"), "127.0.0.1", port,
                                                   carol_front))
        await waiting(2)
        assert bob_front.peer is not None and host_front.peer is not None
        host_front.peer.command(fx.Kick(bob_front.peer.session.me))
        bob_result = await asyncio.wait_for(bob, 10)
        host_front.peer.command(fx.Leave("you left the table", forget=True))
        carol_result = await asyncio.wait_for(carol, 10)
        return await asyncio.wait_for(host, 10), bob_result, carol_result

    host, bob, carol = asyncio.run(table())
    assert bob.failure == str(rf.RemovedByHost()) and carol.failure == str(rf.HostClosedTable())
    assert host.failure == "you left the table"
    for name in ("Bob", "Carol"):  # nothing to resume: no game was ever seated
        assert list(DataDir(tmp_path / name).game_files()) == []
