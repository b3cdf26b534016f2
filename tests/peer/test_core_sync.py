"""How entries travel between seated peers: once per link when nothing is lost, and still
to everyone when something is (in memory, fake clock, links with real-world delays)."""

from __future__ import annotations

import collections
import hashlib

import core_harness
import pytest
from core_harness import SimNet, no_blame

from hanabi_p2p.log.entry import decode_entry
from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import effects as fx
from hanabi_p2p.peer.context import SYNC_INTERVAL_S
from hanabi_p2p.peer.replication import IN_FLIGHT_S
from hanabi_p2p.rules.cards import GameConfig

# whole games of peer cores on the simulated network: too slow for the fast tier
pytestmark = pytest.mark.slow

# slow links (a busy Wi-Fi): every HAVE round finds entries on their way somewhere
SLOW_LINKS_S = (0.05, 0.2)
TURN_KINDS = {"action", "ack"}


@pytest.fixture
def slow_links(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(core_harness, "LATENCY_S", SLOW_LINKS_S)


def _assert_honest_end(net: SimNet) -> None:
    for p in net.peers:
        assert p.finished == fx.Finished(fx.EndKind.AUDITED, None), p.finished
        assert not p.faults() and not p.link_problems()
    assert len(net.digests()) == 1
    assert no_blame(net)


@pytest.mark.usefixtures("slow_links")
@pytest.mark.parametrize("players", [3, 5])
def test_a_turn_entry_crosses_each_link_once(players: int) -> None:
    """A HAVE that lacks an entry still on its way from its author is not answered with a
    second copy of it, nor does it make anyone ask for it."""
    net = SimNet(GameConfig(players), seed=11)
    copies: collections.Counter[tuple[int, bytes]] = collections.Counter()
    turn_frames = 0

    def count(src: int, dst: int, frame: fr.Frame) -> bool:
        nonlocal turn_frames
        if isinstance(frame, fr.Entry) and decode_entry(frame.data).kind in TURN_KINDS:
            copies[(dst, hashlib.sha256(frame.data).digest())] += 1
            turn_frames += 1
        return True

    net.on_frame = count
    took = net.play_to_end()
    _assert_honest_end(net)
    assert took > 10 * SYNC_INTERVAL_S  # many HAVE rounds met entries on their way
    assert turn_frames > 0
    assert max(copies.values()) == 1


@pytest.mark.usefixtures("slow_links")
def test_an_entry_lost_on_a_link_still_arrives_by_have() -> None:
    """The one exception to 'once': an entry that really went missing is sent again by the
    first HAVE answer after IN_FLIGHT_S, within a sync round or two."""
    net = SimNet(GameConfig(3), seed=12)
    lost: list[tuple[bytes, float]] = []  # (hash, when) of the action peer 2 never got
    arrived: list[float] = []

    def lose_one(src: int, dst: int, frame: fr.Frame) -> bool:
        if not isinstance(frame, fr.Entry) or dst != 2:
            return True
        entry = decode_entry(frame.data)
        if not lost and entry.kind == "action" and src == net._index(entry.author):
            lost.append((entry.hash, net.now))
            return False
        if lost and entry.hash == lost[0][0]:
            arrived.append(net.now)
        return True

    net.on_frame = lose_one
    net.play_to_end()
    _assert_honest_end(net)
    assert lost and arrived
    assert arrived[0] - lost[0][1] <= IN_FLIGHT_S + 2 * SYNC_INTERVAL_S + max(SLOW_LINKS_S)
