"""The issue's tampering list, end to end on a stored game: file -> load -> replica -> verify.

An attacker who edits a shared log file can recompute the CRCs (they are not secret), so each
case also checks that the signatures and chains catch what the CRC would have.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from log_helpers import ALICE, BOB, CAROL, OTHER_TABLE, TABLE, Author, ToyApp, play_script

from hanabi_p2p.identity import fingerprint
from hanabi_p2p.log.entry import Entry
from hanabi_p2p.log.replica import Replica, Status
from hanabi_p2p.log.storage import GameFile, encode_record, join_records, load, split_records
from hanabi_p2p.log.verify import verify_entries


def header_and_payloads(path: Path) -> tuple[bytes, list[bytes]]:
    """Split a game file into its prefix (magic + header record) and entry payloads."""
    return split_records(path.read_bytes())


def rewrite(path: Path, prefix: bytes, payloads: list[bytes]) -> None:
    path.write_bytes(join_records(prefix, payloads))


@pytest.fixture
def stored(tmp_path: Path) -> tuple[Path, list[Entry]]:
    log = play_script([ALICE, BOB, CAROL], turns=6, chats=[(2, 1)])
    path = tmp_path / "game.hlog"
    with GameFile.create(path, TABLE, created=0) as game:
        for entry in log:
            game.append(entry)
    return path, log


def replay(entries: list[Entry]) -> tuple[Replica, ToyApp]:
    app = ToyApp()
    replica = Replica(TABLE, app)
    for entry in entries:
        replica.add(entry)
    return replica, app


def test_untampered_file_replays_and_verifies(stored: tuple[Path, list[Entry]]) -> None:
    path, log = stored
    result = load(path)
    assert result.ok and result.entries == log
    _, app = replay(result.entries)
    assert app.turn == 6 and verify_entries(result.entries).ok


def test_flipped_byte_with_crc_left_alone_is_a_checksum_error(
    stored: tuple[Path, list[Entry]],
) -> None:
    path, _ = stored
    prefix, payloads = header_and_payloads(path)
    data = bytearray(path.read_bytes())
    data[len(prefix) + 8 + len(payloads[0]) + 30] ^= 0x04  # inside record 1
    path.write_bytes(bytes(data))
    result = load(path)
    assert [(e.index, "checksum mismatch" in e.reason) for e in result.errors] == [(1, True)]


def test_flipped_byte_with_crc_recomputed_fails_the_signature(
    stored: tuple[Path, list[Entry]],
) -> None:
    path, log = stored
    prefix, payloads = header_and_payloads(path)
    victim = bytearray(payloads[4])
    # [0x99, version, bin8 table_id (18 bytes), bin8 author (34), seq, bin8 prev...]: byte 60
    # lies inside prev, so the encoding stays canonical and only the signature can object.
    victim[60] ^= 0x01
    payloads[4] = bytes(victim)
    rewrite(path, prefix, payloads)
    result = load(path)
    assert [e.index for e in result.errors] == [4]
    assert "signature does not verify" in result.errors[0].reason
    assert log[4].author_fingerprint in result.errors[0].reason
    assert len(result.entries) == len(log) - 1


def test_dropped_entry_shows_as_a_gap_and_a_missing_seq(
    stored: tuple[Path, list[Entry]],
) -> None:
    path, log = stored
    prefix, payloads = header_and_payloads(path)
    dropped = log[5]
    rewrite(path, prefix, payloads[:5] + payloads[6:])
    result = load(path)
    assert result.ok  # the file itself is well-formed
    replica, app = replay(result.entries)
    assert app.turn < 6
    assert any(g.author == dropped.author for g in replica.gaps())
    report = verify_entries(result.entries)
    assert f"{dropped.author_fingerprint}: entry seq {dropped.seq} is missing" in report.problems


def test_reordered_records_change_nothing(stored: tuple[Path, list[Entry]]) -> None:
    """Order carries no meaning: the replica reaches the same state, the digest is equal."""
    path, log = stored
    prefix, payloads = header_and_payloads(path)
    rewrite(path, prefix, list(reversed(payloads)))
    result = load(path)
    assert result.ok
    _, app = replay(result.entries)
    _, reference = replay(log)
    assert app.state_bytes() == reference.state_bytes()
    assert verify_entries(result.entries).digest == verify_entries(log).digest


def test_entry_spliced_from_another_game_is_rejected_everywhere(
    stored: tuple[Path, list[Entry]],
) -> None:
    path, log = stored
    prefix, payloads = header_and_payloads(path)
    foreign = Author(CAROL, table_id=OTHER_TABLE)
    foreign.seq, foreign.prev = 2, log[-1].hash  # pretend to continue someone's chain
    spliced = foreign.write("chat", "from another table", 6)
    rewrite(path, prefix, [*payloads, spliced.encoded])
    result = load(path)
    assert [e.reason for e in result.errors] == ["entry belongs to another table"]
    replica, _ = replay(log)
    outcome = replica.add(spliced)
    assert outcome.status == Status.REJECTED and "belongs to table" in outcome.reason
    assert any("several tables" in p for p in verify_entries([*log, spliced]).problems)


def test_forged_author_fails_the_signature_and_names_the_claimed_author(
    stored: tuple[Path, list[Entry]],
) -> None:
    path, log = stored
    prefix, payloads = header_and_payloads(path)
    victim = log[3]
    other = BOB.peer_id if victim.author != BOB.peer_id else ALICE.peer_id
    payloads[3] = payloads[3].replace(victim.author, other)
    rewrite(path, prefix, payloads)
    result = load(path)
    assert [e.index for e in result.errors] == [3]
    assert "signature does not verify" in result.errors[0].reason
    assert fingerprint(other) in str(result.errors[0])


def test_truncated_mid_record_drops_only_the_torn_record(
    stored: tuple[Path, list[Entry]],
) -> None:
    path, log = stored
    data = path.read_bytes()
    path.write_bytes(data[:-17])
    result = load(path)
    assert result.ok and result.entries == log[:-1]
    assert result.dropped_tail_bytes == len(encode_record(log[-1].encoded)) - 17
