"""Spectators in memory: the real peer cores, fake links, a fake clock (SPEC §4.8, §2.10)."""

from __future__ import annotations

import hashlib
import io
import json
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import cast

import pytest

from hanabi_p2p import cli
from hanabi_p2p import refusals as rf
from hanabi_p2p.datadir import DataDir
from hanabi_p2p.errors import IllegalAction
from hanabi_p2p.frontends.headless import Headless
from hanabi_p2p.limits import MAX_WATCHERS
from hanabi_p2p.log.entry import decode_entry, make_entry
from hanabi_p2p.log.storage import GameFile
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer import inputs as ins
from hanabi_p2p.peer import watchwire as ww
from hanabi_p2p.peer.admission import WATCH_HELLO_S
from hanabi_p2p.peer.context import SPECTATOR_LINGER_S, Timing
from hanabi_p2p.peer.handle import PeerHandle
from hanabi_p2p.peer.replication import SENT_ON_LINK_S
from hanabi_p2p.peer.watcher import HAND_KEYS_WAIT_S, SPECTATOR_ALONE_S, SPECTATOR_UNLINKED_S
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.bodies import TableOption
from hanabi_p2p.session.table import AUDITED
from hanabi_p2p.verdict_cache import ListRow, record_played_game, verdict_path
from tests.peer.core_harness import IDLE_TIMEOUT_S, TABLE_ID, SimNet, SimPeer, no_blame

# whole games of peer cores on the simulated network: too slow for the fast tier
pytestmark = pytest.mark.slow

HANDS_VISIBLE = frozenset({TableOption.SPECTATORS})


def _digest(p: SimPeer) -> bytes:
    return hashlib.sha256(b"".join(sorted(e.hash for e in p.stored))).digest()


def _hand_positions(state: GameState) -> set[int]:
    return {card for hand in state.hands for card in hand}


class HandWatch:
    """Checks after every step of the game what the spectator can decode: a card in a
    player's hand never (no consent), or every one the players see (consent)."""

    def __init__(self, watcher: SimPeer) -> None:
        self.watcher = watcher
        self.hand_faces_seen = 0
        self.steps = 0

    def __call__(self) -> bool:
        state = self.watcher.session.state
        deck = self.watcher.session.deck
        if state is not None and deck is not None and deck.watch is not None and not state.over:
            self.steps += 1
            decoded = deck.watch.faces
            self.hand_faces_seen += len(_hand_positions(state) & set(decoded))
        return False


def _run_game(net: SimNet, check: HandWatch | None = None) -> None:
    def done() -> bool:
        if check is not None:
            check()
        return net.all_finished() and all(p.finished is not None for p in net.peers)

    net.run(done, limit_s=3600)


def _think(net: SimNet, thinking: bool) -> None:
    """The players stop to think (or go on): a game of computer players is over within a
    second of fake time, so the tests that look at the game midway pause it."""
    for p in net.peers[: net.players]:
        p.bot = not thinking


def _start_late_watcher(net: SimNet, options: frozenset[TableOption], after_turns: int,
                        via: int = 1) -> SimPeer:
    """Play ``after_turns`` turns, then a spectator arrives at peer ``via`` while the
    players think; it has caught up one second later. The game is paused on return."""
    net.open_table(options)
    host = net.peers[0]
    net.run(lambda: host.session.state is not None and host.session.state.turn >= after_turns)
    _think(net, True)
    watcher = net.add_watcher("Zoe", via=via)
    net.run_for(1.0)
    return watcher


def test_a_late_spectator_without_consent_sees_the_same_game_and_never_a_hand_card() -> None:
    net = SimNet(GameConfig(players=3), seed=11)
    watcher = _start_late_watcher(net, frozenset(), after_turns=6)
    check = HandWatch(watcher)
    _think(net, False)
    _run_game(net, check)
    assert no_blame(net)
    assert watcher.finished is not None and watcher.finished.kind is fx.EndKind.AUDITED
    assert watcher.session.phase == AUDITED and watcher.session.audit is not None
    assert watcher.session.audit.ok
    # the same log and the same game as every player
    assert {_digest(p) for p in net.peers} == net.digests()
    host_state, seen = net.peers[0].session.state, watcher.session.state
    assert host_state is not None and seen is not None
    assert (seen.score, seen.turn, seen.public_hash()) == (
        host_state.score, host_state.turn, host_state.public_hash())
    # privacy: checked at every step of the game, and what it decoded at all is exactly
    # the cards that were played or discarded
    assert check.steps > 50 and check.hand_faces_seen == 0
    deck = watcher.session.deck
    assert deck is not None and deck.watch is not None
    decoded = set(deck.watch.faces)
    assert decoded == set(seen.played) | set(seen.discard_pile)
    assert decoded.isdisjoint(_hand_positions(seen))


