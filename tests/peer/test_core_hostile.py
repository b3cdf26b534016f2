"""Attacks and faults against the peer core, in memory: one test per case, each asserting
the honest outcome (the game finishes, or ends "unreachable"; nobody honest is blamed)."""

from __future__ import annotations

import dataclasses

import pytest
from core_harness import SimNet, no_blame, safe_command

from hanabi_p2p import refusals as rf
from hanabi_p2p.log.entry import decode_entry, make_entry
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer import inputs as ins
from hanabi_p2p.peer.admission import MAX_LOBBY_JOINERS
from hanabi_p2p.peer.context import Timing
from hanabi_p2p.peer.lobby import LEFT_TOPIC, REMOVED_TOPIC
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.table import ABORTED, AUDITED, PLAY

# whole games of peer cores on the simulated network: too slow for the fast tier
pytestmark = pytest.mark.slow


def finished_ok(net: SimNet) -> bool:
    return all(p.finished is not None and p.finished.kind is fx.EndKind.AUDITED
               and p.session.phase == AUDITED for p in net.peers[: net.players])


def mid_game(net: SimNet, turn: int = 5) -> None:
    net.open_table()
    net.run(lambda: net.peers[0].session.phase == PLAY
            and net.peers[0].session.turn >= turn)


def test_tampered_frames_close_the_link_and_blame_nobody() -> None:
    """A relay flips a bit in Bob -> Carol frames again and again: each time the AEAD
    refuses it and the link is redialled; the game finishes, nobody is blamed."""
    net = SimNet(GameConfig(3), seed=11)
    count = 0

    def relay(src: int, dst: int, frame: fr.Frame) -> bool:
        nonlocal count
        if (src, dst) == (1, 2) and isinstance(frame, fr.Entry) and count < 20:
            count += 1
            net.tamper(1, 2)
            return False
        return True

    net.on_frame = relay
    net.play_to_end()
    assert count == 20
    assert finished_ok(net) and no_blame(net)
    assert len(net.digests()) == 1
    assert len(net.peers[2].link_problems()) == 20
    assert not any(f.fatal for p in net.peers for f in p.faults())


def test_an_entry_that_does_not_verify_blames_neither_its_author_nor_the_link() -> None:
    """A peer passes on a copy of Bob's entry with one signature bit flipped (a buggy or
    hostile relay that holds a real link): Carol notes a link problem and goes on; Bob,
    whose signature it does not carry, is not blamed."""
    net = SimNet(GameConfig(3), seed=12)
    flipped = 0

    def relay(src: int, dst: int, frame: fr.Frame) -> bool:
        nonlocal flipped
        if (src, dst) == (0, 2) and isinstance(frame, fr.Entry) and flipped < 3:
            data = bytearray(frame.data)
            data[-1] ^= 1  # the signature's last byte
            flipped += 1
            net.peers[2].core.handle(
                ins.Received(net.peers[0].peer_id, fr.Entry(bytes(data)), net.now))
            net._effects(net.peers[2])
        return True

    net.on_frame = relay
    net.play_to_end()
    assert flipped == 3
    assert finished_ok(net) and no_blame(net)
    assert len(net.peers[2].link_problems()) == 3


def test_a_relay_swallowing_one_direction_cannot_stop_the_game() -> None:
    """Everything Bob sends Carol vanishes for the whole game (TCP kept up): Carol's link
    to Bob idles out and cannot come back, yet Bob's entries reach her through Alice."""
    net = SimNet(GameConfig(3), seed=13)
    net.open_table()
    net.run(lambda: net.peers[0].session.seats != ())
    net.blackhole(1, 2)
    net.run(net.all_finished)
    assert finished_ok(net) and no_blame(net)
    assert len(net.digests()) == 1


