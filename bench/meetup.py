"""A meet-up on one LAN: many tables open at once, spectators at one of them, a newcomer who
lists the tables and joins one (issue 33, "Scale: a meet-up, not just a table").

Needs root: every host is a network namespace on one bridge (tests/net/netlab.py, the recipe
of shared/NETLAB.md), so mDNS and TCP go between real network stacks and nothing leaves the
machine. The hosts:

* ``--tables`` table hosts (30), each ``hanabi-p2p host --players 3 --bots 1 --bot``: a table
  with its host and a computer player seated and one seat open, advertised by mDNS, waiting;
* the watched table, ``--players`` seats (3), each a process on a host of its own, computer
  players that pause ``--think`` seconds before each action; it is played ``--rounds`` times
  with ``--spectators`` (8) each ``hanabi-p2p watch --headless`` on a host of its own, and as
  many times with none, alternating. Turn latency is measured as bench/game.py does: for
  each action, from when its author applied it to when the last other seat did (every
  process records on the system-wide monotonic clock);
* a newcomer: it browses (as ``join`` does: the ordinary browse and the legacy unicast
  query) until every table is seen, runs ``tables --timeout 1 --json`` and counts what it
  lists, then ``join "meetup 00" --bot`` (start of the process -> its "Everyone is seated"
  line); that table's game is played out before the watched table's games begin.

The spectators' and the newcomer's browse may look for their table 30 s (BROWSE_S), not
the 3 s of a person's ``watch`` or ``join``: on one busy machine a 3 s browse sometimes
ended before its process had read the answers. How long each spectator's took is given.

mDNS traffic: each host counts what it sends with UDP port 5353 at either end (one iptables
rule on its OUTPUT chain, packets and bytes), from when its program starts to the end of
the run; given per host per minute: the table hosts (their start, the newcomer's looks, and
the rest of the run, when they only answer the spectators' browses), and the busiest host.

Turn latency is given as p50, p95 and p99 over every turn of the --rounds games on each side
(6 each by default, some 350 turns): over ~120 turns a p99 is close to the single worst turn.
Programs run from bytecode compiled once, as an installed copy does (feel.as_installed).

Everything runs with the niceness of this script (run it under ``nice``): 30 tables are
30 processes on a machine that may have 2 cores. The spectators run ``--spectator-nice``
nicer still (10): at a real meet-up each has a machine of its own, and every one of them
checks every entry as a player does, so on one machine their CPU would otherwise come out
of the players' and be counted as the cost of being watched (0 measures that too).
``--prefix`` names the namespaces.

Where the CPU goes: every seat and every spectator runs under bench/cpusample.py, which
samples its CPU time (all threads) every 50 ms, so the figures give what each used while
the game was played (from its first action made to its last applied), per turn: the host's
(seat 0), a seat's on average, all spectators' together, watched and unwatched, and the
cores the seats and the spectators kept busy. ``--profile-host DIR`` also runs the host
under cProfile (its event loop's CPU time, while the game is in play: the window of those
figures, bench/playprofile.py), one file per game, to compare watched and unwatched games
function by function; ``--profile-spectators DIR`` does the same for every spectator (one
file per spectator per game), to see where a spectator's CPU goes.

Niceness does not keep eight spectators off two cores (measured here: while the watched
table played, the spectators used 4 ms of CPU each per turn, some 30 ms all together, twice
the three seats' own; their CPU and their wake-ups are a large part of what the default mode
counts as the cost of being watched). ``--pin`` is the fair measurement, a stand-in for
"each spectator on a machine of its own": the watched table's seats may use only one half
of the CPUs (``taskset``; one core of two) and the spectators only the other, in the
watched and the unwatched games alike, so the spectators never take a seat's core, and
what the ratio still shows is the seats' own work for their spectators (sealing and
writing each entry to eight more links, answering their HAVE and WANT, their links'
keep-alives and handshakes). The seats then share one core among them, so its absolute
figures are not those of the default mode; compare the ratio. The table hosts, the
newcomer and this script are not pinned.

Measured on the busy 2-core machine (30 tables, 6 rounds; bench/against.py against eb52ac0,
alternating, medians of 2 runs a side per pair; 1-minute load 6-16 from other work):

  watched / unwatched          default, pair 1   default, pair 2   --pin
  turn p50   before -> after   1.05 -> 1.18      1.09 -> 1.07      0.92 -> 0.95
  turn p99   before -> after   1.51 -> 1.16      1.18 -> 1.43      1.53 -> 0.95
  host CPU per turn            1.27 -> 1.28      1.28 -> 1.28      1.25 -> 1.19

Where it goes: eight spectators add about 1.2 ms of CPU per turn to each seat (+20-28 %:
an entry sealed and written to eight more links, their HAVEs read and answered, keep-alives,
and before the game their handshakes; the host's mDNS answers to their browses are 11
packets a game), while the spectators themselves use 31 ms per turn all together (3.8 ms
each, 0.26 cores while the table plays against the three seats' 0.14): nine tenths of what
being watched costs the machine is the spectators' own checking. With the spectators off
the seats' core (--pin) the p50 is no slower watched than unwatched, before or after, so
the default mode's p50 ratio (1.30 on a quiet machine) is mostly their CPU competing with
the players'. What changed after eb52ac0 (the periodic HAVE no longer sent to spectators
and their HAVE answered without entries in flight; in these runs also the spectators' copies
held 50 ms after the players', which was not kept: it showed no gain that two pairs of runs
agreed on, and it delays every spectator) took the host's CPU per turn down only in the
pinned runs, and at this load the default mode's ratios moved by less than they differ
between two pairs of runs.

Where a spectator's own CPU went (--profile-spectators, and its rusage from its first turn to
the game's end): about a third its core (signatures, the rules, the deck's key checks), the
rest its shell (links, the event loop, the game file, its printout), and 15 % an fsync 20 ms
after every entry it received, which nothing of its own ever covered (it never signs), with
6 of its 8 wake-ups a turn. Made a second apart (node.SPECTATOR_GROUP_COMMIT_DELAY_S), with
a turn's headless lines written at once: bench/against.py against f462749, 3 runs a side,
load 6 from other work: all spectators' CPU per turn 28.3 -> 24.6 ms (0.87; 0.86 in a pair
of 2 runs a side), 8 -> 3 wake-ups a turn each (1-table runs, 2 pairs: 28.2-31.5 -> 22.5-24.2
ms); watched / unwatched p50 1.06 -> 0.97 (1.18 -> 0.97 in the other pair), while p95 and
p99 moved by less than they differ between the two pairs at that load.

What being watched still cost a seat, in play (--profile-host, the same games watched and
unwatched): the replica walking the whole log to answer each spectator's HAVE (8 a second),
those HAVEs themselves, their keep-alives, and sealing and writing each of its entries to
eight more links. The first three went (Replica.missing looks only past what the peer holds;
a spectator's periodic HAVE goes to one player a second, in turn; a link that carries frames
sends no PING). bench/against.py against e1a9fff, 30 tables, 6 rounds, two pairs of 2 runs a
side, 1-minute load 2-20 from other work:

  watched / unwatched          pair 1           pair 2
  a seat's CPU per turn        1.21 -> 1.12     1.21 -> 1.11   (+0.88 -> +0.52 ms, +0.93 -> +0.49)
  host CPU per turn            1.23 -> 1.13     1.25 -> 1.14
  turn p50                     0.77 -> 0.81     0.77 -> 0.84
  turn p95                     0.99 -> 1.20     1.16 -> 1.00
  turn p99                     1.19 -> 1.46     1.28 -> 1.03
  all spectators' CPU per turn 25.1 -> 25.3 ms  25.4 -> 25.6 ms

The seats' cost fell alike in both pairs; the turn ratios moved by less than they differ
between the pairs, and the p50 ratio is under 1 on both sides of both (watched turns faster:
at this load the spectators' work seems to keep the cores awake, so a seat wakes sooner).
What is left, about 0.5 ms a turn, is one more packet to each spectator for each entry the
seat writes, mostly the kernel's work. The spectators' own CPU did not move: the copies a
spectator running behind was sent (now a third as many) came in episodes that none of these
runs met.

When a run fails, or passes ``--timeout`` (540 s, within bench/against.py's 600), it keeps
what its processes left in a directory it names (``--keep DIR``, else a new
/tmp/meetup-failed-*; bench/postmortem.py): which had not finished and where each waited
(its state and kernel stack from /proc, and every Python process's threads and asyncio
tasks, which each writes when sent SIGUSR1), every process's last output (a seat's goes to
a file, never to this script's own output), the game files and data directories, and the
sockets of the namespaces still in use. Then it ends every process it started, the programs
inside the wrappers too, and deletes its namespaces; SIGTERM does the same.

Usage: sudo nice .venv/bin/python bench/meetup.py [--tables N] [--spectators N] [--rounds N]
                                                  [--players N] [--think S] [--pin]
                                                  [--profile-host DIR]
                                                  [--profile-spectators DIR] [--prefix P]
                                                  [--timeout S] [--keep DIR]
       (``--seat`` and the options after it are the watched table's seat processes)
Prints a table, then (last line) one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "net"))
sys.path.insert(0, str(ROOT / "bench"))

from cpusample import cpu_between  # noqa: E402
from feel import Proc, as_installed, program  # noqa: E402
from game import _game_run, _percentile  # noqa: E402
from netlab import Host, NetLab, unavailable_reason  # noqa: E402
from postmortem import Postmortem, Tracked, Watchdog, stacks_env, with_dumpsite  # noqa: E402

TABLE_PREFIX = "meetup"
WATCHED = f"{TABLE_PREFIX} watched"
JOINED = f"{TABLE_PREFIX} 00"
SEATED = re.compile(r"Everyone is seated")
TABLE_OPEN = re.compile(r"table open at (\S+):(\d+)")
TABLE_IS_OPEN = re.compile(r"Table '.*' is open")
LOOKING = re.compile(r"^looking for tables on ")
WATCHING_AT = re.compile(r"^watching '.*' at ")
PROCESS_TIMEOUT_S = 300.0
# The whole run's, after which it keeps what its processes left and stops (bench/against.py
# gives a run 600 s; a default run takes 2-4 minutes on a busy 2-core machine).
RUN_TIMEOUT_S = 540.0
# Targets from the issue.
TABLES_LISTED_S = 1.0
JOIN_SEATED_S = 0.5
WATCHED_WITHIN = 0.10
# How long the spectators' and the newcomer's browse may look for their table (`watch` and
# `join` --browse-seconds; 3 s by default, and it returns as soon as the table is seen).
# With 45 processes on 2 cores, a browse of 3 s sometimes ended before the process had read
# its answers (2-4 of 8 spectators seeing 14-25 of the 30 tables and not the watched one,
# or the newcomer none): the run failed, where the time it took is the figure to report.
BROWSE_S = 30.0
MDNS_PORT = "5353"


def start_in(mortem: Postmortem, host: Host, name: str, args: Sequence[str]) -> Proc:
    """`args` run in `host`'s namespace, its output lines time-stamped (feel.Proc)."""
    started = time.monotonic()
    popen = host.popen(*args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, bufsize=1,
                       cwd=tempfile.gettempdir())
    proc = Proc.watch(name, popen, started, timeout=PROCESS_TIMEOUT_S)
    mortem.track(Tracked(name, popen, host.namespace,
                         lines=lambda: [f"{t - mortem.started:8.3f} {line}"
                                        for t, line in proc.lines]))
    return proc