def test_with_consent_a_spectator_sees_every_hand_as_the_players_do() -> None:
    net = SimNet(GameConfig(players=3), seed=12)
    watcher = _start_late_watcher(net, HANDS_VISIBLE, after_turns=4)
    check = HandWatch(watcher)
    host = net.peers[0]
    _think(net, False)
    net.run(lambda: host.session.state is not None and host.session.state.turn >= 12)
    _think(net, True)
    net.run_for(1.0)
    # mid-game: the spectator knows every card in every hand, as the players other than
    # its holder do
    state, seen = host.session.state, watcher.session.state
    assert state is not None and seen is not None
    for seat, hand in enumerate(seen.hands):
        for card in hand:
            assert seen.faces[card] is not None, f"seat {seat} card {card} unseen"
            if seat != 0:
                assert seen.faces[card] == state.faces[card]
    assert check() is False and check.hand_faces_seen == sum(len(h) for h in seen.hands)
    _think(net, False)
    _run_game(net, check)
    assert check.hand_faces_seen > 0
    assert no_blame(net)
    assert watcher.session.audit is not None and watcher.session.audit.ok
    assert {_digest(p) for p in net.peers} == net.digests()
    # what it decoded agrees with the audit's faces for every card ever drawn
    deck = watcher.session.deck
    assert deck is not None and deck.watch is not None
    assert host.session.state is not None
    for position, face in deck.watch.faces.items():
        # every player but the card's holder saw it, and saw the same face
        seen_by = [p.session.state.faces[position] for p in net.peers[:3]
                   if p.session.state is not None and p.session.state.faces[position]]
        assert seen_by and all(other == face for other in seen_by)


def test_every_player_lists_the_spectator_and_forgets_it_when_it_leaves() -> None:
    net = SimNet(GameConfig(players=3), seed=13)
    watcher = _start_late_watcher(net, HANDS_VISIBLE, after_turns=2, via=2)
    net.run_for(2.0)
    for p in net.peers[:3]:
        listed = p.core.watchers()
        assert [(w.peer_id, w.name, w.sees_hands) for w in listed] == [
            (watcher.peer_id, "Zoe", True)]
        assert any(isinstance(e, fx.WatchersChanged) for e in p.events)
    net.command(watcher, fx.Leave("bye"))
    assert watcher.finished is not None and watcher.finished.chosen  # `watch` exits 0
    for other in range(3):
        net.link_down(watcher.index, other, "spectator left", redial=False)
    net.run_for(1.0)
    for p in net.peers[:3]:
        assert p.core.watchers() == ()


def test_a_spectator_cannot_act_and_its_entries_are_never_taken() -> None:
    net = SimNet(GameConfig(players=2), seed=14)
    watcher = _start_late_watcher(net, frozenset(), after_turns=2)
    for command in (fx.Say("psst, your 5 is on chop"), fx.Start(), fx.Resign("")):
        with pytest.raises(IllegalAction, match="spectators"):
            watcher.core.handle(ins.Command(command, net.now))
    # a modified spectator signs an entry of its own and pushes it: nobody keeps it
    host = net.peers[0]
    forged = make_entry(watcher.identity, table_id=host.session.table_id, seq=0,
                        prev=b"\0" * 32, turn=0, kind="chat", body={"text": "hello"})
    refused_before = host.core.counters.strangers_refused
    host.core.handle(ins.Received(watcher.peer_id, fr.Entry(forged.encoded), net.now))
    assert host.core.counters.strangers_refused == refused_before + 1
    assert all(e.author != watcher.peer_id for p in net.peers[:2] for e in p.stored)
    _think(net, False)
    _run_game(net)
    assert no_blame(net)


