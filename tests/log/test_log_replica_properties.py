"""Property: any delivery order and duplication of the same entries gives the same state."""

from __future__ import annotations

from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from log_helpers import ALICE, BOB, CAROL, DAVE, TABLE, ToyApp, play_script

from hanabi_p2p.log.entry import Entry
from hanabi_p2p.log.replica import Replica, Status
from hanabi_p2p.log.verify import digest

PLAYERS = [ALICE, BOB, CAROL, DAVE]


@cache
def scenario(players: int, turns: int, chats: tuple[tuple[int, int], ...]) -> tuple[Entry, ...]:
    return tuple(play_script(PLAYERS[:players], turns, chats))


@cache
def reference_state(players: int, turns: int, chats: tuple[tuple[int, int], ...]) -> bytes:
    app = ToyApp()
    replica = Replica(TABLE, app)
    for entry in scenario(players, turns, chats):
        assert replica.add(entry).status == Status.ACCEPTED
    return app.state_bytes()


scenarios = st.tuples(
    st.integers(2, 4),
    st.integers(0, 8),
    st.lists(st.tuples(st.integers(0, 8), st.integers(0, 3)), max_size=4).map(
        lambda cs: tuple(sorted(cs))
    ),
)


@settings(max_examples=60, deadline=None)
@given(scenarios, st.data())
def test_any_order_and_duplication_converges(
    params: tuple[int, int, tuple[tuple[int, int], ...]], data: st.DataObject
) -> None:
    players, turns, chats = params
    chats = tuple((min(t, turns), p) for t, p in chats)
    log = list(scenario(players, turns, chats))
    delivery = data.draw(st.permutations(log))
    extra = data.draw(st.lists(st.sampled_from(log), max_size=len(log)))
    positions = data.draw(
        st.lists(st.integers(0, len(delivery)), min_size=len(extra), max_size=len(extra))
    )
    for entry, pos in zip(extra, positions, strict=True):
        delivery.insert(pos, entry)

    app = ToyApp()
    replica = Replica(TABLE, app)
    for entry in delivery:
        assert replica.add(entry).status != Status.REJECTED

    assert app.state_bytes() == reference_state(players, turns, chats)
    assert digest(replica.applied) == digest(log)
    assert len(replica.applied) == len(log)
    assert replica.held() == [] and replica.gaps() == []


@settings(max_examples=30, deadline=None)
@given(st.integers(2, 4), st.integers(1, 6), st.data())
def test_peers_that_each_saw_a_part_converge_by_relaying(
    players: int, turns: int, data: st.DataObject
) -> None:
    log = list(scenario(players, turns, ()))
    owners = data.draw(st.lists(st.integers(0, 2), min_size=len(log), max_size=len(log)))
    peers = [Replica(TABLE, ToyApp()) for _ in range(3)]
    for entry, owner in zip(log, owners, strict=True):
        peers[owner].add(entry)
    for _ in range(2):
        for src in peers:
            for dst in peers:
                if src is not dst:
                    for entry in src.missing(dst.have()):
                        dst.add(entry)
    states = {p.app.state_bytes() for p in peers if isinstance(p.app, ToyApp)}
    assert states == {reference_state(players, turns, ())}


@pytest.mark.slow
@settings(max_examples=40, deadline=None)
@given(scenarios, st.data())
def test_a_batch_applies_the_same_whatever_its_order(
    params: tuple[int, int, tuple[tuple[int, int], ...]], data: st.DataObject
) -> None:
    """``add_batch`` (the verifier's mode) stores the set first and applies in the app's
    order alone: any listing of the entries, with repeats, gives the same applied sequence,
    not only the same final state."""
    players, turns, chats = params
    chats = tuple((min(t, turns), p) for t, p in chats)
    log = list(scenario(players, turns, chats))
    listing = data.draw(st.permutations(log)) + data.draw(st.lists(st.sampled_from(log),
                                                                     max_size=5))
    reference = Replica(TABLE, ToyApp())
    reference.add_batch(log)
    replica = Replica(TABLE, ToyApp())
    results = replica.add_batch(listing)
    assert [e.hash for e in replica.applied] == [e.hash for e in reference.applied]
    assert len(replica.applied) == len(log) and replica.held() == []
    assert sum(r.status is Status.DUPLICATE for r in results) == len(listing) - len(log)
