"""Every Python process a benchmark starts tells where it is waiting when sent SIGUSR1.

bench/postmortem.py puts this directory first on the PYTHONPATH of the processes a benchmark
starts, with HANABI_BENCH_STACKS_DIR naming a directory; Python imports `sitecustomize` at
start-up, so every one of them (our programs, the seats, the wrappers) then answers SIGUSR1
with two files there, named by its PID:

* ``PID.threads.txt``: every thread's Python stack, written by faulthandler from the signal
  itself, so it comes even when the main thread is stuck in a call that never returns to
  Python (a write to a full pipe, a lock);
* ``PID.tasks.txt``: every asyncio task of the running event loop, its stack and the future
  it awaits, written by a Python-level handler (so only when the main thread runs Python:
  an idle event loop does, as soon as the signal wakes its select).

Without the variable nothing is installed: an ordinary run is not changed. (The variable's
name is bench/postmortem.py's STACKS_DIR_VARIABLE.)
"""

from __future__ import annotations

import os

STACKS_DIR_VARIABLE = "HANABI_BENCH_STACKS_DIR"


def _install(directory: str) -> None:
    import faulthandler
    import signal
    import sys
    from pathlib import Path
    from types import FrameType

    pid = os.getpid()
    tasks_file = Path(directory) / f"{pid}.tasks.txt"

    def tell_tasks(signum: int, frame: FrameType | None) -> None:
        import asyncio

        with tasks_file.open("a") as out:
            out.write(f"argv: {sys.argv}\n")
            try:
                loop = asyncio.get_running_loop()
            except RuntimeError:
                out.write("no event loop runs in the main thread\n")
                return
            for task in asyncio.all_tasks(loop):
                stack = task.get_stack()
                where = (f"{stack[-1].f_code.co_filename}:{stack[-1].f_lineno} "
                         f"{stack[-1].f_code.co_qualname}" if stack else "?")
                waiter = getattr(task, "_fut_waiter", None)
                out.write(f"\n{task.get_name()}: awaits at {where}: {waiter!r}\n")
                task.print_stack(file=out)

    signal.signal(signal.SIGUSR1, tell_tasks)
    # after the handler above, which faulthandler then calls as well (chain)
    threads = (Path(directory) / f"{pid}.threads.txt").open("w")
    faulthandler.register(signal.SIGUSR1, file=threads, all_threads=True, chain=True)


_directory = os.environ.get(STACKS_DIR_VARIABLE)
if _directory and os.path.isdir(_directory):
    _install(_directory)
