"""Benchmark of a whole game: 5 computer players, each a separate peer, over loopback TCP.

Every seat is a full peer as in `hanabi-p2p play`: its own identity, data directory, game log
(fsync'd appends), mesh with handshaked TCP links to every other seat, session and deck
protocol. All five run in this one process on one asyncio event loop, so

* wall time covers everything a real table does: lobby, seating, the deck shuffle with its
  proofs, every turn, the seed reveals and every peer's deck audit, up to the last entry
  applied anywhere (the last seed: its audit runs inside that apply). All crypto of all
  five peers shares ONE core here, so it is an upper bound for five machines each doing
  only its own share;
* turn latency is measured on one clock: every node records when it applied each entry
  (``PeerCore.counters.applied_at``, time.monotonic). For each turn's action entry, latency = the
  time the last peer applied it minus the time its author applied it (just before sending);
* bytes sent are each node's own count of frames it queued (``Node.mesh.bytes_sent``,
  length prefix included; handshakes and keepalives excluded).

Usage: .venv/bin/python bench/game.py [--games N] [--players P]
The last line printed is one JSON object with the headline figures (over all games).
Targets (5 players): game_s_5p <= 3, turn_p50_ms <= 10, turn_p99_ms <= 50.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.peer.frontends import BotPlayer, Frontend
from hanabi_p2p.peer.launch import GameResult, Peer, PeerOptions, host_table
from hanabi_p2p.peer.node import Node
from hanabi_p2p.rules.cards import GameConfig

LOOPBACK = "127.0.0.1"


@dataclass
class GameRun:
    wall_s: float
    cpu_s: float
    setup_s: float  # start -> first action sent (lobby, seating, shuffle, deal)
    latencies_ms: list[float]
    bytes_sent: list[int]
    score: int
    turns: int


def _percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (no interpolation: every figure is a measured turn)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


async def _play(root: Path, players: int) -> tuple[GameResult, list[Node], float]:
    fronts: list[Frontend] = []

    def bot(_index: int) -> Frontend:
        front = BotPlayer(out=None)
        fronts.append(front)
        return front

    host_front = BotPlayer(out=None)
    opts = PeerOptions(name="bench0", data_dir=DataDir(root / "host"), interface=LOOPBACK,
                       advertise=False)
    start = time.monotonic()
    result = await host_table(opts, "bench", GameConfig(players), host_front,
                              bots=players - 1, bot_frontend=bot)
    nodes = []
    for front in [host_front, *fronts]:
        assert isinstance(front.peer, Peer) and front.peer.node is not None
        nodes.append(front.peer.node)
    return result, nodes, start


def run_game(players: int) -> GameRun:
    with tempfile.TemporaryDirectory(prefix="hanabi-bench-") as tmp:
        cpu0 = time.process_time()
        result, nodes, start = asyncio.run(_play(Path(tmp), players))
        cpu = time.process_time() - cpu0
    if not result.ok:
        raise SystemExit(f"the benchmark game failed: {result.failure}")
    # every peer is done once its own node stopped: the latest applied entry anywhere
    end = max(max(node.core.counters.applied_at.values()) for node in nodes)
    actions = [e for e in nodes[0].replica.applied if e.kind == "action"]
    latencies = []
    for entry in actions:
        times = [node.core.counters.applied_at[entry.hash] for node in nodes]
        sent = next(node.core.counters.applied_at[entry.hash] for node in nodes
                    if node.identity.peer_id == entry.author)
        latencies.append((max(times) - sent) * 1000)
    first_sent = min(nodes[0].core.counters.applied_at[e.hash] for e in actions)
    return GameRun(
        wall_s=end - start,
        cpu_s=cpu,
        setup_s=first_sent - start,
        latencies_ms=latencies,
        bytes_sent=[node.mesh.bytes_sent for node in nodes],
        score=result.score,
        turns=len(actions),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1, help="games to play (default: 1)")
    parser.add_argument("--players", type=int, default=5, choices=range(2, 6),
                        help="seats (default: 5)")
    args = parser.parse_args()
    runs = []
    for index in range(args.games):
        run = run_game(args.players)
        runs.append(run)
        print(f"game {index + 1}: {run.wall_s:.2f} s wall ({run.cpu_s:.2f} s CPU), "
              f"setup {run.setup_s:.2f} s, {run.turns} turns, score {run.score}, "
              f"turn latency p50 {_percentile(run.latencies_ms, 0.5):.1f} ms "
              f"p99 {_percentile(run.latencies_ms, 0.99):.1f} ms, "
              f"sent per peer {statistics.mean(run.bytes_sent) / 1024:.0f} KiB", flush=True)
    latencies = [ms for run in runs for ms in run.latencies_ms]
    sent = [b for run in runs for b in run.bytes_sent]
    figures: dict[str, Any] = {
        f"game_s_{args.players}p": round(statistics.median(r.wall_s for r in runs), 3),
        "cpu_s": round(statistics.median(r.cpu_s for r in runs), 3),
        "setup_s": round(statistics.median(r.setup_s for r in runs), 3),
        "turn_p50_ms": round(_percentile(latencies, 0.5), 2),
        "turn_p99_ms": round(_percentile(latencies, 0.99), 2),
        "turns": len(latencies),
        "bytes_per_peer": round(statistics.mean(sent)),
        "bytes_per_peer_max": max(sent),
        "games": len(runs),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
