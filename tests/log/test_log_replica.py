"""The replication state machine with a toy app: ordering, holding, tampering, syncing."""

from __future__ import annotations

import pytest
from log_helpers import ALICE, BOB, CAROL, DAVE, OTHER_TABLE, TABLE, Author, ToyApp, play_script

from hanabi_p2p.errors import LocalProtocolError
from hanabi_p2p.log import replica as replica_mod
from hanabi_p2p.log.entry import Entry, make_entry
from hanabi_p2p.log.replica import Gap, Replica, Status


def fresh() -> tuple[Replica, ToyApp]:
    app = ToyApp()
    return Replica(TABLE, app), app


def feed(replica: Replica, entries: list[Entry]) -> list[Status]:
    return [replica.add(e).status for e in entries]


def lobby() -> tuple[list[Author], list[Entry]]:
    """Alice hosts, Bob joins, both seated. Returns the authors (to write more) and entries."""
    alice, bob = Author(ALICE), Author(BOB)
    entries = [
        alice.write("table.open", {"name": "t"}),
        bob.write("lobby.join", {"name": "bob"}),
        alice.write("lobby.seat", {"seats": [ALICE.peer_id, BOB.peer_id]}),
    ]
    return [alice, bob], entries


def test_in_order_entries_apply_one_by_one() -> None:
    replica, app = fresh()
    log = play_script([ALICE, BOB, CAROL], turns=5)
    assert feed(replica, log) == [Status.ACCEPTED] * len(log)
    assert replica.applied == log
    assert app.turn == 5
    assert replica.held() == [] and replica.gaps() == []


def test_reversed_delivery_is_held_then_applied_in_a_cascade() -> None:
    replica, app = fresh()
    log = play_script([ALICE, BOB], turns=4)
    statuses = feed(replica, list(reversed(log)))
    assert statuses[:-1] == [Status.HELD] * (len(log) - 1)
    last = replica.add(log[0])  # already added: duplicate now
    assert last.status == Status.DUPLICATE
    assert statuses[-1] == Status.ACCEPTED
    assert sorted(e.hash for e in replica.applied) == sorted(e.hash for e in log)
    assert app.turn == 4


def test_cascade_reports_everything_it_applied_in_order() -> None:
    replica, _ = fresh()
    log = play_script([ALICE, BOB], turns=3)
    for entry in log[1:]:
        replica.add(entry)
    result = replica.add(log[0])
    assert result.status == Status.ACCEPTED
    assert result.applied[0] == log[0]
    assert list(result.applied) == replica.applied
    assert len(result.applied) == len(log)


def test_duplicates_change_nothing() -> None:
    replica, app = fresh()
    log = play_script([ALICE, BOB], turns=2)
    feed(replica, log)
    before = app.state_bytes()
    assert feed(replica, log) == [Status.DUPLICATE] * len(log)
    assert app.state_bytes() == before
    assert len(replica.applied) == len(log)


def test_dropped_entry_blocks_later_ones_and_shows_as_a_gap() -> None:
    replica, app = fresh()
    log = play_script([ALICE, BOB], turns=6)
    missing = log[5]  # an action somewhere in the middle
    feed(replica, [e for e in log if e != missing])
    assert missing not in replica.applied
    assert app.turn == missing.body["n"]  # stopped right before the missing turn
    gaps = replica.gaps()
    assert any(g.author == missing.author and g.start <= missing.seq < g.stop for g in gaps)
    assert replica.add(missing).status == Status.ACCEPTED
    assert app.turn == 6 and replica.gaps() == [] and replica.held() == []


def test_gap_ranges_are_exact() -> None:
    replica, _ = fresh()
    alice = Author(ALICE)
    entries = [alice.write("table.open", {}), *[alice.write("chat", "x") for _ in range(5)]]
    feed(replica, [entries[2], entries[4], entries[5]])
    assert replica.gaps() == [Gap(ALICE.peer_id, 0, 2), Gap(ALICE.peer_id, 3, 4)]


def test_entry_from_another_game_is_rejected() -> None:
    replica, app = fresh()
    spliced = Author(ALICE, table_id=OTHER_TABLE).write("table.open", {})
    result = replica.add(spliced)
    assert result.status == Status.REJECTED
    assert result.error is not None and "belongs to table" in str(result.error)
    assert result.error.peer == ALICE.fingerprint
    assert app.host is None and replica.applied == []


