"""Seeded in-memory tables of every size and shape whose effect traces are pinned.

Each test asserts its table's honest outcome; `conftest.py` also compares every peer core's
effects with the recorded trace (`golden_traces.json`), so a change of behaviour anywhere in
the peer shows here first, even one no other assertion looks at.
"""

from __future__ import annotations

import pytest
from core_harness import SimNet, no_blame

from hanabi_p2p.peer import effects as fx
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.bodies import TableOption
from hanabi_p2p.session.table import PLAY

pytestmark = pytest.mark.slow  # whole games


@pytest.mark.parametrize("players", [2, 3, 4, 5])
@pytest.mark.parametrize("hands_shown", [False, True])
def test_a_watched_table_of_each_size_finishes_audited(players: int, hands_shown: bool) -> None:
    net = SimNet(GameConfig(players), seed=100 + players, answer_later=players % 2 == 0)
    options = frozenset({TableOption.SPECTATORS}) if hands_shown else frozenset()
    net.open_table(options)
    watcher = net.add_watcher("eve", via=players - 1)
    net.run(lambda: net.all_finished() and watcher.finished is not None)
    for p in net.peers:
        assert p.finished is not None and p.finished.kind is fx.EndKind.AUDITED, p.finished
    assert len(net.digests()) == 1
    assert no_blame(net)


@pytest.mark.parametrize("players", [3, 4])
def test_a_player_frozen_past_the_wait_timeout_ends_the_table_unreachable(players: int) -> None:
    net = SimNet(GameConfig(players), seed=200 + players)
    net.open_table()
    net.run(lambda: net.peers[0].session.phase == PLAY and net.peers[0].session.turn >= 4)
    net.freeze(players - 1)
    net.run(net.all_finished)
    for p in net.peers[: players - 1]:
        assert p.finished is not None and p.finished.kind is fx.EndKind.ABORTED
        assert "unreachable" in (p.finished.failure or "")
    assert no_blame(net)


@pytest.mark.parametrize("players", [2, 5])
def test_a_cut_cable_that_comes_back_loses_nothing(players: int) -> None:
    net = SimNet(GameConfig(players), seed=300 + players)
    net.open_table()
    net.run(lambda: net.peers[0].session.phase == PLAY and net.peers[0].session.turn >= 3)
    net.cut(1)
    net.run_for(20.0)
    net.cut(1, on=False)
    net.run(net.all_finished)
    for p in net.peers:
        assert p.finished is not None and p.finished.kind is fx.EndKind.AUDITED, p.finished
    assert len(net.digests()) == 1
    assert no_blame(net)
