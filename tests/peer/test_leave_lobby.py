"""A player who quits a lobby leaves nothing behind: no game to list or resume."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.frontends import Frontend
from hanabi_p2p.peer.launch import PeerOptions, host_table
from hanabi_p2p.rules.cards import GameConfig


class QuitsAtOnce(Frontend):
    """Leaves the lobby as soon as the table is open, as the screen's `quit` does."""

    def status(self, text: str) -> None:
        assert self.peer is not None
        peer = self.peer
        asyncio.get_running_loop().call_soon(
            lambda: peer.command(fx.Leave("you left the table", forget=True)))


def test_quitting_a_lobby_leaves_no_game_to_resume(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "host")
    opts = PeerOptions(name="Ann", data_dir=data, interface="127.0.0.1", advertise=False)
    result = asyncio.run(host_table(opts, "quiet", GameConfig(3), QuitsAtOnce()))
    assert result.failure == "you left the table"
    assert list(data.game_files()) == []
    assert not any((data.root / "private").glob("*"))
