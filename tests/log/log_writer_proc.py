"""A writer process for the crash test: appends entries to a game log forever.

Usage: python log_writer_proc.py PATH. Prints "ok N" after the N-th append has returned
(written and fsync'd), so the parent knows which records must survive a SIGKILL.
"""

from __future__ import annotations

import sys
from pathlib import Path

from log_helpers import ALICE, TABLE

from hanabi_p2p.log.entry import ZERO_HASH, make_entry
from hanabi_p2p.log.storage import GameFile


def main() -> None:
    path = Path(sys.argv[1])
    # Large entries span many pages, so a kill can land in the middle of one write().
    entries = []
    prev = ZERO_HASH
    for seq in range(16):
        entry = make_entry(
            ALICE,
            table_id=TABLE,
            seq=seq,
            prev=prev,
            turn=0,
            kind="deck",
            body={"blob": bytes([seq]) * 60_000},
        )
        entries.append(entry)
        prev = entry.hash
    game = GameFile.create(path, TABLE, created=0, name="crash test")
    n = 0
    while True:
        game.append(entries[n % len(entries)])
        n += 1
        print(f"ok {n}", flush=True)


if __name__ == "__main__":
    main()
