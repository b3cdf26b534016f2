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
import time
import venv
from pathlib import Path

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
    step(f"installing hanabi-p2p, its libraries (zeroconf, cryptography, PyNaCl, "
         f"prompt_toolkit, ...){tools}",
         [*pip, "-e", f"{ROOT}[dev]" if full else str(ROOT)])
    STAMP.write_text(f"{wanted} {WITH_DEV if full else PLAY_ONLY}")
    print(f"  ready in {time.monotonic() - started:.0f} s", file=sys.stderr, flush=True)


def run(*argv: str) -> int:
    return subprocess.run(list(argv), cwd=ROOT, check=False).returncode


# Processes for the in-memory tests of the whole suite (the machines it runs on have 2 cores).
IN_MEMORY_WORKERS = 2


def test(extra: list[str]) -> int:
    """pytest, ruff and mypy; every argument goes to pytest, `--fast` too (tests/conftest.py:
    only the tests that stay in memory, see tests/tiers.py)."""
    setup()
    pytest = [str(PY), "-m", "pytest"]
    if "--fast" in extra:
        # the in-memory tier alone, on every core
        runs = [[*pytest, "-n", str(IN_MEMORY_WORKERS), *extra]]
    elif extra:
        runs = [[*pytest, *extra]]
    else:
        # the whole suite, as CI runs it: the tests that stay in memory on every core
        # (pytest-xdist), then those that reach outside the process one at a time (real
        # processes, sockets and namespaces keep their timing when nothing competes)
        runs = [[*pytest, "-m", "not real_io", "-n", str(IN_MEMORY_WORKERS)],
                [*pytest, "-m", "real_io"]]
    steps = [
        *runs,
        [str(PY), "-m", "ruff", "check", "hanabi_p2p", "tests", "bench", "tasks.py"],
        [str(PY), "-m", "mypy"],
    ]
    failed = []
    for step in steps:
        print("$", " ".join(step[2:] if step[0] == str(PY) else step), flush=True)
        if run(*step) != 0:
            failed.append(step[2])
    if failed:
        print(f"FAILED: {', '.join(failed)}", flush=True)
        return 1
    tier = " (fast tier only: `python3 tasks.py test` before a commit)" if "--fast" in extra else ""
    print(f"all checks passed: pytest{tier}, ruff, mypy", flush=True)
    return 0


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