def test_raw_bytes_that_fail_decoding_are_rejected_with_the_error() -> None:
    replica, _ = fresh()
    raw = bytearray(Author(ALICE).write("table.open", {}).encoded)
    raw[-1] ^= 1
    result = replica.add_raw(bytes(raw))
    assert result.status == Status.REJECTED
    assert result.error is not None and "signature" in result.reason
    assert replica.applied == []


def test_add_requires_a_decoded_entry() -> None:
    replica, _ = fresh()
    with pytest.raises(LocalProtocolError):
        replica.add(b"raw bytes")  # type: ignore[arg-type]


def test_broken_chain_link_is_rejected() -> None:
    replica, _ = fresh()
    alice = Author(ALICE)
    replica.add(alice.write("table.open", {}))
    bad = make_entry(ALICE, table_id=TABLE, seq=1, prev=b"\x42" * 32, turn=0, kind="chat", body="x")
    result = replica.add(bad)
    assert result.status == Status.REJECTED
    assert "prev does not match" in result.reason
    # remembered: the same bytes are refused again at once
    assert replica.add(bad).status == Status.REJECTED
    assert [r.entry for r in replica.rejections] == [bad]


def test_broken_link_in_a_held_entry_is_dropped_when_its_turn_comes() -> None:
    replica, _ = fresh()
    alice = Author(ALICE)
    first = alice.write("table.open", {})
    bad = make_entry(ALICE, table_id=TABLE, seq=1, prev=b"\x42" * 32, turn=0, kind="chat", body="x")
    assert replica.add(bad).status == Status.HELD
    result = replica.add(first)
    assert result.status == Status.ACCEPTED
    assert [d.reason for d in result.dropped] == ["prev does not match the author's entry 0"]
    assert replica.held() == []


def test_reordered_chain_signed_by_the_author_breaks_the_links() -> None:
    """An author re-signing its entries in another order cannot keep the hash links."""
    replica, _ = fresh()
    alice = Author(ALICE)
    e0 = alice.write("table.open", {})
    e1 = alice.write("chat", "first")
    e2 = alice.write("chat", "second")
    # Swap the seqs of e1 and e2 but keep their prev fields.
    swapped_2 = make_entry(
        ALICE, table_id=TABLE, seq=1, prev=e2.prev, turn=0, kind="chat", body="second"
    )
    swapped_1 = make_entry(
        ALICE, table_id=TABLE, seq=2, prev=e1.prev, turn=0, kind="chat", body="first"
    )
    replica.add(e0)
    assert replica.add(swapped_2).status == Status.REJECTED
    assert replica.add(swapped_1).status == Status.HELD
    assert replica.next_seq(ALICE.peer_id) == 1


def test_equivocation_is_detected_kept_as_proof_and_flags_the_author() -> None:
    replica, app = fresh()
    (alice, bob), entries = lobby()
    feed(replica, entries)
    bob_fork = Author(BOB)
    bob_fork.seq, bob_fork.prev = bob.seq, bob.prev
    honest = bob.write("chat", "hello")
    fork = bob_fork.write("chat", "HELLO")
    assert replica.add(honest).status == Status.ACCEPTED
    result = replica.add(fork)
    assert result.status == Status.REJECTED
    assert result.equivocation is not None
    proof = result.equivocation
    assert (proof.first, proof.second) == (honest, fork)
    assert proof.is_valid()
    assert replica.equivocations == [proof]
    assert BOB.peer_id in replica.equivocators
    # later entries of the equivocator are refused, others still apply
    assert replica.add(bob.write("chat", "more")).status == Status.REJECTED
    assert replica.add(alice.write("action", {"n": 0}, 0)).status == Status.ACCEPTED
    assert app.turn == 1


def test_equivocation_between_held_entries_drops_the_authors_held_entries() -> None:
    replica, _ = fresh()
    alice = Author(ALICE)
    e0 = alice.write("table.open", {})
    fork = Author(ALICE)
    fork.seq, fork.prev = alice.seq, alice.prev
    a1, b1 = alice.write("chat", "a"), fork.write("chat", "b")
    a2 = alice.write("chat", "a2")
    assert feed(replica, [a1, a2]) == [Status.HELD, Status.HELD]
    assert replica.add(b1).equivocation is not None
    assert replica.held() == []
    assert replica.add(e0).status == Status.REJECTED


