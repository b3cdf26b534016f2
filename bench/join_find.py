"""How long `join` browses before it knows its table: start of the browse -> table chosen.

Runs in a network namespace whose loopback carries multicast (tests/net/netlab.py; needs
root), with one table advertised by tests/net/advertise_table.py. Each row is the median of
--runs browses, each in a fresh process-local Zeroconf (what one `join` does):

* fixed:   the browse before issue 13 - always the full --browse-seconds (3 s);
* by id:   `join 0123abcd` - stops at the first advert with that id;
* by name: `join Friday` - stops 300 ms (BROWSE_GRACE_S) after the first advert of that name,
           so that a look-alike or a copied advert is seen too;
* any:     `join` - the only open table, after the same grace period.

Usage: sudo .venv/bin/python bench/join_find.py [--runs N]
Prints a table, then (last line) one JSON object with the medians in seconds.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "net"))

from netlab import NetLab, unavailable_reason  # noqa: E402

from hanabi_p2p.net.discovery import browse_tables, pick_table, settled  # noqa: E402

TABLE_ID = "0123abcd" * 4
BROWSE_S = 3.0
MODES = {"fixed": "", "by id": TABLE_ID[:8], "by name": "Friday", "any": None}


async def _one(mode: str, wanted: str | None) -> float:
    start = time.perf_counter()
    if mode == "fixed":
        found = await browse_tables("127.0.0.1", BROWSE_S)
    else:
        found = await browse_tables("127.0.0.1", BROWSE_S,
                                    until=lambda tables: settled(tables, wanted))
    pick_table(found.tables, wanted or None)
    return time.perf_counter() - start


def inner(runs: int) -> None:
    """In the namespace: time every mode `runs` times; print one JSON object."""
    out = {mode: [asyncio.run(_one(mode, wanted)) for _ in range(runs)]
           for mode, wanted in MODES.items()}
    print(json.dumps(out))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--inner", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        inner(args.runs)
        return
    reason = unavailable_reason()
    if reason is not None:
        sys.exit(f"cannot run: {reason}")
    with NetLab() as lab:
        host = lab.loopback()
        advert = host.popen(sys.executable, str(ROOT / "tests/net/advertise_table.py"),
                            "--interface", host.address, "--name", "Friday",
                            "--table-id", TABLE_ID, "--total", "2",
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert advert.stdout is not None and advert.stdout.readline().strip() == "ready"
        result = host.run(sys.executable, __file__, "--inner", "--runs", str(args.runs),
                          timeout=60 + args.runs * 20)
        if result.returncode != 0:
            sys.exit(result.stderr)
        times: dict[str, list[float]] = json.loads(result.stdout.splitlines()[-1])
    medians = {mode: statistics.median(values) for mode, values in times.items()}
    print(f"{'join':10} {'median s':>9} {'min s':>7} {'max s':>7}   (runs: {args.runs})")
    for mode, values in times.items():
        print(f"{mode:10} {medians[mode]:9.3f} {min(values):7.3f} {max(values):7.3f}")
    print(json.dumps({"table_found_s": {m: round(v, 3) for m, v in medians.items()},
                      "runs": args.runs}))


if __name__ == "__main__":
    main()
