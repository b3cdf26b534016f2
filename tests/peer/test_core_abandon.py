"""Ending a game by agreement (issue 29 case 8): a player who never moves need not hold the
table for ever. Every seated player votes `abandon`; the seat to move's vote, at its turn,
ends the game "abandoned" at the same point for everyone, nobody blamed, audited, and every
copy verifies valid (abandoned)."""

from __future__ import annotations

import pytest
from core_harness import SimNet, SimPeer, no_blame

from hanabi_p2p import refusals as rf
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.rules.engine import End
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.table import AUDITED
from hanabi_p2p.session.verify import Verdict, verify_game


def _game_at_turn(players: int, seed: int, turn: int) -> tuple[SimNet, SimPeer]:
    """A game whose bots play until ``turn``; then the seat to move stops playing (it is
    thinking, for ever): returns the net and that peer."""
    net = SimNet(GameConfig(players), seed=seed)
    net.open_table()
    host = net.peers[0]
    net.run(lambda: host.session.state is not None and host.session.state.turn >= turn)
    state = host.session.state
    assert state is not None
    mover = next(p for p in net.peers if p.session.my_seat == state.current_seat)
    mover.bot = False  # never acts again by itself
    net.run_for(1.0)
    return net, mover


def _others(net: SimNet, peer: SimPeer) -> list[SimPeer]:
    return [p for p in net.peers[: net.players] if p is not peer]


def _check_abandoned(net: SimNet, at_turn: int) -> None:
    for p in net.peers[: net.players]:
        assert p.finished == fx.Finished(fx.EndKind.AUDITED, None), p.finished
        assert p.session.phase == AUDITED
        assert p.session.abandoned_at == at_turn
        state = p.session.state
        assert state is not None and state.end is End.TERMINATED and state.turn == at_turn
        assert any(isinstance(e, ev.Abandoned) for e in p.events)
        report = verify_game(p.stored)
        assert report.verdict is Verdict.VALID, report.headline()
        assert report.abandoned_at == at_turn
        assert report.headline().startswith("valid (abandoned by agreement")
    assert no_blame(net) and len(net.digests()) == 1


# Seeds 81, 84 and 88 are games in which a player's seed, posted once the end vote reached it,
# reached the third player before that vote: it held the seed at the same turn, took its
# author for a player who left, and aborted (until the seed said the turn after the end).
@pytest.mark.parametrize("seed", [80, 81, 84, 88])
def test_the_others_ask_and_the_player_to_move_agrees_at_its_turn(seed: int) -> None:
    net, mover = _game_at_turn(3, seed=seed, turn=4)
    state = mover.session.state
    assert state is not None
    turn = state.turn
    for p in _others(net, mover):
        net.command(p, fx.Abandon())
    net.run_for(1.0)
    # asked, not ended: the player to move has not agreed
    assert all(p.session.abandon_votes == {s for s in range(3) if s != mover.session.my_seat}
               for p in net.peers)
    assert all(p.finished is None for p in net.peers)
    with pytest.raises(rf.AbandonAskedAlready):
        net.command(_others(net, mover)[0], fx.Abandon())
    net.command(mover, fx.Abandon())
    net.run(net.all_finished)
    _check_abandoned(net, turn)


def test_the_player_to_move_asks_first_and_the_game_goes_on_until_everyone_agrees() -> None:
    """The player to move asks and then plays on (its vote stands); when the last player
    agrees, whoever is to move then ends the game at its turn, at one point for all."""
    net, mover = _game_at_turn(3, seed=82, turn=2)
    host = net.peers[0]

    def turns_pass(count: int) -> None:
        state = host.session.state
        assert state is not None
        target = state.turn + count
        net.run(lambda: host.session.state is not None and host.session.state.turn >= target)

    net.command(mover, fx.Abandon())
    mover.bot = True  # it plays on
    net._maybe_act(mover)
    turns_pass(2)
    first, last = _others(net, mover)
    net.command(first, fx.Abandon())
    turns_pass(2)
    assert all(p.finished is None for p in net.peers)
    net.command(last, fx.Abandon())
    net.run(net.all_finished)
    at = net.peers[0].session.abandoned_at
    assert at is not None
    _check_abandoned(net, at)


def test_abandon_is_refused_before_the_deal_and_after_the_game() -> None:
    net = SimNet(GameConfig(2), seed=83)
    net.open_table()
    with pytest.raises(rf.NoGameToAbandon):
        net.command(net.peers[1], fx.Abandon())
    net.run(net.all_finished)
    with pytest.raises(rf.TableClosed):
        net.command(net.peers[1], fx.Abandon())


def test_a_computer_player_agrees_when_another_player_asks() -> None:
    """The BotPlayer front end, at a real session of a SimNet game: once a person asks to
    end the game, it agrees by itself (once), and the game ends abandoned."""
    import asyncio
    from collections.abc import Callable

    from hanabi_p2p.frontends.headless import BotPlayer

    net, mover = _game_at_turn(2, seed=84, turn=3)
    person = mover  # the player to move asks; its partner is a computer player
    computer = _others(net, person)[0]
    commands: list[fx.Command] = []

    class Handle:  # the part of a PeerHandle a BotPlayer uses
        session = computer.session
        finished = False

        def command(self, command: fx.Command) -> None:
            commands.append(command)
            net.command(computer, command)

        def after(self, delay: float, call: Callable[[], None], _name: str) -> None:
            asyncio.get_running_loop().call_later(delay, call)  # (no node here to own it)

    front = BotPlayer(out=None)
    front.peer = Handle()  # type: ignore[assignment]

    async def ask_and_wait() -> None:
        net.command(person, fx.Abandon())
        net.run_for(0.5)
        front.on_events([e for e in computer.events if isinstance(e, ev.AbandonVoted)])
        front.on_events([ev.AbandonVoted(person.session.my_seat or 0)])  # told twice
        await asyncio.sleep(0.01)

    asyncio.run(ask_and_wait())
    assert commands == [fx.Abandon()]
    net.run(net.all_finished)
    at = net.peers[0].session.abandoned_at
    assert at is not None
    _check_abandoned(net, at)
