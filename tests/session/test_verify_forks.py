"""The verifier and a fork (SPEC 5.7 steps 1 and 4): only the forker is named, and the audit
leaves out the actions and answers of the fork's turn and later (its branches reveal other
cards to other owners), never the deck steps, the deal or the seeds."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hanabi_p2p.identity import Identity
from hanabi_p2p.log.entry import Entry, decode_entry, make_entry
from hanabi_p2p.session.verify import Verdict, verify_game

VECTORS = Path(__file__).resolve().parents[2] / "protocol" / "vectors" / "verdicts"


def short_game() -> list[Entry]:
    doc = json.loads((VECTORS / "verdicts-v1.json").read_text(encoding="utf-8"))
    return [decode_entry(bytes.fromhex(h)) for h in doc["bases"]["short-2p"]]


def twin(entry: Entry, seat: int, kind: str, body: object) -> Entry:
    """Another version of ``entry`` (same author and seq), signed by its author."""
    identity = Identity.from_seed(bytes([seat + 1]) * 32)
    assert identity.peer_id == entry.author
    return make_entry(identity, table_id=entry.table_id, seq=entry.seq, prev=entry.prev,
                      turn=entry.turn, kind=kind, body=body)


@pytest.mark.parametrize("kind", ["action", "deck"])
def test_a_fork_names_its_author_alone(kind: str) -> None:
    """p0's first action (or its first deck entry, its commitment) forked with a chat line:
    invalid, naming p0 alone (of a forked deck step, the version replayed may be the chat:
    its missing step is then p0's too)."""
    log = short_game()
    p0 = Identity.from_seed(bytes([1]) * 32).peer_id
    first = min((e for e in log if e.author == p0 and e.kind == kind), key=lambda e: e.seq)
    report = verify_game([*log, twin(first, 0, "chat", {"text": "the other version"})])
    assert report.verdict is Verdict.INVALID
    assert {p.author for p in report.problems} == {p0}
    assert any("equivocation" in p.reason for p in report.problems)
    if kind == "action":
        # the fork is at turn 0: its actions and answers are left out of the audit, but
        # not the deck steps, the deal or the seeds (else a step would be missing)
        assert report.audit is not None and report.audit.ok, report.audit
