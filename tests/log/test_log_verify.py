"""Structural verification of whole logs and the order-independent digest."""

from __future__ import annotations

import hashlib
import random

from log_helpers import ALICE, BOB, CAROL, OTHER_TABLE, TABLE, Author, play_script

from hanabi_p2p.log.entry import Entry, make_entry
from hanabi_p2p.log.verify import DIGEST_DOMAIN, digest, verify_entries


def game() -> list[Entry]:
    return play_script([ALICE, BOB, CAROL], turns=5, chats=[(2, 1)])


def test_honest_log_verifies() -> None:
    log = game()
    report = verify_entries(log)
    assert report.ok, report.problems
    assert report.entry_count == len(log)
    assert report.table_id == TABLE
    assert sum(report.authors.values()) == len(log)
    assert report.digest == digest(log)


def test_digest_ignores_order_and_duplicates_but_not_content() -> None:
    log = game()
    shuffled = log[:]
    random.Random(7).shuffle(shuffled)
    assert digest(shuffled + log[:3]) == digest(log)
    assert digest(log[:-1]) != digest(log)
    expected = hashlib.sha256(DIGEST_DOMAIN + b"".join(sorted(e.hash for e in log)))
    assert digest(log) == expected.hexdigest()


def test_dropped_entry_is_reported_missing() -> None:
    log = game()
    victim = next(e for e in log if e.author == BOB.peer_id and e.seq == 1)
    report = verify_entries([e for e in log if e != victim])
    assert not report.ok
    assert report.problems == [f"{BOB.fingerprint}: entry seq 1 is missing"]


def test_spliced_entry_from_another_game_is_reported() -> None:
    foreign = Author(CAROL, table_id=OTHER_TABLE).write("chat", "x")
    report = verify_entries([*game(), foreign])
    assert any("several tables" in p for p in report.problems)


def test_equivocation_is_reported_with_a_valid_proof() -> None:
    log = game()
    fork = Author(ALICE)
    fork.write("table.open", {"name": "toy"})
    evil = fork.write("chat", "the other story")  # a second seq 1 for Alice
    report = verify_entries([*log, evil])
    assert len(report.equivocations) == 1
    assert report.equivocations[0].is_valid()
    assert not report.ok
    assert report.problems == []  # Alice's seq 2 links to one of the variants: no noise


def test_bad_signature_is_reported() -> None:
    log = game()
    good = log[4]
    forged = Entry(
        good.version,
        good.table_id,
        good.author,
        good.seq,
        good.prev,
        good.turn,
        good.kind,
        {"n": 99},  # changed body, old signature
        good.signature,
    )
    report = verify_entries([e if e != good else forged for e in log])
    assert any("bad signature" in p for p in report.problems)


def test_broken_link_is_reported() -> None:
    alice = Author(ALICE)
    e0 = alice.write("table.open", {})
    e1 = make_entry(ALICE, table_id=TABLE, seq=1, prev=b"\x07" * 32, turn=0, kind="chat", body="")
    report = verify_entries([e0, e1])
    assert report.problems == [
        f"{ALICE.fingerprint} seq 1: prev does not match the hash of entry 0"
    ]


def test_empty_log() -> None:
    report = verify_entries([])
    assert report.ok and report.entry_count == 0 and report.table_id is None
