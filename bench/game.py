"""Benchmark of a whole game: 5 computer players, each a separate peer, over loopback TCP.

Every seat is a full peer as in `hanabi-p2p play`: its own identity, data directory, game log
(fsync'd appends), mesh with handshaked TCP links to every other seat, session and deck
protocol. All five run in this one process on one asyncio event loop, so

* wall time covers everything a real table does: lobby, seating, the deck shuffle with its
  proofs, every turn, the seed reveals and every peer's deck audit, up to the last entry
  applied anywhere (the last seed: its audit runs inside that apply). All crypto of all
  five peers shares ONE core here, so it is an upper bound for five machines each doing
  only its own share. (As in `play`, the seats of one process verify a given signature, or
  check a given public key, once between them: those answers depend on the bytes alone and
  are kept for the process; with `--processes` each seat makes every check itself);
* turn latency is measured on one clock: every node records when it applied each entry
  (``PeerCore.counters.applied_at``, time.monotonic: the time its core was handed the frame, or
  for the author the time of the command that made the entry). For each turn's action entry,
  latency = that time at the last peer minus at its author: making, storing (fsync) and
  sending the entry, and each receiver's wait for its turn at the frame. A line also gives
  the p50 for the 1st, 2nd... other seat to apply a turn: on one loop the later seats wait
  for the earlier ones' work, so the 1st is what a table of one machine per player sees;
* bytes sent are each node's own count of frames it queued (``Node.mesh.bytes_sent``,
  length prefix included; handshakes and keepalives excluded).

With ``--processes`` every seat is its own OS process instead (the host, and joiners that
dial its address), as at a real table where each player's program runs on its own machine;
here they still share this machine's cores. Turn latency is then measured the same way
across processes: every process records ``applied_at`` on the system-wide monotonic clock
(Linux CLOCK_MONOTONIC) and writes it to a file when its game is over.

With ``--think S`` every computer player waits S seconds before it acts (as `play` does at a
table with a person, 1 s): each turn is then measured on a table that has finished the
previous one. With 0 (the default) a player acts the moment it may, so a turn also waits
behind the previous turn's answers (N-1 acks, each applied by every peer) still in flight.
(A computer player's first turn waits for its deck checks, run off the loop just after the
deal, as `play` does: it would otherwise run them on the loop, inside the turn.)

Usage: .venv/bin/python bench/game.py [--games N] [--players P] [--processes] [--think S]
The last line printed is one JSON object with the headline figures (over all games).
Targets (issue 13, 5 players): turn_p50_ms <= 3, turn_p99_ms <= 10, against p50 4.5-6 ms and
p99 17-21 ms when the issue was filed (commit da97406). This machine's speed drifts; measure
both side by side: `bench/against.py CHECKOUT_OF_da97406 --rounds 10 -- bench/game.py --games 3`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from hanabi_p2p.datadir import DataDir
from hanabi_p2p.frontends.headless import BotPlayer, Frontend
from hanabi_p2p.frontends.launch import GameResult, Peer, PeerOptions, host_table, join_address
from hanabi_p2p.peer.node import Node
from hanabi_p2p.rules.cards import GameConfig

LOOPBACK = "127.0.0.1"


@dataclass
class GameRun:
    wall_s: float
    cpu_s: float
    setup_s: float  # start -> first action sent (lobby, seating, shuffle, deal)
    latencies_ms: list[float]  # author applied -> the last other seat applied
    first_ms: list[float]  # author applied -> the first other seat applied
    # per turn, author applied -> each other seat applied, earliest first
    by_rank_ms: list[list[float]]
    bytes_sent: list[int]
    score: int
    turns: int


def _percentile(values: list[float], fraction: float) -> float:
    """Nearest-rank percentile (no interpolation: every figure is a measured turn)."""
    ordered = sorted(values)
    rank = max(1, math.ceil(fraction * len(ordered)))
    return ordered[rank - 1]


async def _play(root: Path, players: int, think: float) -> tuple[GameResult, list[Node], float]:
    fronts: list[Frontend] = []

    def bot(_index: int) -> Frontend:
        front = BotPlayer(out=None, delay=think)
        fronts.append(front)
        return front

    host_front = BotPlayer(out=None, delay=think)
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


def run_game(players: int, think: float) -> GameRun:
    with tempfile.TemporaryDirectory(prefix="hanabi-bench-") as tmp:
        cpu0 = time.process_time()
        result, nodes, start = asyncio.run(_play(Path(tmp), players, think))
        cpu = time.process_time() - cpu0
    if not result.ok:
        raise SystemExit(f"the benchmark game failed: {result.failure}")
    applied = {node.identity.peer_id: node.core.counters.applied_at for node in nodes}
    actions = [(e.hash, e.author) for e in nodes[0].replica.applied if e.kind == "action"]
    return _game_run(applied, actions, start=start, cpu_s=cpu,
                     bytes_sent=[node.mesh.bytes_sent for node in nodes], score=result.score)


def _game_run(applied: dict[bytes, dict[bytes, float]], actions: list[tuple[bytes, bytes]], *,
              start: float, cpu_s: float, bytes_sent: list[int], score: int) -> GameRun:
    """The figures of one game from when each peer applied each entry (peer id -> entry
    hash -> time, one clock) and the game's actions as (hash, author), in order."""
    latencies, first, by_rank = [], [], []
    for entry_hash, author in actions:
        sent = applied[author][entry_hash]
        others = sorted(at[entry_hash] for peer_id, at in applied.items() if peer_id != author)
        by_rank.append([(at - sent) * 1000 for at in others])
        latencies.append(by_rank[-1][-1])
        first.append(by_rank[-1][0])
    return GameRun(
        # every peer is done once its own node stopped: the latest applied entry anywhere
        wall_s=max(max(at.values()) for at in applied.values()) - start,
        cpu_s=cpu_s,
        setup_s=min(applied[author][h] for h, author in actions) - start,  # first sent
        latencies_ms=latencies,
        first_ms=first,
        by_rank_ms=by_rank,
        bytes_sent=bytes_sent,
        score=score,
        turns=len(actions),
    )


