"""Issue 29, the verdicts: a seated cheater (a SimNet core with a few methods replaced)
against honest cores. No honest player is blamed on any screen or in any log, and every
honest copy's ``log verify`` names the cheater (and only it). One test per attack, named
after it."""

from __future__ import annotations

import dataclasses

import pytest
from core_harness import SimNet, SimPeer

from hanabi_p2p.deck.messages import Shuffle
from hanabi_p2p.deck.peer import DeckPeer
from hanabi_p2p.log.entry import Entry, decode_entry
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.context import Timing
from hanabi_p2p.rules.actions import Clue, TurnAction
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import events as ev
from hanabi_p2p.session import kinds as k
from hanabi_p2p.session.table import ABORTED
from hanabi_p2p.session.verify import Verdict, verify_game


def no_blame_but(net: SimNet, cheater: bytes) -> bool:
    """Nobody but ``cheater`` is blamed anywhere, and no fault names another peer."""
    for p in net.peers[: net.players]:
        if p.peer_id == cheater:
            continue
        if p.session.blamed not in (None, cheater):
            return False
        if any(f.peer_id not in (None, cheater) for f in p.faults()):
            return False
    return True


def names_only(p: SimPeer, cheater: bytes) -> None:
    """``log verify`` of this copy says invalid, and every problem is the cheater's."""
    report = verify_game(p.stored)
    assert report.verdict is Verdict.INVALID, report.headline()
    assert {problem.author for problem in report.problems} == {cheater}, report.problems


def forge_shuffle_of(monkeypatch: pytest.MonkeyPatch, cheater: SimPeer) -> None:
    """The cheater moves one base point from its shuffle's first point to its second: the
    sum is unchanged, so the sum proof still verifies (SPEC §2.9), but neither point is a
    card any more once the deck is unlocked."""
    made = DeckPeer._make_shuffle

    def forged(self: DeckPeer) -> Shuffle:
        honest = made(self)
        if self.seats[self.my_seat] != cheater.peer_id:
            return honest
        g = self.group
        points = list(honest.points)
        points[0] = g.add(points[0], g.base_point)
        points[1] = g.sub(points[1], g.base_point)
        return dataclasses.replace(honest, points=tuple(points))

    monkeypatch.setattr(DeckPeer, "_make_shuffle", forged)


