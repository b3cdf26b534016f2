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


def test_observer_with_audited_faces_replays_the_same_game() -> None:
    """The log verifier's path: an unseated observer, given the faces the deck audit
    decoded, replays every entry to the same final state and checks every clue."""
    from hanabi_p2p.identity import Identity
    from hanabi_p2p.log.replica import Replica, Status
    from session_harness import TABLE_ID

    table = Table(GameConfig(3), seed=11)
    table.seat_everyone()
    table.play(random_choice(random.Random(11)))
    table.pump()
    first = table.peers[0]
    audit = first.session.audit
    assert audit is not None and audit.ok and len(audit.faces) == 50
    observer = TableSession(Identity.from_seed(b"\x99" * 32), TABLE_ID, seed=bytes(32),
                            known_faces=audit.faces)
    replica = Replica(TABLE_ID, observer)
    for entry in reversed(first.replica.applied):  # worst-case order
        assert replica.add(entry).status is not Status.REJECTED
    assert observer.state is not None
    assert observer.state.public_hash() == first.session.state.public_hash()
    assert observer.take_outbox() == []
    assert observer.phase == AUDITED and observer.audit is not None and observer.audit.ok


@pytest.mark.parametrize("players", [2, 4, 5])
def test_overlapping_turns_full_games_with_bots(players: int) -> None:
    """Players act the moment they can while other answers are still in flight (as over a
    real network); whole games with the computer player end normally and agree."""
    from hanabi_p2p.bots.simple import choose_action

    table = Table(GameConfig(players), seed=100 + players)
    table.seat_everyone()
    table.pump(eager=lambda s: choose_action(s.state, s.my_seat))
    final = {p.session.state.public_hash() for p in table.peers}
    assert len(final) == 1
    for p in table.peers:
        assert p.rejected == []
        assert p.session.phase == AUDITED and p.session.audit.ok
        assert p.session.state.end.value in ("normal", "perfect")
        assert p.session.state.score >= 10  # a sensible bot game, not a strikeout
