"""Game files (append-only, torn-tail recovery, corruption errors) and private files."""

from __future__ import annotations

import binascii
import contextlib
import os
import random
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from log_helpers import ALICE, BOB, OTHER_TABLE, TABLE, Author, play_script

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.errors import LocalProtocolError, UserError
from hanabi_p2p.log.entry import Entry
from hanabi_p2p.log.storage import (
    MAGIC,
    RECORD_OVERHEAD,
    CorruptLogError,
    GameFile,
    PrivateFile,
    encode_record,
    load,
    open_game,
    parse,
)

HERE = Path(__file__).parent


def write_game(path: Path, entries: list[Entry]) -> None:
    with GameFile.create(path, TABLE, created=1700000000, name="Friday") as game:
        for entry in entries:
            game.append(entry)


@pytest.fixture
def entries() -> list[Entry]:
    return play_script([ALICE, BOB], turns=4)


def test_append_then_load_round_trips(tmp_path: Path, entries: list[Entry]) -> None:
    path = tmp_path / "g.hlog"
    write_game(path, entries)
    result = load(path)
    assert result.ok and result.entries == entries and result.dropped_tail_bytes == 0
    assert result.header.table_id == TABLE
    assert (result.header.created, result.header.name) == (1700000000, "Friday")
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_every_truncation_inside_the_last_record_is_dropped(
    tmp_path: Path, entries: list[Entry]
) -> None:
    path = tmp_path / "g.hlog"
    write_game(path, entries)
    data = path.read_bytes()
    last = len(encode_record(entries[-1].encoded))
    for cut in range(1, last):
        result = parse(path, data[:-cut])
        assert result.ok, cut
        assert result.entries == entries[:-1]
        assert result.dropped_tail_bytes == last - cut


def test_zero_filled_tail_is_a_torn_append(tmp_path: Path, entries: list[Entry]) -> None:
    path = tmp_path / "g.hlog"
    write_game(path, entries)
    result = parse(path, path.read_bytes() + bytes(300))
    assert result.ok and result.entries == entries and result.dropped_tail_bytes == 300


def test_garbled_last_record_is_dropped(tmp_path: Path, entries: list[Entry]) -> None:
    path = tmp_path / "g.hlog"
    write_game(path, entries)
    data = bytearray(path.read_bytes())
    data[-10] ^= 0xFF  # inside the last record's payload: checksum fails, ends at EOF
    result = parse(path, bytes(data))
    assert result.ok and result.entries == entries[:-1]


def test_mid_file_corruption_is_an_error_naming_the_record(
    tmp_path: Path, entries: list[Entry]
) -> None:
    path = tmp_path / "g.hlog"
    write_game(path, entries)
    data = bytearray(path.read_bytes())
    offset = len(data) - sum(len(encode_record(e.encoded)) for e in entries[2:])
    data[offset + 20] ^= 0x01  # a byte inside record 2
    result = parse(path, bytes(data))
    assert not result.ok
    assert [e.index for e in result.errors] == [2]
    assert "checksum mismatch" in str(result.errors[0])
    assert result.entries == entries[:2]  # what is valid before it is still there
    assert result.dropped_tail_bytes == 0


def test_corrupt_length_field_mid_file_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "g.hlog"
    big = [Author(ALICE).write("deck", {"x": bytes(40_000)})]
    big.append(Author(BOB).write("deck", {"x": bytes(40_000)}))
    small = play_script([ALICE, BOB], turns=1)
    write_game(path, [*small, *big])
    data = bytearray(path.read_bytes())
    offset = len(data) - sum(len(encode_record(e.encoded)) for e in big)
    data[offset] = 0xFF  # length of record len(small) now absurdly large
    result = parse(path, bytes(data))
    assert [e.index for e in result.errors] == [len(small)]
    assert "bad record length" in result.errors[0].reason


