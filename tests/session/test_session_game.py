"""Whole games among in-memory peers: every peer computes the same game, nobody sees its own
hand, and the deck audit passes at the end."""

from __future__ import annotations

import random

import pytest
from session_harness import Table, bot_action

from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.bodies import Address
from hanabi_p2p.session.table import ABORTED, AUDITED, TableSession
from hanabi_p2p.session.verify import verify_game

# whole games between in-memory peers, often in many delivery orders: too slow for the fast tier
pytestmark = pytest.mark.slow


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
    from session_harness import TABLE_ID

    from hanabi_p2p.identity import Identity
    from hanabi_p2p.log.replica import Replica, Status

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
    table = Table(GameConfig(players), seed=100 + players)
    table.seat_everyone()
    table.pump(eager=bot_action)
    final = {p.session.state.public_hash() for p in table.peers}
    assert len(final) == 1
    for p in table.peers:
        assert p.rejected == []
        assert p.session.phase == AUDITED and p.session.audit.ok
        assert p.session.state.end.value in ("normal", "perfect")
        assert p.session.state.score >= 10  # a sensible bot game, not a strikeout


@pytest.mark.parametrize("crash_after", [5, 40, 90])
def test_peer_resumed_from_its_log_finishes_the_game(crash_after: int) -> None:
    """A peer that crashes is rebuilt from its stored entries and seed (no memory kept),
    posts nothing twice, and the game finishes and audits for everyone."""
    from hanabi_p2p.log.replica import Replica

    table = Table(GameConfig(3), seed=7)
    table.seat_everyone()
    victim = table.peers[1]
    _run_bots(table, crash_after)  # run a while with eager bots, one delivery at a time
    stored = list(victim.replica.applied)
    seed = victim.session._seed
    fresh = TableSession(victim.identity, victim.session.table_id, seed=seed,
                         host_id=victim.session.host_id)
    replica = Replica(victim.session.table_id, fresh)
    for e in stored:
        if e.author == victim.identity.peer_id:
            fresh.note_own(e)
    for e in stored:
        replica.add(e)
    victim.session, victim.replica = fresh, replica
    table.flush(victim)  # whatever it still owed, never a second version of anything
    table.pump(eager=bot_action)
    for p in table.peers:
        assert p.rejected == [], p.rejected
        assert p.session.phase == AUDITED and p.session.audit.ok
    assert len({p.session.state.public_hash() for p in table.peers}) == 1


def _run_bots(table: Table, deliveries: int) -> None:
    for _ in range(deliveries):
        for p in table.peers:
            if p.session.can_act():
                p.session.take_action(bot_action(p.session))
                table.flush(p)
        if not table.deliver_one():
            return


@pytest.mark.parametrize("deliveries", [0, 25, 60, 61, 62])
def test_resignation_mid_turn_ends_the_game_the_same_for_everyone(deliveries: int) -> None:
    """A player resigning while another's play is still in flight: everyone ends the game
    at the same point (terminated), with the same state, and the deck audit passes."""
    table = Table(GameConfig(2), seed=21)
    table.seat_everyone()
    _run_bots(table, deliveries)
    table.peers[1].session.resign("had to go")
    table.flush(table.peers[1])
    table.pump(eager=bot_action)
    assert len({p.session.state.public_hash() for p in table.peers}) == 1
    for p in table.peers:
        assert p.rejected == []
        assert p.session.state.end.value == "terminated"
        assert p.session.phase == AUDITED and p.session.audit.ok


def test_a_peer_that_aborts_still_collects_every_seed_and_audits() -> None:
    table = Table(GameConfig(3), seed=5)
    table.seat_everyone()
    _run_bots(table, 40)
    victim = table.peers[2].session
    assert victim.pending is not None or victim.state is not None
    victim.abort(None, "the user pulled the plug")
    table.flush(table.peers[2])
    table.pump()
    for p in table.peers:
        assert len(p.session.seeds_from) == 3
        assert p.session.audit is not None and p.session.audit.ok


@pytest.mark.parametrize("delivery_seed", range(6))
def test_a_resignation_the_moment_the_deck_is_dealt_ends_the_game_the_same_for_everyone(
    delivery_seed: int,
) -> None:
    """Issue 14, item 1: the host resigns at turn 1 as soon as its own deal is done, while
    the others are still shuffling, locking or dealing. A resignation applies only once
    dealt, at its author's turn: every peer ends terminated at turn 1, audited, and the
    verifier finds the game valid, whatever the keys and the delivery order."""
    table = Table(GameConfig(3), seed=100 + delivery_seed)
    table.seat_everyone()  # the host resigns during the deck exchange that follows
    host = table.peers[0]
    while host.session.state is None:
        assert table.deliver_one()
    host.session.resign("changed my mind")
    table.flush(host)
    table.pump()
    for p in table.peers:
        assert p.rejected == []
        assert p.session.state is not None and p.session.state.end.value == "terminated"
        assert p.session.state.turn == 0
        assert p.session.phase == AUDITED and p.session.audit is not None and p.session.audit.ok
    entries = {e.hash: e for p in table.peers for e in p.replica.applied}.values()
    assert verify_game(entries).ok


def test_leaving_before_the_deal_reveals_the_seed_and_stops_everyone() -> None:
    """There is no turn to resign at before the deal: leaving then is a seed with a reason
    (SPEC 5.3), and every peer stops; nobody is blamed."""
    table = Table(GameConfig(2), seed=7)
    host = table.peers[0]
    host.session.open_table("t", "p0", table.config)
    table.pump()
    table.peers[1].session.request_seat("p1", Address("127.0.0.1", 40001))
    table.pump()
    host.session.seat_players(Address("127.0.0.1", 40000))
    table.flush(host)
    while table.peers[1].session.my_seat is None:  # seated, the deck not yet done
        assert table.deliver_one()
    assert table.peers[1].session.state is None
    table.peers[1].session.resign("")
    assert table.peers[1].session.phase == ABORTED
    table.flush(table.peers[1])
    table.pump()
    for p in table.peers:
        assert p.session.phase == ABORTED and p.session.blamed is None
        assert p.session.state is None