def start_logged(mortem: Postmortem, host: Host, name: str, args: Sequence[str],
                 log: Path, env: dict[str, str]) -> subprocess.Popen[str]:
    """`args` run in `host`'s namespace, what it prints written to `log` (not to our own
    output: a process that outlived us would hold the pipe of whoever reads it)."""
    with log.open("w") as out:
        popen: subprocess.Popen[str] = host.popen(*args, stdout=out,
                                                  stderr=subprocess.STDOUT, env=env)
    mortem.track(Tracked(name, popen, host.namespace, log=log))
    return popen


# -- mDNS counters ---------------------------------------------------------------------------


def count_mdns(host: Host) -> None:
    """Count what `host` sends with UDP port 5353 at either end (one rule, no target)."""
    host.run("iptables", "-A", "OUTPUT", "-p", "udp", "-m", "multiport", "--ports",
             MDNS_PORT).check_returncode()


def mdns_sent(host: Host) -> tuple[int, int]:
    """(packets, bytes) `host` has sent with port 5353 at either end."""
    listing = host.run("iptables", "-L", "OUTPUT", "-v", "-x", "-n")
    listing.check_returncode()
    for line in listing.stdout.splitlines():
        fields = line.split()
        if len(fields) >= 2 and fields[0].isdigit() and f"ports {MDNS_PORT}" in line:
            return int(fields[0]), int(fields[1])
    raise SystemExit(f"{host.namespace}: the mDNS counter is missing")


