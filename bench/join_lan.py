"""`join NAME` on a 2-host namespace LAN: start of the joiner's process -> its "Everyone is
seated" line (issue 33's join row), and where that time goes.

Needs root: two network namespaces on one bridge (tests/net/netlab.py), so mDNS and TCP go
between real network stacks and nothing leaves the machine. Each run: a fresh
``hanabi-p2p host --players 2 --bot`` on host 1, given --settle seconds to announce its
table, then ``hanabi-p2p join NAME --bot`` on host 2, timed from the joiner's own lines:

* start -> looking:  the interpreter, the program's imports, the checks of the arguments;
* looking -> joining: the browse, the check of the advert against its host, and the rest
                      of the game's modules (imported meanwhile, on a thread);
* joining -> seated: the handshake, the request for a seat, the host seating the table.

Bytecode: programs run as an installed copy does, from bytecode compiled once (pip compiles
a package when it installs it; see feel.as_installed). An environment with
``PYTHONDONTWRITEBYTECODE`` set (this machine's is) would otherwise make every process compile
the whole program from source again, some 0.2-0.3 s of CPU that no installed copy spends;
``--compile-each-run`` measures that way instead.

Against other code: bench/against.py OTHER_CHECKOUT -- bench/join_lan.py (copy this script
into a checkout older than it).

Usage: sudo .venv/bin/python bench/join_lan.py [--runs N] [--settle S] [--compile-each-run]
Prints a table, then (last line) one JSON object with the medians in seconds.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "net"))
sys.path.insert(0, str(ROOT / "bench"))

from feel import Proc, as_installed, program  # noqa: E402
from netlab import NetLab, unavailable_reason  # noqa: E402

TABLE = "Friday"
TABLE_OPEN = re.compile(r"table open at (\S+):(\d+)")
LOOKING = re.compile(r"looking for tables")
JOINING = re.compile(r"joining '")
SEATED = re.compile(r"Everyone is seated")
PROCESS_TIMEOUT_S = 120.0
TARGET_S = 0.5
PHASES = ("start_to_looking_s", "looking_to_joining_s", "joining_to_seated_s")


def one_join(lab: NetLab, root: Path, settle: float) -> dict[str, float]:
    first, second = lab.lan(2)
    host = Proc.watch("host", first.popen(
        *program(), "host", "--players", "2", "--bot", "--table", TABLE, "--name", "hosty",
        "--interface", first.address, "--data-dir", str(root / "host"),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=1, cwd=tempfile.gettempdir()),
        time.monotonic(), timeout=PROCESS_TIMEOUT_S)
    host.when(TABLE_OPEN)
    time.sleep(settle)  # its advert announced (probing and announcing take about 1.5 s)
    started = time.monotonic()
    joiner = Proc.watch("joiner", second.popen(
        *program(), "join", TABLE, "--bot", "--name", "joey", "--interface", second.address,
        "--data-dir", str(root / "joiner"),
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=1, cwd=tempfile.gettempdir()),
        started, timeout=PROCESS_TIMEOUT_S)
    looking, _ = joiner.when(LOOKING)
    joining, _ = joiner.when(JOINING)
    seated, _ = joiner.when(SEATED)
    for proc in (joiner, host):  # the game is played out: nothing else runs meanwhile
        proc.exit_time()
    return {"join_seated_s": seated - started, "start_to_looking_s": looking - started,
            "looking_to_joining_s": joining - looking, "joining_to_seated_s": seated - joining}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="joins (default: %(default)s)")
    parser.add_argument("--settle", type=float, default=2.0,
                        help="seconds between the table opening and the join "
                             "(default: %(default)s)")
    parser.add_argument("--compile-each-run", action="store_true",
                        help="no bytecode kept: every process compiles the program again "
                             "(as with PYTHONDONTWRITEBYTECODE and no cache)")
    parser.add_argument("--prefix", default="hjl", help="namespace names start so")
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason is not None:
        raise SystemExit(f"bench/join_lan.py {reason}")
    runs: list[dict[str, float]] = []
    with tempfile.TemporaryDirectory(prefix="join-lan-") as tmp:
        root = Path(tmp)
        if not args.compile_each_run:
            as_installed(root / "pycache")
        for run in range(args.runs):
            with NetLab(args.prefix) as lab:
                runs.append(one_join(lab, root / f"run{run}", args.settle))
    medians = {key: statistics.median(r[key] for r in runs) for key in runs[0]}
    bytecode = "compiled each run" if args.compile_each_run else "kept, as installed"
    print(f"{'join NAME on a 2-host LAN':<28} {'median s':>9} {'min s':>7} {'max s':>7}   "
          f"(runs: {args.runs}; bytecode {bytecode}; load {os.getloadavg()[0]:.1f})")
    for key in ("join_seated_s", *PHASES):
        values = [r[key] for r in runs]
        print(f"{key:<28} {medians[key]:9.3f} {min(values):7.3f} {max(values):7.3f}")
    print(f"target: start -> seated <= {TARGET_S:g} s")
    print(json.dumps({**{k: round(v, 4) for k, v in medians.items()}, "runs": args.runs,
                      "compile_each_run": args.compile_each_run}))


if __name__ == "__main__":
    main()
