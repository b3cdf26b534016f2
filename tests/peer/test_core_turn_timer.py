"""A table opened with a turn timer (`host --turn-timer SECONDS`, SPEC 5.6): a turn that lasts
longer ends the game "timed out" for everyone, nobody blamed, even though the player to move
is connected and answering (without a timer such a player is thinking: never timed out)."""

from __future__ import annotations

from core_harness import SimNet, SimPeer, no_blame

from hanabi_p2p.peer import inputs as ins
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.table import ABORTED, PLAY
from hanabi_p2p.session.verify import Verdict, verify_game


def _open(net: SimNet, turn_timer: int | None, total_clock: int | None = None) -> None:
    """The harness's open_table, with the host's turn timer and total clock."""
    host = net.peers[0]
    host.session.open_table("test table", "p0", net.config, turn_timer=turn_timer,
                            total_clock=total_clock)
    host.core.handle(ins.Start(net.now))
    net._effects(host)
    for p in net.peers[1: net.players]:
        net.connect(p.index, 0)


def _stall_at_turn(net: SimNet, turn: int) -> SimPeer:
    """Bots play until ``turn``; the player to move then stops (it stays linked and answers:
    its program is there, it just does not move)."""
    host = net.peers[0]
    net.run(lambda: host.session.state is not None and host.session.state.turn >= turn)
    state = host.session.state
    assert state is not None
    mover = next(p for p in net.peers if p.session.my_seat == state.current_seat)
    mover.bot = False
    return mover


def test_a_turn_over_the_tables_timer_ends_the_game_timed_out_blaming_nobody() -> None:
    net = SimNet(GameConfig(3), seed=91)
    _open(net, turn_timer=30)
    assert all(p.session.table is None or p.session.table.turn_timer == 30 for p in net.peers)
    mover = _stall_at_turn(net, 3)
    started = net.now
    net.run(net.all_finished, limit_s=600)
    assert 30 < net.now - started < 60  # the timer, not the 60 s wait timeout of the net
    for p in net.peers:
        assert p.session.table is not None and p.session.table.turn_timer == 30
        assert p.session.phase == ABORTED
        assert p.session.blamed is None
    others = [p for p in net.peers if p is not mover]
    assert any("timed out (the table's turn timer is 30 s)" in (p.session.abort_reason or "")
               for p in others)
    assert no_blame(net) and len(net.digests()) == 1
    for p in net.peers:
        report = verify_game(p.stored)
        assert report.verdict is Verdict.UNFINISHED, report.headline()
        assert report.stopped is not None and "timed out" in report.stopped
        assert "turn timer 30 s" in report.table_options


def test_without_a_timer_a_player_who_thinks_is_never_timed_out() -> None:
    net = SimNet(GameConfig(3), seed=91)
    _open(net, turn_timer=None)
    _stall_at_turn(net, 3)
    net.run_for(300.0)  # five times the net's wait timeout
    assert all(p.finished is None and p.session.phase == PLAY for p in net.peers)


def test_the_turn_timer_is_part_of_table_open_once_and_in_range() -> None:
    import pytest

    from hanabi_p2p.session.bodies import MAX_TURN_TIMER_S, BadBody, TableOpen

    table = TableOpen("t", "p0", GameConfig(2), turn_timer=45)
    assert table.to_wire()["timer"] == 45
    assert TableOpen.from_wire(table.to_wire()) == table
    assert "timer" not in TableOpen("t", "p0", GameConfig(2)).to_wire()  # as before
    for bad in (0, MAX_TURN_TIMER_S + 1, True, "45"):
        with pytest.raises(BadBody):
            TableOpen.from_wire({**table.to_wire(), "timer": bad})


# --- a total clock per player ------------------------------------------------------------


def test_a_players_turns_over_the_total_clock_end_the_game_timed_out_blaming_nobody() -> None:
    net = SimNet(GameConfig(3), seed=91)
    _open(net, turn_timer=None, total_clock=40)
    mover = _stall_at_turn(net, 3)
    started = net.now
    net.run(net.all_finished, limit_s=600)
    assert 35 < net.now - started < 60  # its clock (nearly all of it left), not the net's 60 s
    assert all(p.session.phase == ABORTED and p.session.blamed is None for p in net.peers)
    others = [p for p in net.peers if p is not mover]
    assert any("lasted longer than the table's total clock of 40 s" in
               (p.session.abort_reason or "") for p in others)
    assert no_blame(net) and len(net.digests()) == 1
    report = verify_game(net.peers[0].stored)
    assert report.verdict is Verdict.UNFINISHED and "total clock 40 s" in report.table_options


def test_the_total_clock_adds_up_a_players_turns_as_timed_here() -> None:
    from hanabi_p2p.peer.waits import WaitClock
    from hanabi_p2p.session.waiting import WaitKind

    clock = WaitClock(wait_timeout=None)
    turn = WaitKind.TURN
    thinking = lambda seat: None  # noqa: E731 (every player is there, thinking)
    clock.update([(1, turn)], now=0.0)
    clock.update([(2, turn)], now=25.0)  # seat 1 took 25 s
    clock.update([(1, turn)], now=30.0)
    assert clock.spent == {1: 25.0, 2: 5.0}
    assert clock.overdue(44.0, 0, thinking, total_clock=40) is None  # 25 + 14 s
    late = clock.overdue(46.0, 0, thinking, total_clock=40)  # 25 + 16 s
    assert late is not None and late.seat == 1 and late.total_clock and late.waited == 41.0
    assert clock.overdue(46.0, 1, thinking, total_clock=40) is None  # never our own seat


def test_the_total_clock_is_part_of_table_open_once_and_in_range() -> None:
    import pytest

    from hanabi_p2p.session.bodies import MAX_TOTAL_CLOCK_S, BadBody, TableOpen

    table = TableOpen("t", "p0", GameConfig(2), turn_timer=45, total_clock=600)
    assert table.to_wire()["clock"] == 600
    assert TableOpen.from_wire(table.to_wire()) == table
    assert "clock" not in TableOpen("t", "p0", GameConfig(2)).to_wire()  # as before
    for bad in (0, MAX_TOTAL_CLOCK_S + 1, True, "600"):
        with pytest.raises(BadBody):
            TableOpen.from_wire({**table.to_wire(), "clock": bad})