# -- the watched table's seats (each its own process, as bench/game.py --processes) ------------


async def _one_seat(root: Path, seat: int, players: int, interface: str, host_address: str,
                    port: int, think: float) -> tuple[Any, Any]:
    from hanabi_p2p.datadir import DataDir
    from hanabi_p2p.frontends.headless import BotPlayer
    from hanabi_p2p.frontends.launch import Peer, PeerOptions, host_table, join_address
    from hanabi_p2p.rules.cards import GameConfig

    front = BotPlayer(out=None, delay=think)
    opts = PeerOptions(name=f"seat{seat}", data_dir=DataDir(root / f"seat{seat}"),
                       interface=interface, port=port if seat == 0 else 0,
                       advertise=seat == 0)
    if seat == 0:
        result = await host_table(opts, WATCHED, GameConfig(players), front)
    else:
        result = await join_address(opts, host_address, port, front)
    assert isinstance(front.peer, Peer) and front.peer.node is not None
    return result, front.peer.node


def seat_process(args: argparse.Namespace) -> None:
    """The body of one seat's process: play, then write what the parent measures (with
    ``--profile DIR``, its cProfile statistics too, into DIR: the event loop's thread, in
    CPU time, not wall time, which would count the time other processes had the core)."""
    game = _one_seat(Path(args.root), args.seat, args.players, args.interface,
                     args.host_address, args.port, args.think)
    if args.profile:
        import cProfile

        from playprofile import profile_play
        profiler = cProfile.Profile(time.thread_time)
        profile_play(profiler)  # (the play only: the window of the CPU figures)
        result, node = asyncio.run(game)
        profiler.disable()
        Path(args.profile).mkdir(parents=True, exist_ok=True)
        profiler.dump_stats(Path(args.profile) / f"{Path(args.root).name}.prof")
    else:
        result, node = asyncio.run(game)
    actions = [e for e in node.replica.applied if e.kind == "action"]
    Path(args.out).write_text(json.dumps({
        "ok": result.ok, "failure": result.failure, "score": result.score,
        "peer_id": node.identity.peer_id.hex(),
        "applied_at": {h.hex(): t for h, t in node.core.counters.applied_at.items()},
        "actions": [[e.hash.hex(), e.author.hex()] for e in actions],
        "bytes_sent": node.mesh.bytes_sent, "cpu_s": time.process_time(),
    }))


# A spectator under cProfile (--profile-spectators): its event loop's thread in CPU time
# while the game is in play (bench/playprofile.py), the statistics written to argv[1] when
# the program returns (cli.main given its arguments returns: called without, it would end
# the process at once, the profiler being off by then).
PROFILED_SPECTATOR = f"""
import cProfile, sys, time
sys.path.insert(0, {str(ROOT / "bench")!r})
from playprofile import profile_play
from hanabi_p2p.cli import main
out = sys.argv[1]
sys.argv = ["hanabi-p2p", *sys.argv[2:]]
profiler = cProfile.Profile(time.thread_time)
profile_play(profiler)
try:
    main(sys.argv[1:])
except SystemExit:
    pass
profiler.disable()
profiler.dump_stats(out)
"""

