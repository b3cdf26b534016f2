"""The invariant one level up from the body parsers (issue 10, item 1): a signed entry of
any kind with any body and any turn, from a seated player or a stranger, in the lobby or
during play, is accepted, held, ignored or refused by the replica and the session: never an
exception out of ``Replica.add`` (which once killed a host's event task).

Every example starts from a fresh receiver (an observer that replayed a real table up to
the lobby or to the first turn), so each fuzzed entry is the next one of its author's chain
and reaches the session's checks instead of waiting behind an earlier example.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest
from hypothesis import assume, event, given, settings
from hypothesis import strategies as st
from session_harness import TABLE_ID, Table
from test_bodies_fuzz import VALID, mutated, values

from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.identity import Identity
from hanabi_p2p.log.entry import Entry, make_entry
from hanabi_p2p.log.replica import Replica, Status
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.bodies import Address
from hanabi_p2p.session.table import TableSession

# property tests over every kind of body: too slow for the fast tier
pytestmark = pytest.mark.slow

KINDS = sorted(VALID)
STRANGER = Identity.from_seed(b"\x77" * 32)
WATCHER = Identity.from_seed(b"\x78" * 32)


@cache
def scenes() -> dict[str, tuple[tuple[Entry, ...], tuple[Identity, ...]]]:
    """Entries of a table in its lobby (open, one join) and of one dealt, at turn 1."""
    lobby = Table(GameConfig(3), seed=1)
    lobby.peers[0].session.open_table("fuzz", "p0", GameConfig(3))
    lobby.pump()
    lobby.peers[1].session.request_seat("p1", Address("192.0.2.1", 4001))
    lobby.pump()
    playing = Table(GameConfig(3), seed=2)
    playing.seat_everyone()
    playing.pump()
    return {
        name: (tuple(table.peers[0].replica.applied), tuple(p.identity for p in table.peers))
        for name, table in (("lobby", lobby), ("playing", playing))
    }


def fresh(entries: tuple[Entry, ...]) -> Replica:
    watcher = TableSession(WATCHER, TABLE_ID, seed=bytes(32))
    replica = Replica(TABLE_ID, watcher)
    for entry in entries:
        replica.add(entry)
    return replica


@settings(max_examples=600, deadline=None)
@given(scene=st.sampled_from(["lobby", "playing"]), author=st.integers(0, 3),
       kind=st.sampled_from(KINDS), turn=st.integers(0, 3) | st.integers(0, 70),
       data=st.data())
def test_any_signed_entry_is_answered_never_raised(
    scene: str, author: int, kind: str, turn: int, data: st.DataObject
) -> None:
    entries, identities = scenes()[scene]
    body: Any = data.draw(st.one_of(mutated(kind), mutated(kind), values))
    identity = STRANGER if author == 3 else identities[author]
    replica = fresh(entries)
    seq, prev = replica.next_link(identity.peer_id)
    try:
        entry = make_entry(identity, table_id=TABLE_ID, seq=seq, prev=prev, turn=turn,
                           kind=kind, body=body)
    except LocalProtocolError:
        assume(False)  # outside the msgpack model: no peer can sign it either
    result = replica.add(entry)
    assert isinstance(result.status, Status)
    event(f"{scene} {kind}: {result.status.value}")
