"""rbcl writes a 2.7 MB copy of libsodium (tmpXXXX.so) at every import and never removes it;
a process killed right after loading the deck's group, or even between rbcl's write and our
removal of it, leaves none behind (the next start removes what a killed one could not)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(os.name != "posix", reason="kills with SIGKILL")

LOAD_THEN_WAIT = """
import sys
from hanabi_p2p.deck import group
group.load_library()
print("loaded", flush=True)
sys.stdin.read()
"""
# Killed by the loader itself the moment rbcl has loaded its file: before anything of ours
# could remove it (the worst moment to be killed).
KILLED_IN_BETWEEN = """
import ctypes, os, signal
real = ctypes.cdll.LoadLibrary
def load_then_die(name):
    real(name)
    os.kill(os.getpid(), signal.SIGKILL)
ctypes.cdll.LoadLibrary = load_then_die
from hanabi_p2p.deck import group
group.load_library()
"""
LOAD_AND_USE = """
from hanabi_p2p.deck.group import RISTRETTO255, scalar_from_int
assert RISTRETTO255.base_mul(scalar_from_int(1)) == RISTRETTO255.base_point
"""


def run_with_tmp(tmp: Path, code: str, **kwargs: object) -> subprocess.Popen[str]:
    env = {**os.environ, "TMPDIR": str(tmp)}
    return subprocess.Popen([sys.executable, "-c", code], env=env, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, **kwargs)  # type: ignore[call-overload]


def libraries(tmp: Path) -> list[Path]:
    return sorted(tmp.rglob("tmp*.so"))


@pytest.mark.process
def test_a_process_killed_right_after_loading_leaves_no_library(tmp_path: Path) -> None:
    process = run_with_tmp(tmp_path, LOAD_THEN_WAIT)
    assert process.stdout is not None and process.stdout.readline() == "loaded\n"
    process.kill()
    process.wait(timeout=30)
    assert libraries(tmp_path) == []
    assert list(tmp_path.iterdir()) == []  # nor the directory it was written to


@pytest.mark.process
def test_what_a_process_killed_mid_import_left_is_removed_by_the_next(tmp_path: Path) -> None:
    killed = run_with_tmp(tmp_path, KILLED_IN_BETWEEN)
    assert killed.wait(timeout=30) == -signal.SIGKILL
    (left,) = libraries(tmp_path)  # the window is real: the copy is there
    assert left.parent.name.startswith(f"hanabi-p2p-sodium-{killed.pid}-")
    following = run_with_tmp(tmp_path, LOAD_AND_USE)
    following.communicate("", timeout=30)
    assert following.returncode == 0
    assert libraries(tmp_path) == [] and list(tmp_path.iterdir()) == []


def test_a_running_processs_library_directory_is_left_alone(tmp_path: Path) -> None:
    """Another hanabi-p2p may be between rbcl's write and its load: only the directories of
    processes that are gone are removed."""
    from hanabi_p2p.sodium_library import LEFTOVER_PREFIX, remove_leftovers

    running = tmp_path / f"{LEFTOVER_PREFIX}{os.getppid()}-abc"
    running.mkdir()
    (running / "tmpabc.so").write_bytes(b"library")
    remove_leftovers(tmp_path)
    assert (running / "tmpabc.so").exists()