def test_a_peer_stuck_on_its_turn_with_its_link_up_ends_unreachable_not_blamed() -> None:
    """Bob's program hangs on his turn while a relay keeps his links up: his HAVE stops,
    so he is not 'thinking'; after the wait timeout the table ends 'unreachable'."""
    net = SimNet(GameConfig(3), seed=14, timing=Timing(wait_timeout=60.0, linger=5.0))
    net.open_table()
    net.run(lambda: net.peers[0].session.phase == PLAY
            and net.peers[0].session.state is not None
            and net.peers[0].session.state.current_seat == 1)
    net.stall(1)
    waited = net.run(lambda: all(p.finished is not None for p in (net.peers[0], net.peers[2])))
    assert waited >= 60.0
    for p in (net.peers[0], net.peers[2]):
        assert p.session.phase == ABORTED
        assert p.session.blamed is None
        assert p.finished is not None and p.finished.failure is not None
        assert "unreachable" in p.finished.failure and "p1" in p.finished.failure
    assert no_blame(net)


def test_a_player_thinking_longer_than_the_wait_timeout_is_never_timed_out() -> None:
    net = SimNet(GameConfig(2), seed=15, timing=Timing(wait_timeout=30.0, linger=5.0))
    net.peers[1].bot = False
    net.open_table()
    net.run(net.peers[1].session.can_act)
    net.run_for(200.0)  # he thinks for over three minutes
    assert all(p.finished is None for p in net.peers)
    assert all(p.session.phase == PLAY for p in net.peers)
    net.peers[1].bot = True
    net.run(net.all_finished)
    assert finished_ok(net) and no_blame(net)


def test_a_partition_that_heals_loses_nothing() -> None:
    net = SimNet(GameConfig(4), seed=16, timing=Timing(wait_timeout=120.0, linger=5.0))
    mid_game(net)
    net.cut(2)
    net.run_for(20.0)  # longer than the idle timeout: links drop, redials fail
    net.cut(2, on=False)
    net.run(net.all_finished)
    assert finished_ok(net) and no_blame(net)
    assert len(net.digests()) == 1


def test_a_cut_during_the_end_of_game_audit_does_not_hang_anyone() -> None:
    """One peer's cable goes out right after the last turn, for 20 s: every peer still
    gets every seed, audits, and stops (nobody waits for ever, nobody is blamed)."""
    net = SimNet(GameConfig(5), seed=17, timing=Timing(wait_timeout=120.0, linger=60.0))
    net.open_table()
    net.run(lambda: any(p.session.state is not None and p.session.state.over
                        for p in net.peers))
    net.cut(2)
    net.run_for(20.0)
    net.cut(2, on=False)
    net.run(net.all_finished)
    assert finished_ok(net) and no_blame(net)
    assert len(net.digests()) == 1


def test_a_peer_that_sleeps_past_the_timeout_blames_nobody_when_it_wakes() -> None:
    """Carol's process is stopped longer than the wait timeout. The others end the game
    'unreachable' naming her; when she wakes she learns why and blames no one."""
    net = SimNet(GameConfig(3), seed=18, timing=Timing(wait_timeout=30.0, linger=120.0))
    mid_game(net)
    net.freeze(2)
    # the others give up on her and linger, passing their seeds on to anyone who comes back
    net.run(lambda: all(p.session.phase == ABORTED for p in net.peers[:2]), limit_s=600)
    net.run_for(10.0)
    net.freeze(2, on=False)
    net.run(lambda: net.peers[2].finished is not None, limit_s=600)
    carol = net.peers[2]
    assert carol.session.phase == ABORTED
    assert carol.session.blamed is None
    assert carol.session.abort_reason is not None and "p2" in carol.session.abort_reason
    assert no_blame(net)


def test_equivocation_by_a_seated_player_is_blamed_on_that_player() -> None:
    """Two different entries signed by Bob with one number: signed evidence, so Bob (and
    only Bob) is blamed."""
    net = SimNet(GameConfig(3), seed=19)
    mid_game(net)
    bob = net.peers[1]
    last = bob.stored[-1] if bob.stored[-1].author == bob.peer_id else next(
        e for e in reversed(bob.stored) if e.author == bob.peer_id)
    twin = make_entry(bob.identity, table_id=last.table_id, seq=last.seq, prev=last.prev,
                      turn=last.turn, kind="chat", body={"text": "the other story"})
    alice = net.peers[0]
    alice.core.handle(ins.Received(bob.peer_id, fr.Entry(twin.encoded), net.now))
    net._effects(alice)
    assert alice.session.phase == ABORTED
    assert alice.session.blamed == bob.peer_id
    net.run(lambda: all(p.finished is not None for p in net.peers))
    assert all(p.session.blamed in (None, bob.peer_id) for p in net.peers)


