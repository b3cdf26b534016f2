"""The fault matrix of issue 16 on a namespace LAN: real `--bot` games under each fault.

Each class plays --runs games (3 players unless said), every peer a separate `hanabi-p2p`
process on its own host; faults strike at a random turn mid-game or at the phase the class
names (lobby, deck setup, mid-game, the end-of-game audit). After each game: every peer
exits (0, or 1 with one clear reason), every saved log verifies, finished logs share one
digest, nobody is blamed, and the class's own expectation holds (tests/e2e/faultlab.py).

Columns: class, runs, finished (every peer finished the game), verified (every check above
held, one digest), median wall time of a game. A failed run is reported below the table with
the processes' last lines; all output stays in the work directory (--keep).

Needs root (network namespaces, iptables, tmpfs); the wall-clock class needs `faketime`
(skipped without it). Usage:

    .venv/bin/python bench/faults.py [--runs N] [--only SUBSTRING ...] [--jobs J] [--seed S]

Prints the table, then (last line) one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import random
import shutil
import statistics
import sys
import tempfile
from concurrent.futures import ProcessPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path[:0] = [str(ROOT / "tests" / "e2e"), str(ROOT / "tests" / "net")]

from faultlab import Case, Expect, Fault, Phase, Run, play  # noqa: E402
from netlab import unavailable_reason  # noqa: E402

L, D, M, A = Phase.LOBBY, Phase.DECK, Phase.MIDGAME, Phase.AUDIT
# phases a class strikes in, round robin over its runs (so a small --runs still sees each)
CUT_PHASES = (D, M, A, L)

MATRIX: tuple[tuple[Case, tuple[Phase, ...]], ...] = (
    (Case("none", Fault.NONE), (M,)),
    (Case("loss 5%", Fault.LOSS, loss=0.05), (M,)),
    (Case("loss 15%", Fault.LOSS, loss=0.15), (M,)),
    (Case("loss 30%", Fault.LOSS, loss=0.30), (M,)),
    (Case("cut 3 s", Fault.CUT, seconds=3), CUT_PHASES),
    (Case("cut 20 s", Fault.CUT, seconds=20), CUT_PHASES),
    (Case("cut 20 s, audit", Fault.CUT, phase=A, seconds=20,
          expect=Expect.FINISH_OR_UNREACHABLE), (A,)),
    (Case("cut 90 s", Fault.CUT, seconds=90, wait_timeout=150), CUT_PHASES),
    (Case("kill guest, lobby", Fault.KILL, phase=L), (L,)),
    (Case("kill guest, deck", Fault.KILL, phase=D), (D,)),
    (Case("kill guest, mid-game", Fault.KILL), (M,)),
    (Case("kill guest, audit", Fault.KILL, phase=A), (A,)),
    (Case("kill host, lobby", Fault.KILL, phase=L, victims=(0,)), (L,)),
    (Case("kill host, deck", Fault.KILL, phase=D, victims=(0,)), (D,)),
    (Case("kill host, mid-game", Fault.KILL, victims=(0,)), (M,)),
    (Case("kill host, audit", Fault.KILL, phase=A, victims=(0,)), (A,)),
    (Case("kill 2 guests, lobby", Fault.KILL, phase=L, players=4, victims=(1, 2)), (L,)),
    (Case("kill 2 guests, deck", Fault.KILL, phase=D, victims=(1, 2)), (D,)),
    (Case("kill 2 guests, mid-game", Fault.KILL, victims=(1, 2)), (M,)),
    (Case("kill 2 guests, audit", Fault.KILL, phase=A, victims=(1, 2)), (A,)),
    (Case("stop 30 s", Fault.STOP, seconds=30, wait_timeout=60), (M,)),
    (Case("stop > wait-timeout", Fault.STOP, seconds=20, wait_timeout=8,
          expect=Expect.VICTIM_NAMED), (M,)),
    (Case("disk full", Fault.DISK_FULL, expect=Expect.DISK_FULL), (M,)),
    (Case("kill -9 in write bursts x5", Fault.KILL_BURST, phase=D, kills=5), (D,)),
    (Case("wall clock hours off", Fault.CLOCK, victims=(1, 2)), (M,)),
    (Case("stdout closed (| head)", Fault.STDOUT_CLOSED), (M,)),
    (Case("lobby never fills", Fault.LOBBY_ABANDONED, phase=L, expect=Expect.LOBBY_ENDED),
     (L,)),
)


def classes(only: list[str]) -> list[tuple[Case, tuple[Phase, ...]]]:
    chosen = [(c, p) for c, p in MATRIX if not only or any(o in c.name for o in only)]
    if shutil.which("faketime") is None:
        print("faketime not installed: skipping the wall-clock class", file=sys.stderr)
        chosen = [(c, p) for c, p in chosen if c.fault is not Fault.CLOCK]
    return chosen


def run_one(case: Case, workdir: Path, seed: int) -> Run:
    return play(case, workdir, random.Random(seed))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=3, help="games per class (default 3)")
    parser.add_argument("--only", action="append", default=[],
                        help="classes whose name contains this (repeat for several)")
    parser.add_argument("--jobs", type=int, default=2, help="games at once (default 2)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--keep", action="store_true", help="keep the work directory")
    args = parser.parse_args()
    reason = unavailable_reason()
    if reason is not None:
        print(f"cannot run: {reason}", file=sys.stderr)
        return 2
    work = Path(tempfile.mkdtemp(prefix="hanabi-faults-"))
    plan = []
    for index, (case, phases) in enumerate(classes(args.only)):
        for attempt in range(args.runs):
            phase = phases[attempt % len(phases)]
            seed = args.seed * 1000 + index * 10 + attempt
            plan.append((replace(case, phase=phase), work / f"{index:02d}-{attempt}", seed))
    # processes, not threads: a game checks logs with the CLI under redirected stdout
    with ProcessPoolExecutor(max_workers=args.jobs) as pool:
        runs = list(pool.map(run_one, *zip(*plan, strict=True)))

    rows: dict[str, list[Run]] = {}
    for run in runs:
        rows.setdefault(run.case.name, []).append(run)
    header = f"{'class':<28} {'runs':>4} {'finished':>8} {'verified':>8} {'median s':>8}"
    print(header)
    print("-" * len(header))
    figures: dict[str, Any] = {}
    for name, group in rows.items():
        median = statistics.median(r.seconds for r in group)
        finished = sum(r.finished for r in group)
        verified = sum(r.verified for r in group)
        print(f"{name:<28} {len(group):>4} {finished:>8} {verified:>8} {median:>8.1f}")
        figures[name] = {"runs": len(group), "finished": finished, "verified": verified,
                         "median_s": round(median, 1)}
    failures = [r for r in runs if r.failure]
    for run in failures:
        print(f"\nFAILED {run.case.name} (phase {run.case.phase.value}, "
              f"victims {list(run.case.victims)}, {run.seconds:.0f} s):\n{run.failure}\n"
              f"{run.tails}")
    if args.keep or failures:
        print(f"\noutput of every process: {work}")
    else:
        shutil.rmtree(work, ignore_errors=True)
    print(json.dumps({"runs_per_class": args.runs, "classes": figures,
                      "failed": len(failures)}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
