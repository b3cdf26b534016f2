"""The installed command's exit: the same output and exit code as a normal exit, without
the interpreter's teardown (hanabi_p2p.entry)."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

from hanabi_p2p import __version__


def run_python(code: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=60, check=False)


def test_the_command_prints_and_exits_with_mains_code() -> None:
    done = subprocess.run([sys.executable, "-m", "hanabi_p2p", "--version"],
                          capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stdout.strip()) == (0, f"hanabi-p2p {__version__}")
    refused = subprocess.run([sys.executable, "-m", "hanabi_p2p", "replay", "/no/such/game.json"],
                             capture_output=True, text=True, timeout=60, check=False)
    assert refused.returncode != 0 and refused.stderr.startswith("hanabi-p2p: error:")


def test_buffered_output_and_exit_handlers_are_not_lost() -> None:
    done = run_python("""
        import atexit, sys
        from hanabi_p2p.entry import leave
        atexit.register(lambda: print("exit handler ran"))
        sys.stdout.write("".join(f"line {i}\\n" for i in range(20000)))
        print("to stderr", file=sys.stderr)
        leave(3)
    """)
    lines = done.stdout.splitlines()
    assert done.returncode == 3
    assert lines[:-1] == [f"line {i}" for i in range(20000)]
    assert lines[-1] == "exit handler ran" and done.stderr == "to stderr\n"


def test_a_thread_still_running_is_waited_for() -> None:
    done = run_python("""
        import threading, time
        from hanabi_p2p.entry import leave
        def late():
            time.sleep(0.2)
            print("the thread finished")
        threading.Thread(target=late).start()
        leave(4)
    """)
    assert (done.returncode, done.stdout) == (4, "the thread finished\n")


def test_a_closed_pipe_does_not_turn_into_an_error() -> None:
    """Output still buffered when the reader has gone (`| head`): nothing on stderr (a
    normal exit would print "Exception ignored ... BrokenPipeError")."""
    writer = ("import time; from hanabi_p2p.entry import leave; time.sleep(0.3); "
              "print('x' * 100); leave(0)")
    buffered = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    done = subprocess.run(f"{sys.executable} -c \"{writer}\" | true", shell=True, env=buffered,
                          capture_output=True, text=True, timeout=60, check=False)
    assert (done.returncode, done.stderr) == (0, "")