def test_strangers_in_the_lobby_are_capped_and_the_host_seats_whom_it_chooses() -> None:
    """Twelve strangers ask for the two free seats of a 3-player table before the real
    players: the host keeps at most a fixed number, HAVE/WANT stay within their limits,
    the host removes the strangers and starts with Bob and Carol."""
    strangers = 12
    net = SimNet(GameConfig(3), seed=20, auto_start=False, extra=strangers)
    host = net.peers[0]
    host.session.open_table("test table", "p0", net.config)
    host.core.handle(ins.Start(net.now))
    net._effects(host)
    for s in net.peers[3:]:
        net.connect(s.index, 0)
    net.run_for(2.0)
    for p in net.peers[1:3]:
        net.connect(p.index, 0)
    net.run_for(2.0)
    waiting = [peer_id for peer_id, _ in host.core.lobby()]
    assert len(waiting) <= MAX_LOBBY_JOINERS
    assert host.core.counters.strangers_refused > 0
    assert len(host.core.replication.have()) <= fr.MAX_AUTHORS
    real = {net.peers[1].peer_id, net.peers[2].peer_id}
    if not real <= set(waiting):
        # the real players were over the cap: make room by removing strangers
        for peer_id in waiting:
            if peer_id not in real:
                assert safe_command(net, host, fx.Kick(peer_id)) is None
        net.run_for(3.0)
        waiting = [peer_id for peer_id, _ in host.core.lobby()]
    for peer_id in waiting:
        if peer_id not in real:
            assert safe_command(net, host, fx.Kick(peer_id)) is None
    net.run_for(3.0)
    assert {p for p, _ in host.core.lobby()} == real
    assert safe_command(net, host, fx.Start()) is None
    net.run(lambda: all(p.finished is not None for p in net.peers[:3]))
    assert finished_ok(net) and no_blame(net)
    seated = {s.peer_id for s in host.session.seats}
    assert seated == real | {host.peer_id}


def test_start_before_the_table_is_full_is_refused_with_a_reason() -> None:
    net = SimNet(GameConfig(3), seed=21, auto_start=False)
    net.peers[2].frozen = True  # never arrives
    net.open_table()
    net.run_for(2.0)
    assert len(net.peers[0].core.lobby()) == 1
    reason = safe_command(net, net.peers[0], fx.Start())
    assert reason is not None and "waiting for 1 more" in reason
    assert net.peers[0].session.seats == ()


def test_a_lobby_that_never_fills_ends_with_a_reason() -> None:
    net = SimNet(GameConfig(3), seed=22, timing=Timing(lobby_timeout=30.0, linger=1.0))
    host = net.peers[0]
    host.session.open_table("test table", "p0", net.config)
    host.core.handle(ins.Start(net.now))
    net._effects(host)
    net.run(lambda: host.finished is not None, limit_s=100)
    assert host.finished is not None and host.finished.failure is not None
    assert "did not fill" in host.finished.failure


def test_table_talk_is_rate_limited_at_the_sender() -> None:
    net = SimNet(GameConfig(2), seed=23)
    mid_game(net, turn=1)
    alice = net.peers[0]
    refusals = [safe_command(net, alice, fx.Say(f"hello {i}")) for i in range(8)]
    assert refusals[:5] == [None] * 5
    assert all(r is not None and "slow down" in r for r in refusals[5:])


def test_an_entry_flood_on_one_link_is_bounded_and_loses_nothing() -> None:
    """A peer replays thousands of copies of old entries at us in an instant: past the
    burst they are dropped unread (counted), and the game still finishes."""
    net = SimNet(GameConfig(2), seed=24)
    mid_game(net, turn=2)
    alice, bob = net.peers
    old = [e for e in bob.stored if e.author == bob.peer_id]
    for i in range(5000):
        alice.core.handle(ins.Received(bob.peer_id, fr.Entry(old[i % len(old)].encoded), net.now))
    net._effects(alice)
    assert alice.core.counters.rate_dropped > 0
    net.run(net.all_finished)
    assert finished_ok(net) and no_blame(net)


