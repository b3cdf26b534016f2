"""A friend installs the game in one command: `python -m build` makes a wheel and an sdist
(the wheel built from the sdist, so the sdist is complete too), and the wheel installed in a
fresh virtual environment gives a `hanabi-p2p` that plays a practice game."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import venv
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent


def run(*argv: str | Path, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    done = subprocess.run([str(arg) for arg in argv], capture_output=True, text=True,
                          timeout=timeout, check=False)
    assert done.returncode == 0, f"{argv}:\n{done.stdout}\n{done.stderr}"
    return done


@pytest.mark.slow
@pytest.mark.process
@pytest.mark.timeout(900)
def test_the_built_wheel_installs_in_a_fresh_venv_and_plays(tmp_path: Path) -> None:
    if importlib.util.find_spec("build") is None:
        pytest.skip("the developer tools (build) are not installed: python3 tasks.py setup")
    dist = tmp_path / "dist"
    # (the build's own environment and the wheel's dependencies come from the pip cache, or
    # the package index)
    run(sys.executable, "-m", "build", "--outdir", dist, ROOT)
    (wheel,) = dist.glob("hanabi_p2p-*-py3-none-any.whl")
    (sdist,) = dist.glob("hanabi_p2p-*.tar.gz")
    assert sdist.stat().st_size > 0
    fresh = tmp_path / "fresh"
    venv.EnvBuilder(with_pip=True).create(fresh)
    bin_dir = fresh / ("Scripts" if os.name == "nt" else "bin")
    # (--no-compile: byte-compiling the libraries is pip's work, not the wheel's, and costs
    # this test seconds of CPU; the program compiles what it imports when it first runs)
    run(bin_dir / "python", "-m", "pip", "install", "--quiet", "--disable-pip-version-check",
        "--no-compile", wheel)
    program = bin_dir / "hanabi-p2p"
    from hanabi_p2p import __version__

    assert run(program, "--version").stdout == f"hanabi-p2p {__version__}\n"
    played = run(program, "play", "--bot", "--players", "2", "--bot-delay", "0",
                 "--data-dir", tmp_path / "data", timeout=120)
    assert "deck audit: valid" in played.stdout
    # the bundled example and the translations came with the wheel
    assert "Game over" in run(program, "replay").stdout
    assert run(program, "rules", "--lang", "it").stdout != run(program, "rules").stdout