def test_fake_equivocation_proof_is_not_valid() -> None:
    from hanabi_p2p.log.equivocation import Equivocation

    a = Author(ALICE).write("table.open", {})
    b = Author(BOB).write("table.open", {})
    assert not Equivocation(a, b).is_valid()  # different authors
    assert not Equivocation(a, a).is_valid()  # same entry


def test_app_refusal_rejects_and_changes_nothing() -> None:
    replica, app = fresh()
    (alice, _bob), entries = lobby()
    feed(replica, entries)
    before = app.state_bytes()
    result = replica.add(alice.write("action", {"illegal": True}, 0))
    assert result.status == Status.REJECTED
    assert "refused by the game: that move is illegal" in result.reason
    assert result.error is not None and result.error.peer == ALICE.fingerprint
    assert app.state_bytes() == before
    assert len(replica.applied) == len(entries)


def test_out_of_turn_action_is_refused_by_the_app() -> None:
    replica, app = fresh()
    (_alice, bob), entries = lobby()
    feed(replica, entries)
    result = replica.add(bob.write("action", {"n": 0}, 0))  # it is Alice's turn
    assert result.status == Status.REJECTED and "not your turn" in result.reason
    assert app.turn == 0


def test_unseated_authors_are_ignored_after_seating_and_their_held_entries_dropped() -> None:
    """Outside the game once seating is fixed: dropped, never remembered, nobody's fault
    (SPEC 3.6 step 5), whether they were held before the seating or arrive after it."""
    replica, _ = fresh()
    carol = Author(CAROL)
    carol_open = carol.write("table.open", {})
    carol_chat = carol.write("chat", "let me in", 0)
    assert replica.add(carol_chat).status == Status.HELD  # waiting for carol's seq 0
    _, entries = lobby()
    results = [replica.add(e) for e in entries]
    assert [d for r in results for d in r.dropped] == []
    assert replica.held() == [] and replica.rejections == []
    late = replica.add(carol_open)
    assert late.status == Status.IGNORED and "not seated" in late.reason
    assert not late.permanent and late.error is None
    outsider = Author(DAVE).write("table.open", {})
    assert replica.add(outsider).status == Status.IGNORED
    assert replica.rejections == []


def test_too_far_ahead_is_refused_but_not_remembered() -> None:
    replica, _ = fresh()
    far = make_entry(
        ALICE,
        table_id=TABLE,
        seq=replica_mod.MAX_AHEAD,
        prev=b"\x01" * 32,
        turn=0,
        kind="chat",
        body=None,
    )
    result = replica.add(far)
    assert result.status == Status.REJECTED and "too far ahead" in result.reason
    assert replica.rejections == [] and replica.held() == []


def test_held_entries_are_bounded_per_author(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replica_mod, "MAX_HELD_PER_AUTHOR", 3)
    replica, _ = fresh()
    alice = Author(ALICE)
    alice.write("table.open", {})  # seq 0 never delivered: everything else is held
    statuses = feed(replica, [alice.write("chat", str(i)) for i in range(5)])
    assert statuses == [Status.HELD] * 3 + [Status.REJECTED] * 2
    assert len(replica.held()) == 3


def test_held_bytes_are_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(replica_mod, "MAX_HELD_BYTES", 1000)
    replica, _ = fresh()
    alice = Author(ALICE)
    alice.write("table.open", {})
    statuses = feed(replica, [alice.write("chat", "x" * 300) for _ in range(4)])
    assert statuses.count(Status.HELD) == 2 and statuses[-1] == Status.REJECTED


