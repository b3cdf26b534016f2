"""A whole game between real nodes over loopback TCP, in one process: the deck's proof
checks run on each node's thread pool and received entries are fsync'd off the event loop,
and every peer still ends audited with every entry of the game in its log."""

from __future__ import annotations

import asyncio
from pathlib import Path

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.log.storage import load
from hanabi_p2p.peer.frontends import BotPlayer, Frontend
from hanabi_p2p.peer.launch import Peer, PeerOptions, host_table
from hanabi_p2p.rules.cards import GameConfig

PLAYERS = 3


def test_a_game_of_nodes_ends_audited_with_every_entry_in_every_log(tmp_path: Path) -> None:
    fronts: list[BotPlayer] = []

    def bot(_index: int) -> Frontend:
        front = BotPlayer(out=None)
        fronts.append(front)
        return front

    host_front = BotPlayer(out=None)
    opts = PeerOptions(name="host", data_dir=DataDir(tmp_path / "host"), interface="127.0.0.1",
                       advertise=False)
    result = asyncio.run(host_table(opts, "nodes", GameConfig(PLAYERS), host_front,
                                    bots=PLAYERS - 1, bot_frontend=bot))
    assert result.ok and result.audit_ok, result.failure
    nodes = []
    for front in [host_front, *fronts]:
        assert isinstance(front.peer, Peer) and front.peer.node is not None
        nodes.append(front.peer.node)
    assert len(nodes) == PLAYERS
    for node in nodes:
        applied = {entry.hash for entry in node.replica.applied}
        stored = load(node.log_path)
        assert stored.ok
        # every entry applied, ours and the received ones alike, is in the log
        assert {entry.hash for entry in stored.entries} == applied
        deck = node.session.deck
        assert deck is not None and deck.peer is not None and deck.peer.checks_pending == 0
