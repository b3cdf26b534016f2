"""Running real `hanabi-p2p` processes for the end-to-end tests, and checking their logs.

A `Proc` is one process with its stdout and stderr in files (never a pipe left unread: a
chatty peer must not block on a full pipe while the test waits for another one; a timed
stdout is a pipe that a thread of ours drains into the file as it arrives). `Procs` starts
them, each with its own data directory, on the machine's loopback or inside a netlab
namespace, and kills whatever still runs at teardown.

Logs are checked with `hanabi-p2p log verify` when that command exists, and always with the
structural verifier: every entry signed and chained, and every peer's copy with one digest
(the game's digest, SPEC 3.7, as `log verify` prints it).
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from hanabi_p2p import cli
from hanabi_p2p.log.storage import load
from hanabi_p2p.log.verify import verify_entries
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.session.bodies import TableOpen
from hanabi_p2p.session.verify import verify_file

# Bound on any one wait; reached only when a test is failing (then the output is shown).
WAIT_S = 60.0
POLL_S = 0.05
TESTS_DIR = Path(__file__).resolve().parent
HEX_DIGEST = re.compile(r"\b[0-9a-f]{64}\b")
TABLE_OPEN = re.compile(r"table open at (\S+):(\d+)")


class Namespace(Protocol):
    """What we need of a netlab Host: the argv that runs a command inside it."""

    def argv(self, *command: str) -> list[str]: ...


class Proc:
    """One running process; its output accumulates in files next to its data directory."""

    def __init__(self, name: str, argv: list[str], workdir: Path, data_dir: Path | None,
                 *, timed: bool = False) -> None:
        self.name = name
        self.argv = argv
        self.data_dir = data_dir
        self.out_path = workdir / f"{name}.out"
        self.err_path = workdir / f"{name}.err"
        # (when each stdout line arrived, the line): kept only if `timed`
        self.timed_lines: list[tuple[float, str]] = []
        self._drain: threading.Thread | None = None
        with self.out_path.open("w") as out, self.err_path.open("w") as err:
            self.popen = subprocess.Popen(argv, stdout=subprocess.PIPE if timed else out,
                                          stderr=err, text=True, bufsize=1)
        if timed:
            # a thread blocked on the pipe wakes as each line is written: microseconds, where
            # polling the file could not tell apart turns that come a few milliseconds apart
            self._drain = threading.Thread(target=self._drain_stdout, daemon=True)
            self._drain.start()

    def _drain_stdout(self) -> None:
        assert self.popen.stdout is not None
        with self.out_path.open("a") as out:
            for line in self.popen.stdout:
                self.timed_lines.append((time.monotonic(), line))
                out.write(line)
                out.flush()

    def lines_with_times(self) -> list[tuple[float, str]]:
        """A timed process's stdout lines with when each arrived, once it has exited."""
        assert self._drain is not None, f"{self.name} was not started with a timed stdout"
        self._drain.join(timeout=WAIT_S)
        return list(self.timed_lines)

    # ---- output

    @property
    def stdout(self) -> str:
        return self.out_path.read_text()

    @property
    def stderr(self) -> str:
        return self.err_path.read_text()

    def describe(self) -> str:
        return (f"--- {self.name}: {' '.join(self.argv)}\n"
                f"exit {self.popen.poll()}\n--- stdout (tail)\n{self.stdout[-3000:]}\n"
                f"--- stderr (tail)\n{self.stderr[-3000:]}")

    @property
    def output(self) -> str:
        return self.stdout + self.stderr

    def wait_for(self, pattern: str, timeout: float = WAIT_S, since: int = 0) -> re.Match[str]:
        """The first match of `pattern` in stdout+stderr (from offset `since` of `output`
        on), waiting for it to appear."""
        regex = re.compile(pattern)
        deadline = time.monotonic() + timeout
        while True:
            match = regex.search(self.output, since)
            if match:
                return match
            if self.popen.poll() is not None:
                # one last read: the line may have been written just before the exit
                match = regex.search(self.output, since)
                if match:
                    return match
                raise AssertionError(f"{self.name} exited without printing {pattern!r}\n"
                                     + self.describe())
            if time.monotonic() > deadline:
                raise AssertionError(f"{self.name} did not print {pattern!r} in {timeout:g} s\n"
                                     + self.describe())
            time.sleep(POLL_S)

    def table_address(self) -> tuple[str, int]:
        """Where a host listens, from its `table open at HOST:PORT` line."""
        match = self.wait_for(TABLE_OPEN.pattern)
        return match.group(1), int(match.group(2))

    # ---- lifetime

    def finish(self, timeout: float = WAIT_S) -> int:
        """Wait for the process to exit; its exit status."""
        try:
            return self.popen.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.kill()
            raise AssertionError(f"{self.name} did not exit within {timeout:g} s\n"
                                 + self.describe()) from None

    def kill(self, sig: int = signal.SIGKILL) -> None:
        if self.popen.poll() is None:
            self.popen.send_signal(sig)
            try:
                self.popen.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.popen.kill()
                self.popen.wait(timeout=5)

    # ---- the end of a game

    @property
    def log_path(self) -> Path:
        """The log a peer names on its last line (`log: PATH`), as every peer must."""
        lines = self.stdout.rstrip("\n").splitlines()
        assert lines and lines[-1].startswith("log: "), (
            f"{self.name}'s last line is not 'log: PATH'\n" + self.describe())
        return Path(lines[-1].removeprefix("log: "))


