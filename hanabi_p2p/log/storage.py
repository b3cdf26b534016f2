"""Crash-safe storage: one append-only log file per game, one private 0600 file per game.

Game file (``<data>/games/<table_id_hex>.hlog``, protocol/SPEC.md 3.8)::

    MAGIC (16 bytes) | header record | entry record | entry record | ...
    record = u32 big-endian length N | N payload bytes | u32 big-endian CRC-32(length || payload)

The header payload is canonical msgpack ``[FILE_FORMAT, table_id, created, name]``; entry
payloads are entry encodings. The file is created atomically with its header, then every
``append`` writes one record and fsyncs. If the machine dies mid-append, only the last record
can be incomplete: ``load`` recognises such a torn tail, drops it and reports how many bytes
it dropped. Any other damage is an error naming the record index; what comes before it is
still returned. Secrets (seed, channel keys) never go here: see ``PrivateFile``.
"""

from __future__ import annotations

import errno
import os
import stat
import struct
import zlib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from types import TracebackType
from typing import Any

from hanabi_p2p.datadir import DataDir, atomic_write, fsync_dir
from hanabi_p2p.errors import GameInUse, LocalProtocolError, UserError
from hanabi_p2p.limits import MAX_ENTRY_BYTES, MAX_TABLE_NAME_CHARS, TABLE_ID_BYTES
from hanabi_p2p.log import canonical
from hanabi_p2p.log.entry import BadEntry, Entry, decode_entry
from hanabi_p2p.portable import (
    lock_exclusive,
    open_no_follow,
    our_uid,
    permission_bits_apply,
    unlock,
)

MAGIC = b"HANABI-P2P-LOG\x00\x01"
FILE_FORMAT = 1
LENGTH = struct.Struct(">I")
CRC = struct.Struct(">I")
RECORD_OVERHEAD = LENGTH.size + CRC.size
MAX_HEADER_PAYLOAD = 1024
# A torn append can damage at most the one record being written.
MAX_TORN_TAIL = RECORD_OVERHEAD + MAX_ENTRY_BYTES
FILE_MODE = 0o600
MAX_PRIVATE_BYTES = 1024 * 1024


# A game log is opened without following a symbolic link (`open_no_follow`): a link planted as
# games/<id>.hlog would otherwise make us append a whole game to a file of someone else's choice.
_READ_CHUNK = 1024 * 1024


def _open_own_log(path: Path, flags: int) -> int:
    """A descriptor of the game log at `path` to write to: refused with a UserError if `path`
    is a symbolic link, not a regular file, or another user's file."""
    try:
        fd = open_no_follow(path, flags)
    except OSError as exc:
        if exc.errno == errno.ELOOP or path.is_symlink():
            raise UserError(f"game log {path} is a symbolic link, not a file: refusing to "
                            "write through it (remove it if you did not make it)") from None
        raise UserError(f"cannot open game log {path} for writing: {exc.strerror}") from exc
    info = os.fstat(fd)
    problem = None
    uid = our_uid()
    if not stat.S_ISREG(info.st_mode):
        problem = "is not a regular file"
    elif uid is not None and info.st_uid != uid:
        problem = f"belongs to another user (uid {info.st_uid})"
    if problem is not None:
        os.close(fd)
        raise UserError(f"game log {path} {problem}: refusing to write to it")
    return fd


def _lock_for_play(fd: int, path: Path) -> None:
    """Take the game log's exclusive lock, or close `fd` and raise GameInUse: a game is
    written by one program at a time. The lock is the open file's (flock), so the OS drops
    it when the program exits or crashes; readers (`log`, `replay`) never ask for it. A
    system or file system that cannot lock (some network ones) plays on after a notice: the
    lock only guards against a second window of our own."""
    try:
        lock_exclusive(fd)
    except BlockingIOError:
        os.close(fd)
        raise GameInUse(f"this game is open in another hanabi-p2p window ({path}): play it "
                        "there, or quit that window first") from None


def refuse_if_in_play(path: Path) -> None:
    """Raise GameInUse if another program plays the game at `path` now; nothing if there is
    no such file (or one this check cannot open: opening it for play will say why). For a
    check before any network: a second window joining the same table would otherwise dial
    the host as the same player, and its link would push the first window's aside."""
    try:
        fd = open_no_follow(path, os.O_RDONLY)  # (not inherited: Python's default)
    except OSError:
        return
    _lock_for_play(fd, path)  # (closes fd when it raises)
    unlock(fd)  # released at once: whoever opens the game next takes it
    os.close(fd)


