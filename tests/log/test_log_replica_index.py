"""The replica's held-entry index (issue 10, item 4): counts, not timings.

Each held entry once made the peer recompute every gap (40 authors x 400 entries: 22 s of
CPU). The index is now kept as entries are held and released; these tests count its steps
(``Replica.index_steps``) and check what it answers against a brute-force recomputation.
"""

from __future__ import annotations

import random
from functools import cache

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from log_helpers import Author

from hanabi_p2p.identity import Identity
from hanabi_p2p.log.entry import Entry
from hanabi_p2p.log.replica import Gap, Replica, Status

AUTHORS = 40
PER_AUTHOR = 120
# Index steps one held entry may cost, whatever is already held: a run update, plus one
# step per author for has_gaps/gap_starts (what the peer asks after every held entry).
STEPS_PER_HOLD = 2


class AlwaysReady:
    def ready(self, entry: Entry) -> bool:
        return True

    def apply(self, entry: Entry) -> None:
        return None


@cache
def chains(authors: int, length: int) -> tuple[tuple[Entry, ...], ...]:
    out = []
    for i in range(authors):
        author = Author(Identity.from_seed(i.to_bytes(2, "big") * 16))
        out.append(tuple(author.write("chat", {"text": "x"}) for _ in range(length)))
    return tuple(out)


def brute_gaps(replica: Replica, held: set[tuple[bytes, int]]) -> list[Gap]:
    out = []
    for author in sorted({a for a, _ in held}):
        expected = replica.next_seq(author)
        for seq in sorted(s for a, s in held if a == author):
            if seq > expected:
                out.append(Gap(author, expected, seq))
            expected = seq + 1
    return out


@pytest.mark.slow
def test_holding_an_entry_costs_the_same_however_many_are_held() -> None:
    """Every author's seq 0 is missing; everything else arrives shuffled and is held."""
    replica = Replica(bytes(range(16)), AlwaysReady())
    entries = [e for chain in chains(AUTHORS, PER_AUTHOR) for e in chain[1:]]
    random.Random(7).shuffle(entries)
    costs = []
    for entry in entries:
        before = replica.index_steps
        assert replica.add(entry).status is Status.HELD
        costs.append(replica.index_steps - before)
    assert len(replica.held()) == AUTHORS * (PER_AUTHOR - 1)
    assert max(costs) <= STEPS_PER_HOLD  # the 4,000th costs what the first did

    before = replica.index_steps
    assert replica.has_gaps()
    starts = replica.gap_starts()
    assert replica.index_steps - before <= 2 * AUTHORS  # one step per author, twice
    assert starts == {chain[0].author: 0 for chain in chains(AUTHORS, PER_AUTHOR)}
    assert replica.have() == {author: 0 for author in starts}


def test_a_missing_entry_releases_its_chain_in_steps_proportional_to_the_chain() -> None:
    replica = Replica(bytes(range(16)), AlwaysReady())
    all_chains = chains(AUTHORS, PER_AUTHOR)
    for chain in all_chains:
        for entry in reversed(chain[1:]):
            replica.add(entry)
    held = AUTHORS * (PER_AUTHOR - 1)
    before = replica.index_steps
    result = replica.add(all_chains[0][0])
    assert result.status is Status.ACCEPTED and len(result.applied) == PER_AUTHOR
    # each released entry: its run update plus one look at each author's next candidate
    assert replica.index_steps - before <= PER_AUTHOR * (1 + AUTHORS) + AUTHORS
    assert len(replica.held()) == held - (PER_AUTHOR - 1)
    assert not any(g.author == all_chains[0][0].author for g in replica.gaps())


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_the_index_answers_what_a_full_recomputation_answers(data: st.DataObject) -> None:
    """Random arrivals (holes, releases, repeats) of 3 authors' chains: gaps, have and
    gap_starts always equal the brute-force answer."""
    replica = Replica(bytes(range(16)), AlwaysReady())
    pool = [e for chain in chains(3, 12) for e in chain]
    for entry in data.draw(st.lists(st.sampled_from(pool), max_size=40)):
        replica.add(entry)
        held = {(e.author, e.seq) for e in replica.held()}
        gaps = brute_gaps(replica, held)
        assert replica.gaps() == gaps
        assert replica.has_gaps() == bool(gaps)
        firsts: dict[bytes, int] = {}
        for gap in gaps:
            firsts.setdefault(gap.author, gap.start)
        assert replica.gap_starts() == firsts
        for author, n in replica.have().items():
            expected = replica.next_seq(author)
            while (author, expected) in held:
                expected += 1
            assert n == expected


def brute_missing(replica: Replica, peer_have: dict[bytes, int],
                  limit: int | None) -> list[Entry]:
    """What a peer holding `peer_have` lacks, by looking at every entry we store: applied
    ones in our order, then held ones in the replica's order, at most `limit`."""
    out = [e for e in [*replica.applied, *replica.held()]
           if e.seq >= peer_have.get(e.author, 0)]
    return out if limit is None else out[:limit]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_missing_answers_what_a_look_at_every_entry_answers(data: st.DataObject) -> None:
    """`missing` looks only at each author's entries past what the peer holds (a
    spectator's HAVE, answered every second, once walked the whole log): random arrivals
    of 3 authors' chains and a random peer's HAVE (some authors left out, some counts past
    ours) get what a look at every stored entry gives, in the same order."""
    replica = Replica(bytes(range(16)), AlwaysReady())
    all_chains = chains(3, 12)
    arrivals = data.draw(st.permutations([e for chain in all_chains for e in chain]))
    for entry in arrivals[:data.draw(st.integers(0, len(arrivals)))]:
        replica.add(entry)
    named = data.draw(st.lists(st.sampled_from([c[0].author for c in all_chains]),
                               unique=True))
    peer_have = {author: data.draw(st.integers(0, 14)) for author in named}
    limit = data.draw(st.none() | st.integers(1, 40))
    assert replica.missing(peer_have, limit) == brute_missing(replica, peer_have, limit)