def test_valid_frame_with_an_invalid_entry_is_reported_and_skipped_past(
    tmp_path: Path, entries: list[Entry]
) -> None:
    path = tmp_path / "g.hlog"
    write_game(path, entries[:1])
    with path.open("ab") as f:
        f.write(encode_record(b"\x93\x01\x02\x03"))  # framed, but not an entry
        f.write(encode_record(entries[1].encoded))
    result = load(path)
    assert [e.index for e in result.errors] == [1]
    assert "invalid entry" in result.errors[0].reason
    assert result.entries == entries[:2]


def test_entry_spliced_from_another_game_is_an_error(tmp_path: Path) -> None:
    path = tmp_path / "g.hlog"
    write_game(path, [])
    foreign = Author(ALICE, table_id=OTHER_TABLE).write("table.open", {})
    with path.open("ab") as f:
        f.write(encode_record(foreign.encoded))
    result = load(path)
    assert [e.reason for e in result.errors] == ["entry belongs to another table"]
    game = GameFile.create(tmp_path / "h.hlog", TABLE, created=0)
    with game, pytest.raises(LocalProtocolError, match="another table"):
        game.append(foreign)


def test_not_a_game_log(tmp_path: Path) -> None:
    path = tmp_path / "x.hlog"
    path.write_bytes(b"hello world, this is not a log at all")
    with pytest.raises(CorruptLogError, match="bad magic"):
        load(path)
    path.write_bytes(MAGIC + b"\x00\x00")
    with pytest.raises(CorruptLogError, match="header"):
        load(path)
    with pytest.raises(UserError, match="no game log"):
        load(tmp_path / "missing.hlog")


def test_reopening_cuts_a_torn_tail_and_appends_after_good_records(
    tmp_path: Path, entries: list[Entry]
) -> None:
    path = tmp_path / "g.hlog"
    write_game(path, entries[:3])
    with path.open("ab") as f:
        f.write(encode_record(entries[3].encoded)[:-5])  # crash mid-append
    game, result = GameFile.open(path)
    with game:
        assert result.entries == entries[:3] and result.dropped_tail_bytes > 0
        for entry in entries[3:]:
            game.append(entry)
    again = load(path)
    assert again.ok and again.entries == entries and again.dropped_tail_bytes == 0


def test_reopening_a_corrupt_file_is_refused(tmp_path: Path, entries: list[Entry]) -> None:
    path = tmp_path / "g.hlog"
    write_game(path, entries)
    data = bytearray(path.read_bytes())
    data[len(MAGIC) + 60] ^= 1  # inside the header or first record
    path.write_bytes(bytes(data))
    with pytest.raises(CorruptLogError):
        GameFile.open(path)


def test_create_refuses_to_overwrite(tmp_path: Path) -> None:
    path = tmp_path / "g.hlog"
    write_game(path, [])
    with pytest.raises(UserError, match="already exists"):
        GameFile.create(path, TABLE, created=0)


def test_closed_file_refuses_appends(tmp_path: Path, entries: list[Entry]) -> None:
    game = GameFile.create(tmp_path / "g.hlog", TABLE, created=0)
    game.close()
    with pytest.raises(LocalProtocolError, match="closed"):
        game.append(entries[0])


def test_open_game_creates_then_continues(tmp_path: Path, entries: list[Entry]) -> None:
    data = DataDir(tmp_path / "d")
    game, result = open_game(data, TABLE, created=5, name="n")
    with game:
        assert result.entries == [] and game.path == data.game_path(TABLE)
        game.append(entries[0])
    game, result = open_game(data, TABLE, created=99)
    with game:
        assert result.entries == entries[:1] and result.header.created == 5


def test_record_format_is_length_payload_crc() -> None:
    # CRC-32 as in zlib/PNG/Ethernet (check value of "123456789" is cbf43926), computed over
    # the length field and the payload.
    assert binascii.crc32(b"123456789") == 0xCBF43926
    expected_crc = binascii.crc32(b"\x00\x00\x00\x03abc").to_bytes(4, "big")
    assert encode_record(b"abc") == b"\x00\x00\x00\x03abc" + expected_crc
    assert expected_crc.hex() == "45bce840"
    assert RECORD_OVERHEAD == 8


