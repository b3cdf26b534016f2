"""Real `hanabi-p2p --bot` games on a namespace LAN with one fault injected at a chosen moment,
for the fault suite (tests/e2e/test_e2e_faults.py) and its long runs (bench/faults.py).

A `Case` names the fault (random loss, a cut cable, kill -9 and `join --resume`, SIGSTOP, a
full disk, kill -9 during bursts of log writes, a wall clock hours off), the phase it strikes
in (lobby, deck setup, mid-game, the end-of-game audit), its victims (seats; 0 is the host)
and what must come of it. `play()` runs one game and checks what every case must hold
(`e2e_helpers.settle`: every peer exits 0, or 1 with one clear reason; every saved log
verifies; finished logs share one digest; nobody is blamed) and then the case's own
expectation. It never raises for a broken expectation: the `Run` it returns carries the
failure and every process's last lines, so a bench can count and a test can assert.
"""

from __future__ import annotations

import contextlib
import os
import random
import re
import shlex
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from enum import Enum
from pathlib import Path

from e2e_helpers import (
    EXIT_UNFINISHED,
    TABLE_OPEN,
    Outcome,
    Proc,
    Procs,
    bot_args,
    saved_log_verdict,
    settle,
)
from netlab import NetLab

from hanabi_p2p.log.storage import load
from hanabi_p2p.log.verify import verify_entries

NAMESPACE_PREFIX = "hg"
# A first joiner may dial before the host listens on a busy box: the host prints its address
# first, so this is only the bound on that wait.
START_BOUND_S = 60.0
# Beyond the case's own waits (wait-timeout, cut, stop), how long a game may take to end
# before we call it a hang (only reached when something is wrong).
GAME_BOUND_S = 150.0
# Mid-game faults strike at a random turn in this range (a 3-player bot game has ~60 turns).
MIDGAME_TURNS = (4, 20)
# A resumed host says where it listens at once, or never (then joiners keep the old address).
RESUMED_HOST_BOUND_S = 10.0
# A killed peer is resumed this long after its death (its sockets are gone by then).
RESUME_AFTER_S = 0.5
# Size of the tmpfs holding the victim's data directory in the full-disk case: its key and
# the first part of a game log fit; we fill the rest at the chosen moment.
TMPFS_SIZE = "1m"
FILL_CHUNK_BYTES = 64 * 1024
DISK_FULL_REASON = re.compile(r"disk full", re.I)
# kill -9 during bursts of log writes: delays after the deal starts, or after a resumed peer
# says it is back, before the next kill.
BURST_KILL_DELAY_S = (0.0, 0.6)
CLOCK_OFFSETS = ("+5h", "-7h")  # faketime offsets of the peers whose wall clock is off
PEER_NAMES = ("Ann", "Bob", "Cid", "Dee", "Eve")
# `join --bot ... | head -n STDOUT_LINES` (issue 16): the output closes early in the deal
STDOUT_LINES = 12
LOBBY_TIMEOUT_S = 5.0
TAIL_LINES = 4


class Fault(Enum):
    NONE = "none"
    LOSS = "loss"
    CUT = "cut"
    KILL = "kill"
    STOP = "stop"
    DISK_FULL = "disk-full"
    KILL_BURST = "kill-burst"
    CLOCK = "clock"
    STDOUT_CLOSED = "stdout-closed"  # the victim's output goes into `head`, which stops reading
    LOBBY_ABANDONED = "lobby-abandoned"  # the last seat never comes: --lobby-timeout ends it


class Phase(Enum):
    LOBBY = "lobby"
    DECK = "deck"
    MIDGAME = "mid-game"
    AUDIT = "audit"


class Expect(Enum):
    """What a case must end in, beyond what every case must hold."""

    FINISH = "every peer finishes"
    # a cut at the end can outlast the others' linger after the game (Timing.linger): then
    # the victim cannot fetch what it lacks, and must end saying whom it waited for
    FINISH_OR_UNREACHABLE = "every peer finishes or ends 'waited ... unreachable'"
    VICTIM_NAMED = "the others end 'waited ... unreachable' naming the victim"
    DISK_FULL = "the victim stops with 'disk full', resumes once space is freed, all finish"
    ANY = "only the invariants every case holds"
    LOBBY_ENDED = "every peer ends 'the table did not fill' after --lobby-timeout"