def test_spectators_are_bounded_and_silent_strangers_are_dropped() -> None:
    net = SimNet(GameConfig(players=2), seed=15)
    net.open_table()
    host = net.peers[0]
    net.run(lambda: host.session.state is not None and host.session.state.turn >= 1)
    _think(net, True)
    watchers = [net.add_watcher(f"w{i}") for i in range(MAX_WATCHERS + 1)]
    net.run_for(1.0)
    assert len(host.core.watchers()) == MAX_WATCHERS
    # the one too many (whichever asked last) was told why, and stopped: it does not dial
    # again and again
    refused = [w for w in watchers if w.finished is not None]
    assert len(refused) == 1
    extra = refused[0]
    assert extra.finished is not None and extra.finished.kind is fx.EndKind.LEFT
    assert f"{MAX_WATCHERS} spectators already" in (extra.finished.failure or "")
    assert frozenset((extra.index, 0)) not in net.up
    assert extra.peer_id not in {w.peer_id for w in host.core.watchers()}
    # a stranger that links up after seating and never says what it is goes after a while
    silent = net.add_watcher("silent")
    # an old or odd client: its links come up, but it never says "watch"
    silent.core.ctx.send = lambda peer_id, frame: None  # type: ignore[method-assign]
    silent.keeps_links = True  # and it does not hang up when it finds the game begun
    net.link_down(silent.index, 0, "reset", redial=False)
    net.connect(silent.index, 0)
    net.run_for(0.5)
    assert frozenset((silent.index, 0)) in net.up
    net.run_for(WATCH_HELLO_S + 1.0)
    assert frozenset((silent.index, 0)) not in net.up


def test_bad_keys_for_a_spectator_are_a_link_problem_never_a_blame() -> None:
    net = SimNet(GameConfig(players=3), seed=16)

    wrong = bytes(31) + b"\x01"  # a scalar, but nobody's key

    def corrupt(src: int, dst: int, frame: fr.Frame) -> bool:
        if src == 1 and isinstance(frame, fr.Message) and frame.topic == ww.WATCH_KEYS_TOPIC:
            keys = ww.decode_keys(frame.body)
            if any(k != wrong for _p, k in keys):
                net._send(src, dst, fr.Message(ww.WATCH_KEYS_TOPIC,
                                               ww.encode_keys({p: wrong for p, _k in keys})))
                return False
        return True

    net.on_frame = corrupt
    watcher = _start_late_watcher(net, HANDS_VISIBLE, after_turns=2)
    _think(net, False)
    _run_game(net)
    assert no_blame(net)
    assert watcher.session.blamed is None and not watcher.faults()
    assert any("keys that do not fit" in e.reason for e in watcher.link_problems())
    # seat 1's keys were all wrong: cards in seat 0's and seat 2's hands never decoded for
    # it (it lacks seat 1's key of them), but the public ones did
    deck = watcher.session.deck
    assert deck is not None and deck.watch is not None and deck.watch.faces


def test_what_a_spectator_claims_to_hold_never_times_out_a_thinking_player() -> None:
    net = SimNet(GameConfig(players=2), seed=17)
    watcher = _start_late_watcher(net, frozenset(), after_turns=2)
    host, guest = net.peers[0], net.peers[1]  # both think for a long time
    lie = fr.Have({host.peer_id: 10_000, guest.peer_id: 10_000})
    for _ in range(int(net.timing.wait_timeout or 60) + 30):
        for target in (0, 1):
            net._send(watcher.index, target, lie)
        net.run_for(1.0)
    assert host.finished is None and guest.finished is None
    assert host.session.abort_reason is None and guest.session.abort_reason is None


