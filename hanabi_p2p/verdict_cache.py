"""The verdict `log list` shows of each game, cached beside its log (<table>.hlog.verdict).

A game is checked in full (every signature, the deck audit, every turn) the first time it is
listed; its row is then kept in a small JSON file beside the log, so that the next `list`
reads it instead of checking the game again. The program that played a game has just
checked all of it as it played (each entry on arrival, the deck audit at the end): it writes
the row itself when the game ends (`record_played_game`), so that the first `list` after a
night of games checks none of them again.

A cached row is used only for the very file it was written for, unchanged: its key names
the program's version, the log's bytes (a BLAKE2b digest) and the file itself (device, inode
and modification time). So a log that changed is checked again, and so is a log copied in
from elsewhere (a friend's game, with or without a `.verdict` file beside it: a copy is a
new file), whatever its verdict file says. `log verify` never uses the cache.

The cache file is written as our own private files are: a temporary file created afresh
beside it (never through a symbolic link, never over an existing file), then renamed over
it, so a reader never sees half a row. Not fsync'd: losing it only costs a check.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import struct
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hanabi_p2p import __version__
from hanabi_p2p.errors import UserError
from hanabi_p2p.log.entry import entry_hash
from hanabi_p2p.log.storage import read_game_bytes, split_records
from hanabi_p2p.portable import BINARY, open_no_follow
from hanabi_p2p.session.verdict import Verdict, variant_text
from hanabi_p2p.userfile import read_regular_file

if TYPE_CHECKING:
    from hanabi_p2p.session.table import TableSession
    from hanabi_p2p.session.verify import GameReport

VERDICT_SUFFIX = ".verdict"
# The format changes whenever a verdict may, or what it is valid for: 2 since a game whose
# seeds are missing has its turns checked (it may now be found invalid where 1 said
# unfinished); 3 since the key names the file as well as its bytes (a copy is checked again).
VERDICT_FORMAT = 3
MAX_VERDICT_BYTES = 16 * 1024
VERDICT_FILE_MODE = 0o600
LIST_ID_CHARS = 8  # table id digits `list` prints (a unique prefix among a person's games)
UNREADABLE = "unreadable"
NOT_STARTED = "not started"
UNFINISHED_PRACTICE = "unfinished practice"


def date_text(created: int) -> str:
    from datetime import datetime  # (`log verify` shows no date)

    try:
        return datetime.fromtimestamp(created).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return "?"


@dataclass(frozen=True, slots=True)
class ListRow:
    """What `log list` shows of one game: cheap to cache, enough to render its row."""

    created: int | None  # from the file header; None if unreadable
    table: str  # table id in hex (the file name)
    name: str
    players: tuple[str, ...]
    variant: str
    verdict: Verdict | None  # None: the file could not be read at all
    score: int | None = None
    rating: str = ""
    problem: str = ""  # why the file could not be read

    @classmethod
    def of_report(cls, table: str, report: GameReport) -> ListRow:
        state = report.state
        valid = report.verdict is Verdict.VALID and state is not None
        return cls(
            created=report.header.created if report.header is not None else None,
            table=table,
            name=report.table_name,
            players=tuple(p.name for p in report.players),
            variant=variant_text(report.config) if report.config is not None else "",
            verdict=report.verdict,
            score=state.score if valid and state is not None else None,
            rating=state.rating if valid and state is not None else "",
        )

    @classmethod
    def of_played_game(cls, table: str, created: int, session: TableSession) -> ListRow | None:
        """The row of a game the program played through `session`, as a full check of its
        log finds it, valid, when the session saw it end and audited it (and the log holds
        what it applied: see `record_played_game`); None if the session did not."""
        state, opened = session.state, session.table
        audit = session.audit
        if state is None or not state.over or opened is None or audit is None or not audit.ok:
            return None
        return cls(created=created, table=table, name=opened.name,
                   players=tuple(seat.name for seat in session.seats),
                   variant=variant_text(opened.config), verdict=Verdict.VALID,
                   score=state.score, rating=state.rating)

    def to_json(self) -> dict[str, Any]:
        return {"created": self.created, "table": self.table, "name": self.name,
                "players": list(self.players), "variant": self.variant,
                "verdict": self.verdict.value if self.verdict is not None else None,
                "score": self.score, "rating": self.rating, "problem": self.problem}

    @classmethod
    def from_json(cls, value: Any) -> ListRow:
        """Raises ValueError (or KeyError/TypeError) on anything but what to_json wrote."""
        players = value["players"]
        if not isinstance(players, list) or not all(isinstance(p, str) for p in players):
            raise ValueError("players")
        row = cls(created=value["created"], table=value["table"], name=value["name"],
                  players=tuple(players), variant=value["variant"],
                  verdict=None if value["verdict"] is None else Verdict(value["verdict"]),
                  score=value["score"], rating=value["rating"], problem=value["problem"])
        text = (row.table, row.name, row.variant, row.rating, row.problem)
        numbers = (row.created, row.score)
        if (not all(isinstance(t, str) for t in text)
                or not all(isinstance(n, int | None) for n in numbers)):
            raise ValueError("field types")
        return row

    def score_text(self, practice_names: frozenset[str] = frozenset()) -> str:
        """`practice_names`: the names `play` gives its table, in every language."""
        if self.verdict is None:  # why goes on a line of its own (see log.list_lines)
            return UNREADABLE
        if self.verdict is Verdict.VALID and self.score is not None:
            return f"{self.score} ({self.rating})"
        if self.verdict is Verdict.UNFINISHED:
            # nobody seated: a lobby that timed out or was left, not a game stopped half-way
            if not self.players:
                return NOT_STARTED
            # a practice game cannot be resumed (its computer players ended with it): said,
            # so that it is not kept waiting for a return (`log remove` forgets it)
            return UNFINISHED_PRACTICE if self.name in practice_names else "unfinished"
        return "INVALID"

    def cells(self, practice_names: frozenset[str] = frozenset()) -> list[str]:
        date = date_text(self.created) if self.created is not None else "?"
        return [date, self.table[:LIST_ID_CHARS], self.name, ", ".join(self.players),
                self.variant, self.score_text(practice_names)]


def verdict_path(path: Path) -> Path:
    return path.with_name(path.name + VERDICT_SUFFIX)


def file_key(data: bytes, info: os.stat_result) -> str:
    """What a cached row is valid for: these exact bytes, in this very file (a copy is a new
    inode, a rewrite a new modification time), checked by this version."""
    digest = hashlib.blake2b(data, digest_size=32).hexdigest()
    return f"{__version__}/{digest}/{info.st_dev}/{info.st_ino}/{info.st_mtime_ns}"


def cached_row(path: Path, data: bytes, info: os.stat_result) -> ListRow | None:
    """The row cached for these bytes of the file `path` (`info`: its lstat), or None
    (absent, stale, written for another file, or damaged)."""
    try:
        raw = read_regular_file(verdict_path(path), limit=MAX_VERDICT_BYTES, what="verdict")
        value = json.loads(raw)
        if (not isinstance(value, dict) or value.get("format") != VERDICT_FORMAT
                or value.get("key") != file_key(data, info)):
            return None
        return ListRow.from_json(value["row"])
    except (UserError, ValueError, KeyError, TypeError):
        return None  # only a cache: anything wrong with it means "check the log again"


def remember_row(path: Path, data: bytes, info: os.stat_result, row: ListRow) -> None:
    """Cache `row` beside `path` for these bytes of that file (`info`: its lstat). Nothing
    is said when it cannot be written: the game is then checked again next time."""
    record = {"format": VERDICT_FORMAT, "key": file_key(data, info), "row": row.to_json()}
    with contextlib.suppress(OSError):
        _replace_file(verdict_path(path), json.dumps(record, ensure_ascii=False).encode())


def _replace_file(target: Path, data: bytes) -> None:
    """Write `data` to `target` through a temporary file of its own directory: created, never
    opened through a link nor over a file already there (another program's, or one planted
    where we write), then renamed over `target` (which replaces a link, never follows it)."""
    tmp = target.with_name(f".{target.name}.{os.getpid()}.{os.urandom(6).hex()}.tmp")
    fd = open_no_follow(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | BINARY, VERDICT_FILE_MODE)
    try:
        with os.fdopen(fd, "wb") as out:
            out.write(data)
        os.replace(tmp, target)
    except BaseException:
        with contextlib.suppress(OSError):
            tmp.unlink()
        raise


def lstat_or_none(path: Path) -> os.stat_result | None:
    try:
        return os.lstat(path)
    except OSError:
        return None


def record_played_game(path: Path, applied: set[bytes], row: ListRow) -> bool:
    """Cache `row`, the verdict of the game our program has just played and checked as it
    went, for its log at `path`, which it wrote itself: only if that log holds exactly the
    entries it applied (`applied`: their hashes), the set a full check judges. Whether it
    was written (a log holding anything else is left to the full check of `list`)."""
    try:
        data = read_game_bytes(path)
        _, payloads = split_records(data)
    except (UserError, ValueError, IndexError, OSError, struct.error):
        return False
    if len(payloads) != len(applied) or {entry_hash(p) for p in payloads} != applied:
        return False
    info = lstat_or_none(path)
    if info is None:
        return False
    remember_row(path, data, info, row)
    return True
