"""Benchmark of `hanabi-p2p log verify` on a full 5-player game (target: 300 ms or less).

A game is played by bots through the in-memory session harness (tests/session), and one
peer's copy is stored as its node stores it. Then, each the median of several runs:

* pipeline: ``verify_game(entries)`` on decoded entries: every signature, the deck
  transcript, the faces, the replay of every entry through an observer session (whose full
  deck audit is part of it), the verdict;
* file: what `log verify FILE` does, reading and decoding the file (each entry's signature
  checked once more on decoding) and then the pipeline;
* audit alone: the deck audit over the same transcript (the largest part of the pipeline).

Times are CPU time of this process (time.process_time), so other programs on the machine
do not inflate them; wall-clock medians are printed beside them.

Usage: .venv/bin/python bench/log_verify.py [--repeat N] [--players N] [--seed N]
The last line printed is one JSON object with the headline figures.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "session"))

from session_harness import TABLE_ID, Table, play_bot_game  # noqa: E402

from hanabi_p2p.commands.log import read_report  # noqa: E402
from hanabi_p2p.log.storage import GameFile  # noqa: E402
from hanabi_p2p.rules.cards import GameConfig  # noqa: E402
from hanabi_p2p.session.verify import verify_game  # noqa: E402

TARGET_MS = 300.0


def play(players: int, seed: int) -> Table:
    return play_bot_game(GameConfig(players), seed)


def measure(fn: Callable[[], object], repeat: int) -> tuple[float, float]:
    """(median CPU ms, median wall ms) over ``repeat`` runs."""
    cpu, wall = [], []
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        fn()
        cpu.append((time.process_time() - c0) * 1000)
        wall.append((time.perf_counter() - w0) * 1000)
    return statistics.median(cpu), statistics.median(wall)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--players", type=int, default=5)
    parser.add_argument("--seed", type=int, default=105)
    args = parser.parse_args()

    table = play(args.players, args.seed)
    peer = table.peers[0]
    entries = list(peer.replica.applied)
    report = verify_game(entries)
    assert report.ok, report.headline()
    deck = peer.session.deck
    assert deck is not None

    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "game.hlog"
        with GameFile.create(path, TABLE_ID, created=0, name="bench") as game:
            for entry in entries:
                game.append(entry)
        size = path.stat().st_size
        rows = [
            ("pipeline: verify_game(entries)", measure(lambda: verify_game(entries), args.repeat)),
            ("file: load + verify (log verify)", measure(lambda: read_report(path), args.repeat)),
            ("deck audit alone", measure(deck.audit, args.repeat)),
        ]

    print(f"{report.headline()}")
    turns = report.state.turn if report.state else 0
    print(f"{len(entries)} entries, {size} bytes on disk, {turns} turns; "
          f"median of {args.repeat} runs")
    print(f"{'step':<36} {'CPU ms':>8} {'wall ms':>8}")
    for name, (cpu, wall) in rows:
        print(f"{name:<36} {cpu:>8.1f} {wall:>8.1f}")
    pipeline_cpu = rows[0][1][0]
    verdict = "within" if pipeline_cpu <= TARGET_MS else "OVER"
    print(f"target {TARGET_MS:.0f} ms: {verdict}")
    print(json.dumps({
        f"verify_ms_{args.players}p": round(pipeline_cpu, 1),
        f"verify_wall_ms_{args.players}p": round(rows[0][1][1], 1),
        f"log_verify_file_ms_{args.players}p": round(rows[1][1][0], 1),
        f"audit_ms_{args.players}p": round(rows[2][1][0], 1),
        "entries": len(entries),
    }))


if __name__ == "__main__":
    main()