def test_a_joiner_after_the_seating_is_told_the_game_has_begun_and_keeps_nothing() -> None:
    # the mesh now takes a few links of unseated peers once seated (spectators), so a late
    # joiner gets in as far as the log: it learns the seating from it and stops, never
    # having asked for a seat
    net = SimNet(GameConfig(players=2), seed=18, extra=1)
    net.open_table()
    host = net.peers[0]
    net.run(lambda: host.session.state is not None and host.session.state.turn >= 1)
    late = net.peers[2]
    late.bot = False
    net.connect(late.index, 0)
    net.run(lambda: late.finished is not None, limit_s=30)
    assert late.finished is not None and late.finished.forget
    assert isinstance(late.finished.refusal, rf.TableFullGameBegun)
    assert late.finished.failure == str(late.finished.refusal)
    assert all(e.author != late.peer_id for e in late.stored)


@pytest.mark.parametrize("seed", [31, 32, 33])
@pytest.mark.parametrize("arrives", ["game over", "first seed"])
def test_a_spectator_who_comes_as_the_game_ends_still_sees_all_of_it(seed: int,
                                                                     arrives: str) -> None:
    """The players stay (a while) for a spectator linked to them that lacks some of the
    game, so one who came at the very end, or is still catching up, sees the end too."""
    net = SimNet(GameConfig(players=3), seed=seed)
    net.open_table()
    host = net.peers[0]
    if arrives == "game over":
        net.run(lambda: host.session.state is not None and host.session.state.over)
    else:  # the seeds are on their way: the audit follows a moment later
        net.run(lambda: any(e.kind == "seed" for e in host.stored))
    assert not any(p.finished for p in net.peers)
    watcher = net.add_watcher("Zoe", via=0)
    net.run(lambda: watcher.finished is not None and net.all_finished(), limit_s=60)
    assert watcher.finished is not None and watcher.finished.kind is fx.EndKind.AUDITED
    assert watcher.session.audit is not None and watcher.session.audit.ok
    assert {_digest(p) for p in net.peers} == net.digests()
    assert no_blame(net)


@pytest.mark.parametrize("keys_come", [True, False])
def test_a_spectator_waits_a_moment_for_hand_keys_still_on_their_way(keys_come: bool) -> None:
    """Each player sends a spectator its keys over its own link, while the seeds may reach
    the spectator sooner through another player: one that holds the whole game but not yet a
    key of a card still in a hand waits for it before it ends, so its last view shows every
    hand; keys that never come keep it HAND_KEYS_WAIT_S at most."""
    net = SimNet(GameConfig(players=3), seed=13)
    watcher = _start_late_watcher(net, HANDS_VISIBLE, after_turns=4)
    slow = net.peers[2]
    held: list[fr.Frame] = []

    def slow_keys(src: int, dst: int, frame: fr.Frame) -> bool:
        if (src, dst) == (slow.index, watcher.index) and isinstance(frame, fr.Message) \
                and frame.topic == ww.WATCH_KEYS_TOPIC:
            held.append(frame)
            return False
        return True

    net.on_frame = slow_keys
    _think(net, False)
    net.run(lambda: watcher.session.phase == AUDITED, limit_s=3600)
    audited_at = net.now
    state = watcher.session.state
    assert held and state is not None
    assert watcher.finished is None, "ended without the keys of the cards in hand"
    # what `watch` prints: the hands at the audit, and again once the late keys show them all
    out = io.StringIO()
    screen = Headless(out=out)
    screen.peer = cast(PeerHandle, SimpleNamespace(session=watcher.session, table_id=TABLE_ID))
    screen.show([ev.Audited(ok=True, reason="")])
    if keys_come:
        for frame in held:
            watcher.core.handle(ins.Received(slow.peer_id, frame, net.now))
        net._effects(watcher)
        screen.show([])  # the Notify that follows the keys
        last = [line for line in out.getvalue().splitlines() if line.startswith("hands seen")]
        assert len(last) == 2 and "??" in last[0] and "??" not in last[1]
    net.run(lambda: watcher.finished is not None, limit_s=60)
    assert watcher.finished is not None and watcher.finished.kind is fx.EndKind.AUDITED
    in_hand = [card for hand in state.hands for card in hand]
    if keys_come:
        assert net.now == audited_at and all(state.faces[card] for card in in_hand)
    else:  # it waited, until the players closed their links or the bound, not for ever
        assert audited_at < net.now <= audited_at + HAND_KEYS_WAIT_S + 1
        assert not all(state.faces[card] for card in in_hand)
    assert no_blame(net)


