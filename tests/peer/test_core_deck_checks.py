"""The deck's proof checks leave the core as a CheckDeck effect and come back as an input
(issue 13): a seat sends its own lock before its predecessors' proofs are checked, and a bad
proof is still caught and blamed on the seat that signed it, before any card is revealed."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from core_harness import SimNet, SimPeer, no_blame

from hanabi_p2p.deck import Check
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.table import ABORTED, AUDITED
from hanabi_p2p.session.verify import Verdict, verify_game


def test_an_honest_table_runs_its_deck_checks_in_the_shell_and_finishes_audited() -> None:
    net = SimNet(GameConfig(5), seed=31)
    net.play_to_end()
    for p in net.peers:
        assert p.finished == fx.Finished(fx.EndKind.AUDITED, None), p.finished
        assert p.session.phase == AUDITED
        # four shuffles' sum proofs and four locks' position proofs, through CheckDeck
        assert p.checks_run > 0
        deck = p.session.deck
        assert deck is not None and deck.peer is not None and deck.peer.checks_pending == 0
    assert len(net.digests()) == 1
    assert no_blame(net)


def _flip_proof(kind_wanted: str, field_index: int, body: Any) -> Any:
    """The first ``kind_wanted`` message's proof with one bit flipped: well-formed, false."""
    body = copy.deepcopy(body)
    for message in body["deck"]:
        if message[0] == kind_wanted:
            blob = bytearray(message[field_index])
            blob[0] ^= 0x01
            message[field_index] = bytes(blob)
    return body


def _cheat_before_signing(cheater: SimPeer, kind_wanted: str) -> None:
    """The cheater signs a deck entry whose proof fails: evidence with its own signature."""
    take = cheater.session.take_outbox

    def tampered() -> list[tuple[str, int, Any]]:
        return [(kind, turn, _flip_proof(kind_wanted, 3, body) if kind == "deck" else body)
                for kind, turn, body in take()]

    cheater.session.take_outbox = tampered  # type: ignore[method-assign]


@pytest.mark.parametrize(("kind", "check"), [("deck.lock", Check.LOCK_PROOF),
                                             ("deck.shuffle", Check.SHUFFLE_PROOF)],
                         ids=["lock-proof", "shuffle-proof"])
def test_a_bad_proof_checked_in_the_shell_is_blamed_on_its_seat_before_any_reveal(
        kind: str, check: Check) -> None:
    net = SimNet(GameConfig(4), seed=37)
    net.open_table()
    net.run(lambda: all(p.session.seats for p in net.peers))
    cheater = next(p for p in net.peers if p.session.my_seat == 1)
    _cheat_before_signing(cheater, kind)
    net.run(net.all_finished)
    honest = [p for p in net.peers if p is not cheater]
    for p in honest:
        assert p.session.phase == ABORTED
        assert p.session.blamed == cheater.peer_id
        assert p.session.abort_reason is not None and check.value in p.session.abort_reason
        assert p.checks_run > 0  # the proof was checked by the shell, not on receipt
        # no card was revealed: the deck never became ready anywhere
        assert not any(isinstance(e, ev.DeckReady) for e in p.events)
        assert p.session.state is None
        # the cheat is in the log, signed: `log verify` blames the same player
        report = verify_game(p.stored)
        assert report.verdict is Verdict.INVALID
        assert [problem.author for problem in report.problems] == [cheater.peer_id]
    # the next seat built its own step on the cheater's before checking it: deferral was on
    successor = next(p for p in honest if p.session.my_seat == 2)
    deck = successor.session.deck
    assert deck is not None
    assert any(seat == 2 and kind == message.KIND for seat, message in deck.transcript)
