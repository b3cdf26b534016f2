"""Real game logs for the CLI tests: whole games played by bots through the in-memory
session harness, each peer's applied entries written to its own data directory exactly as
a peer's node stores them (one GameFile, entries in that peer's application order)."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from session_harness import TABLE_ID, play_bot_game

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.identity import Identity
from hanabi_p2p.log import storage
from hanabi_p2p.log.entry import ZERO_HASH, Entry, make_entry
from hanabi_p2p.log.storage import GameFile

CREATED = 1_700_000_000
TABLE_NAME = "test table"


play_game = play_bot_game  # a finished, audited game between computer players


def write_log(path: Path, entries: Sequence[Entry], table_id: bytes = TABLE_ID) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    with GameFile.create(path, table_id, created=CREATED, name=TABLE_NAME) as game:
        for entry in entries:
            game.append(entry)
    return path


def store_in_data_dir(root: Path, entries: Sequence[Entry]) -> Path:
    """Write a game where the CLI looks for it: <root>/games/<table id hex>.hlog."""
    return write_log(DataDir(root).game_path(TABLE_ID), entries)


# ---- byte-level surgery on a game file, as an attacker with a hex editor would do it


def split_records(path: Path) -> tuple[bytes, list[bytes]]:
    """(magic + header record, [entry payloads])."""
    return storage.split_records(path.read_bytes())


def join_records(path: Path, prefix: bytes, payloads: Sequence[bytes]) -> None:
    """Rewrite the file with valid checksums (they are not secret)."""
    path.write_bytes(storage.join_records(prefix, payloads))


def record_offset(path: Path, index: int) -> int:
    """Byte offset of entry record ``index`` (its length field)."""
    prefix, payloads = split_records(path)
    return len(prefix) + sum(len(p) + 8 for p in payloads[:index])


def resign_chain(identity: Identity, chain: Sequence[Entry], bodies: Sequence[object],
                 turns: Sequence[int] | None = None) -> list[Entry]:
    """Re-sign an author's chain from chain[0].seq on, with new bodies (what a player who
    rewrites their own history after the fact can do: it has its key)."""
    out: list[Entry] = []
    prev = chain[0].prev if chain else ZERO_HASH
    for i, (old, body) in enumerate(zip(chain, bodies, strict=True)):
        entry = make_entry(identity, table_id=old.table_id, seq=old.seq, prev=prev,
                           turn=old.turn if turns is None else turns[i], kind=old.kind,
                           body=body)
        out.append(entry)
        prev = entry.hash
    return out


def rewrite_history(path: Path, stored: Sequence[Entry], identity: Identity, first: Entry,
                    new_body: object) -> None:
    """Rewrite the game file as if ``identity`` had posted ``new_body`` instead of
    ``first``'s: its chain from there on is re-signed (so every link is valid again) and
    each re-signed entry takes the place of the original in the file."""
    chain = sorted((e for e in stored if e.author == first.author and e.seq >= first.seq),
                   key=lambda e: e.seq)
    bodies = [new_body, *(e.body for e in chain[1:])]
    new = dict(zip((e.hash for e in chain), resign_chain(identity, chain, bodies), strict=True))
    prefix, _ = split_records(path)
    join_records(path, prefix, [new.get(e.hash, e).encoded for e in stored])