def _drop_seeds_to(watcher: SimPeer) -> Callable[[int, int, fr.Frame], bool]:
    """A lossy path: no seed entry ever reaches the spectator (everything else does)."""
    def keep(src: int, dst: int, frame: fr.Frame) -> bool:
        if dst != watcher.index or not isinstance(frame, fr.Entry):
            return True
        return decode_entry(frame.data).kind != "seed"
    return keep


def test_a_spectator_that_never_catches_up_delays_the_players_a_bounded_while() -> None:
    """A spectator that lacks the end for ever (a lossy path, or a liar) keeps the players it
    is linked to SPECTATOR_LINGER_S at most; then, alone, it ends and says why."""
    net = SimNet(GameConfig(players=3), seed=34)
    watcher = _start_late_watcher(net, frozenset(), after_turns=3)
    net.on_frame = _drop_seeds_to(watcher)
    _think(net, False)
    players = net.peers[: net.players]
    done_at: dict[int, float] = {}
    finished_at: dict[int, float] = {}

    def step() -> bool:
        for p in players:
            if p.index not in done_at and p.session.phase == AUDITED:
                done_at[p.index] = net.now
            if p.index not in finished_at and p.finished is not None:
                finished_at[p.index] = net.now
        return len(finished_at) == len(players)

    net.run(step, limit_s=120)
    waits = [finished_at[i] - done_at[i] for i in done_at]
    # every player was linked to the spectator: each stayed for it, and not longer than
    # the bound (a tick of the clock either way)
    assert all(SPECTATOR_LINGER_S - 0.5 <= wait <= SPECTATOR_LINGER_S + 0.5 for wait in waits)
    assert all(p.finished is not None and p.finished.kind is fx.EndKind.AUDITED
               for p in players)
    # the spectator saw the game up to the seeds, then nobody was left to send them
    assert watcher.finished is None
    left_at = max(finished_at.values())
    net.run(lambda: watcher.finished is not None, limit_s=60)
    assert watcher.finished is not None and watcher.finished.kind is fx.EndKind.ABORTED
    assert "players finished the game and left" in (watcher.finished.failure or "")
    assert SPECTATOR_ALONE_S <= net.now - left_at <= SPECTATOR_ALONE_S + 1.0
    assert watcher.session.state is not None and watcher.session.state.over
    assert not any(e.kind == "seed" for e in watcher.stored)
    assert no_blame(net)


def test_a_spectator_cut_off_from_every_player_gives_up_after_the_wait_timeout() -> None:
    """As a player gives up on an unreachable one, a spectator with no player linked for
    the wait timeout ends, saying so, instead of watching nothing for ever."""
    net = SimNet(GameConfig(players=3), seed=35, timing=Timing(wait_timeout=30.0))
    watcher = _start_late_watcher(net, frozenset(), after_turns=3)
    seen = len(watcher.stored)
    net.cut(watcher.index)  # its cable is out: links drop at the idle timeout, no redial
    cut_at = net.now
    net.run(lambda: watcher.finished is not None, limit_s=120)
    assert watcher.finished is not None and watcher.finished.kind is fx.EndKind.ABORTED
    assert "no player has been reachable for 30 s" in (watcher.finished.failure or "")
    # the links went at the idle timeout; the wait began then
    assert 30.0 <= net.now - cut_at <= 30.0 + IDLE_TIMEOUT_S + 1.0
    assert len(watcher.stored) == seen
    # the players never waited for it: their game is still theirs to play
    assert not any(p.finished for p in net.peers[: net.players])