WATCHED_PORT = 47000
# How often each seat's and spectator's CPU time is sampled (bench/cpusample.py).
CPU_SAMPLE_S = 0.05


@dataclass(frozen=True)
class Placement:
    """Where the watched table's processes run: how much nicer the spectators are, and with
    ``--pin`` the CPUs the seats and the spectators may use (None: any)."""

    spectator_nice: int
    seat_cpus: str | None = None
    spectator_cpus: str | None = None

    def seat_prefix(self) -> list[str]:
        return ["taskset", "-c", self.seat_cpus] if self.seat_cpus else []

    def spectator_prefix(self) -> list[str]:
        pinned = ["taskset", "-c", self.spectator_cpus] if self.spectator_cpus else []
        return [*pinned, "nice", "-n", str(self.spectator_nice)]


def pinned_placement(spectator_nice: int) -> Placement:
    """--pin: the seats on one half of this process's CPUs, the spectators on the other."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        raise SystemExit("--pin needs at least 2 CPUs")
    half = len(cpus) // 2
    return Placement(spectator_nice, ",".join(map(str, cpus[:half])),
                     ",".join(map(str, cpus[half:])))


@dataclass
class GameFigures:
    """One game of the watched table: each turn's latency, and the CPU each seat and each
    spectator used while it was played (from its first action made to its last applied)."""

    latencies_ms: list[float]
    play_s: float
    host_mdns_packets: int  # what the host's namespace sent with port 5353, the whole game
    seat_play_cpu_s: list[float]
    spectator_play_cpu_s: list[float]
    seat_total_cpu_s: list[float]
    spectator_total_cpu_s: list[float]
    # each spectator's browse for the table, from its "looking" line to its "watching" line
    # (past 3 s, `watch`'s own --browse-seconds would have given up)
    spectator_find_s: list[float]


def sampled(out: Path, command: Sequence[str]) -> list[str]:
    """`command` run under bench/cpusample.py, its CPU time written to `out`."""
    return [sys.executable, str(ROOT / "bench" / "cpusample.py"), str(out), str(CPU_SAMPLE_S),
            *command]


def watched_game(mortem: Postmortem, seats: list[Host], spectators: list[Host], root: Path,
                 think: float, watchers: int, placement: Placement, profile: Path | None,
                 profile_spectators: Path | None = None) -> GameFigures:
    """One game of the watched table, with `watchers` of the spectators' hosts watching
    (placed as `placement` says): each turn's latency in ms, and the CPU used."""
    root.mkdir(parents=True)
    players = len(seats)
    outs = [root / f"seat{seat}.json" for seat in range(players)]
    seat_cpu = [root / f"seat{seat}.cpu.json" for seat in range(players)]
    fan_cpu = [root / f"fan{i}.cpu.json" for i in range(watchers)]
    env = {**os.environ, "PYTHONPATH": with_dumpsite(str(ROOT))}

    def seat_args(seat: int) -> list[str]:
        profiled = (["--profile", str(profile)] if profile is not None and seat == 0
                    else [])
        return sampled(seat_cpu[seat], [
            *placement.seat_prefix(), sys.executable, __file__, "--seat", str(seat),
            "--players", str(players), "--interface", seats[seat].address,
            "--host-address", seats[0].address, "--port", str(WATCHED_PORT),
            "--think", str(think), "--root", str(root), "--out", str(outs[seat]),
            *profiled])

    def spectator_program(i: int) -> list[str]:
        if profile_spectators is None:
            return program()
        profile_spectators.mkdir(parents=True, exist_ok=True)
        return [sys.executable, "-c", PROFILED_SPECTATOR,
                str(profile_spectators / f"{root.name}.fan{i}.prof")]

    start = time.monotonic()
    mdns_before, _ = mdns_sent(seats[0])
    def start_seat(seat: int) -> subprocess.Popen[str]:
        return start_logged(mortem, seats[seat], f"{root.name}.seat{seat}", seat_args(seat),
                            root / f"seat{seat}.log", env)

    host = start_seat(0)
    _wait_listening(seats[1], seats[0].address, WATCHED_PORT)
    watching = [start_in(mortem, spectators[i], f"{root.name}.fan{i}",
                         sampled(fan_cpu[i], [
                             *placement.spectator_prefix(), *spectator_program(i),
                             "watch", WATCHED, "--browse-seconds", f"{BROWSE_S:g}",
                             "--headless", "--name", f"fan{i}",
                             "--interface", spectators[i].address,
                             "--data-dir", str(root / f"fan{i}")]))
                for i in range(watchers)]
    for proc in watching:  # each has found the table, linked to its host and read its log
        proc.when(TABLE_IS_OPEN)
    find_s = [proc.when(WATCHING_AT)[0] - proc.when(LOOKING)[0] for proc in watching]
    joiners = [start_seat(seat) for seat in range(1, players)]
    for seat_popen in [host, *joiners]:
        if seat_popen.wait(timeout=PROCESS_TIMEOUT_S) != 0:
            raise SystemExit(f"a seat of the watched table failed "
                             f"(exit {seat_popen.returncode})")
    for i, proc in enumerate(watching):  # a spectator that failed would skew its figures
        if proc.popen.wait(timeout=PROCESS_TIMEOUT_S) != 0:
            raise SystemExit(f"spectator fan{i} of the watched table failed "
                             f"(exit {proc.popen.returncode})")
    results = [json.loads(out.read_text()) for out in outs]
    for seat in results:
        if not seat["ok"]:
            raise SystemExit(f"the watched table's game failed: {seat['failure']}")
    applied = {bytes.fromhex(s["peer_id"]): {bytes.fromhex(h): t
                                             for h, t in s["applied_at"].items()}
               for s in results}
    actions = [(bytes.fromhex(h), bytes.fromhex(a)) for h, a in results[0]["actions"]]
    run = _game_run(applied, actions, start=start, cpu_s=0.0, bytes_sent=[], score=0)
    play_from = min(applied[author][h] for h, author in actions)
    play_to = max(at[h] for at in applied.values() for h, _ in actions if h in at)
    seat_records = [json.loads(path.read_text()) for path in seat_cpu]
    fan_records = [json.loads(path.read_text()) for path in fan_cpu]
    return GameFigures(
        latencies_ms=list(run.latencies_ms), play_s=play_to - play_from,
        host_mdns_packets=mdns_sent(seats[0])[0] - mdns_before,
        seat_play_cpu_s=[cpu_between(r, play_from, play_to) for r in seat_records],
        spectator_play_cpu_s=[cpu_between(r, play_from, play_to) for r in fan_records],
        seat_total_cpu_s=[r["total_s"] for r in seat_records],
        spectator_total_cpu_s=[r["total_s"] for r in fan_records], spectator_find_s=find_s)