def _read_fd(fd: int) -> bytes:
    """The whole file behind `fd`, read from its start (the position is left at the end)."""
    os.lseek(fd, 0, os.SEEK_SET)
    chunks = []
    while chunk := os.read(fd, _READ_CHUNK):
        chunks.append(chunk)
    return b"".join(chunks)


class CorruptLogError(UserError):
    """A game log file is damaged in a way a crash cannot explain (or is not a game log)."""

    def __init__(self, path: Path, reason: str, index: int | None = None) -> None:
        where = f"record {index}" if index is not None else "header"
        super().__init__(f"{path}: {where}: {reason}")
        self.path = path
        self.index = index
        self.reason = reason


@dataclass(frozen=True, slots=True)
class GameHeader:
    table_id: bytes
    created: int  # unix seconds, given by the caller (the core has no clock)
    name: str = ""

    def encode(self) -> bytes:
        return canonical.pack([FILE_FORMAT, self.table_id, self.created, self.name], "header")


@dataclass(slots=True)
class LoadResult:
    header: GameHeader
    entries: list[Entry] = field(default_factory=list)
    dropped_tail_bytes: int = 0  # torn last record removed (crash while appending)
    errors: list[CorruptLogError] = field(default_factory=list)
    valid_length: int = 0  # bytes up to the end of the last good record

    @property
    def ok(self) -> bool:
        return not self.errors


def encode_record(payload: bytes) -> bytes:
    length = LENGTH.pack(len(payload))
    return length + payload + CRC.pack(zlib.crc32(length + payload))


def split_records(data: bytes) -> tuple[bytes, list[bytes]]:
    """A game file's bytes as (magic + header record, [entry payloads]), checksums unchecked:
    for tools and tests that inspect or rewrite a file record by record (``load`` is the
    checked reader). Stops at a torn tail."""
    (n,) = LENGTH.unpack_from(data, len(MAGIC))
    pos = len(MAGIC) + RECORD_OVERHEAD + n
    prefix, payloads = data[:pos], []
    while pos + LENGTH.size <= len(data):
        (n,) = LENGTH.unpack_from(data, pos)
        if pos + RECORD_OVERHEAD + n > len(data):
            break
        payloads.append(data[pos + LENGTH.size : pos + LENGTH.size + n])
        pos += RECORD_OVERHEAD + n
    return prefix, payloads


def join_records(prefix: bytes, payloads: Iterable[bytes]) -> bytes:
    """The inverse of ``split_records``, with fresh checksums."""
    return prefix + b"".join(encode_record(p) for p in payloads)


def _parse_header(path: Path, data: bytes) -> tuple[GameHeader, int]:
    if not data.startswith(MAGIC):
        raise CorruptLogError(path, "not a hanabi-p2p game log (bad magic)")
    pos = len(MAGIC)
    if len(data) < pos + RECORD_OVERHEAD:
        raise CorruptLogError(path, "header record is incomplete")
    (n,) = LENGTH.unpack_from(data, pos)
    end = pos + LENGTH.size + n
    if n > MAX_HEADER_PAYLOAD or end + CRC.size > len(data):
        raise CorruptLogError(path, "header record has a bad length")
    (crc,) = CRC.unpack_from(data, end)
    if crc != zlib.crc32(data[pos:end]):
        raise CorruptLogError(path, "header record checksum mismatch")
    try:
        value = canonical.unpack(data[pos + LENGTH.size : end], "header")
    except canonical.CanonicalError as exc:
        raise CorruptLogError(path, str(exc)) from None
    if (
        not isinstance(value, list)
        or len(value) != 4
        or value[0] != FILE_FORMAT
        or not isinstance(value[1], bytes)
        or len(value[1]) != TABLE_ID_BYTES
        or not isinstance(value[2], int)
        or not isinstance(value[3], str)
    ):
        raise CorruptLogError(path, "header fields are invalid or of an unknown format")
    return GameHeader(value[1], value[2], value[3]), end + CRC.size