def test_a_spectators_have_goes_to_one_player_a_second_and_still_repairs() -> None:
    """Each player sends a spectator its own entries, and any one of them answers its
    HAVE with everyone's: the spectator's periodic HAVE goes to one player each sync
    interval, in turn (it went to every player, each then reading and answering it). Every
    entry of player 1 that reaches it on their link is lost (their link stays up): it
    still gets them, through the others' answers, and sees the whole game."""
    net = SimNet(GameConfig(players=3), seed=37)
    haves: Counter[int] = Counter()
    lost = 0

    def frame_seen(src: int, dst: int, frame: fr.Frame) -> bool:
        nonlocal lost
        if src == net.players and isinstance(frame, fr.Have):
            haves[dst] += 1
        if (src, dst) == (1, net.players) and isinstance(frame, fr.Entry):
            lost += 1
            return False
        return True

    watcher = _start_late_watcher(net, frozenset(), after_turns=3)
    assert watcher.index == net.players
    net.on_frame = frame_seen
    net.run_for(9.0)  # the players think: only the periodic HAVEs
    interval = net.timing.sync_interval
    assert sum(haves.values()) <= 9.0 / interval + 1  # one an interval, not one a player
    assert all(haves[player] >= 2 for player in range(net.players))  # each in turn
    _think(net, False)
    _run_game(net)
    assert lost > 0 and no_blame(net)
    assert watcher.finished is not None and watcher.finished.kind is fx.EndKind.AUDITED
    assert {_digest(p) for p in net.peers} == net.digests()


def test_a_spectator_running_behind_is_not_sent_again_what_a_player_sent_it() -> None:
    """Two spectators read every frame from the players a second and a half late (their
    programs running behind: each HAVE they send is that stale). A player answers such a
    HAVE without the entries it sent that spectator on the same link, which is ordered and
    reliable (they are still to be read): each entry comes on each link at most once, while
    a spectator that ran behind before the change was sent some of them two or three
    times. Both still see the whole game."""
    net = SimNet(GameConfig(players=3), seed=41)
    lag_s = 1.5
    net.open_table()
    spectators = [net.add_watcher("Zoe", via=1), net.add_watcher("Yan", via=2)]
    behind = {s.index for s in spectators}
    copies: Counter[tuple[int, int, bytes]] = Counter()  # (player, spectator, entry hash)

    def read_late(src: int, dst: int, frame: fr.Frame) -> bool:
        if dst not in behind or src in behind:
            return True
        if isinstance(frame, fr.Entry):
            copies[src, dst, decode_entry(frame.data).hash] += 1
        net._schedule(lag_s, lambda: net.deliver(src, dst, frame))  # (in order: one lag)
        return False

    net.on_frame = read_late
    _run_game(net)
    received = Counter(dst for (_src, dst, _hash) in copies.elements())
    distinct = {s.index: len({h for (_src, dst, h) in copies if dst == s.index})
                for s in spectators}
    assert all(distinct[s] > 100 for s in behind)  # the whole game came this way
    assert max(copies.values()) == 1, copies.most_common(3)
    assert all(received[s] < 2 * distinct[s] for s in behind)
    for spectator in spectators:
        assert spectator.finished is not None
        assert spectator.finished.kind is fx.EndKind.AUDITED
    assert no_blame(net) and {_digest(p) for p in net.peers} == net.digests()


def test_a_link_that_came_back_is_sent_again_what_went_down_with_the_one_before() -> None:
    """What a player sent a spectator counts as on its way only while that link stays up.
    The spectator is linked to player 1 alone, and every entry player 1 sends it is lost
    with that link, which then drops: on the new link player 1 answers the spectator's
    HAVE with all of them at once, not `SENT_ON_LINK_S` later."""
    net = SimNet(GameConfig(players=3), seed=38)
    watcher = _start_late_watcher(net, frozenset(), after_turns=3)
    spectator, player = watcher.index, net.peers[1]
    for other in (0, 2):
        net.link_down(spectator, other, "gone", redial=False)
    lost: list[bytes] = []

    def lose_with_the_link(src: int, dst: int, frame: fr.Frame) -> bool:
        if (src, dst) == (player.index, spectator) and isinstance(frame, fr.Entry):
            lost.append(decode_entry(frame.data).hash)
            return False
        return True

    net.on_frame = lose_with_the_link
    _think(net, False)
    net.run(lambda: len(lost) >= 10)
    _think(net, True)
    net.run_for(1.0)
    assert watcher.core.replica.have() != player.core.replica.have()
    net.on_frame = None
    net.link_down(spectator, player.index, "connection reset")  # (the spectator redials)
    took = net.run(lambda: watcher.core.replica.have() == player.core.replica.have(),
                   limit_s=SENT_ON_LINK_S)
    assert took < SENT_ON_LINK_S / 2
    assert set(lost) <= {e.hash for e in watcher.stored}
    assert no_blame(net)


