"""Files handed to a user (issue 31, case 4): every file a command reads is read as a regular
file within a cap, or refused in one line with exit status 2, in bounded time and memory.

Each case is a real CLI run in its own process: a FIFO that blocked would block the test
runner itself, and the time and memory of one command are measured as the process's own
(`process_time`, the peak resident size `VmHWM`), so that a busy machine does not make the
bounds flaky.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from hanabi_p2p.commands.replay import MAX_FILE_BYTES
from hanabi_p2p.datadir import DataDir
from hanabi_p2p.log.storage import MAGIC, MAX_GAME_RECORDS, GameHeader, encode_record

pytestmark = pytest.mark.process

# Runs one command and reports, on stderr's last line, its exit status and what it cost.
MEASURED = """
import sys, time
from hanabi_p2p import cli
start = time.process_time()
code = cli.main(sys.argv[1:])
cpu = time.process_time() - start
# the peak of this program's own memory (ru_maxrss would keep the forking parent's)
status = open("/proc/self/status").read().split("VmHWM:")[1].split()
rss = int(status[0]) // 1024
print(f"MEASURED {code} {cpu:.3f} {rss}", file=sys.stderr)
sys.exit(code)
"""
TIMEOUT = 30  # a command that blocks (a FIFO) or reads for ever (a device) fails here
MAX_CPU_SECONDS = 1.0
MAX_RSS_MIB = 100
TABLE = "ab" * 16


class Run:
    def __init__(self, proc: subprocess.CompletedProcess[str]) -> None:
        lines = proc.stderr.splitlines()
        measured = [line for line in lines if line.startswith("MEASURED ")]
        assert measured, proc.stderr[-2000:]  # (no traceback, and the command did end)
        _, code, cpu, rss = measured[-1].split()
        self.code, self.cpu, self.rss_mib = int(code), float(cpu), int(rss)
        self.errors = [line for line in lines if not line.startswith("MEASURED ")]
        self.out = proc.stdout


def run(*argv: str, cwd: Path) -> Run:
    proc = subprocess.run([sys.executable, "-c", MEASURED, *argv], cwd=cwd, text=True,
                          capture_output=True, timeout=TIMEOUT, stdin=subprocess.DEVNULL,
                          check=False)
    return Run(proc)


def assert_refused(result: Run, *words: str) -> None:
    """One line, exit 2, naming why; within the time and memory bounds."""
    assert result.code == 2, result.errors
    assert len(result.errors) == 1, result.errors
    assert result.errors[0].startswith("hanabi-p2p "), result.errors
    # the command it is about, then error (`hanabi-p2p log verify: error:`, `replay`)
    assert ": error: " in result.errors[0], result.errors
    for word in words:
        assert word in result.errors[0], result.errors
    assert result.cpu <= MAX_CPU_SECONDS and result.rss_mib <= MAX_RSS_MIB


def junk_log(path: Path, records: int, payload: bytes = b"\x01") -> Path:
    """A game log header followed by `records` well-framed records of junk."""
    header = MAGIC + encode_record(GameHeader(bytes.fromhex(TABLE), 1, "junk").encode())
    path.write_bytes(header + encode_record(payload) * records)
    return path


def data_dir_with(tmp_path: Path) -> tuple[Path, Path]:
    root = tmp_path / "data"
    games = DataDir(root).ensure().games_dir
    games.mkdir(mode=0o700, exist_ok=True)
    return root, games


# ---------------------------------------------------------------------------- named files


@pytest.mark.parametrize("command", [("log", "verify"), ("log", "show"), ("replay",),
                                     ("replay", "--json")])
def test_a_device_named_as_the_file_is_refused(tmp_path: Path, command: tuple[str, ...]) -> None:
    assert_refused(run(*command, "/dev/zero", cwd=tmp_path), "/dev/zero", "a device")


@pytest.mark.parametrize("command", [("log", "verify"), ("log", "show"), ("replay",)])
def test_a_fifo_named_as_the_file_is_refused(tmp_path: Path, command: tuple[str, ...]) -> None:
    os.mkfifo(tmp_path / "game.hlog")
    assert_refused(run(*command, "game.hlog", cwd=tmp_path), "FIFO")


@pytest.mark.parametrize("command", [("log", "verify"), ("replay",)])
def test_a_symbolic_link_named_as_the_file_is_refused(tmp_path: Path,
                                                      command: tuple[str, ...]) -> None:
    target = junk_log(tmp_path / "real.hlog", 1)
    (tmp_path / "link.hlog").symlink_to(target)
    assert_refused(run(*command, "link.hlog", cwd=tmp_path), "symbolic link")


def test_a_10_mb_log_of_junk_records_costs_under_a_second(tmp_path: Path) -> None:
    # the file: a million tiny records (it cost 35 s and 782 MiB)
    junk_log(tmp_path / "junk.hlog", 1_000_000, b"\x01" * 2)
    assert (tmp_path / "junk.hlog").stat().st_size > 10_000_000
    for command in ("verify", "show"):
        assert_refused(run("log", command, "junk.hlog", cwd=tmp_path), "larger than any game log")


def test_a_log_of_too_many_records_is_refused_under_the_size_cap(tmp_path: Path) -> None:
    junk_log(tmp_path / "junk.hlog", MAX_GAME_RECORDS + 1)
    assert_refused(run("log", "verify", "junk.hlog", cwd=tmp_path), "more records")


def test_a_log_of_junk_under_both_caps_is_checked_in_bounded_time(tmp_path: Path) -> None:
    junk_log(tmp_path / "junk.hlog", MAX_GAME_RECORDS - 1, os.urandom(400))
    result = run("log", "verify", "junk.hlog", cwd=tmp_path)
    assert result.code == 1  # a damaged log: the verdict says so
    assert result.cpu <= MAX_CPU_SECONDS and result.rss_mib <= MAX_RSS_MIB


# ---------------------------------------------------------------------------- games/


def test_a_fifo_in_games_is_listed_unreadable_not_waited_for(tmp_path: Path) -> None:
    root, games = data_dir_with(tmp_path)
    os.mkfifo(games / f"{TABLE}.hlog")
    listed = run("log", "list", "--data-dir", str(root), cwd=tmp_path)
    assert listed.code == 0 and listed.errors == []
    assert "unreadable" in listed.out and "FIFO" in listed.out
    assert_refused(run("log", "verify", TABLE[:6], "--data-dir", str(root), cwd=tmp_path),
                   "FIFO")


def test_a_symbolic_link_in_games_is_not_followed(tmp_path: Path) -> None:
    root, games = data_dir_with(tmp_path)
    (games / f"{TABLE}.hlog").symlink_to("/dev/zero")
    other = "cd" * 16
    (games / f"{other}.hlog").symlink_to(junk_log(tmp_path / "elsewhere.hlog", 3))
    listed = run("log", "list", "--data-dir", str(root), cwd=tmp_path)
    assert listed.code == 0 and listed.errors == []
    assert listed.out.count("unreadable") == 2 and listed.out.count("symbolic link") == 2
    assert_refused(run("log", "show", other[:6], "--data-dir", str(root), cwd=tmp_path),
                   "symbolic link")


def test_a_fifo_as_the_cached_verdict_is_ignored(tmp_path: Path) -> None:
    root, games = data_dir_with(tmp_path)
    junk_log(games / f"{TABLE}.hlog", 2, os.urandom(40))
    os.mkfifo(games / f"{TABLE}.hlog.verdict")
    listed = run("log", "list", "--data-dir", str(root), cwd=tmp_path)
    assert listed.code == 0 and "INVALID" in listed.out


# ---------------------------------------------------------------------------- hanab.live


@pytest.mark.parametrize("flags", [(), ("--json",), ("--interactive",)])
def test_a_100000_digit_integer_in_a_hanablive_file_is_one_line(tmp_path: Path,
                                                               flags: tuple[str, ...]) -> None:
    game = {"players": ["a", "b"], "deck": [{"suitIndex": 0, "rank": 1}], "actions": []}
    text = json.dumps(game).replace('"rank": 1', '"rank": ' + "7" * 100_000)
    (tmp_path / "game.json").write_text(text)
    assert_refused(run("replay", *flags, "game.json", cwd=tmp_path), "100,000 digits")


def test_a_hanablive_file_over_the_cap_is_refused_unread(tmp_path: Path) -> None:
    (tmp_path / "game.json").write_bytes(b" " * (MAX_FILE_BYTES + 1))
    assert_refused(run("replay", "game.json", cwd=tmp_path), "larger than any game file")


def test_a_hanablive_file_of_empty_objects_under_the_cap_costs_little(tmp_path: Path) -> None:
    # JSON costs far more in memory than on disk: 4.8 MB of `{}` once took 140 MiB
    count = (MAX_FILE_BYTES - 100) // 3
    text = '{"players": ["a", "b"], "deck": [' + ",".join(["{}"] * count) + '], "actions": []}'
    (tmp_path / "game.json").write_text(text)
    assert (tmp_path / "game.json").stat().st_size <= MAX_FILE_BYTES
    assert_refused(run("replay", "game.json", cwd=tmp_path), "deck[0]")
