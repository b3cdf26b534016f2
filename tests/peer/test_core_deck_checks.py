"""The deck's proof checks leave the core as a CheckDeck effect and come back as an input
(issue 13): a seat sends its own lock before its predecessors' proofs are checked, and a bad
proof is still caught and blamed on the seat that signed it, before any card is revealed."""

from __future__ import annotations

import copy
import dataclasses
from typing import Any

import core_harness
import pytest
from core_harness import SimNet, SimPeer, no_blame

from hanabi_p2p.deck import Check, OwnerKey, PublicKey, SharedKeys
from hanabi_p2p.log.entry import EntryKind
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.table import ABORTED, AUDITED
from hanabi_p2p.session.verify import Verdict, verify_game

# whole games of peer cores on the simulated network: too slow for the fast tier
pytestmark = pytest.mark.slow


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


def _flip_proof(kind_wanted: str, field_index: int, body: Any, position: int = 0) -> Any:
    """The first ``kind_wanted`` message's proof (of `position`, for a lock) with one bit
    flipped: well-formed, false."""
    body = copy.deepcopy(body)
    for message in body["deck"]:
        if message[0] == kind_wanted:
            blob = bytearray(message[field_index])
            blob[64 * position] ^= 0x01
            message[field_index] = bytes(blob)
    return body


def _cheat_before_signing(cheater: SimPeer, kind_wanted: str, position: int = 0) -> None:
    """The cheater signs a deck entry whose proof fails: evidence with its own signature."""
    take = cheater.session.take_posts

    @dataclasses.dataclass(frozen=True)
    class Tampered:
        """A post whose signed (wire) body is not the one the session made."""

        kind: EntryKind
        turn: int
        body: Any

        def wire(self) -> tuple[str, int, Any]:
            return (self.kind.value, self.turn, self.body)

    def tampered() -> list[Any]:
        out: list[Any] = []
        for post in take():
            kind, turn, body = post.wire()
            if kind == "deck":
                body = _flip_proof(kind_wanted, 3, body, position)
            out.append(Tampered(post.kind, turn, body))
        return out

    cheater.session.take_posts = tampered  # type: ignore[method-assign]


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


DEALT_4P = 16  # positions dealt before the first turn at 4 players (4 cards each)


@pytest.mark.parametrize("shell_delay", [0.0, 0.5], ids=["checks-done-first", "checks-late"])
def test_the_deal_waits_only_for_its_own_checks_and_a_draw_for_every_check(
        monkeypatch: pytest.MonkeyPatch, shell_delay: float) -> None:
    """A lock proof that fails at a position beyond the first deal: the deck is ready and
    dealt once the dealt positions' checks pass, and the cheat is blamed on its seat before
    any card beyond the deal is revealed, whether the shell's checks come back first or a
    draw has to run them itself (settle_checks)."""
    monkeypatch.setattr(core_harness, "CHECK_DELAY_S", shell_delay)
    net = SimNet(GameConfig(4), seed=41)
    net.open_table()
    net.run(lambda: all(p.session.seats for p in net.peers))
    cheater = next(p for p in net.peers if p.session.my_seat == 1)
    _cheat_before_signing(cheater, "deck.lock", position=DEALT_4P + 9)
    net.run(net.all_finished)
    honest = [p for p in net.peers if p is not cheater]
    # the first to find it blames the cheater; another may stop on its seed first (on its
    # word, blaming nobody), and its own checks, done after, still name the cheater (SPEC
    # 5.5); `log verify` blames the cheater on its signed lock
    for p in honest:
        assert p.session.phase == ABORTED and p.session.blamed == cheater.peer_id
        assert p.session.abort_reason is not None
        assert Check.LOCK_PROOF.value in p.session.abort_reason
        deck = p.session.deck
        assert deck is not None
        revealed = {m.position for seat, m in deck.transcript
                    if isinstance(m, OwnerKey | SharedKeys | PublicKey)}
        assert all(position < DEALT_4P for position in revealed)
        if shell_delay:  # the checks beyond the deal came back too late to stop the deal
            assert revealed and any(isinstance(e, ev.DeckReady) for e in p.events)
        report = verify_game(p.stored)
        assert [problem.author for problem in report.problems] == [cheater.peer_id]


def test_an_honest_game_whose_checks_come_back_late_still_finishes(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The first draws run the checks still pending themselves: same game, audited."""
    monkeypatch.setattr(core_harness, "CHECK_DELAY_S", 0.5)
    net = SimNet(GameConfig(3), seed=43)
    net.play_to_end()
    assert all(p.finished == fx.Finished(fx.EndKind.AUDITED, None) for p in net.peers)
    assert len(net.digests()) == 1 and no_blame(net)