# -- one process per seat ---------------------------------------------------------------------

PEER_PROCESS_TIMEOUT_S = 120.0


async def _one_seat(root: Path, seat: int, players: int, port: int,
                    think: float) -> tuple[GameResult, Node]:
    front = BotPlayer(out=None, delay=think)
    opts = PeerOptions(name=f"bench{seat}", data_dir=DataDir(root / f"seat{seat}"),
                       interface=LOOPBACK, port=port if seat == 0 else 0, advertise=False)
    if seat == 0:
        result = await host_table(opts, "bench", GameConfig(players), front)
    else:
        result = await join_address(opts, LOOPBACK, port, front)
    assert isinstance(front.peer, Peer) and front.peer.node is not None
    return result, front.peer.node


def seat_process(root: Path, seat: int, players: int, port: int, think: float,
                 out: Path) -> None:
    """The body of one seat's process: play, then write what the parent measures."""
    result, node = asyncio.run(_one_seat(root, seat, players, port, think))
    actions = [e for e in node.replica.applied if e.kind == "action"]
    out.write_text(json.dumps({
        "ok": result.ok, "failure": result.failure, "score": result.score,
        "peer_id": node.identity.peer_id.hex(),
        "applied_at": {h.hex(): t for h, t in node.core.counters.applied_at.items()},
        "actions": [[e.hash.hex(), e.author.hex()] for e in actions],
        "bytes_sent": node.mesh.bytes_sent, "cpu_s": time.process_time(),
    }))


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind((LOOPBACK, 0))
        port: int = probe.getsockname()[1]
        return port


def _wait_listening(port: int, deadline: float) -> None:
    while time.monotonic() < deadline:
        with socket.socket() as probe:
            if probe.connect_ex((LOOPBACK, port)) == 0:
                return
        time.sleep(0.01)
    raise SystemExit("the host process did not open its table")