def _wait_listening(prober: Host, address: str, port: int) -> None:
    """Wait until `address:port` accepts a TCP connection, tried from `prober`."""
    probe = (f"import socket,time\nend=time.monotonic()+{PROCESS_TIMEOUT_S}\n"
             f"while time.monotonic()<end:\n"
             f"    s=socket.socket()\n"
             f"    if s.connect_ex(('{address}',{port}))==0: break\n"
             f"    s.close(); time.sleep(0.05)\n")
    prober.run(sys.executable, "-c", probe, timeout=PROCESS_TIMEOUT_S).check_returncode()


# -- the newcomer ------------------------------------------------------------------------------


BROWSE_ALL = """
import asyncio, json, sys, time
from hanabi_p2p.net.discovery import Settled, browse_tables
want, interface = int(sys.argv[1]), sys.argv[2]
async def main():
    start = time.monotonic()
    seen = {}
    def until(tables):
        for t in tables:
            seen.setdefault(t.ad.table_id, time.monotonic() - start)
        return Settled.NOW if len(tables) >= want else Settled.NOT_YET
    found = await browse_tables(interface, 10.0, until=until)
    print(json.dumps({"found": len(found.tables), "all_s": time.monotonic() - start,
                      "at_1s": sum(1 for s in seen.values() if s <= 1.0)}))
asyncio.run(main())
"""


def list_tables(newcomer: Host, tables: int) -> dict[str, float]:
    """The newcomer's browse until every table is seen, and `tables --timeout 1`."""
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = newcomer.run(sys.executable, "-c", BROWSE_ALL, str(tables), newcomer.address,
                        timeout=60, env=env)
    if done.returncode != 0:
        raise SystemExit(f"the newcomer's browse failed:\n{done.stderr[-2000:]}")
    browse = json.loads(done.stdout.strip().splitlines()[-1])
    started = time.monotonic()
    listed = newcomer.run(*program(), "tables", "--timeout", "1", "--json",
                          "--interface", newcomer.address, timeout=60)
    took = time.monotonic() - started
    if listed.returncode != 0:
        raise SystemExit(f"`tables` failed:\n{listed.stderr[-2000:]}")
    document = json.loads(listed.stdout)
    names = [t["name"] for t in document["tables"]]
    return {"browse_all_s": browse["all_s"], "browse_found": browse["found"],
            "browse_at_1s": browse["at_1s"],
            "tables_listed": sum(1 for n in names if n.startswith(TABLE_PREFIX)),
            "tables_command_s": took}


def join_one(mortem: Postmortem, newcomer: Host, root: Path) -> float:
    """Start -> seated of the newcomer's `join`; its table's game is then played out (before
    anything else is measured)."""
    proc = start_in(mortem, newcomer, "newcomer",
                    [*program(), "join", JOINED, "--browse-seconds", f"{BROWSE_S:g}",
                     "--bot", "--name", "newcomer",
                     "--interface", newcomer.address, "--data-dir", str(root / "newcomer")])
    seated, _ = proc.when(SEATED)
    proc.popen.wait(timeout=PROCESS_TIMEOUT_S)
    return seated - proc.started


# -- the run -----------------------------------------------------------------------------------


