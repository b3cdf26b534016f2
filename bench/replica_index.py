"""Benchmark of the replica's held-entry index (issue 10, item 4): work counted, not timed.

A stranger-heavy lobby: AUTHORS authors each send entries 1..N of their chain, shuffled, and
never entry 0, so every entry is held. After each one the peer asks what a peer core asks
(``has_gaps``, ``gap_starts``). Printed: the index steps (``Replica.index_steps``) of the
first and of the last hold, the largest and the mean; then the release of one author's
chain. With the index kept incrementally the last hold costs what the first did; the old
code recomputed every gap per held entry (steps grew with the entries held).
CPU seconds are printed beside the counts for orientation only.

Usage: .venv/bin/python bench/replica_index.py [--authors 40] [--entries 400]
The last line printed is one JSON object with the headline figures.
"""

from __future__ import annotations

import argparse
import json
import random
import time

from hanabi_p2p.identity import Identity
from hanabi_p2p.log.entry import ZERO_HASH, Entry, make_entry
from hanabi_p2p.log.replica import Replica, Status

TABLE = bytes(range(16))


class AlwaysReady:
    def ready(self, entry: Entry) -> bool:
        return True

    def apply(self, entry: Entry) -> None:
        return None


def chain(index: int, length: int) -> list[Entry]:
    identity = Identity.from_seed(index.to_bytes(4, "big") * 8)
    out: list[Entry] = []
    prev = ZERO_HASH
    for seq in range(length):
        entry = make_entry(identity, table_id=TABLE, seq=seq, prev=prev, turn=0, kind="chat",
                           body={"text": "x"})
        out.append(entry)
        prev = entry.hash
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--authors", type=int, default=40)
    parser.add_argument("--entries", type=int, default=400)
    args = parser.parse_args()
    chains = [chain(i, args.entries + 1) for i in range(args.authors)]
    held = [e for c in chains for e in c[1:]]
    random.Random(1).shuffle(held)

    replica = Replica(TABLE, AlwaysReady())
    costs: list[int] = []
    start = time.process_time()
    for entry in held:
        before = replica.index_steps
        if replica.add(entry).status is not Status.HELD:
            raise SystemExit("an entry was not held")
        replica.has_gaps()
        replica.gap_starts()
        costs.append(replica.index_steps - before)
    hold_cpu = time.process_time() - start

    before = replica.index_steps
    start = time.process_time()
    released = len(replica.add(chains[0][0]).applied)
    release_cpu = time.process_time() - start
    release_steps = replica.index_steps - before

    rows = [
        ("entries held", len(held)),
        ("steps, first hold", costs[0]),
        ("steps, last hold", costs[-1]),
        ("steps, largest hold", max(costs)),
        ("steps, mean hold", round(sum(costs) / len(costs), 2)),
        (f"steps, releasing {released} entries", release_steps),
        ("CPU s, all holds (orientation)", round(hold_cpu, 3)),
        ("CPU s, release (orientation)", round(release_cpu, 3)),
    ]
    width = max(len(name) for name, _ in rows)
    for name, value in rows:
        print(f"{name:<{width}}  {value}")
    print(json.dumps({
        "authors": args.authors, "entries_per_author": args.entries, "held": len(held),
        "first_hold_steps": costs[0], "last_hold_steps": costs[-1],
        "max_hold_steps": max(costs), "release_steps": release_steps,
        "released": released, "hold_cpu_s": round(hold_cpu, 3),
    }))


if __name__ == "__main__":
    main()
