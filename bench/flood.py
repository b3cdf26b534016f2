"""Benchmark: what a seated player flooding HAVE and WANT costs the honest players (issue 29
case 7: "a flooding peer costs the others at most 25 % of their game time").

In memory (tests/peer/core_harness.py: the real peer cores, fake links, a fake clock), so the
figure is the honest cores' own work, without the network: per game, the CPU time of a
3-player table whose third player sends the first one RATE empty HAVEs and RATE WANTs of
everything a second (as measured in the issue: 12-15 k frames a second), against the same
seed with no flood. Each frame reaches the core as the mesh would hand it over (decrypting
it is the link's cost, bounded by issue 31's read budgets, not measured here).

Usage: .venv/bin/python bench/flood.py [--games N] [--rate FRAMES_PER_S]
Prints a table, then one JSON line: median CPU seconds with and without the flood, and
their ratio (target: at most 1.25).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "peer"))

from core_harness import SimNet

from hanabi_p2p.net import frames as fr
from hanabi_p2p.peer import inputs as ins
from hanabi_p2p.rules.cards import GameConfig

TICK_S = 0.25
# Seeds that no test or tuning uses: the figures come from these only.
FIRST_SEED = 9000


def one_game(seed: int, rate: float) -> tuple[float, float, int]:
    """(CPU seconds, fake seconds, frames dropped by the first player) of one game."""
    net = SimNet(GameConfig(3), seed=seed)
    alice, _bob, mallory = net.peers
    per_tick = int(rate * TICK_S / 2)

    def flood() -> None:
        if alice.finished is None and alice.session.seats:
            everyone = {s.peer_id: 0 for s in alice.session.seats}
            for _ in range(per_tick):
                alice.core.handle(ins.Received(mallory.peer_id, fr.Have({}), net.now))
                alice.core.handle(ins.Received(mallory.peer_id, fr.Want(everyone), net.now))
            net._effects(alice)
        if not net.all_finished():
            net._schedule(TICK_S, flood)

    started = time.process_time()
    net.open_table()
    if per_tick:
        net._schedule(TICK_S, flood)
    took = net.run(net.all_finished)
    return time.process_time() - started, took, alice.core.counters.rate_dropped


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--rate", type=float, default=12000.0)
    args = parser.parse_args()
    quiet, flooded = [], []
    print(f"{'seed':>6} {'cpu quiet s':>12} {'cpu flooded s':>14} {'ratio':>6} {'dropped':>9}")
    for seed in range(FIRST_SEED, FIRST_SEED + args.games):
        cpu_quiet, _took, _ = one_game(seed, 0.0)
        cpu_flood, _took, dropped = one_game(seed, args.rate)
        quiet.append(cpu_quiet)
        flooded.append(cpu_flood)
        print(f"{seed:>6} {cpu_quiet:>12.3f} {cpu_flood:>14.3f} {cpu_flood / cpu_quiet:>6.2f}"
              f" {dropped:>9}")
    result = {"games": args.games, "rate": args.rate,
              "cpu_quiet_s": round(statistics.median(quiet), 3),
              "cpu_flooded_s": round(statistics.median(flooded), 3),
              "ratio": round(statistics.median(f / q for f, q in zip(flooded, quiet,
                                                                      strict=True)), 3)}
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