def test_frames_from_strangers_after_seating_are_refused_and_never_synced() -> None:
    net = SimNet(GameConfig(2), seed=25, extra=1)
    mid_game(net, turn=1)
    alice, stranger = net.peers[0], net.peers[2]
    entry = make_entry(stranger.identity, table_id=net.peers[0].session.table_id, seq=0,
                       prev=bytes(32), turn=0, kind="chat", body={"text": "let me in"})
    before = alice.core.counters.strangers_refused
    alice.core.handle(ins.Received(stranger.peer_id, fr.Entry(entry.encoded), net.now))
    net._effects(alice)
    assert alice.core.counters.strangers_refused == before + 1
    assert stranger.peer_id not in alice.core.replication.have()
    net.run(net.all_finished)
    assert finished_ok(net)


def test_dataclass_effects_are_immutable() -> None:
    effect = fx.Disconnect(b"x" * 32, "bye")
    try:
        dataclasses.replace(effect, reason="other")
    except Exception as exc:  # pragma: no cover - replace makes a copy, never mutates
        raise AssertionError(exc) from exc
    assert effect.reason == "bye"


def test_seventeen_strangers_cannot_disable_sync_or_timeouts() -> None:
    """Seventeen stranger keys write entries at an open table (more authors than a HAVE may
    name): the host keeps a fixed few, every HAVE it sends stays within the frame limits,
    and the real game that follows still syncs and finishes."""
    net = SimNet(GameConfig(2), seed=26, extra=17)
    host = net.peers[0]
    host.session.open_table("test table", "p0", net.config)
    host.core.handle(ins.Start(net.now))
    net._effects(host)
    sent: list[fr.Frame] = []

    def watch(src: int, dst: int, frame: fr.Frame) -> bool:
        if src == 0:
            sent.append(frame)
        return True

    net.on_frame = watch
    for stranger in net.peers[2:]:
        for seq in range(3):
            entry = make_entry(stranger.identity, table_id=host.session.table_id, seq=seq,
                               prev=bytes(32) if seq == 0 else stranger.stored[-1].hash,
                               turn=0, kind="chat", body={"text": f"spam {seq}"})
            stranger.stored.append(entry)
            host.core.handle(ins.Received(stranger.peer_id, fr.Entry(entry.encoded), net.now))
            net._effects(host)
    assert host.core.counters.strangers_refused > 0
    assert len({e.author for e in host.core.replica.held()}) <= 8
    net.connect(1, 0)
    net.run(net.all_finished)
    assert finished_ok(net) and no_blame(net)
    haves = [f for f in sent if isinstance(f, fr.Have)]
    assert haves and all(len(h.next_seq) <= fr.MAX_AUTHORS for h in haves)
    seated = {s.peer_id for s in host.session.seats}
    assert all(author in seated for h in haves[-3:] for author in h.next_seq)


def test_an_equivocating_joiner_is_never_seated() -> None:
    """Carol signs two different entries with one number in the lobby: the host never
    seats her, even when the host starts the game with her still in the lobby list."""
    net = SimNet(GameConfig(2), seed=27, extra=1, auto_start=False)
    host, carol, dave = net.peers[0], net.peers[1], net.peers[2]
    net.open_table()  # Carol (peer 1) connects and asks for a seat
    net.run(lambda: carol.peer_id in host.session.joins)
    first = next(e for e in carol.stored if e.author == carol.peer_id)
    twin = make_entry(carol.identity, table_id=first.table_id, seq=first.seq,
                      prev=first.prev, turn=first.turn, kind="chat",
                      body={"text": "me again"})
    host.core.handle(ins.Received(carol.peer_id, fr.Entry(twin.encoded), net.now))
    net._effects(host)
    assert carol.peer_id in host.core.replica.equivocators
    assert carol.peer_id not in {p for p, _ in host.core.lobby()}
    reason = safe_command(net, host, fx.Start())
    assert reason is not None and "waiting for 1 more" in reason
    net.connect(dave.index, 0)
    net.run(lambda: dave.peer_id in host.session.joins)
    assert safe_command(net, host, fx.Start()) is None
    net.run(lambda: host.session.seats != ())
    seated = {s.peer_id for s in host.session.seats}
    assert carol.peer_id not in seated and dave.peer_id in seated