def run(args: argparse.Namespace) -> dict[str, Any]:
    """The meet-up; should it fail or pass `--timeout`, what its processes left is kept in
    a directory it names (bench/postmortem.py), and every process it started is ended."""
    reason = unavailable_reason()
    if reason is not None:
        raise SystemExit(f"bench/meetup.py {reason}")
    figures: dict[str, Any] = {"tables": args.tables, "spectators": args.spectators,
                               "players": args.players, "think_s": args.think,
                               "niceness": os.nice(0), "spectator_nice": args.spectator_nice,
                               "pinned": args.pin, "load_1m_start": os.getloadavg()[0]}
    count = args.tables + args.players + args.spectators + 1
    with NetLab(args.prefix) as lab, tempfile.TemporaryDirectory(prefix="meetup-") as tmp:
        root = Path(tmp)
        mortem = Postmortem(root, root / "stacks", lab.namespaces, args.keep)
        # every process started from now on (with our environment)
        os.environ.update(stacks_env(mortem.stacks, os.environ.get("PYTHONPATH", "")))
        overdue = False

        def stop_overdue() -> None:
            nonlocal overdue
            overdue = True
            mortem.keep(f"the run passed its --timeout of {args.timeout:g} s")
            mortem.kill_all()  # (so that whatever the run waits for ends at once)

        try:
            with Watchdog(args.timeout, stop_overdue):
                meet(args, mortem, lab.lan(count), figures)
        except BaseException as failure:
            why = (f"the run passed its --timeout of {args.timeout:g} s" if overdue
                   else f"{type(failure).__name__}: {failure}")
            kept = mortem.keep(why)
            raise SystemExit(f"bench/meetup.py failed ({why}); what its processes left is "
                             f"kept in {kept} (summary.txt first)") from failure
        finally:
            mortem.kill_all()
    return figures


def meet(args: argparse.Namespace, mortem: Postmortem, hosts: list[Host],
         figures: dict[str, Any]) -> None:
    """The tables opened, the newcomer's looks and join, the watched table's games; the
    figures added to `figures`."""
    root = mortem.workdir
    if not args.compile_each_run:
        as_installed(root / "pycache")
    for host in hosts:
        count_mdns(host)
    table_hosts = hosts[:args.tables]
    seats = hosts[args.tables:args.tables + args.players]
    spectators = hosts[args.tables + args.players:-1]
    newcomer = hosts[-1]
    started = time.monotonic()
    tables = [start_in(mortem, host, f"table{i:02d}",
                       [*program(), "host", "--players", "3", "--bots", "1", "--bot",
                        "--table", f"{TABLE_PREFIX} {i:02d}", "--name", f"host{i:02d}",
                        "--interface", host.address, "--data-dir", str(root / f"t{i}")])
              for i, host in enumerate(table_hosts)]
    for proc in tables:
        proc.when(TABLE_OPEN)
    figures["tables_open_s"] = time.monotonic() - started
    time.sleep(args.settle)  # every advert announced (its probes take about a second)
    opened = [mdns_sent(host) for host in table_hosts]

    figures.update(list_tables(newcomer, args.tables))
    figures["join_seated_s"] = join_one(mortem, newcomer, root)
    listed = [mdns_sent(host) for host in table_hosts]
    games_began = time.monotonic()
    placement = (pinned_placement(args.spectator_nice) if args.pin
                 else Placement(args.spectator_nice))
    played: dict[str, list[GameFigures]] = {"watched": [], "unwatched": []}
    for game in range(args.rounds):  # alternating, unwatched first in even rounds
        order = ("unwatched", "watched") if game % 2 == 0 else ("watched", "unwatched")
        for kind in order:
            watchers = args.spectators if kind == "watched" else 0
            played[kind].append(watched_game(mortem, seats, spectators, root / f"{kind}{game}",
                                             args.think, watchers, placement,
                                             args.profile_host,
                                             args.profile_spectators))
    if args.turns_out:
        args.turns_out.write_text(json.dumps({kind: [game.latencies_ms for game in games]
                                              for kind, games in played.items()}))
    figures.update(turn_figures(played))
    figures.update(cpu_figures(played))

    figures["load_1m_end"] = os.getloadavg()[0]  # (the machine's, not only ours)
    minutes = (time.monotonic() - started) / 60
    games_minutes = (time.monotonic() - games_began) / 60
    sent = [mdns_sent(host) for host in hosts]
    per_table = [(p / minutes, b / minutes) for p, b in sent[:args.tables]]
    figures["minutes"] = minutes
    figures["mdns_table_host_packets_per_min"] = statistics.median(p for p, _ in per_table)
    figures["mdns_table_host_bytes_per_min"] = statistics.median(b for _, b in per_table)
    # a table host's: its start (probes, announcements), the newcomer's three browses
    # (its census, `tables`, `join`), and the watched table's games (the spectators'
    # browses), per minute
    figures["mdns_table_host_start_packets"] = statistics.median(p for p, _ in opened)
    figures["mdns_table_host_newcomer_packets"] = statistics.median(
        after[0] - before[0] for before, after in zip(opened, listed, strict=True))
    figures["mdns_table_host_games_packets_per_min"] = statistics.median(
        (now[0] - before[0]) / games_minutes
        for before, now in zip(listed, sent[:args.tables], strict=True))
    busiest = max(range(len(hosts)), key=lambda i: sent[i][1])
    figures["mdns_busiest_packets_per_min"] = sent[busiest][0] / minutes
    figures["mdns_busiest_bytes_per_min"] = sent[busiest][1] / minutes
    figures["mdns_newcomer_packets"] = sent[-1][0]
    figures["mdns_all_packets_per_min"] = sum(p for p, _ in sent) / minutes


