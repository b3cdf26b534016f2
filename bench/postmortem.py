"""What a benchmark of many processes keeps when it fails or runs past its time.

A meet-up run (bench/meetup.py) starts some fifty processes, each in a network namespace
and some behind a wrapper (bench/cpusample.py, ``nice``, ``taskset``). When one of them
hangs, the run used to end at bench/against.py's timeout with nothing left to look at: the
namespaces gone, the wrappers killed and the programs they ran left behind. `Postmortem`
keeps the record the next person needs, into a directory of its own:

* ``summary.txt``: why the run stopped, and for every process that had not finished, each
  process of its tree (wrappers and program) with its state, the kernel function it sleeps
  in (wchan, and its kernel stack), and where its Python code waits (below);
* ``stacks/``: each Python process's threads and asyncio tasks, which it wrote when sent
  SIGUSR1 (bench/dumpsite/sitecustomize.py, with the variables of `stacks_env`);
* ``output/NAME.txt``: every process's last output lines, finished or not (each stamped
  with the seconds since the run began, where the run reads them as they come);
* ``sockets/NAMESPACE.txt``: ``ss`` in each namespace of a process still running (a link
  whose queues are full, or a listener nobody dialled);
* ``files/``: the run's working directory as it was (game files, data directories, what
  each seat wrote), without the bytecode cache.

Then `kill_all` ends every tree, the programs inside the wrappers too, so that none keeps
running in a namespace that is deleted under it, or holds the output pipe of whoever
started the run.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import traceback
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path

DUMPSITE = Path(__file__).resolve().parent / "dumpsite"
# (read by bench/dumpsite/sitecustomize.py, which is not imported here: it would install
# its handlers in this process)
STACKS_DIR_VARIABLE = "HANABI_BENCH_STACKS_DIR"
# How long the processes get to write their stacks after SIGUSR1 (a busy machine's).
STACKS_WAIT_S = 3.0
OUTPUT_LINES_KEPT = 200


def stacks_env(stacks: Path, pythonpath: str) -> dict[str, str]:
    """The environment variables with which a Python process writes its stacks into
    `stacks` when sent SIGUSR1 (bench/dumpsite/sitecustomize.py); `pythonpath`: its own."""
    stacks.mkdir(parents=True, exist_ok=True)
    return {STACKS_DIR_VARIABLE: str(stacks), "PYTHONPATH": with_dumpsite(pythonpath)}


def with_dumpsite(pythonpath: str) -> str:
    """`pythonpath` with the directory of our sitecustomize first."""
    return os.pathsep.join([str(DUMPSITE), *(p for p in pythonpath.split(os.pathsep) if p)])


@dataclass
class Tracked:
    """One process the run started: its name, the process, where its output can be read
    (`lines`: a function giving the lines so far; or `log`: the file it writes to), and
    the namespace it runs in."""

    name: str
    popen: subprocess.Popen[str]
    namespace: str
    lines: Callable[[], list[str]] | None = None
    log: Path | None = None


def _parents() -> dict[int, int]:
    """Every process's parent, read from /proc."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                stat = (entry / "stat").read_text()
            except OSError:
                continue
            parents[int(entry.name)] = int(stat[stat.rindex(")") + 2:].split()[1])
    return parents


def tree(pid: int) -> list[int]:
    """`pid` and every process below it, parents first."""
    children: dict[int, list[int]] = {}
    for child, parent in _parents().items():
        children.setdefault(parent, []).append(child)
    found, todo = [], [pid]
    while todo:
        current = todo.pop(0)
        found.append(current)
        todo.extend(sorted(children.get(current, [])))
    return found


def in_namespace(namespace: str) -> list[int]:
    """Every process in the network namespace `namespace`."""
    done = subprocess.run(["ip", "netns", "pids", namespace], capture_output=True, text=True,
                          timeout=20, check=False)
    return [int(word) for word in done.stdout.split() if word.isdigit()]


def _read(path: Path) -> str:
    try:
        return path.read_text(errors="replace").strip()
    except OSError as exc:
        return f"({exc.strerror})"


def describe(pid: int) -> str:
    """What /proc says `pid` is doing: its command, state, the kernel function each thread
    sleeps in, its kernel stack and the files and sockets it holds."""
    proc = Path(f"/proc/{pid}")
    status = dict(line.split(":", 1) for line in _read(proc / "status").splitlines()
                  if ":" in line)
    lines = [f"pid {pid}: {_read(proc / 'cmdline').replace(chr(0), ' ')}",
             f"  state {status.get('State', '?').strip()}, wchan {_read(proc / 'wchan')}"]
    tasks = sorted(proc.glob("task/*"), key=lambda p: int(p.name)) if proc.exists() else []
    for task in tasks:
        if task.name != str(pid):
            lines.append(f"  thread {task.name} ({_read(task / 'comm')}): "
                         f"{_read(task / 'stat').split(') ')[-1][:1]}, "
                         f"wchan {_read(task / 'wchan')}")
    stack = _read(proc / "stack")
    if stack:
        lines.append("  kernel stack:\n" + "\n".join(f"    {s}" for s in stack.splitlines()))
    fds = []
    for fd in sorted(proc.glob("fd/*"), key=lambda p: int(p.name)) if proc.exists() else []:
        try:
            fds.append(f"{fd.name}->{os.readlink(fd)}")
        except OSError:
            continue
    lines.append("  fds: " + ", ".join(fds))
    return "\n".join(lines)


