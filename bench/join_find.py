"""How long `join` browses before it knows its table: start of the browse -> table chosen.

Runs in a network namespace whose loopback carries multicast (tests/net/netlab.py; needs
root), with one table advertised by tests/net/advertise_table.py. Each row is the median of
--runs browses, each in a process of its own as one `join` is (its start-up not counted):

* fixed:   the browse before issue 13 - always the full --browse-seconds (3 s);
* by id:     `join 0123abcd` - stops at the first advert with that id;
* by name:   `join Friday` - stops at the first advert of that name;
* by prefix: `join Fri` - stops BROWSE_GRACE_S (0.3 s) after the first advert that fits, so
             that another table whose name starts alike is seen too;
* any:       `join` - the only open table, after the same grace period.

Browses are --pause seconds apart (default 1.5): one that follows another within a second
measures the responder's one-second protection delay instead (--pause 0 shows it).

Usage: sudo .venv/bin/python bench/join_find.py [--runs N] [--pause S]
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
# A responder that multicast an answer in the last second delays the next one by a second
# (RFC 6762 6.): browses closer together than this measure that delay, not the join.
PAUSE_S = 1.5
MODES = {"fixed": "", "by id": TABLE_ID[:8], "by name": "Friday", "by prefix": "Fri",
         "any": None}


async def _one(mode: str, wanted: str | None) -> float:
    start = time.perf_counter()
    if mode == "fixed":
        found = await browse_tables("127.0.0.1", BROWSE_S)
    else:
        found = await browse_tables("127.0.0.1", BROWSE_S,
                                    until=lambda tables: settled(tables, wanted))
    pick_table(found.tables, wanted or None)
    return time.perf_counter() - start


def inner(mode: str) -> None:
    """In the namespace, in a process of its own (as one `join` is): one browse's seconds."""
    print(json.dumps(asyncio.run(_one(mode, MODES[mode]))))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--pause", type=float, default=PAUSE_S,
                        help="seconds between browses (default: %(default)s)")
    parser.add_argument("--inner", choices=list(MODES), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.inner:
        inner(args.inner)
        return
    reason = unavailable_reason()
    if reason is not None:
        sys.exit(f"cannot run: {reason}")
    with NetLab("hpf") as lab:  # (this helper's namespace prefix)
        host = lab.loopback()
        advert = host.popen(sys.executable, str(ROOT / "tests/net/advertise_table.py"),
                            "--interface", host.address, "--name", "Friday",
                            "--table-id", TABLE_ID, "--total", "2",
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
        assert advert.stdout is not None and advert.stdout.readline().strip() == "ready"
        times: dict[str, list[float]] = {}
        for mode in MODES:
            for _ in range(args.runs):
                time.sleep(args.pause)
                result = host.run(sys.executable, __file__, "--inner", mode, timeout=60)
                if result.returncode != 0:
                    sys.exit(result.stderr)
                times.setdefault(mode, []).append(json.loads(result.stdout.splitlines()[-1]))
    medians = {mode: statistics.median(values) for mode, values in times.items()}
    print(f"{'join':10} {'median s':>9} {'min s':>7} {'max s':>7}   "
          f"(runs: {args.runs}, {args.pause:g} s apart)")
    for mode, values in times.items():
        print(f"{mode:10} {medians[mode]:9.3f} {min(values):7.3f} {max(values):7.3f}")
    print(json.dumps({"table_found_s": {m: round(v, 3) for m, v in medians.items()},
                      "runs": args.runs, "pause_s": args.pause}))


if __name__ == "__main__":
    main()