def turn_figures(played: dict[str, list[GameFigures]]) -> dict[str, float]:
    """Turn latency p50, p95, p99 over every turn of each kind's games, and the ratios."""
    figures: dict[str, float] = {}
    for kind, games in played.items():
        values = [ms for game in games for ms in game.latencies_ms]
        figures[f"{kind}_p50_ms"] = _percentile(values, 0.5)
        figures[f"{kind}_p95_ms"] = _percentile(values, 0.95)
        figures[f"{kind}_p99_ms"] = _percentile(values, 0.99)
        figures[f"{kind}_turns"] = len(values)
    for key in ("p50", "p95", "p99"):
        figures[f"watched_ratio_{key}"] = (figures[f"watched_{key}_ms"]
                                           / figures[f"unwatched_{key}_ms"])
    return figures


def cpu_figures(played: dict[str, list[GameFigures]]) -> dict[str, float]:
    """Where the CPU went while the games were played (from each game's first action made
    to its last applied), summed over each kind's games: per turn, the host's (seat 0),
    a seat's on average, all spectators' together; and as cores kept busy (CPU seconds per
    second of play) by the seats together and by the spectators together."""
    figures: dict[str, float] = {}
    for kind, games in played.items():
        turns = sum(len(game.latencies_ms) for game in games)
        play_s = sum(game.play_s for game in games)
        host = sum(game.seat_play_cpu_s[0] for game in games)
        seats = sum(sum(game.seat_play_cpu_s) for game in games)
        seat_count = len(games[0].seat_play_cpu_s)
        figures[f"{kind}_host_cpu_ms_per_turn"] = host * 1000 / turns
        figures[f"{kind}_seat_cpu_ms_per_turn"] = seats * 1000 / turns / seat_count
        figures[f"{kind}_seats_cores"] = seats / play_s
        figures[f"{kind}_host_mdns_packets_per_game"] = statistics.median(
            game.host_mdns_packets for game in games)
        figures[f"{kind}_seat_total_cpu_s"] = statistics.median(
            cpu for game in games for cpu in game.seat_total_cpu_s)
        if kind == "watched" and games[0].spectator_play_cpu_s:
            spectators = sum(sum(game.spectator_play_cpu_s) for game in games)
            figures["watched_spectators_cpu_ms_per_turn"] = spectators * 1000 / turns
            figures["watched_spectators_cores"] = spectators / play_s
            figures["watched_spectator_total_cpu_s"] = statistics.median(
                cpu for game in games for cpu in game.spectator_total_cpu_s)
            finds = [s for game in games for s in game.spectator_find_s]
            figures["watched_spectator_find_p50_s"] = statistics.median(finds)
            figures["watched_spectator_find_max_s"] = max(finds)
    for key in ("host_cpu_ms_per_turn", "seat_cpu_ms_per_turn"):
        figures[f"watched_ratio_{key}"] = (figures[f"watched_{key}"]
                                           / figures[f"unwatched_{key}"])
    return figures


