"""Honest tables through the real peer core, in memory, under a fake clock."""

from __future__ import annotations

import pytest
from core_harness import SimNet, SimPeer, no_blame

from hanabi_p2p.bots.simple import choose_action
from hanabi_p2p.errors import HanabiError
from hanabi_p2p.limits import MAX_PLAYER_NAME_CHARS
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer import inputs as ins
from hanabi_p2p.peer.lobby import unique_name
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.table import AUDITED

# whole games of peer cores on the simulated network: too slow for the fast tier
pytestmark = pytest.mark.slow


@pytest.mark.parametrize("players", [2, 3, 5])
def test_honest_table_finishes_audited_with_one_log(players: int) -> None:
    net = SimNet(GameConfig(players), seed=players)
    net.play_to_end()
    for p in net.peers:
        assert p.finished == fx.Finished(fx.EndKind.AUDITED, None), p.finished
        assert p.session.phase == AUDITED
        assert p.session.audit is not None and p.session.audit.ok
        assert not p.faults() and not p.link_problems()
    assert len(net.digests()) == 1
    assert no_blame(net)


def test_entries_taken_in_before_they_are_answered_make_the_same_game() -> None:
    """The node applies every entry as it arrives and signs its answers (acks, deck steps)
    a moment later: nothing of ours is posted in between, and the game is the same."""
    net = SimNet(GameConfig(3), seed=3, answer_later=True)
    net.play_to_end()
    for p in net.peers:
        assert p.finished == fx.Finished(fx.EndKind.AUDITED, None), p.finished
        assert p.session.audit is not None and p.session.audit.ok
        assert sum(e.kind == "ack" for e in p.stored) > 0
    assert net.posted_before_answer == []
    assert len(net.digests()) == 1
    assert no_blame(net)
    # the entries `answer_due` says call for no answer are settled at once (as the node
    # does, without a loop turn), and settling them never signed anything
    assert net.answers[False, False] > 0
    assert net.answers[False, True] == 0


def test_events_reach_the_front_end_in_the_order_they_happened() -> None:
    """The host hears 'Bob sits down' before 'everyone is seated', and the deal after that:
    nothing a reaction causes overtakes what caused it."""
    net = SimNet(GameConfig(2), seed=7)
    net.play_to_end()
    kinds = [type(e).__name__ for e in net.peers[0].events]
    joined, changed = kinds.index("PlayerJoined"), kinds.index("LobbyChanged")
    seated, ready = kinds.index("Seated"), kinds.index("DeckReady")
    assert joined < changed < seated < ready
    assert kinds.index("GameOver") < kinds.index("Audited")


def test_a_second_player_with_a_taken_name_sits_as_name_2() -> None:
    """Two joiners called Dave (and a host called dave): names stay unique at the table,
    so everyone can name everyone."""
    net = SimNet(GameConfig(3), seed=8)
    net.peers[1].core.player_name = "Dave"
    net.peers[2].core.player_name = "DAVE"
    net.peers[0].session.open_table("test table", "dave", net.config)
    net.peers[0].core.handle(ins.Start(net.now))
    net._effects(net.peers[0])
    net.connect(1, 0)
    net.run(lambda: len(net.peers[0].session.joins) == 1)
    net.connect(2, 0)
    net.run(net.all_finished)
    names = net.peers[0].session.names
    assert names == ["dave", "Dave 2", "DAVE 3"]
    assert len({n.casefold() for n in names}) == 3


def test_unique_name_keeps_within_the_limit_and_ignores_case_and_accents() -> None:
    assert unique_name("Ann", ["Bob"]) == "Ann"
    assert unique_name("Zoë", ["zoe"]) == "Zoë 2"
    assert unique_name("Ann", ["ann", "Ann 2"]) == "Ann 3"
    long = "x" * MAX_PLAYER_NAME_CHARS
    renamed = unique_name(long, [long])
    assert len(renamed) == MAX_PLAYER_NAME_CHARS and renamed.endswith(" 2")


def test_every_screen_marks_a_computer_player_with_the_machine_that_runs_it() -> None:
    """Ann's machine runs p2 (a computer player); p3 is a computer player on a machine of its
    own. Bob's screen - not only Ann's - shows both, from their own requests for a seat."""
    from hanabi_p2p.ui.live import ShellFacts, lobby_view
    from hanabi_p2p.ui.view import OWN_MACHINE

    net = SimNet(GameConfig(4), seed=9)
    net.peers[2].core.runner = net.peers[0].peer_id
    net.peers[3].core.runner = b""
    net.open_table()
    net.run(lambda: len(net.peers[1].session.joins) == 3)
    view = lobby_view(net.peers[1].session, ShellFacts(table_id=bytes(16)))
    runners = {seat.name: seat.runner for seat in view.seats}
    assert runners == {"p0": "", "p1": "", "p2": "p0", "p3": OWN_MACHINE}


def _a_player_to_act(players: int, seed: int) -> tuple[SimNet, SimPeer]:
    """A table in play whose computer players wait: the one to act, with every card it may
    see decoded."""
    net = SimNet(GameConfig(players), seed=seed)
    for p in net.peers:
        p.bot = False
    net.open_table()
    net.run(lambda: any(p.session.can_act() for p in net.peers))
    actor = next(p for p in net.peers if p.session.can_act())
    return net, actor


@pytest.mark.parametrize("then", ["sent", "command"])
def test_a_turn_action_is_stored_and_sent_before_its_author_applies_it(then: str) -> None:
    """The others wait for our action, not for our own application of it: the core hands
    the shell the action to store and send first; the session says we have acted (no
    second action meanwhile); the shell saying it has sent it, or any input, applies it.
    Drawing the effects alone changes nothing."""
    net, actor = _a_player_to_act(3, seed=11)
    state = actor.session.state
    assert state is not None
    turn, stored = state.turn, len(actor.stored)
    act = fx.Act(choose_action(state, actor.session.my_seat or 0))
    actor.core.handle(ins.Command(act, net.now))
    first = actor.core.drain()
    assert [type(e) for e in first] == [fx.StoreEntry, fx.Broadcast]
    sent = first[0]
    assert isinstance(sent, fx.StoreEntry) and sent.own and sent.entry.kind == "action"
    assert state.turn == turn and not actor.session.my_turn()
    assert actor.session.turn_reveals.get(turn) is None  # not applied yet
    assert actor.core.drain() == [] and actor.core.action_unapplied  # a draw has no effect
    assert actor.session.turn_reveals.get(turn) is None
    if then == "sent":
        actor.core.handle(ins.ActionSent(net.now))
    else:  # any input applies it first: here a command, refused (we have acted)
        with pytest.raises(HanabiError):
            actor.core.handle(ins.Command(act, net.now))
    rest = actor.core.drain()
    assert not actor.core.action_unapplied
    assert actor.session.turn_reveals.get(turn) is not None  # applied now
    assert not any(isinstance(e, fx.StoreEntry | fx.Broadcast) and getattr(e, "entry", None)
                   == sent.entry for e in rest)  # stored and sent once
    net._carry_out(actor, [*first, *rest])
    assert len(actor.stored) == stored + 1
    for p in net.peers:
        p.bot = True
    net.run(net.all_finished)
    assert {p.finished for p in net.peers} == {fx.Finished(fx.EndKind.AUDITED, None)}
    assert len(net.digests()) == 1 and no_blame(net)