def test_a_spectator_that_never_links_to_the_table_gives_up_and_says_why() -> None:
    """The game ended as the spectator arrived: the program it dials is gone, so nothing
    ever links; it ends after SPECTATOR_UNLINKED_S instead of waiting in silence."""
    net = SimNet(GameConfig(players=3), seed=36)
    net.play_to_end()
    assert all(p.finished is not None for p in net.peers)
    start = net.now
    watcher = net.add_watcher("Zoe", via=0)
    net.run(lambda: watcher.finished is not None, limit_s=60)
    assert watcher.finished is not None and watcher.finished.kind is fx.EndKind.ABORTED
    assert "could not link to the table" in (watcher.finished.failure or "")
    assert SPECTATOR_UNLINKED_S <= net.now - start <= SPECTATOR_UNLINKED_S + 1.0
    assert watcher.stored == []


def test_a_spectators_recorded_verdict_is_what_a_full_check_of_its_copy_says(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """A spectator checked every entry and audited the deck as the players did, so its
    program records the verdict of its copy for `log list` (launch.Peer._record_verdict):
    the same row as a full check of that copy, which the first list then spares."""
    net = SimNet(GameConfig(players=3), seed=21)
    net.open_table()
    spectator = net.add_watcher("Zoe", via=1)
    _run_game(net)
    assert spectator.session.phase == AUDITED and spectator.session.audit is not None
    assert spectator.session.audit.ok
    applied = spectator.core.replica.applied
    data_dir = DataDir(tmp_path / "data")
    path = data_dir.watching().game_path(TABLE_ID)
    path.parent.mkdir(parents=True)
    with GameFile.create(path, TABLE_ID, created=1_700_000_000, name="test table") as game:
        for entry in applied:
            game.append(entry)
    row = ListRow.of_played_game(path.stem, 1_700_000_000, spectator.session)
    assert row is not None and record_played_game(path, {e.hash for e in applied}, row)
    recorded = json.loads(verdict_path(path).read_text())["row"]
    assert recorded["verdict"] == "valid" and recorded["players"] == ["p0", "p1", "p2"]
    verdict_path(path).unlink()
    capsys.readouterr()
    assert cli.main(["log", "list", "--json", "--data-dir", str(data_dir.root)]) == 0
    (listed,) = json.loads(capsys.readouterr().out)["games"]
    assert listed["verdict"] == "valid"  # (checked in full: no verdict was left beside it)
    assert json.loads(verdict_path(path).read_text())["row"] == recorded


class _Pipe(io.RawIOBase):
    """A stream's far end that keeps each write it is given (a pipe to a reader)."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[bytes] = []

    def writable(self) -> bool:
        return True

    def write(self, data: bytes) -> int:  # type: ignore[override]
        self.writes.append(bytes(data))
        return len(data)


def test_watch_headless_writes_a_turns_lines_at_once_and_a_status_line_at_once() -> None:
    """`watch --headless` prints a turn's line and its `hands seen:` line together, one write
    for the reader to wake up to rather than one per line; a line about the peer itself
    goes out as it is printed."""
    net = SimNet(GameConfig(players=3), seed=12)
    watcher = _start_late_watcher(net, frozenset(), after_turns=3)
    turn = next(e for e in reversed(watcher.events) if isinstance(e, ev.TurnResolved))
    pipe = _Pipe()
    screen = Headless(out=io.TextIOWrapper(io.BufferedWriter(pipe), encoding="utf-8"))
    screen.peer = cast(PeerHandle, SimpleNamespace(session=watcher.session, table_id=TABLE_ID))
    screen.show([turn])
    assert len(pipe.writes) == 1
    lines = pipe.writes[0].decode().splitlines()
    assert len(lines) == 2 and lines[1].startswith("hands seen: ")
    assert lines[0].startswith(f"turn {turn.turn + 1}: ")
    screen.status("watching 'test table'")
    assert pipe.writes[1:] == [b"watching 'test table'\n"]