@dataclass(frozen=True)
class Case:
    name: str
    fault: Fault
    phase: Phase = Phase.MIDGAME
    players: int = 3
    victims: tuple[int, ...] = (1,)
    seconds: float = 0.0  # how long a cut or a stop lasts
    loss: float = 0.0  # probability of dropping an incoming packet, every host
    wait_timeout: float = 30.0
    expect: Expect = Expect.FINISH
    kills: int = 1  # KILL_BURST: how many times the victim is killed and resumed


@dataclass
class Run:
    case: Case
    seconds: float = 0.0
    outcome: Outcome | None = None
    failure: str | None = None  # the first broken expectation (None: all held)
    tails: str = ""  # every process's last lines (picklable: a bench runs games in processes)

    @property
    def finished(self) -> bool:
        """Every peer still standing at the end finished the game."""
        return (self.outcome is not None and not self.outcome.unfinished
                and len(self.outcome.finished) == len(self.outcome.status))

    @property
    def verified(self) -> bool:
        """The invariants and the case's expectation held."""
        return self.failure is None


def tails(procs: list[Proc]) -> str:
    """Each process's last lines (stdout and stderr), for a failure report."""
    out = []
    for proc in procs:
        last = (proc.stdout.strip().splitlines()[-TAIL_LINES:]
                + proc.stderr.strip().splitlines()[-TAIL_LINES:])
        out.append(f"  {proc.name} (exit {proc.popen.poll()}): " + " | ".join(last))
    return "\n".join(out)


class Game:
    """The processes of one game on one LAN."""

    def __init__(self, case: Case, lab: NetLab, workdir: Path) -> None:
        self.case = case
        self.procs = Procs(workdir)
        self.hosts = lab.lan(case.players)
        self.peers: list[Proc] = []  # the current process of each seat
        self.address = ""

    def flags(self) -> list[str]:
        flags = ["--wait-timeout", f"{self.case.wait_timeout:g}"]
        if self.case.fault is Fault.LOBBY_ABANDONED:
            flags += ["--lobby-timeout", f"{LOBBY_TIMEOUT_S:g}"]
        return flags

    def command(self, seat: int, *args: str) -> list[str]:
        clock: list[str] = []
        if self.case.fault is Fault.CLOCK and seat in self.case.victims:
            clock = ["faketime", "-f", CLOCK_OFFSETS[seat % len(CLOCK_OFFSETS)]]
        data = self.procs.data_dir(PEER_NAMES[seat])
        command = [*clock, sys.executable, "-m", "hanabi_p2p", *args, "--data-dir", str(data)]
        if self.case.fault is Fault.STDOUT_CLOSED and seat in self.case.victims:
            # pipefail: the status is the peer's, not head's
            piped = f"{shlex.join(command)} | head -n {STDOUT_LINES}"
            return ["bash", "-o", "pipefail", "-c", piped]
        return command

    def launch(self, seat: int, label: str, *args: str) -> Proc:
        host = self.hosts[seat]
        proc = self.procs.start(label, self.command(seat, *args), ns=host,
                                data_dir=self.procs.data_dir(PEER_NAMES[seat]))
        if seat < len(self.peers):
            self.peers[seat] = proc
        else:
            self.peers.append(proc)
        return proc

    def start_host(self) -> None:
        host = self.hosts[0]
        self.launch(0, PEER_NAMES[0], "host", "--players", str(self.case.players), "--no-mdns",
                    *self.flags(), *bot_args(interface=host.address, name=PEER_NAMES[0]))
        address, port = self.peers[0].table_address()
        self.address = f"{address}:{port}"

    def join(self, seat: int) -> None:
        name = PEER_NAMES[seat]
        self.launch(seat, name, "join", "--address", self.address, *self.flags(),
                    *bot_args(interface=self.hosts[seat].address, name=name))

    def resume(self, seat: int, label: str) -> Proc:
        proc = self.launch(seat, label, "join", "--resume", "--bot", *self.flags())
        if seat == 0:  # a resumed host may listen elsewhere: later joiners dial it there
            with contextlib.suppress(AssertionError):
                match = proc.wait_for(TABLE_OPEN.pattern, RESUMED_HOST_BOUND_S)
                self.address = f"{match.group(1)}:{match.group(2)}"
        return proc

    def victims(self) -> list[Proc]:
        return [self.peers[seat] for seat in self.case.victims]

    def watcher(self) -> Proc:
        """Whose output tells the moment: the first victim (it must live to see it), or the
        host when the victim's output is cut short."""
        if self.case.victims and self.case.fault is not Fault.STDOUT_CLOSED:
            return self.peers[self.case.victims[0]]
        return self.peers[0]