class Procs:
    """Starts processes for one test; `kill_all()` at teardown."""

    def __init__(self, workdir: Path) -> None:
        self.workdir = workdir
        self.started: list[Proc] = []

    def data_dir(self, name: str) -> Path:
        return self.workdir / "data" / name

    def start(self, name: str, command: list[str], *, ns: Namespace | None = None,
              data_dir: Path | None = None, timed: bool = False) -> Proc:
        argv = ns.argv(*command) if ns is not None else command
        proc = Proc(name, argv, self.workdir, data_dir, timed=timed)
        self.started.append(proc)
        return proc

    def hanabi(self, name: str, *args: str, ns: Namespace | None = None,
               data_dir: Path | None = None, timed: bool = False) -> Proc:
        """`hanabi-p2p ARGS --data-dir <this peer's dir>` (the same dir again for a resume);
        `timed` keeps when each stdout line arrived."""
        if ns is None:
            _check_loopback_only(args)
        data = data_dir or self.data_dir(name)
        command = [sys.executable, "-m", "hanabi_p2p", *args, "--data-dir", str(data)]
        return self.start(name, command, ns=ns, data_dir=data, timed=timed)

    def script(self, name: str, script: str, *args: str, ns: Namespace | None = None) -> Proc:
        """A helper script of tests/e2e (a hostile peer)."""
        return self.start(name, [sys.executable, str(TESTS_DIR / script), *args], ns=ns)

    def kill_all(self) -> None:
        for proc in self.started:
            proc.kill()


def _check_loopback_only(args: tuple[str, ...]) -> None:
    """Outside a test namespace a peer must stay on 127.0.0.1 and never use mDNS, so that
    nothing a test does reaches the machine's real networks."""
    command = args[0]
    on_loopback = "--interface" in args and args[args.index("--interface") + 1] == "127.0.0.1"
    allowed = {
        "host": on_loopback and "--no-mdns" in args,
        # a resume never browses: it redials the address stored with the game
        "join": on_loopback and ("--address" in args or "--resume" in args),
        "play": True,  # always on loopback, never advertised
    }
    assert allowed.get(command, False), (
        f"'hanabi-p2p {' '.join(args)}' outside a test namespace could use a real network")


def bot_args(*, interface: str, name: str, extra: Iterable[str] = ()) -> list[str]:
    return ["--bot", "--interface", interface, "--name", name, *extra]


# ---------------------------------------------------------------- finished games


@dataclass(frozen=True)
class Finished:
    """What every peer of a finished game printed, and its log's digest."""

    score: int
    digest: str


