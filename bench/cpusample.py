"""Run one command and record the CPU time it has used, over time (for bench/meetup.py).

Usage: python bench/cpusample.py OUT INTERVAL_S COMMAND [ARG ...]

COMMAND runs as a child with this process's standard streams. Every INTERVAL_S this reads
the child's user + system time from /proc/PID/stat (all its threads; the kernel's clock
ticks, usually 10 ms), each sample stamped on the system-wide monotonic clock; when the
child exits, its exact total from wait4. OUT gets one JSON object:
{"samples": [[t, cpu_s], ...], "total_s": cpu_s, "exit": code}, and this process exits as
the child did. The parent can then tell how much CPU the child used between two moments
(`cpu_between`), e.g. while a game was being played, whatever it did before and after.
A command that execs another (``ip netns exec``, ``nice``, ``taskset``) keeps its PID, so
the program at the end of such a chain is the one measured.
"""

from __future__ import annotations

import bisect
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

TICKS_PER_S = os.sysconf("SC_CLK_TCK")


def _cpu_now(pid: int) -> float | None:
    """User + system seconds of `pid` so far (None once it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    # the command name (field 2) may hold spaces: the fields after it start past its ')'
    fields = stat[stat.rindex(")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / TICKS_PER_S  # utime, stime (fields 14, 15)


def cpu_between(record: dict[str, Any], start: float, end: float) -> float:
    """The CPU seconds the child used from `start` to `end` (monotonic), read off its
    samples (linear between two samples; the exact total after its exit)."""
    points = [(t, c) for t, c in record["samples"]]

    def at(moment: float) -> float:
        times = [t for t, _ in points]
        i = bisect.bisect_right(times, moment)
        if i == 0:
            return 0.0  # (before the first sample, taken as the child started)
        if i == len(points):
            return float(points[-1][1])
        (t0, c0), (t1, c1) = points[i - 1], points[i]
        return c0 + (c1 - c0) * (moment - t0) / (t1 - t0) if t1 > t0 else c1

    return max(0.0, at(end) - at(start))


def main() -> None:
    out, interval, command = Path(sys.argv[1]), float(sys.argv[2]), sys.argv[3:]
    child = subprocess.Popen(command)
    samples: list[list[float]] = [[time.monotonic(), 0.0]]
    done = threading.Event()

    def sample() -> None:
        while not done.wait(interval):
            cpu = _cpu_now(child.pid)
            if cpu is not None:
                samples.append([time.monotonic(), cpu])

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    _, status, usage = os.wait4(child.pid, 0)
    ended = time.monotonic()
    done.set()
    sampler.join()
    child.returncode = os.waitstatus_to_exitcode(status)
    total = usage.ru_utime + usage.ru_stime
    samples.append([ended, total])
    out.write_text(json.dumps({"samples": samples, "total_s": total,
                               "exit": child.returncode}))
    sys.exit(child.returncode if child.returncode >= 0 else 1)


if __name__ == "__main__":
    main()