def _is_torn_tail(data: bytes, start: int, record_end: int | None) -> bool:
    """Could the damage starting at ``start`` be one interrupted append?

    An interrupted append leaves a prefix of the record, or (on filesystems that extend the
    file before its data reaches the disk) zero bytes, and is never longer than one record.
    So: no longer than one record, and either all zero bytes, or a partial length field, or
    a record that runs past the end of the file or ends exactly there with a bad checksum.
    ``record_end`` is None when the length field itself was unusable.
    """
    tail = len(data) - start
    if tail > MAX_TORN_TAIL:
        return False
    if data.count(0, start) == tail:
        return True
    if record_end is None:
        return tail < LENGTH.size
    return record_end >= len(data)


def parse(path: Path, data: bytes) -> LoadResult:
    """Parse a whole game file's bytes (see the module docstring for the rules)."""
    header, pos = _parse_header(path, data)
    result = LoadResult(header, valid_length=pos)
    index = 0
    while pos < len(data):
        record_end: int | None = None
        problem = ""
        if len(data) - pos < LENGTH.size:
            problem = "incomplete length field"
        else:
            (n,) = LENGTH.unpack_from(data, pos)
            if n == 0 or n > MAX_ENTRY_BYTES:
                problem = f"bad record length {n}"
            else:
                record_end = pos + LENGTH.size + n + CRC.size
                if record_end > len(data):
                    problem = "record runs past the end of the file"
                else:
                    (crc,) = CRC.unpack_from(data, record_end - CRC.size)
                    if crc != zlib.crc32(data[pos : record_end - CRC.size]):
                        problem = "checksum mismatch"
        if problem:
            if _is_torn_tail(data, pos, record_end):
                result.dropped_tail_bytes = len(data) - pos
            else:
                result.errors.append(CorruptLogError(path, f"{problem} at byte {pos}", index))
            return result
        assert record_end is not None
        payload = data[pos + LENGTH.size : record_end - CRC.size]
        try:
            entry = decode_entry(payload)
        except BadEntry as exc:
            # The framing is intact, so later records are still trustworthy: report, go on.
            result.errors.append(CorruptLogError(path, f"invalid entry: {exc}", index))
        else:
            if entry.table_id != header.table_id:
                result.errors.append(CorruptLogError(path, "entry belongs to another table", index))
            else:
                result.entries.append(entry)
        pos = record_end
        result.valid_length = pos
        index += 1
    return result


def load(path: Path) -> LoadResult:
    """Read a game file. Raises CorruptLogError only if the header itself is unusable."""
    try:
        data = Path(path).read_bytes()
    except FileNotFoundError:
        raise UserError(f"no game log at {path}") from None
    except OSError as exc:
        raise UserError(f"cannot read game log {path}: {exc.strerror}") from exc
    return parse(Path(path), data)


class GameFile:
    """An open game log to append to. Use ``create`` for a new game, ``open`` to continue.
    While it is open no other program can open it so (GameInUse), until ``close``."""

    def __init__(self, path: Path, fd: int, header: GameHeader) -> None:
        self.path = path
        self.header = header
        self._fd: int | None = fd

    @classmethod
    def create(cls, path: Path, table_id: bytes, *, created: int, name: str = "") -> GameFile:
        if len(table_id) != TABLE_ID_BYTES:
            raise LocalProtocolError(f"table id must be {TABLE_ID_BYTES} bytes")
        header = GameHeader(table_id, created, name[:MAX_TABLE_NAME_CHARS])
        data = MAGIC + encode_record(header.encode())
        try:
            atomic_write(path, data, mode=FILE_MODE, replace=False)
        except FileExistsError:
            raise UserError(f"a game log already exists at {path}") from None
        except OSError as exc:
            raise UserError(f"cannot create game log {path}: {exc.strerror}") from exc
        fd = _open_own_log(path, os.O_WRONLY | os.O_APPEND)
        _lock_for_play(fd, path)
        return cls(path, fd, header)

    @classmethod
    def open(cls, path: Path) -> tuple[GameFile, LoadResult]:
        """Open to continue a game: returns the file and what it holds. A torn tail is cut
        off (so new records follow good ones); a damaged file is refused."""
        # the file is read through the descriptor we append to: no link is ever followed
        fd = _open_own_log(path, os.O_RDWR | os.O_APPEND)
        # locked before it is read: the other program may be appending
        _lock_for_play(fd, path)
        try:
            result = parse(path, _read_fd(fd))
        except BaseException:
            os.close(fd)
            raise
        if result.errors:
            os.close(fd)
            raise result.errors[0]
        try:
            if result.dropped_tail_bytes:
                os.ftruncate(fd, result.valid_length)
                os.fsync(fd)
        except OSError as exc:
            raise UserError(f"cannot open game log {path} for writing: {exc.strerror}") from exc
        return cls(path, fd, result.header), result

    def append(self, entry: Entry, *, sync: bool = True) -> None:
        """Write one entry record and fsync: when this returns, the entry survives a crash.
        With ``sync=False`` the fsync is left to a later ``sync()`` (group commit of entries
        received from peers, which can always be fetched again)."""
        if self._fd is None:
            raise LocalProtocolError(f"game log {self.path} is closed")
        if entry.table_id != self.header.table_id:
            raise LocalProtocolError("entry belongs to another table than this log")
        record = memoryview(encode_record(entry.encoded))
        while record:
            written = os.write(self._fd, record)
            record = record[written:]
        if sync:
            os.fsync(self._fd)

    def sync(self) -> None:
        """Make every record written so far durable."""
        if self._fd is not None:
            os.fsync(self._fd)

    def close(self) -> None:
        if self._fd is not None:
            unlock(self._fd)  # (the system would drop it with the file, but maybe not at once)
            os.close(self._fd)
            self._fd = None

    def __enter__(self) -> GameFile:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


