"""Whole games among in-memory peers: every peer computes the same game, nobody sees its own
hand, and the deck audit passes at the end."""

from __future__ import annotations

import random

import pytest

from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.table import AUDITED, TableSession

from session_harness import Table


def random_choice(rng: random.Random):
    def choose(session: TableSession):
        assert session.state is not None
        return rng.choice(session.state.legal_actions())
    return choose


@pytest.mark.parametrize("players", [2, 3, 5])
def test_full_game_all_peers_agree_and_audit_passes(players: int) -> None:
    table = Table(GameConfig(players), seed=players)
    table.seat_everyone()
    table.pump()
    table.play(random_choice(random.Random(players)))
    table.pump()
    hashes = {p.session.state.public_hash() for p in table.peers}
    assert len(hashes) == 1
    for p in table.peers:
        assert p.rejected == []
        assert p.session.phase == AUDITED, p.session.phase
        assert p.session.audit is not None and p.session.audit.ok
        assert p.session.state.over