def _tells_stacks(pid: int) -> bool:
    """Whether `pid` catches SIGUSR1 (a process that does not would die of it)."""
    for line in _read(Path(f"/proc/{pid}/status")).splitlines():
        if line.startswith("SigCgt:"):
            return bool(int(line.split()[1], 16) & (1 << (signal.SIGUSR1 - 1)))
    return False


@dataclass
class Postmortem:
    """The processes of one run, and what to keep of them (see the module docstring)."""

    workdir: Path  # the run's working directory, copied as it was
    stacks: Path  # where the processes write their stacks (stacks_env)
    namespaces: list[str]  # the run's (every process in them is ended by kill_all)
    into: Path | None = None  # where to keep it all (None: a new directory under /tmp)
    tracked: list[Tracked] = field(default_factory=list)
    kept: Path | None = None
    started: float = field(default_factory=time.monotonic)  # (output lines are stamped so)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def track(self, process: Tracked) -> None:
        self.tracked.append(process)

    def running(self) -> list[Tracked]:
        return [t for t in self.tracked if t.popen.poll() is None]

    def keep(self, reason: str) -> Path:
        """Keep what the processes left (once: a second call returns the same directory)."""
        with self._lock:
            if self.kept is None:
                self.kept = self._keep(reason)
            return self.kept

    def _keep(self, reason: str) -> Path:
        if self.into is not None:
            self.into.mkdir(parents=True, exist_ok=True)
            into = self.into
        else:
            into = Path(tempfile.mkdtemp(prefix="meetup-failed-"))
        running = self.running()
        trees = {t.name: tree(t.popen.pid) for t in running}
        in_trees = {pid for pids in trees.values() for pid in pids}
        strays = {ns: [pid for pid in in_namespace(ns) if pid not in in_trees]
                  for ns in self.namespaces}
        for ns, pids in strays.items():  # not started by the run's own Popen, or orphaned
            for i, pid in enumerate(pids):
                trees[f"{ns} stray {i}"] = [pid]
        # (read before the signal below wakes them)
        described = {name: [describe(pid) for pid in pids] for name, pids in trees.items()}
        for pids in trees.values():  # every Python process of a tree tells where it waits
            for pid in pids:
                if _tells_stacks(pid):
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGUSR1)
        time.sleep(STACKS_WAIT_S)
        summary = [f"why: {reason}", f"at: {time.strftime('%Y-%m-%d %H:%M:%S %Z')}",
                   f"processes started: {len(self.tracked)}, still running: {len(running)}"]
        for t in self.tracked:
            code = t.popen.poll()
            summary.append(f"  {t.name:<14} {'running' if code is None else f'exit {code}'}"
                           f"  ({t.namespace})")
        for name, pids in trees.items():
            summary.append(f"\n== {name} has not finished")
            for pid, text in zip(pids, described[name], strict=True):
                summary.append(text)
                tasks = self.stacks / f"{pid}.tasks.txt"
                if tasks.exists():
                    summary.append("  its asyncio tasks await:")
                    summary.extend(f"    {line}" for line in _read(tasks).splitlines()
                                   if ": awaits " in line)
        (into / "summary.txt").write_text("\n".join(summary) + "\n")
        self._keep_stacks(into / "stacks")
        self._keep_output(into / "output")
        self._keep_sockets(into / "sockets", {t.namespace for t in running if t.namespace}
                           | {ns for ns, pids in strays.items() if pids})
        shutil.copytree(self.workdir, into / "files", dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("pycache", "stacks"),
                        ignore_dangling_symlinks=True)
        return into

    def _keep_stacks(self, into: Path) -> None:
        into.mkdir(exist_ok=True)
        for path in self.stacks.iterdir():
            if path.stat().st_size:
                shutil.copy(path, into / path.name)

    def _keep_output(self, into: Path) -> None:
        into.mkdir(exist_ok=True)
        for t in self.tracked:
            try:
                if t.lines is not None:
                    text = "\n".join(t.lines()[-OUTPUT_LINES_KEPT:])
                elif t.log is not None and t.log.exists():
                    text = "\n".join(t.log.read_text(errors="replace")
                                     .splitlines()[-OUTPUT_LINES_KEPT:])
                else:
                    continue
            except Exception:  # (a record of a failure must not fail on one process)
                text = traceback.format_exc()
            (into / f"{t.name}.txt").write_text(text + "\n")

    def _keep_sockets(self, into: Path, namespaces: Iterable[str]) -> None:
        into.mkdir(exist_ok=True)
        for namespace in sorted(namespaces):
            done = subprocess.run(["ip", "netns", "exec", namespace, "ss", "-tuanpi"],
                                  capture_output=True, text=True, timeout=20, check=False)
            (into / f"{namespace}.txt").write_text(done.stdout + done.stderr)

    def kill_all(self) -> None:
        """End every process tree still running, programs inside wrappers too, and every
        process left in the run's namespaces."""
        doomed = [pid for t in self.tracked if t.popen.poll() is None
                  for pid in reversed(tree(t.popen.pid))]
        doomed += [pid for ns in self.namespaces for pid in in_namespace(ns)]
        for pid in doomed:
            with contextlib.suppress(ProcessLookupError):
                os.kill(pid, signal.SIGKILL)
        for t in self.tracked:
            with contextlib.suppress(subprocess.TimeoutExpired):
                t.popen.wait(timeout=10)


class Watchdog:
    """Calls `on_expiry` on a thread of its own if not cancelled within `seconds`."""

    def __init__(self, seconds: float, on_expiry: Callable[[], None]) -> None:
        self._timer = threading.Timer(seconds, on_expiry)
        self._timer.daemon = True

    def __enter__(self) -> Watchdog:
        self._timer.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._timer.cancel()