def expect_success(procs: Iterable[Proc], timeout: float = WAIT_S) -> Finished:
    """Every peer exits 0 after printing the score, the audit and `log: PATH` last; every log
    passes verification, and all of them have the same digest."""
    procs = list(procs)
    for proc in procs:
        try:
            status = proc.finish(timeout)
        except AssertionError as stuck:  # what the others said tells why this one waited
            others = "\n".join(p.describe() for p in procs if p is not proc)
            raise AssertionError(f"{stuck}\n--- the others:\n{others}") from None
        assert status == 0, f"{proc.name} exited {status}\n" + proc.describe()
    scores = set()
    for proc in procs:
        match = re.search(r"^score (\d+) \((.+)\); deck audit: valid$", proc.stdout, re.M)
        assert match, f"{proc.name} printed no score line\n" + proc.describe()
        scores.add(int(match.group(1)))
    assert len(scores) == 1, f"peers disagree on the score: {scores}"
    digest = same_valid_logs([p.log_path for p in procs])
    return Finished(scores.pop(), digest)


def expect_failure(proc: Proc, *reason_patterns: str, timeout: float = WAIT_S) -> str:
    """The peer exits non-zero, says why (each pattern found in its stderr) and still names
    its saved log on its last line; returns the reason line."""
    status = proc.finish(timeout)
    assert status != 0, f"{proc.name} should have failed\n" + proc.describe()
    reason = proc.stderr
    for pattern in reason_patterns:
        assert re.search(pattern, reason), (
            f"{proc.name}'s error does not match {pattern!r}\n" + proc.describe())
    assert proc.log_path.exists()
    return reason


def same_valid_logs(paths: Iterable[Path], *, finished: bool = True) -> str:
    """Each log passes verification; all have one digest, which is returned."""
    digests = {}
    for path in paths:
        digests[path] = verify_log(path, finished=finished)
    assert len(set(digests.values())) == 1, f"logs differ: {digests}"
    return next(iter(digests.values()))


def verify_log(path: Path, *, finished: bool = True, or_blames: str | None = None) -> str:
    """Verify one log (the `log verify` command if it exists, and structurally); its digest.

    `finished=False`: a game stopped on purpose (a cheat, a peer gone): nothing in the log
    may be wrong, but the verifier rightly calls the game unfinished. `or_blames`: the game
    was stopped for a cheat of the player so named, and this copy may hold the cheater's
    signed entry, taken without being played because another honest peer had stopped the
    game first (SPEC 5.5); the verifier, which judges the set of entries, then rightly calls
    the log invalid, naming the cheater and what it did."""
    loaded = load(path)
    assert loaded.ok, f"{path}: {loaded.errors}"
    report = verify_entries(loaded.entries)
    # a copy that caught a fork keeps both versions as the proof (SPEC 4.6): the verifier
    # below must then name the cheater, and only the cheater, for it
    assert not report.problems and (or_blames is not None or not report.equivocations), (
        f"{path}: {report.problems} {report.equivocations}")
    assert len({proof.author for proof in report.equivocations}) <= 1
    assert report.entry_count > 0
    # the game's digest (SPEC 3.7: its seated players' entries), what `log verify` prints
    game_digest = verify_file(loaded).digest
    cli = log_verify_cli(path)
    if cli is not None:
        status, output = cli
        if finished:
            assert status == 0, f"hanabi-p2p log verify {path} failed:\n{output}"
        else:
            first = output.splitlines()[0] if output else ""
            blamed = or_blames is not None and first.startswith(f"invalid: {or_blames} (")
            # exit 3: unfinished (an honest game that stopped); 1: invalid, naming a cheater
            unfinished = status == 3 and first.startswith("unfinished: ")
            assert unfinished or (status == 1 and blamed), (
                f"hanabi-p2p log verify {path} should say unfinished:\n{output}")
        printed = set(HEX_DIGEST.findall(output))
        assert not printed or game_digest in printed, (
            f"log verify printed digest {printed}, the log's is {game_digest}")
    return game_digest


def log_verify_cli(path: Path) -> tuple[int, str] | None:
    """(exit status, output) of `hanabi-p2p log verify PATH`, or None while that command
    does not exist. Run in this process (the same code as the command line, without the
    half second of start-up per log)."""
    if importlib.util.find_spec("hanabi_p2p.session.verify") is None:
        return None
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            status = cli.main(["log", "verify", str(path)])
        except SystemExit as exc:  # argparse: no such subcommand yet
            return None if exc.code == 2 else (int(str(exc.code)), out.getvalue())
    return status, out.getvalue() + err.getvalue()