def open_game(
    data_dir: DataDir, table_id: bytes, *, created: int, name: str = ""
) -> tuple[GameFile, LoadResult]:
    """The game's log in ``data_dir``: opened if it exists, else created (games/ made 0700)."""
    path = data_dir.ensure().game_path(table_id)
    if os.path.lexists(path):  # a dangling link too: GameFile.open refuses links by name
        game, result = GameFile.open(path)
        if game.header.table_id != table_id:
            game.close()
            raise CorruptLogError(path, "file is named for another table")
        return game, result
    game = GameFile.create(path, table_id, created=created, name=name)
    fsync_dir(path.parent)
    return game, LoadResult(game.header, valid_length=len(MAGIC))


class PrivateFile:
    """A game's secrets (seed, seat, channel keys): a canonical msgpack map, mode 0600,
    rewritten atomically. Never part of the shareable log."""

    def __init__(self, path: Path) -> None:
        self.path = path

    @classmethod
    def for_table(cls, data_dir: DataDir, table_id: bytes) -> PrivateFile:
        return cls(data_dir.ensure().private_path(table_id))

    def load(self) -> dict[str, Any]:
        """The stored map, or {} if none was saved yet."""
        try:
            fd = open_no_follow(self.path, os.O_RDONLY)
        except FileNotFoundError:
            return {}
        except OSError as exc:
            raise UserError(f"cannot read private game file {self.path}: {exc.strerror}") from exc
        with os.fdopen(fd, "rb") as f:
            mode = stat.S_IMODE(os.fstat(f.fileno()).st_mode)
            if mode & 0o077 and permission_bits_apply():
                raise UserError(
                    f"private game file {self.path} is accessible by other users "
                    f"(mode {mode:04o}); fix it with: chmod 600 {self.path}"
                )
            data = f.read(MAX_PRIVATE_BYTES + 1)
        if len(data) > MAX_PRIVATE_BYTES:
            raise UserError(f"private game file {self.path} is too large")
        try:
            value = canonical.unpack(data, "private file")
        except canonical.CanonicalError as exc:
            raise UserError(f"private game file {self.path} is damaged: {exc}") from None
        if not isinstance(value, dict):
            raise UserError(f"private game file {self.path} is not a map")
        return value

    def save(self, data: Mapping[str, Any]) -> None:
        try:
            encoded = canonical.pack(dict(data), "private data")
        except canonical.CanonicalError as exc:
            raise LocalProtocolError(f"cannot store private data: {exc}") from exc
        if len(encoded) > MAX_PRIVATE_BYTES:
            raise LocalProtocolError("private data is too large")
        try:
            atomic_write(self.path, encoded, mode=FILE_MODE, replace=True)
        except OSError as exc:
            raise UserError(f"cannot write private game file {self.path}: {exc.strerror}") from exc

    def update(self, **changes: Any) -> dict[str, Any]:
        """Load, merge ``changes``, save; returns the new map."""
        data = self.load()
        data.update(changes)
        self.save(data)
        return data