def test_the_only_other_player_cut_off_during_the_audit_still_gets_the_last_seed() -> None:
    """Two players; Bob's cable goes out just as Ann's seed is on its way to him, for longer
    than the 20 s linger, so only Ann can give it to him: she stays until he has it
    (bounded by the wait timeout), and both finish audited."""
    net = SimNet(GameConfig(2), seed=28, timing=Timing(wait_timeout=60.0, linger=20.0))
    cut_at: list[float] = []

    def cut_before_the_seed(src: int, dst: int, frame: fr.Frame) -> bool:
        seed = isinstance(frame, fr.Entry) and decode_entry(frame.data).kind == "seed"
        if (src, dst) == (0, 1) and not cut_at and seed:
            cut_at.append(net.now)
            net.cut(1)
            return False
        return True

    net.on_frame = cut_before_the_seed
    net.open_table()
    net.run(lambda: bool(cut_at))
    net.run_for(30.0)
    assert net.peers[0].finished is None  # Ann is still there for Bob
    net.cut(1, on=False)
    net.run(net.all_finished)
    assert finished_ok(net) and no_blame(net)


def test_peers_cut_off_from_each_other_leave_promptly_once_someone_saw_all_complete() -> None:
    """Bob -> Carol is swallowed for good: Carol cannot hear Bob say he holds everything,
    but Alice can and tells her, so nobody lingers out the long bound after the game."""
    net = SimNet(GameConfig(3), seed=29, timing=Timing(wait_timeout=300.0, linger=300.0))
    net.open_table()
    net.run(lambda: net.peers[0].session.seats != ())
    net.blackhole(1, 2)
    net.run(lambda: any(p.session.phase == AUDITED for p in net.peers))
    took = net.run(net.all_finished)
    assert finished_ok(net) and no_blame(net)
    assert took < 30.0, took


def test_a_joiner_the_host_removes_is_told_and_stops_at_once() -> None:
    """`kick` tells the joiner before closing its link: it stops with the reason, keeping
    nothing to resume, instead of waiting for the lobby to time out."""
    net = SimNet(GameConfig(3), seed=25, auto_start=False,
                 timing=Timing(lobby_timeout=600.0, linger=1.0))
    net.open_table()
    net.run_for(2.0)
    host, bob = net.peers[0], net.peers[1]
    assert bob.peer_id in {peer_id for peer_id, _ in host.core.lobby()}
    assert safe_command(net, host, fx.Kick(bob.peer_id)) is None
    net.run_for(2.0)
    assert bob.finished is not None and isinstance(bob.finished.refusal, rf.RemovedByHost)
    assert (bob.finished.kind, bob.finished.failure, bob.finished.forget) == (
        fx.EndKind.LEFT, str(rf.RemovedByHost()), True)
    assert host.finished is None and no_blame(net)


def test_when_the_host_leaves_the_lobby_its_joiners_stop_at_once() -> None:
    """The host quits before the deal: every joiner learns the table is gone and stops,
    keeping nothing, instead of waiting for a host that will not come back."""
    net = SimNet(GameConfig(3), seed=27, auto_start=False,
                 timing=Timing(lobby_timeout=600.0, linger=1.0))
    net.open_table()
    net.run_for(2.0)
    host = net.peers[0]
    assert len(host.core.lobby()) == 2
    assert safe_command(net, host, fx.Leave("you left the table", forget=True)) is None
    net.run_for(2.0)
    for joiner in net.peers[1:]:
        assert joiner.finished is not None
        assert isinstance(joiner.finished.refusal, rf.HostClosedTable)
        assert (joiner.finished.kind, joiner.finished.failure, joiner.finished.forget) == (
            fx.EndKind.LEFT, str(rf.HostClosedTable()), True)
    assert no_blame(net)