def fill(directory: Path) -> Path:
    """Write zeros into `directory` until its file system is full; the filler's path."""
    filler = directory / "filler"
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    try:
        # unbuffered writes: a short write takes what fits, the next one fails with ENOSPC
        chunk = bytes(FILL_CHUNK_BYTES)
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, chunk)
        with contextlib.suppress(OSError):
            while True:
                os.write(fd, b"\0")
    finally:
        os.close(fd)
    return filler


@contextlib.contextmanager
def tmpfs(directory: Path) -> Iterator[None]:
    directory.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={TMPFS_SIZE},mode=0700", "tmpfs",
                    str(directory)], check=True, capture_output=True)
    try:
        yield
    finally:
        subprocess.run(["umount", "-l", str(directory)], check=False, capture_output=True)


def whole_entries_verify(data_dir: Path) -> str | None:
    """A killed peer's log opens and verifies up to its last whole entry (None), or why not."""
    logs = sorted((data_dir / "games").glob("*.hlog"))
    for path in logs:
        loaded = load(path)
        report = verify_entries(loaded.entries)
        # a torn last record (killed while appending) is dropped by load(), not an error
        if not loaded.ok:
            return f"{path}: {loaded.errors}"
        if not report.ok:
            return f"{path}: {report.problems} {report.equivocations}"
    return None


def play(case: Case, workdir: Path, rng: random.Random) -> Run:
    """One game under `case`'s fault; never raises for a broken expectation."""
    run = Run(case)
    started = time.monotonic()
    workdir.mkdir(parents=True, exist_ok=True)
    with contextlib.ExitStack() as stack:
        lab = stack.enter_context(NetLab(NAMESPACE_PREFIX))
        game = Game(case, lab, workdir)
        if case.fault is Fault.DISK_FULL:
            for seat in case.victims:
                stack.enter_context(tmpfs(game.procs.data_dir(PEER_NAMES[seat])))
        stack.callback(game.procs.kill_all)  # first thing on the way out, before any umount
        try:
            _drive(game, rng, run)
        except AssertionError as exc:
            run.failure = str(exc).split("\n--- ")[0]
        run.tails = tails(game.procs.started)
        run.seconds = time.monotonic() - started
    return run


def _drive(game: Game, rng: random.Random, run: Run) -> None:
    case = game.case
    if case.fault is Fault.LOSS:
        for host in game.hosts:
            host.run("iptables", "-A", "INPUT", "-m", "statistic", "--mode", "random",
                     "--probability", f"{case.loss:g}", "-j", "DROP").check_returncode()
    game.start_host()
    last = case.players - 1
    for seat in range(1, last):
        game.join(seat)
    if case.fault is Fault.LOBBY_ABANDONED:
        pass  # the last seat never comes
    elif case.phase is Phase.LOBBY:
        for seat in range(1, last):
            game.peers[0].wait_for(rf"{PEER_NAMES[seat]} \(\S+\) sits down", START_BOUND_S)
        _strike(game, rng)
        game.join(last)
    else:
        game.join(last)
        _wait_for_phase(game, rng)
        _strike(game, rng)
    bound = case.wait_timeout * 2 + case.seconds + GAME_BOUND_S
    # killed processes were replaced in peers; a peer writing into `head` names no log
    closed = [game.peers[s] for s in case.victims] if case.fault is Fault.STDOUT_CLOSED else []
    outcome = settle([p for p in game.peers if p not in closed], timeout=bound)
    for proc in closed:
        _check_closed_output(game, proc, outcome, bound)
    run.outcome = outcome
    _check_expectation(game, outcome)


def _wait_for_phase(game: Game, rng: random.Random) -> None:
    case, watcher = game.case, game.watcher()
    if case.phase is Phase.DECK:
        watcher.wait_for(r"Everyone is seated", START_BOUND_S)
    elif case.phase is Phase.MIDGAME:
        watcher.wait_for(rf"(?m)^turn {rng.randint(*MIDGAME_TURNS)}:", GAME_BOUND_S)
    elif case.phase is Phase.AUDIT:
        watcher.wait_for(r"Game over", GAME_BOUND_S)


