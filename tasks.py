#!/usr/bin/env python3
"""Set-up and everyday tasks, needing nothing but python3 (3.11+).

    python3 tasks.py play     # create .venv if needed, then play against computer players
    python3 tasks.py test     # create .venv if needed, then pytest + ruff + mypy
    python3 tasks.py test --fast  # the same with only the fast tier of pytest (in memory)
    python3 tasks.py setup    # only create/refresh .venv (with the developer tools)

`play` installs only what playing needs; `test` (and `setup`) add the developer tools
(pytest, hypothesis, ruff, mypy). The virtual environment is refreshed whenever
pyproject.toml changes or more is needed (a hash of it and what was installed are kept in
.venv/.pyproject-hash), so a `git pull` never leaves stale dependencies behind.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import tempfile
import time
import venv
from pathlib import Path
from typing import IO

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / "python"
STAMP = VENV / ".pyproject-hash"


def _pyproject_hash() -> str:
    return hashlib.sha256((ROOT / "pyproject.toml").read_bytes()).hexdigest()


# What an environment holds: the game alone, or the game and the developer tools.
PLAY_ONLY = "play"
WITH_DEV = "dev"


def _installed() -> tuple[str, str]:
    """(pyproject hash, what was installed) of the current .venv, or empty strings."""
    if not (PY.exists() and STAMP.exists()):
        return "", ""
    digest, _sep, kind = STAMP.read_text().strip().partition(" ")
    # a stamp from before this distinction only ever came from a full install
    return digest, kind or WITH_DEV


def setup(dev: bool = True) -> None:
    """Make .venv hold the game, and the developer tools when `dev`. Each step is said as it
    starts; pip's and setuptools' own output (warnings a player need not read) is shown only
    when a step fails."""
    if sys.version_info < (3, 11):  # noqa: UP036 (tasks.py runs before the venv exists)
        sys.exit(f"hanabi-p2p needs Python 3.11 or newer; this is {sys.version.split()[0]}")
    wanted = _pyproject_hash()
    digest, kind = _installed()
    if digest == wanted and (kind == WITH_DEV or not dev):
        return
    # a full environment stays full when refreshed for play
    full = dev or kind == WITH_DEV
    started = time.monotonic()
    first = not PY.exists()
    print(f"{'setting up' if first else 'refreshing'} .venv for hanabi-p2p "
          f"({'about 30 s, once' if first else 'pyproject.toml changed'}):", file=sys.stderr,
          flush=True)

    def step(what: str, argv: list[str] | None = None) -> None:
        print(f"  {what} ...", file=sys.stderr, flush=True)
        if argv is None:
            return
        done = subprocess.run(argv, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            sys.stderr.write((done.stdout or "") + (done.stderr or ""))
            sys.exit(f"set-up failed while {what} (pip's output is above)")

    if first:
        step("creating the virtual environment .venv")
        venv.EnvBuilder(with_pip=True).create(VENV)
    pip = [str(PY), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    step("updating pip", [*pip, "--upgrade", "pip"])
    tools = " and the developer tools (pytest, ruff, mypy)" if full else ""
    # --no-compile: pip would compile every installed file (mypy's, hypothesis', ...: about
    # half the install's CPU) into __pycache__ folders that `test` never reads, as its runs
    # keep their bytecode in .venv/pycache (test_environment); Python compiles what a
    # command imports the first time it runs instead
    step(f"installing hanabi-p2p, its libraries (zeroconf, cryptography, PyNaCl, "
         f"prompt_toolkit, ...){tools}",
         [*pip, "--no-compile", "-e", f"{ROOT}[dev]" if full else str(ROOT)])
    STAMP.write_text(f"{wanted} {WITH_DEV if full else PLAY_ONLY}")
    print(f"  ready in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


def run(*argv: str, env: dict[str, str] | None = None) -> int:
    if argv[0] == str(PY):
        print("$", " ".join(argv[2:]), flush=True)
    return subprocess.run(list(argv), cwd=ROOT, env=env, check=False).returncode


# Processes for the in-memory tests of the whole suite (the machines it runs on have 2 cores).
IN_MEMORY_WORKERS = 2
# Processes for the tests that reach outside the process: mostly they wait (for peers to
# deal and play, for timeouts, for mDNS), so more of them than cores keeps both cores busy.
# Tests sharing something (a name, a port) say so with `xdist_group` and run on one worker.
REAL_IO_WORKERS = 4


def test_environment() -> dict[str, str]:
    """The environment of every step: compiled bytecode kept in .venv, never next to the
    sources. Each pytest process (one per worker) and each program a test starts would
    otherwise compile the tests (and their assertion rewriting) and the game again, several
    seconds of CPU each, when PYTHONDONTWRITEBYTECODE is set."""
    env = dict(os.environ)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env["PYTHONPYCACHEPREFIX"] = str(VENV / "pycache")
    return env


def plan(extra: list[str]) -> tuple[list[list[str]], list[list[str]]]:
    """What `test EXTRA...` runs: the pytest runs, one after the other, and the checks (ruff,
    mypy), which run alongside them (see `test`)."""
    pytest = [str(PY), "-m", "pytest"]
    if "--fast" in extra:
        # the in-memory tier alone, on every core
        runs = [[*pytest, "-n", str(IN_MEMORY_WORKERS), *extra]]
    elif extra:
        runs = [[*pytest, *extra]]
    else:
        # the whole suite, as CI runs it: the tests that stay in memory on every core
        # (pytest-xdist); then those that reach outside the process, several at a time as
        # they mostly wait (`--dist loadgroup` keeps an xdist_group on one worker); then,
        # one at a time, those that flood or measure the machine (marked `alone`)
        runs = [[*pytest, "-m", "not real_io", "-n", str(IN_MEMORY_WORKERS)],
                [*pytest, "-m", "real_io and not alone", "-n", str(REAL_IO_WORKERS),
                 "--dist", "loadgroup"],
                [*pytest, "-m", ALONE_ONLY]]
    checks = [
        [str(PY), "-m", "ruff", "check", "hanabi_p2p", "tests", "bench", "tasks.py"],
        [str(PY), "-m", "mypy"],
    ]
    return runs, checks


# The whole suite's last run; it may find no test, as pytest then says with this status.
ALONE_ONLY = "real_io and alone"
NO_TESTS_COLLECTED = 5


def test(extra: list[str]) -> int:
    """pytest, ruff and mypy; every argument goes to pytest, `--fast` too (tests/conftest.py:
    only the tests that stay in memory, see tests/tiers.py)."""
    setup()
    runs, checks = plan(extra)
    env = test_environment()
    # ruff and mypy (half a minute of CPU for mypy on a fresh clone) check alongside the
    # real-IO tests that run several at a time, which mostly wait (in the whole suite), or
    # alongside the only pytest run; their output is shown at the end
    checks_with = 1 if len(runs) > 1 else 0
    background: list[tuple[list[str], tuple[subprocess.Popen[bytes], IO[bytes]]]] = []
    failed = []
    for i, step in enumerate(runs):
        if i == checks_with:
            background = [(check, start_quietly(check, env)) for check in checks]
        status = run(*step, env=env)
        if status != 0 and not (status == NO_TESTS_COLLECTED and ALONE_ONLY in step):
            failed.append(step[2])
    for step, (process, output) in background:
        status = process.wait()
        print("$", " ".join(step[2:]), flush=True)
        with output:
            output.seek(0)
            sys.stdout.write(output.read().decode(errors="replace"))
        sys.stdout.flush()
        if status != 0:
            failed.append(step[2])
    if failed:
        print(f"FAILED: {', '.join(dict.fromkeys(failed))}", flush=True)
        return 1
    tier = " (fast tier only: `python3 tasks.py test` before a commit)" if "--fast" in extra else ""
    print(f"all checks passed: pytest{tier}, ruff, mypy", flush=True)
    return 0


def start_quietly(argv: list[str], env: dict[str, str]) -> tuple[subprocess.Popen[bytes],
                                                                 IO[bytes]]:
    """Start `argv` with its output kept in a temporary file, to be shown when it is done."""
    output = tempfile.TemporaryFile()  # noqa: SIM115 (closed by the caller once shown)
    process = subprocess.Popen(argv, cwd=ROOT, env=env, stdout=output, stderr=subprocess.STDOUT)
    return process, output


def play(extra: list[str]) -> int:
    setup(dev=False)
    return run(str(BIN / "hanabi-p2p"), "play", *extra)


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] not in {"setup", "test", "play"}:
        print(__doc__)
        return 2
    task, extra = sys.argv[1], sys.argv[2:]
    if task == "setup":
        setup()
        return 0
    if task == "test":
        return test(extra)
    return play(extra)


if __name__ == "__main__":
    sys.exit(main())
