"""The whole-game known-answer vector (protocol/vectors/game/): the reference peers must
reproduce it byte for byte, and its stored entries alone must replay, for a verifier with no
secret and for a seated peer rebuilt from its seed, to the same final state."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
from make_game_vector import LEGACY_VECTOR_PATH, build, encode_public_state, load

from hanabi_p2p.deck.group import LIVE_GROUP
from hanabi_p2p.identity import Identity
from hanabi_p2p.log.entry import BadEntry, Entry, decode_entry
from hanabi_p2p.log.replica import Replica, Status
from hanabi_p2p.log.verify import verify_entries
from hanabi_p2p.rules.cards import Card, Suit
from hanabi_p2p.session.bodies import LIVE_DECK_GROUP, DeckGroupName
from hanabi_p2p.session.deckio import deck_group
from hanabi_p2p.session.table import AUDITED, TableSession
from hanabi_p2p.session.verify import verify_game


@pytest.fixture(scope="module")
def vector() -> dict[str, Any]:
    return load()


@pytest.fixture(scope="module")
def legacy() -> dict[str, Any]:
    """The same game as 0.2.0 stored it: edwards25519 deck, no `group` in table.open."""
    return load(LEGACY_VECTOR_PATH)


def stored_entries(vector: dict[str, Any]) -> list[Entry]:
    """Decode every stored entry as untrusted bytes (size, canonical form, signature...)."""
    return [decode_entry(bytes.fromhex(e["bytes"])) for e in vector["entries"]]


def audited_faces(vector: dict[str, Any]) -> dict[int, Card]:
    return {p: Card(Suit(suit), rank) for p, (suit, rank) in enumerate(vector["faces"])}


def replay(session: TableSession, entries: list[Entry]) -> list[Status]:
    replica = Replica(session.table_id, session)
    return [replica.add(entry).status for entry in entries]


def test_the_reference_peers_reproduce_the_vector_byte_for_byte(vector: dict[str, Any]) -> None:
    assert build(vector["actions"]) == vector


def test_the_stored_entries_follow_the_spec_hashes_and_digest(vector: dict[str, Any]) -> None:
    """SPEC 3.4 and 3.7 recomputed with hashlib only, against the stored hashes."""
    hashes = []
    for record in vector["entries"]:
        raw = bytes.fromhex(record["bytes"])
        entry_hash = hashlib.sha256(b"hanabi-p2p/v1/entry-hash" + raw).digest()
        assert entry_hash.hex() == record["hash"]
        hashes.append(entry_hash)
    spec_digest = hashlib.sha256(b"hanabi-p2p/v1/log-digest" + b"".join(sorted(hashes)))
    assert spec_digest.hexdigest() == vector["log_digest"]
    report = verify_entries(stored_entries(vector))
    assert report.ok, report.problems
    assert report.digest == vector["log_digest"]
    assert report.entry_count == len(vector["entries"])


def test_the_final_public_state_encoding_hashes_to_the_final_hash(
    vector: dict[str, Any],
) -> None:
    final = vector["final"]
    encoded = bytes.fromhex(final["public_state"])
    assert hashlib.sha256(encoded).hexdigest() == final["public_hash"]
    assert vector["public_hashes"][-1] == final["public_hash"]
    assert len(vector["public_hashes"]) == final["turn"] + 1


@pytest.mark.parametrize("order", ["stored", "reversed"])
def test_an_observer_replays_the_stored_entries_to_the_same_game(
    vector: dict[str, Any], order: str,
) -> None:
    """The verifier's path (SPEC 5.7): an unseated observer that knows the audited faces,
    fed the stored entries (also in the worst order), checks every turn and audits the deck."""
    entries = stored_entries(vector)
    if order == "reversed":
        entries.reverse()
    observer = TableSession(Identity.from_seed(b"\x99" * 32), bytes.fromhex(vector["table_id"]),
                            seed=bytes(32), known_faces=audited_faces(vector))
    statuses = replay(observer, entries)
    assert Status.REJECTED not in statuses
    state = observer.state
    assert state is not None
    assert state.public_hash().hex() == vector["final"]["public_hash"]
    assert encode_public_state(state).hex() == vector["final"]["public_state"]
    assert [observer.my_hashes[t].hex() for t in range(state.turn + 1)] == vector["public_hashes"]
    assert (state.score, state.end.value) == (vector["final"]["score"], vector["final"]["end"])
    assert observer.phase == AUDITED and observer.audit is not None and observer.audit.ok
    assert observer.audit.faces == audited_faces(vector)
    assert observer.take_outbox() == []


@pytest.mark.parametrize("seat", [0, 1])
def test_a_seated_peer_rebuilt_from_its_seed_owes_nothing(
    vector: dict[str, Any], seat: int,
) -> None:
    """A seated peer resumed from the stored entries and its deck seed (SPEC 5.6) decodes the
    same faces, reaches the same final hash and has nothing left to publish."""
    entries = stored_entries(vector)
    identity = Identity.from_seed(bytes.fromhex(vector["seats"][seat]["identity_seed"]))
    assert identity.peer_id.hex() == vector["seats"][seat]["peer_id"]
    session = TableSession(identity, bytes.fromhex(vector["table_id"]),
                           seed=bytes.fromhex(vector["seats"][seat]["deck_seed"]))
    for entry in entries:
        if entry.author == identity.peer_id:
            session.note_own(entry)
    assert Status.REJECTED not in replay(session, entries)
    assert session.state is not None
    assert session.state.public_hash().hex() == vector["final"]["public_hash"]
    assert session.phase == AUDITED and session.audit is not None
    assert session.audit.faces == audited_faces(vector)
    assert session.take_outbox() == []


def test_a_tampered_entry_is_refused(vector: dict[str, Any]) -> None:
    """Replays decode the stored bytes as untrusted input: one flipped bit in an action's
    state hash (its last body field) breaks the author's signature."""
    record = next(r for r in vector["entries"] if r["kind"] == "action")
    raw = bytearray(bytes.fromhex(record["bytes"]))
    raw[-70] ^= 0x01  # signature = last 64 bytes after c4 40; before them, the 32-byte hash
    with pytest.raises(BadEntry, match="signature"):
        decode_entry(bytes(raw))


