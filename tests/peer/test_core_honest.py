"""Honest tables through the real peer core, in memory, under a fake clock."""

from __future__ import annotations

import pytest
from core_harness import SimNet, no_blame

from hanabi_p2p.peer import effects as fx
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.table import AUDITED


@pytest.mark.parametrize("players", [2, 3, 5])
def test_honest_table_finishes_audited_with_one_log(players: int) -> None:
    net = SimNet(GameConfig(players), seed=players)
    net.play_to_end()
    for p in net.peers:
        assert p.finished == fx.Finished(fx.EndKind.AUDITED, None), p.finished
        assert p.session.phase == AUDITED
        assert p.session.audit is not None and p.session.audit.ok
        assert not p.faults() and not p.link_problems()
    assert len(net.digests()) == 1
    assert no_blame(net)


def test_events_reach_the_front_end_in_the_order_they_happened() -> None:
    """The host hears 'Bob sits down' before 'everyone is seated', and the deal after that:
    nothing a reaction causes overtakes what caused it."""
    net = SimNet(GameConfig(2), seed=7)
    net.play_to_end()
    kinds = [type(e).__name__ for e in net.peers[0].events]
    joined, changed = kinds.index("PlayerJoined"), kinds.index("LobbyChanged")
    seated, ready = kinds.index("Seated"), kinds.index("DeckReady")
    assert joined < changed < seated < ready
    assert kinds.index("GameOver") < kinds.index("Audited")
