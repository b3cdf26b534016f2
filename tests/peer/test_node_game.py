"""A whole game between real nodes over loopback TCP, in one process: the deck's proof
checks run on each node's thread pool and received entries are fsync'd off the event loop,
and every peer still ends audited with every entry of the game in its log."""

from __future__ import annotations

import asyncio
import os
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.log.storage import load
from hanabi_p2p.peer import node as node_module
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


@pytest.mark.skipif(not sys.platform.startswith("linux"),
                    reason="a thread of its own niceness is a Linux feature")
def test_deck_check_threads_give_way_to_the_event_loop() -> None:
    """The node's deck-check threads start nicer than the rest of the program, so the
    shuffles and locks everyone waits for get a contended core first; the loop's own
    thread keeps its priority."""
    def niceness() -> int:
        return os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    before = niceness()
    with ThreadPoolExecutor(1, initializer=node_module._yield_to_the_loop) as pool:
        in_worker = pool.submit(niceness).result()
    assert in_worker == min(before + node_module.CHECK_THREAD_NICENESS, node_module.MAX_NICENESS)
    assert in_worker > before or before == node_module.MAX_NICENESS
    assert niceness() == before