@pytest.mark.process
def test_writer_killed_mid_append_leaves_a_loadable_file(tmp_path: Path) -> None:
    rng = random.Random(4)
    torn_seen = 0
    for round_no in range(4):
        path = tmp_path / f"crash{round_no}.hlog"
        proc = subprocess.Popen(
            [sys.executable, str(HERE / "log_writer_proc.py"), str(path)],
            stdout=subprocess.PIPE,
            cwd=HERE,
            text=True,
        )
        assert proc.stdout is not None
        confirmed = 0
        target = rng.randint(3, 12)
        while confirmed < target:
            line = proc.stdout.readline()
            assert line.startswith("ok "), line
            confirmed = int(line.split()[1])
        proc.send_signal(signal.SIGKILL)
        proc.wait()
        # the writer may have gone on a few appends before the signal landed (a busy
        # machine): its last "ok" before it died says how many returned
        returned = max([confirmed] + [int(line.split()[1]) for line in proc.stdout
                                      if line.startswith("ok ")])
        proc.stdout.close()
        result = load(path)
        assert result.ok
        # Everything whose append returned survives; at most one more record got in whole
        # (the writer appends 16 distinct entries, then the same again: the log keeps 16)
        assert min(returned, 16) <= len(result.entries) <= returned + 1
        assert all(e.table_id == TABLE for e in result.entries)
        torn_seen += result.dropped_tail_bytes > 0
        game, _ = GameFile.open(path)  # and it can be continued
        game.close()
        assert load(path).dropped_tail_bytes == 0
    print(f"rounds with a torn tail: {torn_seen}/4")


# ---- private files -----------------------------------------------------------------------


def test_private_file_is_0600_and_round_trips(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    private = PrivateFile.for_table(data, TABLE)
    assert private.load() == {}
    private.save({"seed": b"\x01" * 32, "seat": 2})
    assert stat.S_IMODE(private.path.stat().st_mode) == 0o600
    assert private.update(channel_key=b"k" * 32) == {
        "channel_key": b"k" * 32,
        "seat": 2,
        "seed": b"\x01" * 32,
    }
    assert PrivateFile(private.path).load()["seed"] == b"\x01" * 32
    assert private.path.parent == data.private_dir
    assert not list(private.path.parent.glob(".*.tmp"))


def test_private_file_readable_by_others_is_refused(tmp_path: Path) -> None:
    private = PrivateFile(tmp_path / "p.msgpack")
    private.save({"seed": b"s"})
    os.chmod(private.path, 0o640)
    with pytest.raises(UserError, match="chmod 600"):
        private.load()


def test_damaged_private_file_is_a_user_error(tmp_path: Path) -> None:
    path = tmp_path / "p.msgpack"
    fd = os.open(path, os.O_WRONLY | os.O_CREAT, 0o600)
    os.write(fd, b"\x81\xa1a")  # truncated map
    os.close(fd)
    with pytest.raises(UserError, match="damaged"):
        PrivateFile(path).load()


def test_private_data_must_be_canonical(tmp_path: Path) -> None:
    with pytest.raises(LocalProtocolError):
        PrivateFile(tmp_path / "p.msgpack").save({"x": 1.5})


# ---- fuzzing the loader: damage is reported, never raised past the header ---------------

GOOD_PREFIX = MAGIC + encode_record(bytes.fromhex("9401c410" + TABLE.hex() + "00a0"))


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_any_bytes_after_the_header_load_without_raising(tail: bytes) -> None:
    result = parse(Path("fuzz.hlog"), GOOD_PREFIX + tail)
    assert result.header.table_id == TABLE
    assert result.valid_length <= len(GOOD_PREFIX) + len(tail)
    assert result.dropped_tail_bytes <= len(tail)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=200))
def test_any_bytes_either_load_or_raise_corrupt_log(data: bytes) -> None:
    with contextlib.suppress(CorruptLogError):
        parse(Path("fuzz.hlog"), data)