def table_config(path: Path) -> GameConfig:
    """The configuration the host opened the table with, read back from a log."""
    opened = [e for e in load(path).entries if e.kind == "table.open"]
    assert len(opened) == 1, f"{path} has {len(opened)} table.open entries"
    return TableOpen.from_wire(opened[0].body).config


def log_authors(path: Path) -> set[bytes]:
    return {entry.author for entry in load(path).entries}


# ---------------------------------------------------------------- games under faults

# Words a peer uses only when it blames a player: nobody in a fault or relay test cheats, so
# none of them may appear in any output.
BLAME_WORDS = re.compile(
    r"cheat|kept the game waiting|invalid entry|signature does not verify|equivocat"
    r"|illegal|blame", re.I)
# A peer that ends a game it cannot finish exits with this status and one reason line.
EXIT_UNFINISHED = 1


@dataclass(frozen=True)
class Outcome:
    """How every peer of one game under faults ended: exit status, last reason line (stderr)
    and, for each saved log, its digest and whether the game in it finished."""

    status: dict[str, int]
    reason: dict[str, str]
    finished: dict[str, str]
    unfinished: dict[str, str]

    @property
    def digest(self) -> str | None:
        return next(iter(self.finished.values()), None)


def saved_log_verdict(path: Path) -> tuple[str, bool]:
    """(digest, finished) of a saved log that must verify: every entry signed and chained,
    and `hanabi-p2p log verify` saying valid or, for a game stopped early, unfinished."""
    loaded = load(path)
    assert loaded.ok, f"{path}: {loaded.errors}"
    report = verify_entries(loaded.entries)
    assert report.ok and report.entry_count > 0, (
        f"{path}: {report.problems} {report.equivocations}")
    cli = log_verify_cli(path)
    finished = True
    if cli is not None:
        status, output = cli
        finished = status == 0
        assert finished or (status == 3 and output.startswith("unfinished: ")), (
            f"hanabi-p2p log verify {path}:\n{output}")
    return verify_file(loaded).digest, finished


def settle(procs: Iterable[Proc], timeout: float = WAIT_S) -> Outcome:
    """Every peer exits (0 after the score, or 1 with one clear reason line, never a
    traceback); every log a peer names on its last line verifies; every finished log has one
    digest; nobody is blamed (see BLAME_WORDS)."""
    procs = list(procs)
    status: dict[str, int] = {}
    for proc in procs:
        status[proc.name] = proc.finish(timeout)
    reason: dict[str, str] = {}
    finished: dict[str, str] = {}
    unfinished: dict[str, str] = {}
    for proc in procs:
        shown = proc.describe()
        assert status[proc.name] in (0, EXIT_UNFINISHED), (
            f"{proc.name} exited {status[proc.name]}\n{shown}")
        assert "Traceback" not in proc.stderr, f"{proc.name} crashed\n{shown}"
        blamed = BLAME_WORDS.search(proc.output)
        assert blamed is None, f"{proc.name} blames someone ({blamed})\n{shown}"
        lines = proc.stderr.strip().splitlines()
        reason[proc.name] = lines[-1] if lines else ""
        if status[proc.name] != 0:
            assert reason[proc.name], f"{proc.name} failed without a reason\n{shown}"
        tail = proc.stdout.rstrip("\n").splitlines()
        if not tail or not tail[-1].startswith("log: "):
            assert status[proc.name] != 0, f"{proc.name} names no log\n{shown}"
            continue
        digest, done = saved_log_verdict(Path(tail[-1].removeprefix("log: ")))
        (finished if done else unfinished)[proc.name] = digest
        if status[proc.name] == 0:
            assert done, f"{proc.name} exited 0 with an unfinished log\n{shown}"
    assert len(set(finished.values())) <= 1, f"finished logs differ: {finished}"
    return Outcome(status, reason, finished, unfinished)