def _table_open_body(vector: dict[str, Any]) -> Any:
    return next(e for e in stored_entries(vector) if e.kind == "table.open").body


def test_a_table_names_its_deck_group_and_a_0_2_0_table_names_none(
    vector: dict[str, Any], legacy: dict[str, Any],
) -> None:
    assert _table_open_body(vector)["group"] == "ristretto255"
    assert "group" not in _table_open_body(legacy)
    assert verify_game(stored_entries(vector)).deck_group == "ristretto255"


@pytest.mark.parametrize("order", ["stored", "reversed"])
def test_a_0_2_0_game_still_verifies_to_the_same_game(legacy: dict[str, Any],
                                                     order: str) -> None:
    """SPEC 5.1 `group` absent: the verifier runs the deck checks and the audit in
    edwards25519 and finds the same faces, final state and digest as 0.2.0 did."""
    entries = stored_entries(legacy)
    if order == "reversed":
        entries.reverse()
    report = verify_game(entries)
    assert report.ok, report.headline()
    assert report.deck_group == "edwards25519"
    assert report.digest == legacy["log_digest"]
    assert report.state is not None
    assert report.state.public_hash().hex() == legacy["final"]["public_hash"]
    assert report.faces == audited_faces(legacy)


def test_a_0_2_0_game_replays_for_the_verifier_but_no_live_peer_plays_it(
    legacy: dict[str, Any],
) -> None:
    """The verifier's observer accepts the old table (and audits its edwards25519 deck); a
    live session refuses its table.open as malformed: protocol 3 tables are ristretto255."""
    entries = stored_entries(legacy)
    table_id = bytes.fromhex(legacy["table_id"])
    observer = TableSession(Identity.from_seed(b"\x99" * 32), table_id, seed=bytes(32),
                            known_faces=audited_faces(legacy), old_deck_groups=True)
    assert Status.REJECTED not in replay(observer, entries)
    assert observer.state is not None
    assert observer.state.public_hash().hex() == legacy["final"]["public_hash"]
    assert observer.phase == AUDITED and observer.audit is not None and observer.audit.ok
    assert observer.audit.faces == audited_faces(legacy)

    live = TableSession(Identity.from_seed(b"\x99" * 32), table_id, seed=bytes(32))
    replica = Replica(table_id, live)
    opening = next(e for e in entries if e.kind == "table.open")
    result = replica.add(opening)
    assert result.status is Status.REJECTED
    assert "deck group must be ristretto255" in result.reason
    assert live.table is None


def test_each_group_name_of_table_open_is_the_group_of_that_name() -> None:
    for name in DeckGroupName:
        assert deck_group(name).name == name.value


def test_the_live_group_is_the_same_in_the_deck_and_in_table_open() -> None:
    # Two names for one choice (deriving one from the other would make `bodies` import
    # the deck libraries):
    # what a table announces and what its deck computes in must never drift apart.
    assert deck_group(LIVE_DECK_GROUP) is LIVE_GROUP
