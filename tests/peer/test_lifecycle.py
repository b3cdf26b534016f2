"""The peer's lifecycle tables (`peer/lifecycle.py`) and the router around them."""

from __future__ import annotations

import pytest
from core_harness import SimNet

from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import inputs as ins
from hanabi_p2p.peer.core import PeerCore
from hanabi_p2p.peer.lifecycle import (
    PLAYER_TRANSITIONS,
    WATCHER_TRANSITIONS,
    Lifecycle,
    Stage,
    Trigger,
    WatchStage,
)
from hanabi_p2p.rules.cards import GameConfig


def test_a_trigger_with_no_row_raises_in_tests_and_is_counted_in_a_program() -> None:
    strict = Lifecycle(Stage.PLAYING, PLAYER_TRANSITIONS, strict=True)
    with pytest.raises(LocalProtocolError, match="PLAYING on ASKED_FOR_SEAT"):
        strict.fire(Trigger.ASKED_FOR_SEAT)
    assert strict.stage is Stage.PLAYING
    lenient = Lifecycle(Stage.PLAYING, PLAYER_TRANSITIONS)
    assert lenient.fire(Trigger.ASKED_FOR_SEAT) is Stage.PLAYING
    assert lenient.missing == 1
    assert lenient.fire(Trigger.GAME_ENDED) is Stage.LINGERING


@pytest.mark.parametrize(("table", "first"), [(PLAYER_TRANSITIONS, Stage.LOBBY),
                                              (WATCHER_TRANSITIONS, WatchStage.FINDING)])
def test_every_stage_is_reachable_and_every_stage_can_finish(table, first) -> None:  # type: ignore[no-untyped-def]
    reached, frontier = {first}, [first]
    while frontier:
        stage = frontier.pop()
        for (source, _trigger), target in table.items():
            if source is stage and target not in reached:
                reached.add(target)
                frontier.append(target)
    assert reached == set(type(first))
    done = type(first).DONE
    assert all(table.get((s, Trigger.FINISHED)) is done for s in type(first) if s is not done)


def test_players_and_spectators_walk_their_tables_in_order_through_a_game() -> None:
    net = SimNet(GameConfig(3), seed=41)
    seen: dict[int, list[object]] = {}
    net.open_table()
    watcher = net.add_watcher("eve")

    def record() -> bool:
        for p in net.peers:
            stages = seen.setdefault(p.index, [])
            if not stages or stages[-1] is not p.core.stage:
                stages.append(p.core.stage)
        return net.all_finished() and watcher.finished is not None

    net.run(record)
    record()
    assert seen[0] == [Stage.LOBBY, Stage.DEALING, Stage.PLAYING, Stage.LINGERING, Stage.DONE]
    for joiner in (1, 2):
        assert seen[joiner] == [Stage.LOBBY, Stage.SEAT_ASKED, Stage.DEALING, Stage.PLAYING,
                                Stage.LINGERING, Stage.DONE]
    assert seen[watcher.index] == [WatchStage.FINDING, WatchStage.FOLLOWING, WatchStage.DONE]


def test_a_message_of_an_unknown_topic_or_out_of_its_stage_is_counted_and_ignored() -> None:
    net = SimNet(GameConfig(2), seed=42)
    net.open_table()
    net.run(lambda: net.peers[1].core.stage is Stage.PLAYING)
    bob = net.peers[1]
    core = bob.core
    assert isinstance(core, PeerCore)
    alice = net.peers[0].peer_id
    core.handle(ins.Received(alice, fr.Message("from.the.future", b"x"), net.now))
    assert core.counters.unknown_topics == 1
    # "the host removed you" means nothing once the game is in play
    core.handle(ins.Received(alice, fr.Message("lobby.removed", b""), net.now))
    assert core.counters.out_of_stage == 1
    assert core.finished is None
