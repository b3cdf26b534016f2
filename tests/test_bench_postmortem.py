"""The benchmarks' harness when a run goes wrong: bench/against.py reports a script that
failed though a process it left running holds its output, and bench/postmortem.py keeps
where a wrapped program waits, then ends it with its wrapper (issue 33: a meet-up run that
failed in its first minute looked like a hang of 600 s, with nothing left to read)."""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
import sys
import textwrap
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

BENCH = Path(__file__).resolve().parents[1] / "bench"
sys.path.insert(0, str(BENCH))

import against  # noqa: E402
from postmortem import Postmortem, Tracked, stacks_env  # noqa: E402

pytestmark = pytest.mark.process

LEFT_RUNNING_S = 60  # how long the process a failed script leaves behind would live


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat[stat.rindex(")") + 2] != "Z"


@pytest.fixture
def left_behind(tmp_path: Path) -> Iterator[Path]:
    """A file where a test's scripts write the PIDs of what they leave running; each is
    ended after the test."""
    pids = tmp_path / "pids"
    yield pids
    for line in pids.read_text().split() if pids.exists() else []:
        with contextlib.suppress(ProcessLookupError):
            os.kill(int(line), signal.SIGKILL)


def test_a_failed_script_is_reported_at_once_though_a_process_it_left_holds_its_output(
        tmp_path: Path, left_behind: Path) -> None:
    # the script's child inherits its output, as a seat of bench/meetup.py did
    (tmp_path / "script.py").write_text(textwrap.dedent(f"""
        import subprocess, sys
        child = subprocess.Popen(["sleep", "{LEFT_RUNNING_S}"])
        open({str(left_behind)!r}, "a").write(f"{{child.pid}}\\n")
        sys.exit("a spectator never printed its line")
    """))
    started = time.monotonic()
    with pytest.raises(SystemExit) as failed:
        against.run_once(tmp_path, ["script.py"])
    assert time.monotonic() - started < LEFT_RUNNING_S / 3
    assert "a spectator never printed its line" in str(failed.value)
    assert "exit 1" in str(failed.value)


def test_a_wrapped_program_is_kept_where_it_waits_and_ended_with_its_wrapper(
        tmp_path: Path, left_behind: Path) -> None:
    program = textwrap.dedent(f"""
        import asyncio, os
        async def waiting_for_a_spectator():
            await asyncio.Event().wait()
        async def main():
            open({str(left_behind)!r}, "a").write(f"{{os.getpid()}}\\n")
            await asyncio.create_task(waiting_for_a_spectator(), name="lobby")
        asyncio.run(main())
    """)
    # the wrapper starts the program and waits for it, as bench/cpusample.py does
    wrapper = ("import subprocess, sys\n"
               f"sys.exit(subprocess.call([sys.executable, '-c', {program!r}]))")
    workdir = tmp_path / "run"
    (workdir / "seat0").mkdir(parents=True)
    (workdir / "seat0" / "game.hlog").write_text("the game so far")
    mortem = Postmortem(workdir, workdir / "stacks", [], tmp_path / "kept")
    env = {**os.environ, **stacks_env(mortem.stacks, os.environ.get("PYTHONPATH", ""))}
    popen = subprocess.Popen([sys.executable, "-c", wrapper], env=env, text=True)
    mortem.track(Tracked("seat0", popen, "", lines=lambda: ["seat0's last line"]))
    deadline = time.monotonic() + 30
    while not (left_behind.exists() and left_behind.read_text().strip()):
        assert time.monotonic() < deadline, "the program never started"
        time.sleep(0.05)
    program_pid = int(left_behind.read_text().split()[0])

    kept = mortem.keep("the run passed its --timeout")

    summary = (kept / "summary.txt").read_text()
    assert "why: the run passed its --timeout" in summary
    assert "seat0 has not finished" in summary
    assert f"pid {program_pid}:" in summary
    assert "lobby: awaits at" in summary and "waiting_for_a_spectator" in summary
    assert (kept / "output" / "seat0.txt").read_text() == "seat0's last line\n"
    assert (kept / "files" / "seat0" / "game.hlog").read_text() == "the game so far"
    assert any(path.name == f"{program_pid}.threads.txt" for path in (kept / "stacks").iterdir())

    mortem.kill_all()
    assert popen.poll() is not None
    deadline = time.monotonic() + 10
    while _alive(program_pid):
        assert time.monotonic() < deadline, "the wrapped program outlived its wrapper"
        time.sleep(0.05)
