"""A spectator's node over loopback TCP, in one process with a table of computer players:
what it stores is made durable in batches far apart (it never signs, so nothing of its own
covers them), and all of it by the time it ends, without waiting out the batch's delay."""

from __future__ import annotations

import asyncio
import os
import re
from pathlib import Path

import pytest

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.frontends.headless import BotPlayer, Frontend
from hanabi_p2p.frontends.launch import GameResult, Peer, PeerOptions, host_table, watch_address
from hanabi_p2p.log.storage import GameFile, load
from hanabi_p2p.peer import node as node_module
from hanabi_p2p.rules.cards import GameConfig

PLAYERS = 3
# far longer than the game: a spectator that waited it out would fail the test's timeout
LONG_DELAY_S = 120.0
GAME_TIMEOUT_S = 60.0
TABLE_OPEN = re.compile(r"table open at 127\.0\.0\.1:(\d+)")


class _Host(BotPlayer):
    """The host's computer player, which says where its table listens."""

    def __init__(self) -> None:
        super().__init__(out=None, delay=0.01)  # (a game long enough to be watched)
        self.port: asyncio.Future[int] | None = None

    def status(self, text: str) -> None:
        found = TABLE_OPEN.search(text)
        if found and self.port is not None and not self.port.done():
            self.port.set_result(int(found.group(1)))


@pytest.mark.socket
def test_a_spectator_syncs_what_it_stores_once_at_the_end_without_waiting_out_the_delay(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(node_module, "SPECTATOR_GROUP_COMMIT_DELAY_S", LONG_DELAY_S)
    synced: dict[Path, list[int]] = {}  # game file -> its size at each fsync
    sync = GameFile.sync

    def recording(game_file: GameFile) -> None:
        sync(game_file)
        synced.setdefault(game_file.path, []).append(game_file.path.stat().st_size)

    monkeypatch.setattr(GameFile, "sync", recording)
    host_front = _Host()
    spectator_front = Frontend()

    async def main() -> tuple[GameResult, GameResult]:
        host_front.port = asyncio.get_running_loop().create_future()
        opts = PeerOptions(name="host", data_dir=DataDir(tmp_path / "host"),
                           interface="127.0.0.1", advertise=False)
        table = asyncio.create_task(host_table(
            opts, "watched", GameConfig(PLAYERS), host_front, bots=PLAYERS - 1,
            bot_frontend=lambda _i: BotPlayer(out=None, delay=0.01)))
        port = await host_front.port
        watcher = PeerOptions(name="fan", data_dir=DataDir(tmp_path / "fan"),
                              interface="127.0.0.1", advertise=False)
        watched = asyncio.create_task(watch_address(watcher, "127.0.0.1", port,
                                                    spectator_front))
        return (await asyncio.wait_for(table, GAME_TIMEOUT_S),
                await asyncio.wait_for(watched, GAME_TIMEOUT_S))

    played, watched = asyncio.run(main())
    assert played.ok and played.audit_ok, played.failure
    assert watched.audit_ok, watched.failure
    assert isinstance(spectator_front.peer, Peer) and spectator_front.peer.node is not None
    node = spectator_front.peer.node
    stored = load(node.log_path)
    assert stored.ok
    assert {e.hash for e in stored.entries} == {e.hash for e in node.replica.applied}
    assert len(stored.entries) > 100  # (a whole game: the deal, every turn, the audit)
    # one fsync, once the game was over, of the whole file as it ended
    assert synced[node.log_path] == [os.path.getsize(node.log_path)]
