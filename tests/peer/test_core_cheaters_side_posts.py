"""Moves and chat lines beside the game (issue 29 case 3): a seated player's modified program
that signs too many of them in one turn is blamed alike by every honest peer and by every
``log verify``; an honest game with many moves verifies valid, however long.

Protocol 3 had no such rule: every program accepted 859 moves and ended the game valid,
while ``log verify`` of every copy held the moves before applying them and called the game
invalid at the 512th (a holding limit taken for a fault)."""

from __future__ import annotations

from collections.abc import Callable

from core_harness import SimNet, SimPeer, no_blame
from test_core_cheaters import no_blame_but

from hanabi_p2p.log.entry import EntryKind
from hanabi_p2p.log.replica import MAX_HELD_PER_AUTHOR
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.rules.actions import Move
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.pace import MAX_CHATS_PER_TURN, MAX_MOVES_PER_TURN, SidePosts
from hanabi_p2p.session.table import ABORTED, AUDITED
from hanabi_p2p.session.verify import Verdict, verify_game


class _NoLimits(SidePosts):
    """The cheater's program: it counts nothing, so it signs and applies whatever it likes."""

    def used(self, author: bytes, kind: EntryKind) -> int:
        return 0


def _reorder(net: SimNet, p: SimPeer) -> None:
    """One legal reorder of ``p``'s hand: its leftmost card to the right end."""
    state, seat = p.session.state, p.session.my_seat
    assert state is not None and seat is not None
    hand = state.hands[seat]
    net.command(p, fx.Act(Move(seat, hand[0], len(hand) - 1)))


def _flood_once(net: SimNet, cheater: SimPeer, post: Callable[[], None]) -> list[bool]:
    """Once the cheater's game is under way, run ``post`` in one burst, at most once."""
    done: list[bool] = []

    def watch() -> None:
        session = cheater.session
        if not done and session.state is not None and session.state.turn >= 2:
            done.append(True)
            post()
        if not net.all_finished():
            net._schedule(0.25, watch)

    net._schedule(0.25, watch)
    return done


def _check_one_blame(net: SimNet, cheater: SimPeer, reason: str) -> None:
    """Every honest peer stopped the game blaming the cheater, for ``reason``; every honest
    copy keeps the refused entry over the limit as the proof (issue 29 case 9), so its
    ``log verify`` is invalid there, naming the cheater alone, as the cheater's own copy
    is."""
    honest = [p for p in net.peers[: net.players] if p is not cheater]
    for p in honest:
        assert p.session.phase == ABORTED
        assert p.session.blamed == cheater.peer_id, p.session.abort_reason
        assert reason in (p.session.abort_reason or "")
        report = verify_game(p.stored)
        assert report.verdict is Verdict.INVALID, report.headline()
        assert {problem.author for problem in report.problems} == {cheater.peer_id}
        assert reason in report.problems[0].reason
    assert no_blame_but(net, cheater.peer_id)
    report = verify_game(cheater.stored)
    assert report.verdict is Verdict.INVALID, report.headline()
    assert {problem.author for problem in report.problems} == {cheater.peer_id}
    assert reason in report.problems[0].reason


def test_six_hundred_moves_in_one_turn_are_blamed_on_their_signer_live_and_in_every_log(
) -> None:
    net = SimNet(GameConfig(3), seed=71)
    _alice, _bob, mallory = net.peers
    mallory.session.side_posts = _NoLimits()

    def six_hundred_moves() -> None:
        for _ in range(600):
            _reorder(net, mallory)

    done = _flood_once(net, mallory, six_hundred_moves)
    net.play_to_end()
    assert done
    _check_one_blame(net, mallory, f"moved cards more than {MAX_MOVES_PER_TURN} times")


def test_a_chat_flood_is_blamed_on_its_signer_live_and_in_every_log() -> None:
    net = SimNet(GameConfig(3), seed=72)
    _alice, _bob, mallory = net.peers
    mallory.session.side_posts = _NoLimits()
    mallory.session._check_side_post = lambda kind: None  # type: ignore[method-assign]

    def flood() -> None:  # (the core's rate limit is the program's own: bypassed too)
        for i in range(MAX_CHATS_PER_TURN + 40):
            mallory.session.say(f"spam {i}")
            net._effects(mallory)

    done = _flood_once(net, mallory, flood)
    net.play_to_end()
    assert done
    _check_one_blame(net, mallory, f"said more than {MAX_CHATS_PER_TURN} lines")


def test_an_honest_program_refuses_a_move_over_the_limit_before_signing_it() -> None:
    from hanabi_p2p import refusals as rf

    net = SimNet(GameConfig(2), seed=73)
    net.open_table()
    alice = net.peers[0]
    net.run(lambda: alice.session.state is not None)
    for _ in range(MAX_MOVES_PER_TURN):
        _reorder(net, alice)
    signed = len(alice.stored)
    try:
        _reorder(net, alice)
    except rf.TooManyMoves as refusal:
        assert refusal.count == MAX_MOVES_PER_TURN
    else:
        raise AssertionError("the move over the limit was not refused")
    assert len(alice.stored) == signed  # nothing was signed
    net.run(net.all_finished)
    assert all(p.finished == fx.Finished(fx.EndKind.AUDITED, None) for p in net.peers)
    assert no_blame(net)


def test_an_honest_game_with_many_moves_every_turn_verifies_valid() -> None:
    """Every player reorders its hand 40 times before each of its actions: more moves per
    author than a live peer may hold (MAX_HELD_PER_AUTHOR), which no verifier may take for
    a fault. Every copy verifies valid, with one digest and the live score."""
    net = SimNet(GameConfig(3), seed=74)
    act = net._maybe_act

    def fidget_then_act(p: SimPeer) -> None:
        if p.bot and p.finished is None and p.session.can_act():
            for _ in range(40):
                _reorder(net, p)
        act(p)

    net._maybe_act = fidget_then_act  # type: ignore[method-assign]
    net.play_to_end()
    assert all(p.finished == fx.Finished(fx.EndKind.AUDITED, None) for p in net.peers)
    assert no_blame(net) and len(net.digests()) == 1
    for p in net.peers:
        moves = [e for e in p.stored if e.kind == "move" and e.author == p.peer_id]
        assert len(moves) > MAX_HELD_PER_AUTHOR
        report = verify_game(p.stored)
        assert report.verdict is Verdict.VALID, report.headline()
        state = p.session.state
        assert state is not None and report.state is not None
        assert report.state.score == state.score
        assert p.session.phase == AUDITED