def _strike(game: Game, rng: random.Random) -> None:
    case = game.case
    if case.fault is Fault.CUT:
        for seat in case.victims:
            game.hosts[seat].set_link(False)
        time.sleep(case.seconds)
        for seat in case.victims:
            game.hosts[seat].set_link(True)
    elif case.fault is Fault.STOP:
        for proc in game.victims():
            proc.popen.send_signal(signal.SIGSTOP)
        time.sleep(case.seconds)
        for proc in game.victims():
            proc.popen.send_signal(signal.SIGCONT)
    elif case.fault is Fault.KILL:
        for proc in game.victims():
            proc.kill()
        time.sleep(RESUME_AFTER_S)
        for seat in case.victims:
            game.resume(seat, f"{PEER_NAMES[seat]}-resumed")
    elif case.fault is Fault.KILL_BURST:
        seat = case.victims[0]
        for round_ in range(case.kills):
            if round_:  # a resumed peer catches up in a burst of appends once it is back
                game.peers[seat].wait_for(r"resumed from the saved log", START_BOUND_S)
            time.sleep(rng.uniform(*BURST_KILL_DELAY_S))
            victim = game.peers[seat]
            if victim.popen.poll() is not None or "\nlog: " in "\n" + victim.stdout:
                break  # it finished its game first: nothing left to kill or resume
            game.peers[seat].kill()
            damage = whole_entries_verify(game.procs.data_dir(PEER_NAMES[seat]))
            assert damage is None, f"after kill {round_ + 1}: {damage}"
            game.resume(seat, f"{PEER_NAMES[seat]}-resumed{round_ + 1}")
    elif case.fault is Fault.DISK_FULL:
        seat = case.victims[0]
        data = game.procs.data_dir(PEER_NAMES[seat])
        filler = fill(data)
        victim = game.peers[seat]
        status = victim.finish(case.wait_timeout + GAME_BOUND_S)
        reason = victim.stderr.strip().splitlines()
        assert status != 0 and reason and DISK_FULL_REASON.search(reason[-1]), (
            f"{victim.name} did not stop with one 'disk full' line (exit {status})")
        assert "Traceback" not in victim.stderr, f"{victim.name} crashed"
        damage = whole_entries_verify(data)
        assert damage is None, damage
        os.unlink(filler)
        game.resume(seat, f"{PEER_NAMES[seat]}-resumed")


def _check_closed_output(game: Game, proc: Proc, outcome: Outcome, bound: float) -> None:
    """A peer whose output closed exits by itself, with a log that verifies and, once the
    game finished, holds the others' digest."""
    status = proc.finish(bound)
    assert status in (0, EXIT_UNFINISHED), f"{proc.name} exited {status}"
    assert "Traceback" not in proc.stderr, f"{proc.name} crashed"
    assert proc.data_dir is not None
    for path in (proc.data_dir / "games").glob("*.hlog"):
        digest, finished = saved_log_verdict(path)
        assert not finished or outcome.digest in (None, digest), (
            f"{proc.name}'s log differs from the others'")
        assert finished or status != 0, f"{proc.name} exited 0 with an unfinished game"


def _check_expectation(game: Game, outcome: Outcome) -> None:
    case = game.case
    if case.expect in (Expect.FINISH, Expect.DISK_FULL):
        unfinished = {n: outcome.reason[n] for n, s in outcome.status.items() if s != 0}
        assert not unfinished and not outcome.unfinished, (
            f"not every peer finished: {unfinished or outcome.unfinished}")
    elif case.expect is Expect.LOBBY_ENDED:
        for name, reason in outcome.reason.items():
            assert "did not fill" in reason, f"{name} did not end 'did not fill': {reason!r}"
    elif case.expect is Expect.FINISH_OR_UNREACHABLE:
        for name, status in outcome.status.items():
            reason = outcome.reason[name]
            assert status == 0 or ("waited" in reason and "unreachable" in reason), (
                f"{name} neither finished nor ended 'waited ... unreachable': {reason!r}")
    elif case.expect is Expect.VICTIM_NAMED:
        victims = {PEER_NAMES[s] for s in case.victims}
        for name, reason in outcome.reason.items():
            if name in victims:
                continue
            assert outcome.status[name] != 0 and "waited" in reason and "unreachable" in reason \
                and any(f"{v} (" in reason for v in victims), (
                    f"{name} did not end 'waited ... unreachable' naming {victims}: {reason!r}")
        for proc in game.victims():
            # the woken peer learns the game ended (it exits) and why (it says so)
            reason = outcome.reason[proc.name]
            assert outcome.status[proc.name] != 0 and "waited" in reason, (
                f"{proc.name}, woken, does not say why the game ended: {reason!r}")