def test_a_forged_shuffle_stops_the_game_blaming_nobody_and_the_audit_names_the_forger(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Mallory, seated last, forges two points of her shuffle keeping their sum. The first
    player to decode one of them stops the game blaming nobody (protocol 3 refused the entry
    that completed the card's keys, and blamed its honest author); every seat reveals its
    seed and the audit, live and in every log, names Mallory."""
    net = SimNet(GameConfig(3), seed=71)
    alice, bob, mallory = net.peers
    forge_shuffle_of(monkeypatch, mallory)
    net.play_to_end()
    forger = alice.session.seat_of(mallory.peer_id)
    for p in (alice, bob):
        assert p.session.phase == ABORTED  # stopped, audited, and stopped for good
        assert p.session.blamed is None
        assert "the deck is corrupt" in str(p.session.abort_reason)
        assert p.session.audit is not None and not p.session.audit.ok
        assert p.session.audit.blamed_seat == forger
        audited = [e for e in p.events if isinstance(e, ev.Audited)]
        assert audited and audited[-1].blamed_seat == forger
        names_only(p, mallory.peer_id)
    assert len(net.digests()) == 1
    assert no_blame_but(net, mallory.peer_id)


def test_a_forger_that_keeps_its_seed_back_is_named_by_every_honest_log(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Mallory forges her shuffle, then never reveals her seed, so the audit cannot run.
    The honest seeds prove it all the same: every other seat's steps reproduce and a card
    her key opens is no card. No honest player is blamed, and every honest log says
    invalid naming Mallory alone."""
    net = SimNet(GameConfig(3), seed=71, timing=Timing(wait_timeout=30.0, linger=5.0))
    alice, bob, mallory = net.peers
    forge_shuffle_of(monkeypatch, mallory)

    def keep_seed(src: int, dst: int, frame: fr.Frame) -> bool:
        return not (src == mallory.index and isinstance(frame, fr.Entry)
                    and decode_entry(frame.data).kind == "seed")

    net.on_frame = keep_seed
    net.play_to_end()
    for p in (alice, bob):
        assert p.session.phase == ABORTED
        assert p.session.blamed is None
        names_only(p, mallory.peer_id)
        assert "never revealed its seed" in verify_game(p.stored).headline()
    assert verify_game(alice.stored).digest == verify_game(bob.stored).digest
    assert no_blame_but(net, mallory.peer_id)


def test_a_player_gone_without_its_seed_is_not_named_by_the_withheld_seed_audit() -> None:
    """The same audit never names an honest player who simply left: without a card that
    decodes to no card nothing is proven, and the log stays unfinished."""
    net = SimNet(GameConfig(3), seed=72, timing=Timing(wait_timeout=30.0, linger=5.0))
    alice, bob, carol = net.peers

    def keep_seed(src: int, dst: int, frame: fr.Frame) -> bool:
        return not (src == carol.index and isinstance(frame, fr.Entry)
                    and decode_entry(frame.data).kind == "seed")

    net.on_frame = keep_seed
    net.open_table()
    net.run(lambda: alice.session.state is not None and alice.session.state.turn >= 3)
    net.command(carol, fx.Resign("enough"))
    net.run(lambda: alice.finished is not None and bob.finished is not None)
    for p in (alice, bob):
        report = verify_game(p.stored)
        assert report.verdict is Verdict.UNFINISHED, report.headline()
        assert report.missing_seeds


def test_a_false_clue_in_a_two_player_game_fails_the_live_end_as_it_fails_the_log() -> None:
    """Mallory's clue names, among Alice's cards, one it does not touch. Alice cannot see
    her hand, so nobody checks it during the game (protocol 3 ended it `deck audit: valid`
    while `log verify` said invalid). The live end checks every clue against the audited
    faces: both copies' live verdict names Mallory, as `log verify` does."""
    net = SimNet(GameConfig(2), seed=77)
    alice, mallory = net.peers
    session = mallory.session
    honest_take = session.take_action
    lied: list[int] = []

    def lying_take(action: TurnAction) -> None:
        state = session.state
        assert state is not None
        # (in the last round: the card it lies about is then seldom revealed by a play)
        if lied or not isinstance(action, Clue) or state.final_round_turns_left is None:
            honest_take(action)
            return
        truth = session._with_touched(action)
        extra = [card for card in state.hands[action.target]
                 if card not in (truth.touched or ()) and not state.clues[card]]
        if not extra:
            honest_take(action)
            return
        lie = dataclasses.replace(truth, touched=frozenset({*(truth.touched or ()), extra[0]}))
        digest = session._my_hash(state.turn) or state.public_hash()
        lied.append(state.turn)
        session._post(k.ACTION, b.ActionBody(lie, digest, ()))

    honest_on_action = session._on_action

    def blind_to_own_lie(entry: Entry, body: b.ActionBody) -> None:
        # (the cheater's program takes its own lie: it checks it as the target would,
        # with the target's faces out of sight)
        state = session.state
        seat = session.seat_of(entry.author)
        action = body.for_seat(seat).action if seat is not None else None
        if entry.author != mallory.peer_id or not isinstance(action, Clue) or state is None:
            honest_on_action(entry, body)
            return
        hand = list(state.hands[action.target])
        hidden = [(card, state.faces[card], state._fi[card]) for card in hand]
        for card in hand:
            state.faces[card], state._fi[card] = None, -1
        try:
            honest_on_action(entry, body)
        finally:
            for card, face, index in hidden:
                state.faces[card], state._fi[card] = face, index

    session.take_action = lying_take  # type: ignore[method-assign]
    session._on_action = blind_to_own_lie  # type: ignore[method-assign]
    net.play_to_end()
    assert lied
    for p in (alice, mallory):
        audit = p.session.audit
        assert audit is not None and not audit.ok
        assert audit.blamed_seat == p.session.seat_of(mallory.peer_id)
        assert "clue" in audit.reason
    assert alice.session.blamed is None
    names_only(alice, mallory.peer_id)
    report = verify_game(alice.stored)
    assert "clue touches" in report.problems[0].reason
    assert no_blame_but(net, mallory.peer_id)