def run_game_processes(players: int, think: float) -> GameRun:
    with tempfile.TemporaryDirectory(prefix="hanabi-bench-") as tmp:
        root, port = Path(tmp), _free_port()
        outs = [root / f"seat{seat}.json" for seat in range(players)]

        def spawn(seat: int) -> subprocess.Popen[bytes]:
            return subprocess.Popen(
                [sys.executable, __file__, "--seat", str(seat), "--players", str(players),
                 "--port", str(port), "--think", str(think), "--root", tmp,
                 "--out", str(outs[seat])],
                env={**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])})

        start = time.monotonic()
        deadline = start + PEER_PROCESS_TIMEOUT_S
        procs = [spawn(0)]
        _wait_listening(port, deadline)
        procs += [spawn(seat) for seat in range(1, players)]
        for proc in procs:
            if proc.wait(timeout=max(1.0, deadline - time.monotonic())) != 0:
                raise SystemExit(f"a seat's process failed (exit {proc.returncode})")
        seats = [json.loads(out.read_text()) for out in outs]
    for seat in seats:
        if not seat["ok"]:
            raise SystemExit(f"the benchmark game failed: {seat['failure']}")
    applied = {bytes.fromhex(seat["peer_id"]): {bytes.fromhex(h): t for h, t
                                                 in seat["applied_at"].items()}
               for seat in seats}
    actions = [(bytes.fromhex(h), bytes.fromhex(a)) for h, a in seats[0]["actions"]]
    return _game_run(applied, actions, start=start,
                     cpu_s=sum(seat["cpu_s"] for seat in seats),
                     bytes_sent=[seat["bytes_sent"] for seat in seats], score=seats[0]["score"])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1, help="games to play (default: 1)")
    parser.add_argument("--players", type=int, default=5, choices=range(2, 6),
                        help="seats (default: 5)")
    parser.add_argument("--processes", action="store_true",
                        help="each seat in its own process (default: all on one event loop)")
    parser.add_argument("--think", type=float, default=0.0, metavar="S",
                        help="seconds each computer player waits before acting (default: 0)")
    # internal: what a seat's process is told by the parent
    parser.add_argument("--seat", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--root", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--out", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seat is not None:
        seat_process(args.root, args.seat, args.players, args.port, args.think, args.out)
        return
    play = run_game_processes if args.processes else run_game
    runs = []
    for index in range(args.games):
        run = play(args.players, args.think)
        runs.append(run)
        print(f"game {index + 1}: {run.wall_s:.2f} s wall ({run.cpu_s:.2f} s CPU), "
              f"setup {run.setup_s:.2f} s, {run.turns} turns, score {run.score}, "
              f"turn latency p50 {_percentile(run.latencies_ms, 0.5):.1f} ms "
              f"p99 {_percentile(run.latencies_ms, 0.99):.1f} ms "
              f"(first seat p50 {_percentile(run.first_ms, 0.5):.1f} ms), "
              f"sent per peer {statistics.mean(run.bytes_sent) / 1024:.0f} KiB", flush=True)
    latencies = [ms for run in runs for ms in run.latencies_ms]
    sent = [b for run in runs for b in run.bytes_sent]
    # the 1st, 2nd... other seat to apply each turn: on one loop (or on fewer cores than
    # seats) the later ones also wait for the earlier ones' processing
    by_rank = [[turn[rank] for run in runs for turn in run.by_rank_ms]
               for rank in range(args.players - 1)]
    print("p50 by the order the other seats applied a turn: " + ", ".join(
        f"{rank + 1}. {_percentile(ms, 0.5):.2f} ms" for rank, ms in enumerate(by_rank)))
    figures: dict[str, Any] = {
        "mode": "processes" if args.processes else "one loop",
        "think_s": args.think,
        f"game_s_{args.players}p": round(statistics.median(r.wall_s for r in runs), 3),
        "cpu_s": round(statistics.median(r.cpu_s for r in runs), 3),
        "setup_s": round(statistics.median(r.setup_s for r in runs), 3),
        "turn_p50_ms": round(_percentile(latencies, 0.5), 2),
        "turn_p99_ms": round(_percentile(latencies, 0.99), 2),
        "first_seat_p50_ms": round(_percentile([ms for r in runs for ms in r.first_ms], 0.5), 2),
        "seat_rank_p50_ms": [round(_percentile(ms, 0.5), 2) for ms in by_rank],
        "turns": len(latencies),
        "bytes_per_peer": round(statistics.mean(sent)),
        "bytes_per_peer_max": max(sent),
        "games": len(runs),
    }
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
