"""Benchmark of the first `hanabi-p2p log list` after N games were played (target: 1 s for 100).

The games are built in memory (bots through the session harness of tests/session, a few
distinct games, each written to N/len(seeds) files as a node writes its log), rather than
played by real processes; each file then gets what the program that played it leaves beside
it when its game ends (`verdict_cache.record_played_game`, where this checkout has it: a
checkout without it left nothing, and its first `list` checks every game in full).

Then `hanabi-p2p log list --data-dir D` runs as a person runs it, a new process (the code of
this checkout: PYTHONPATH), the first time (no game listed before) and again; each the median
of --runs fresh data directories. Wall clock (what a person waits for) and the CPU time of
the process and its workers. tests/log_cli/test_verdict_cache.py shows that a real
`play --bot` game is listed with no full check.

Usage: .venv/bin/python bench/log_list.py [--games N] [--runs N] [--players N]
The last line printed is one JSON object with the headline figures.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "session"))

from session_harness import TABLE_ID, Table, play_bot_game  # noqa: E402

from hanabi_p2p.datadir import DataDir  # noqa: E402
from hanabi_p2p.log.storage import GameFile  # noqa: E402
from hanabi_p2p.rules.cards import GameConfig  # noqa: E402

TARGET_S = 1.0
CREATED = 1_700_000_000
SEEDS = (101, 102, 103, 104)


def recorder() -> object | None:
    """`record(path, table)` as the program that played leaves its verdict, or None when
    this checkout's program leaves nothing."""
    try:
        from hanabi_p2p.verdict_cache import ListRow, record_played_game
    except ImportError:
        return None

    def record(path: Path, table: Table) -> None:
        peer = table.peers[0]
        row = ListRow.of_played_game(path.stem, CREATED, peer.session)
        assert row is not None
        assert record_played_game(path, {e.hash for e in peer.replica.applied}, row)

    return record


def build(root: Path, tables: list[Table], games: int) -> None:
    data = DataDir(root).ensure()
    record = recorder()
    for index in range(games):
        table = tables[index % len(tables)]
        path = data.games_dir / f"{index:032x}.hlog"
        with GameFile.create(path, TABLE_ID, created=CREATED + index, name="bench") as game:
            for entry in table.peers[0].replica.applied:
                game.append(entry, sync=False)
        if record is not None:
            record(path, table)  # type: ignore[operator]


def run_list(root: Path) -> tuple[float, float, int]:
    """(wall s, CPU s of the process and its workers, rows) of one `log list`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "hanabi_p2p", "log", "list", "--json",
                           "--data-dir", str(root)], capture_output=True, text=True, env=env,
                          check=False, timeout=600)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"log list failed: {done.stderr[-2000:]}")
    rows = len(json.loads(done.stdout)["games"])
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu, rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--players", type=int, default=5)
    args = parser.parse_args()

    tables = [play_bot_game(GameConfig(args.players), seed) for seed in SEEDS]
    first, again = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for run in range(args.runs):
            root = Path(tmp) / f"data{run}"
            build(root, tables, args.games)
            first.append(run_list(root))
            again.append(run_list(root))
    assert all(rows == args.games for _, _, rows in first + again)

    def median(runs: list[tuple[float, float, int]], i: int) -> float:
        return statistics.median(r[i] for r in runs)

    recorded = recorder() is not None
    print(f"{args.games} games of {args.players} players "
          f"({'verdicts left by the program that played' if recorded else 'no verdicts'}); "
          f"median of {args.runs} runs")
    print(f"{'log list':<28} {'wall s':>8} {'CPU s':>8}")
    print(f"{'first (never listed)':<28} {median(first, 0):>8.3f} {median(first, 1):>8.3f}")
    print(f"{'again':<28} {median(again, 0):>8.3f} {median(again, 1):>8.3f}")
    verdict = "within" if median(first, 0) <= TARGET_S else "OVER"
    print(f"target {TARGET_S:.0f} s for the first: {verdict}")
    print(json.dumps({
        "log_list_first_s": round(median(first, 0), 3),
        "log_list_first_cpu_s": round(median(first, 1), 3),
        "log_list_again_s": round(median(again, 0), 3),
        "games": args.games,
    }))


if __name__ == "__main__":
    main()
