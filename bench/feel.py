"""What a person waits for, measured on the real program: separate processes over loopback.

Rows (issue 13), each the median of --runs runs (wall clock, since waiting is what people feel):

* `--version`, `--help`: start-up of the command line;
* `replay FILE`: a whole hanab.live game (the bundled example, copied to a file);
* `log list` with 100 games: warm (every verdict cached beside its log) and cold (no cache:
  every game is checked in full, once; given per game, measured on --cold-games games);
* 5-player deck setup: all seated -> deck ready, on the host's own output;
* game over -> exit: from each process's game-over line to its exit (median of the slowest
  process of each game);
* `join` start -> seated, 2 players: from starting the joiner to its "Everyone is seated"
  line. By address (`join --address`, no mDNS) unless --mdns is given; with --mdns, by the
  table's name, or with --any-table by no name at all (the only open table: the browse then
  waits discovery.BROWSE_GRACE_S after the first answer for a second table).

Every peer is `hanabi-p2p host|join --bot` in its own process on 127.0.0.1, each with its own
data directory in a temporary directory. The games' logs become the `log list` data set.
`--rows` measures some rows only (`--rows join`: just the joins); `--program` runs another
checkout for every row, games included (a before/after pair: run both, alternating).

Usage: .venv/bin/python bench/feel.py [--runs N] [--cold-games N] [--mdns [--any-table]]
                                      [--rows ROW ...] [--program CMD]
Prints a table, then (last line) one JSON object with the figures.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

LOOPBACK = "127.0.0.1"
LIST_GAMES = 100
PROCESS_TIMEOUT_S = 120.0
TABLE_OPEN = re.compile(r"table open at (\S+):(\d+)")
SEATED = re.compile(r"Everyone is seated")
DECK_READY = re.compile(r"Every player shuffled and locked the deck")
GAME_OVER = re.compile(r"Game over")
# What `--rows` can name: each row, and the figures it gives.
ROWS = {"version": ("version_s",), "help": ("help_s",), "replay": ("replay_s",),
        "log-list": ("log_list_100_s", "log_list_cold_per_game_s"),
        "deck": ("deck_setup_5p_s",), "exit": ("game_over_exit_s",), "join": ("join_seated_s",)}
# Targets from the issue, in seconds.
TARGETS = {"version_s": 0.15, "help_s": 0.15, "replay_s": 0.3, "log_list_100_s": 1.0,
           "deck_setup_5p_s": 0.3, "game_over_exit_s": 0.5, "join_seated_s": 1.0}


PROGRAM: list[str] = []  # set by --program, for before/after comparisons


# Every process runs in a directory of its own choosing, never the caller's: `python -m
# hanabi_p2p` run from a checkout imports that checkout first, whatever PYTHONPATH says, so a
# `--program "env PYTHONPATH=OTHER python -m hanabi_p2p"` started from this one would have
# measured this checkout twice.
NEUTRAL_DIR = tempfile.gettempdir()


# Compiles the package the programs import (this checkout, or the one PYTHONPATH names).
_COMPILE = ("import compileall, pathlib, hanabi_p2p; "
            "compileall.compile_dir(pathlib.Path(hanabi_p2p.__file__).parent, quiet=1)")


def as_installed(cache: Path) -> None:
    """Every program started from now on reads its bytecode from `cache`, compiled there
    first, as an installed copy reads what pip compiled when it installed it.

    Without this, an environment with PYTHONDONTWRITEBYTECODE set (this machine's is) makes
    every process compile the whole program from source again: some 0.2-0.3 s of CPU (more
    on a busy machine) before anything else, which no installed copy spends and which the
    figures took for the program's own. ``--compile-each-run`` measures that way still."""
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(cache)
    subprocess.run([sys.executable, "-c", _COMPILE], check=True, cwd=NEUTRAL_DIR,
                   timeout=PROCESS_TIMEOUT_S)


def program() -> list[str]:
    """--program, else the installed entry point beside this Python, else `-m hanabi_p2p`."""
    if PROGRAM:
        return PROGRAM
    script = Path(sys.executable).parent / "hanabi-p2p"
    return [str(script)] if script.exists() else [sys.executable, "-m", "hanabi_p2p"]


@dataclass
class Proc:
    """A running hanabi-p2p process whose output lines are time-stamped as they arrive."""

    name: str
    popen: subprocess.Popen[str]
    started: float
    lines: list[tuple[float, str]] = field(default_factory=list)
    exited: float | None = None
    timeout: float = PROCESS_TIMEOUT_S  # the longest any one wait for it may last
    _changed: threading.Condition = field(default_factory=threading.Condition)

    @classmethod
    def start(cls, name: str, args: Sequence[str], program: Sequence[str]) -> Proc:
        started = time.monotonic()
        popen = subprocess.Popen([*program, *args], stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True, bufsize=1, cwd=NEUTRAL_DIR)
        return cls.watch(name, popen, started)

    @classmethod
    def watch(cls, name: str, popen: subprocess.Popen[str], started: float,
              timeout: float = PROCESS_TIMEOUT_S) -> Proc:
        """Time-stamp the lines of a process started elsewhere (stdout piped, text, line
        buffered), from a thread of its own."""
        proc = cls(name, popen, started, timeout=timeout)
        threading.Thread(target=proc._read, daemon=True).start()
        return proc

    def _read(self) -> None:
        assert self.popen.stdout is not None
        for line in self.popen.stdout:
            with self._changed:
                self.lines.append((time.monotonic(), line.rstrip("\n")))
                self._changed.notify_all()
        self.popen.wait()
        with self._changed:
            self.exited = time.monotonic()
            self._changed.notify_all()

    def when(self, pattern: re.Pattern[str]) -> tuple[float, re.Match[str]]:
        """Time of the first output line matching `pattern`, waiting for it."""
        deadline = time.monotonic() + self.timeout
        with self._changed:
            while True:
                for stamp, line in self.lines:
                    match = pattern.search(line)
                    if match:
                        return stamp, match
                if self.exited is not None or time.monotonic() > deadline:
                    output = "\n".join(line for _, line in self.lines[-20:])
                    raise SystemExit(f"{self.name} never printed {pattern.pattern!r}:\n{output}")
                self._changed.wait(0.5)

    def exit_time(self) -> float:
        deadline = time.monotonic() + self.timeout
        with self._changed:
            while self.exited is None:
                if time.monotonic() > deadline:
                    self.popen.kill()
                    raise SystemExit(f"{self.name} did not exit")
                self._changed.wait(0.5)
            if self.popen.returncode != 0:
                output = "\n".join(line for _, line in self.lines[-20:])
                raise SystemExit(f"{self.name} exited {self.popen.returncode}:\n{output}")
            return self.exited


def peer_args(root: Path, name: str) -> list[str]:
    return ["--bot", "--interface", LOOPBACK, "--name", name, "--data-dir", str(root / name)]


@dataclass
class Game:
    host: Proc
    guests: list[Proc]

    @property
    def everyone(self) -> list[Proc]:
        return [self.host, *self.guests]


def play(root: Path, players: int, table: str, program: Sequence[str], *, mdns: bool,
         any_table: bool = False) -> Game:
    """A whole game between `players` computer players, one process each."""
    host_args = ["host", "--players", str(players), "--table", table, *peer_args(root, "host")]
    if not mdns:
        host_args.append("--no-mdns")
    host = Proc.start("host", host_args, program)
    _, opened = host.when(TABLE_OPEN)
    where = (([] if any_table else [table]) if mdns
             else ["--address", f"{opened.group(1)}:{opened.group(2)}"])
    guests = [Proc.start(f"guest{i}", ["join", *where, *peer_args(root, f"guest{i}")], program)
              for i in range(1, players)]
    game = Game(host, guests)
    for proc in game.everyone:
        proc.exit_time()
    return game


def command_time(args: Sequence[str], runs: int) -> float:
    """Median wall time of the program run to completion with `args`."""
    times = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run([*program(), *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                       cwd=NEUTRAL_DIR, check=True, timeout=PROCESS_TIMEOUT_S)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def games_dir_of(root: Path, games: int, source: Path) -> Path:
    """A data directory holding `games` copies of one game log, each under its own id."""
    data = root / f"list-{games}-{time.monotonic_ns()}"
    (data / "games").mkdir(parents=True)
    for index in range(games):
        shutil.copyfile(source, data / "games" / f"{index:032x}.hlog")
    return data


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5, help="runs per row (default: 5)")
    parser.add_argument("--cold-games", type=int, default=10,
                        help="games `log list` checks with no cache (default: 10)")
    parser.add_argument("--mdns", action="store_true",
                        help="join by table name through mDNS on loopback, not by address")
    parser.add_argument("--any-table", action="store_true",
                        help="with --mdns: `join` with no table name (the only open table; "
                             "nobody else may advertise a table on loopback meanwhile)")
    parser.add_argument("--program", metavar="CMD",
                        help="command line that runs hanabi-p2p for every row, games included "
                             "(e.g. another checkout, to compare)")
    parser.add_argument("--rows", nargs="+", choices=sorted(ROWS), metavar="ROW",
                        help=f"measure only these rows ({', '.join(ROWS)}; default: all)")
    parser.add_argument("--skip-games", action="store_true",
                        help="no game rows: play one game only for its log (or take --log)")
    parser.add_argument("--compile-each-run", action="store_true",
                        help="keep no bytecode: every process compiles the program from "
                             "source (as PYTHONDONTWRITEBYTECODE without a cache makes it)")
    parser.add_argument("--log", type=Path, metavar="FILE",
                        help="the game log `log list` lists copies of (default: a 5-player "
                             "game played here)")
    args = parser.parse_args()
    rows = set(args.rows or ROWS)
    if args.skip_games:
        rows -= {"deck", "exit", "join"}
    figures: dict[str, Any] = {}
    if args.program:
        PROGRAM.extend(args.program.split())
    with tempfile.TemporaryDirectory(prefix="hanabi-feel-") as tmp:
        root = Path(tmp)
        if not args.compile_each_run:
            as_installed(root / "pycache")
        for row, key, command in (("version", "version_s", ["--version"]),
                                  ("help", "help_s", ["--help"])):
            if row in rows:
                figures[key] = command_time(command, args.runs)
        if "replay" in rows:
            example = root / "example.json"
            example.write_bytes(
                resources.files("hanabi_p2p").joinpath("data", "example_game.json").read_bytes())
            figures["replay_s"] = command_time(["replay", str(example)], args.runs)

        setups, exits = [], []
        game_log: Path | None = args.log
        five_games = (args.runs if rows & {"deck", "exit"}
                      else 1 if "log-list" in rows and args.log is None else 0)
        for run in range(five_games):
            game = play(root / f"five-{run}", 5, f"feel five {run}", program(), mdns=args.mdns)
            seated, _ = game.host.when(SEATED)
            ready, _ = game.host.when(DECK_READY)
            setups.append(ready - seated)
            exits.append(max(p.exit_time() - p.when(GAME_OVER)[0] for p in game.everyone))
            if args.log is None:
                game_log = next((root / f"five-{run}" / "host" / "games").glob("*.hlog"))
        if "deck" in rows:
            figures["deck_setup_5p_s"] = statistics.median(setups)
        if "exit" in rows:
            figures["game_over_exit_s"] = statistics.median(exits)
        if "join" in rows:
            joins = []
            for run in range(args.runs):
                game = play(root / f"two-{run}", 2, f"feel two {run}", program(),
                            mdns=args.mdns, any_table=args.any_table)
                joins.append(game.guests[0].when(SEATED)[0] - game.guests[0].started)
            figures["join_seated_s"] = statistics.median(joins)

        if "log-list" in rows:
            assert game_log is not None
            warm = games_dir_of(root, LIST_GAMES, game_log)
            list_args = ["log", "list", "--data-dir", str(warm)]
            command_time(list_args, 1)  # fills the cache
            figures["log_list_100_s"] = command_time(list_args, args.runs)
            cold = games_dir_of(root, args.cold_games, game_log)
            cold_s = command_time(["log", "list", "--data-dir", str(cold)], 1)
            figures["log_list_cold_per_game_s"] = cold_s / args.cold_games

    join_by = ("mdns, no name" if args.any_table else "mdns") if args.mdns else "address"
    table = [("hanabi-p2p --version", "version_s"), ("hanabi-p2p --help", "help_s"),
            ("replay FILE (whole game)", "replay_s"),
            (f"log list, {LIST_GAMES} games, cached", "log_list_100_s"),
            ("log list, uncached, per game", "log_list_cold_per_game_s"),
            ("5-player deck: seated -> ready", "deck_setup_5p_s"),
            ("game over -> exit (slowest)", "game_over_exit_s"),
            (f"join ({join_by}) -> seated, 2p", "join_seated_s")]
    print(f"{'what a person waits for':<34} {'median':>9} {'target':>8}   (runs: {args.runs})")
    for label, key in table:
        if key not in figures:
            continue
        target = TARGETS.get(key)
        print(f"{label:<34} {figures[key]:>8.3f}s {f'{target:g}s' if target else '':>8}")
    figures = {k: round(v, 4) for k, v in figures.items()}
    figures["runs"] = args.runs
    figures["join_by"] = join_by
    figures["compile_each_run"] = args.compile_each_run
    print(json.dumps(figures))


if __name__ == "__main__":
    main()