def test_a_joiner_who_leaves_the_lobby_is_not_waited_for_until_it_comes_back() -> None:
    net = SimNet(GameConfig(3), seed=28, auto_start=False,
                 timing=Timing(lobby_timeout=600.0, linger=1.0))
    net.open_table()
    net.run_for(2.0)
    host, bob = net.peers[0], net.peers[1]
    assert safe_command(net, bob, fx.Leave("you left the table", forget=True)) is None
    net.run_for(2.0)
    assert bob.peer_id not in {peer_id for peer_id, _ in host.core.lobby()}
    assert bob.peer_id in host.core.left_out() and host.finished is None
    left = [e for e in host.events if isinstance(e, fx.JoinerLeft)]
    bob_name = bob.session.joins[bob.peer_id].name
    assert [(e.peer_id, e.name) for e in left] == [(bob.peer_id, bob_name)]
    reason = safe_command(net, host, fx.Start())
    assert reason is not None and "waiting for 1 more" in reason
    # the same player (same key) links up to the table again: it waits for a seat again
    host.core.handle(ins.PeerUp(bob.peer_id, net.now))
    net._effects(host)
    assert bob.peer_id in {peer_id for peer_id, _ in host.core.lobby()}


def test_a_joiner_whose_link_is_down_is_not_seated_until_it_is_back() -> None:
    """Bob's program ended without a word in the lobby (a crash, a laptop closed): when
    Carol sits down, the table does not start with Bob, to wait for him through the whole
    wait timeout; it starts once he links up again."""
    net = SimNet(GameConfig(3), seed=31, timing=Timing(wait_timeout=600.0, linger=1.0))
    host, bob, carol = net.peers
    host.session.open_table("test table", "p0", net.config, frozenset())
    host.core.handle(ins.Start(net.now))
    net._effects(host)
    net.connect(bob.index, host.index)
    net.run_for(2.0)
    assert [peer_id for peer_id, _ in host.core.lobby()] == [bob.peer_id]
    net.link_down(bob.index, host.index, "connection lost", redial=False)
    net.connect(carol.index, host.index)
    net.run_for(5.0)
    assert [peer_id for peer_id, _ in host.core.lobby()] == [bob.peer_id, carol.peer_id]
    assert not host.session.seats
    reason = safe_command(net, host, fx.Start())
    assert reason is not None and "waiting for 1 more" in reason
    net.connect(bob.index, host.index)
    net.run(lambda: all(p.finished is not None for p in net.peers))
    assert [s.peer_id for s in host.session.seats][1:] == [bob.peer_id, carol.peer_id]
    assert finished_ok(net) and no_blame(net)


def test_a_joiner_who_leaves_as_it_is_seated_stops_the_game_at_once() -> None:
    """Bob quits the lobby just as the host seats him (his 'lobby.left' crosses the
    seating): he is gone for good, keeping nothing, so the seated players stop the game at
    once, blaming nobody, instead of waiting the wait timeout for him."""
    net = SimNet(GameConfig(3), seed=32, auto_start=False,
                 timing=Timing(wait_timeout=600.0, linger=1.0))
    host, bob, carol = net.peers

    def seating_never_reaches_bob(src: int, dst: int, frame: fr.Frame) -> bool:
        return not (dst == bob.index and isinstance(frame, fr.Entry)
                    and decode_entry(frame.data).kind == "lobby.seat")

    net.on_frame = seating_never_reaches_bob
    net.open_table()
    net.run_for(2.0)
    assert safe_command(net, host, fx.Start()) is None
    assert host.session.seat_of(bob.peer_id) is not None and not bob.session.seats
    assert safe_command(net, bob, fx.Leave("you left the table", forget=True)) is None
    net.run(lambda: host.session.phase == ABORTED and carol.session.phase == ABORTED,
            limit_s=5)
    for player in (host, carol):
        reasons = [fault.reason for fault in player.faults()]
        assert any("left before the deal" in reason for reason in reasons), reasons
    # the host heard it from Bob: it does not stay for him either (Carol stays a while, as
    # for any seat she cannot tell is gone for good)
    net.run(lambda: host.finished is not None, limit_s=5)
    assert host.finished is not None and host.finished.kind is fx.EndKind.ABORTED
    assert no_blame(net)