def report(figures: dict[str, Any]) -> None:
    t = figures["tables"]
    rows = [
        (f"browse until all {t} tables seen", f"{figures['browse_all_s']:.3f} s",
         f"<= {TABLES_LISTED_S:g} s"),
        ("tables seen by the browse within 1 s", f"{figures['browse_at_1s']} / {t}", f"{t}"),
        ("`tables --timeout 1` lists", f"{figures['tables_listed']} / {t}", f"{t}"),
        (f"`join \"{JOINED}\"` -> seated", f"{figures['join_seated_s']:.3f} s",
         f"<= {JOIN_SEATED_S:g} s"),
        (f"turn p50, {figures['spectators']} spectators / none",
         f"{figures['watched_p50_ms']:.1f} / {figures['unwatched_p50_ms']:.1f} ms",
         f"ratio {figures['watched_ratio_p50']:.2f}"),
        (f"turn p95, {figures['spectators']} spectators / none",
         f"{figures['watched_p95_ms']:.1f} / {figures['unwatched_p95_ms']:.1f} ms",
         f"ratio {figures['watched_ratio_p95']:.2f}"),
        (f"turn p99, {figures['spectators']} spectators / none",
         f"{figures['watched_p99_ms']:.1f} / {figures['unwatched_p99_ms']:.1f} ms",
         f"ratio {figures['watched_ratio_p99']:.2f}"),
        ("turns measured, watched / unwatched",
         f"{figures['watched_turns']} / {figures['unwatched_turns']}", ""),
        ("host CPU per turn, watched / unwatched",
         f"{figures['watched_host_cpu_ms_per_turn']:.2f} / "
         f"{figures['unwatched_host_cpu_ms_per_turn']:.2f} ms",
         f"ratio {figures['watched_ratio_host_cpu_ms_per_turn']:.2f}"),
        ("a seat's CPU per turn, watched / unwatched",
         f"{figures['watched_seat_cpu_ms_per_turn']:.2f} / "
         f"{figures['unwatched_seat_cpu_ms_per_turn']:.2f} ms",
         f"ratio {figures['watched_ratio_seat_cpu_ms_per_turn']:.2f}"),
        ("all spectators' CPU per turn",
         f"{figures.get('watched_spectators_cpu_ms_per_turn', 0.0):.2f} ms", ""),
        ("a spectator's browse for the table: p50; max",
         f"{figures.get('watched_spectator_find_p50_s', 0.0):.2f}; "
         f"{figures.get('watched_spectator_find_max_s', 0.0):.2f} s", "`watch` alone: 3 s"),
        ("cores busy in play: seats w/u; spectators",
         f"{figures['watched_seats_cores']:.2f}/{figures['unwatched_seats_cores']:.2f}; "
         f"{figures.get('watched_spectators_cores', 0.0):.2f}", ""),
        ("mDNS sent per table host per minute",
         f"{figures['mdns_table_host_packets_per_min']:.1f} pkt, "
         f"{figures['mdns_table_host_bytes_per_min']:.0f} B", ""),
        ("  of which: its start; the newcomer's 3 looks",
         f"{figures['mdns_table_host_start_packets']:.0f}; "
         f"{figures['mdns_table_host_newcomer_packets']:.0f} pkt", ""),
        ("  then per minute, while the watched games",
         f"{figures['mdns_table_host_games_packets_per_min']:.1f} pkt", ""),
        ("mDNS sent by the busiest host per minute",
         f"{figures['mdns_busiest_packets_per_min']:.1f} pkt, "
         f"{figures['mdns_busiest_bytes_per_min']:.0f} B", ""),
    ]
    print(f"meet-up: {t} tables, {figures['spectators']} spectators, watched table of "
          f"{figures['players']} (think {figures['think_s']:g} s), niceness "
          f"{figures['niceness']} (spectators +{figures['spectator_nice']}), "
          f"{'seats and spectators pinned apart, ' if figures['pinned'] else ''}"
          f"{figures['minutes']:.1f} min, load {figures['load_1m_start']:.1f} -> "
          f"{figures['load_1m_end']:.1f}")
    for label, value, target in rows:
        print(f"{label:<42} {value:>24}   {target}")
    print(json.dumps({k: round(v, 4) if isinstance(v, float) else v
                      for k, v in figures.items()}))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tables", type=int, default=30, help="tables open (default: 30)")
    parser.add_argument("--spectators", type=int, default=8,
                        help="spectators at the watched table (default: 8)")
    parser.add_argument("--players", type=int, default=3,
                        help="seats at the watched table (default: 3)")
    parser.add_argument("--think", type=float, default=0.1,
                        help="the watched table's players pause this long (default: 0.1 s)")
    parser.add_argument("--rounds", type=int, default=6,
                        help="games of the watched table with spectators, and as many "
                             "without, alternating (default: 6, some 350 turns each: a p99 "
                             "of fewer turns is hardly more than the single worst one)")
    parser.add_argument("--spectator-nice", type=int, default=10,
                        help="the spectators run this much nicer than the players (default: "
                             "10; 0 to let them compete for the cores as equals)")
    parser.add_argument("--pin", action="store_true",
                        help="the fair measurement: the watched table's seats may use only "
                             "one half of the CPUs and the spectators only the other, in the "
                             "watched and the unwatched games alike (see the docstring)")
    parser.add_argument("--profile-host", type=Path, metavar="DIR",
                        help="the watched table's host runs under cProfile: one .prof file "
                             "per game in DIR (watched0.prof, unwatched0.prof, ...)")
    parser.add_argument("--profile-spectators", type=Path, metavar="DIR",
                        help="every spectator runs under cProfile (its event loop's CPU "
                             "time): one .prof file per spectator per game in DIR "
                             "(watched0.fan0.prof, ...)")
    parser.add_argument("--turns-out", type=Path, metavar="FILE",
                        help="write every turn's latency there (JSON: kind -> games -> ms, "
                             "in turn order), to see which turns are slow")
    parser.add_argument("--settle", type=float, default=3.0,
                        help="seconds between the last table opening and the newcomer's "
                             "browse (default: 3)")
    parser.add_argument("--prefix", default="hmeet", help="namespace names start so")
    parser.add_argument("--timeout", type=float, default=RUN_TIMEOUT_S, metavar="S",
                        help="stop after this long, keeping what the processes left "
                             f"(default: {RUN_TIMEOUT_S:g} s, within bench/against.py's)")
    parser.add_argument("--keep", type=Path, metavar="DIR",
                        help="where a failed or overdue run keeps what its processes left "
                             "(default: a new /tmp/meetup-failed-* directory, named on "
                             "failure)")
    parser.add_argument("--compile-each-run", action="store_true",
                        help="keep no bytecode: every process compiles the program from "
                             "source (feel.as_installed says why that is not the default)")
    parser.add_argument("--seat", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--interface", help=argparse.SUPPRESS)
    parser.add_argument("--host-address", help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--root", help=argparse.SUPPRESS)
    parser.add_argument("--out", help=argparse.SUPPRESS)
    parser.add_argument("--profile", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.seat is not None:
        seat_process(args)
        return
    if args.tables < 1 or args.spectators < 0 or not 2 <= args.players <= 5:
        raise SystemExit("--tables >= 1, --spectators >= 0, --players 2-5")
    signal.signal(signal.SIGTERM, _terminated)  # (bench/against.py's, past its timeout)
    report(run(args))


def _terminated(signum: int, frame: FrameType | None) -> None:
    """SIGTERM stops the run as a failure does: what its processes left kept, they ended,
    the namespaces deleted (the default would leave all three to nobody)."""
    raise SystemExit("stopped by SIGTERM")


if __name__ == "__main__":
    main()