def test_an_unbounded_replica_holds_and_applies_a_whole_batch_past_every_live_bound(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The verifier's replica (bounded=False) holds every entry it was given: a batch with
    more entries of one author than a live peer may hold, reaching past MAX_AHEAD, and more
    bytes than MAX_HELD_BYTES, applies whole, with nothing refused. The live bounds (made
    small here) still refuse the same batch."""
    monkeypatch.setattr(replica_mod, "MAX_HELD_PER_AUTHOR", 3)
    monkeypatch.setattr(replica_mod, "MAX_AHEAD", 4)
    monkeypatch.setattr(replica_mod, "MAX_HELD_BYTES", 1000)
    (alice, _bob), seated = lobby()
    log = [*seated, *(alice.write("chat", "x" * 100) for _ in range(20))]
    unbounded = Replica(TABLE, ToyApp(), bounded=False)
    results = unbounded.add_batch(log)
    assert all(r.status is Status.HELD for r in results[:-1])
    assert sorted(results[-1].applied, key=lambda e: e.hash) == sorted(log, key=lambda e: e.hash)
    assert unbounded.rejections == [] and unbounded.held() == []
    bounded = Replica(TABLE, ToyApp())
    assert any(r.status is Status.REJECTED for r in bounded.add_batch(log)[:-1])
    assert len(bounded.applied) < len(log)


def test_sync_two_replicas_by_exchanging_have_and_missing() -> None:
    log = play_script([ALICE, BOB, CAROL], turns=6, chats=[(1, 1), (4, 2)])
    left, left_app = fresh()
    right, right_app = fresh()
    feed(left, log[::2])
    feed(right, log[1::2])
    for _ in range(3):  # a few rounds of HAVE -> missing entries, both ways
        for src, dst in ((left, right), (right, left)):
            for entry in src.missing(dst.have()):
                dst.add(entry)
    assert left_app.state_bytes() == right_app.state_bytes()
    assert left_app.turn == 6
    assert left.missing(right.have()) == [] and right.missing(left.have()) == []


def test_a_third_peer_can_relay_entries_it_did_not_write() -> None:
    log = play_script([ALICE, BOB], turns=3)
    relay, _ = fresh()
    feed(relay, log)
    newcomer, app = fresh()
    assert newcomer.wants(relay.have()) == {ALICE.peer_id: 0, BOB.peer_id: 0}
    feed(newcomer, relay.missing(newcomer.have()))
    assert app.turn == 3 and newcomer.wants(relay.have()) == {}


def test_missing_respects_limit_and_peer_progress() -> None:
    log = play_script([ALICE, BOB], turns=4)
    replica, _ = fresh()
    feed(replica, log)
    assert len(replica.missing({}, limit=3)) == 3
    have = replica.have()
    assert replica.missing(have) == []
    partial = dict(have)
    partial[BOB.peer_id] -= 1
    assert replica.missing(partial) == [replica.get(BOB.peer_id, have[BOB.peer_id] - 1)]


def test_next_link_continues_our_own_chain() -> None:
    replica, _ = fresh()
    assert replica.next_link(ALICE.peer_id) == (0, bytes(32))
    first = Author(ALICE).write("table.open", {})
    replica.add(first)
    seq, prev = replica.next_link(ALICE.peer_id)
    assert (seq, prev) == (1, first.hash)
    own = make_entry(ALICE, table_id=TABLE, seq=seq, prev=prev, turn=0, kind="chat", body="x")
    assert replica.add(own).status == Status.HELD  # toy app: chat needs seating first


class NoSeatsApp:
    """An app without allowed_authors: anyone may write."""

    def __init__(self) -> None:
        self.seen: list[bytes] = []

    def ready(self, entry: Entry) -> bool:
        return True

    def apply(self, entry: Entry) -> None:
        self.seen.append(entry.hash)


def test_apps_without_allowed_authors_accept_anyone() -> None:
    app = NoSeatsApp()
    replica = Replica(TABLE, app)
    entries = [Author(who).write("chat", "x") for who in (ALICE, BOB, CAROL, DAVE)]
    assert feed(replica, entries) == [Status.ACCEPTED] * 4
    assert app.seen == [e.hash for e in entries]


def test_a_game_refusal_names_its_author_once_and_anyone_else_in_full() -> None:
    from hanabi_p2p.errors import RemoteProtocolError
    from hanabi_p2p.log.replica import game_refusal

    entry = Author(ALICE).write("action", {}, 0)
    by_author = RemoteProtocolError(f"Alice ({ALICE.fingerprint})", "illegal action: no such card")
    by_other = RemoteProtocolError(f"Bob ({BOB.fingerprint})", "lock-proof: bad")
    # every place that shows the reason puts "Alice (FP): " before it already
    assert game_refusal(by_author, entry) == "refused by the game: illegal action: no such card"
    assert game_refusal(by_other, entry) == (
        f"refused by the game: peer Bob ({BOB.fingerprint}): lock-proof: bad")