@pytest.mark.parametrize("topic", [REMOVED_TOPIC, LEFT_TOPIC])
def test_only_its_own_link_says_a_joiner_is_out_and_never_once_in_play(topic: str) -> None:
    """'lobby.removed' or 'lobby.left' from anyone but the host (a stranger linked to the
    joiner, a fellow joiner) changes nothing; once the game is in play nobody listens to
    either (a 'lobby.left' during the deal: the test above)."""
    net = SimNet(GameConfig(3), seed=29, auto_start=False)
    net.open_table()
    net.run_for(2.0)
    host, bob, carol = net.peers
    message = fr.Message(topic, b"")
    bob.core.handle(ins.Received(carol.peer_id, message, net.now))
    net._effects(bob)
    assert bob.finished is None
    assert safe_command(net, host, fx.Start()) is None
    net.run(lambda: bob.session.phase == PLAY and host.session.phase == PLAY)
    bob.core.handle(ins.Received(host.peer_id, message, net.now))
    host.core.handle(ins.Received(carol.peer_id, message, net.now))
    net._effects(bob)
    net._effects(host)
    assert bob.finished is None and carol.peer_id not in host.core.left_out()
    net.run(lambda: all(p.finished is not None for p in net.peers))
    assert finished_ok(net) and no_blame(net)


def test_a_joiner_whose_host_vanished_from_the_lobby_stops_after_the_wait_timeout() -> None:
    """The host's program ended without a word (a crash, a machine switched off): its joiners
    wait for it as long as a player waits for a player, then stop and say why."""
    net = SimNet(GameConfig(3), seed=30, auto_start=False,
                 timing=Timing(wait_timeout=60.0, linger=1.0))
    net.open_table()
    net.run_for(2.0)
    net.cut(0)  # its links to them drop after the idle timeout (15 s)
    net.run_for(65.0)
    assert all(joiner.finished is None for joiner in net.peers[1:])
    net.run_for(20.0)
    for joiner in net.peers[1:]:
        assert joiner.finished is not None and joiner.finished.kind is fx.EndKind.LEFT
        assert joiner.finished.failure is not None
        assert joiner.finished.failure.startswith("the host has been unreachable for 6")
    assert no_blame(net)


def test_a_cheater_writing_on_to_one_player_alone_cannot_keep_it_at_the_table() -> None:
    """Carol is caught equivocating, then writes one more entry to Alice alone. Bob never
    holds it, so his word never covers it: Alice need not wait for it (nobody needs a
    cheater's entries) and leaves with Bob, not at the wait timeout (a real game kept an
    honest player 60 s and more this way)."""
    net = SimNet(GameConfig(3), seed=19, timing=Timing(wait_timeout=600.0, linger=5.0))
    mid_game(net)
    alice, bob, carol = net.peers
    # Carol's latest entry that both others hold: its twin is proof for each of them
    held = [e for e in alice.stored if e.author == carol.peer_id
            and any(b.hash == e.hash for b in bob.stored)]
    last = held[-1]
    twin = make_entry(carol.identity, table_id=last.table_id, seq=last.seq, prev=last.prev,
                      turn=last.turn, kind="chat", body={"text": "the other story"})
    net.cut(carol.index)  # Carol's own program plays no further part
    for honest in (alice, bob):
        honest.core.handle(ins.Received(carol.peer_id, fr.Entry(twin.encoded), net.now))
        net._effects(honest)
        assert honest.session.blamed == carol.peer_id
    before = alice.core.replication.have().get(carol.peer_id, 0)
    later = make_entry(carol.identity, table_id=last.table_id, seq=before + 1,
                       prev=alice.stored[-1].hash, turn=last.turn, kind="chat",
                       body={"text": "still here"})
    alice.core.handle(ins.Received(carol.peer_id, fr.Entry(later.encoded), net.now))
    net._effects(alice)
    started = net.now
    net.run(lambda: alice.finished is not None and bob.finished is not None)
    assert net.now - started < 60.0, net.now - started
    assert alice.session.blamed == bob.session.blamed == carol.peer_id
