"""Every laptop at the table runs it: without the POSIX-only names Windows lacks (`fcntl`,
`os.O_NOFOLLOW`, `os.geteuid`, `os.getuid`) the whole program starts, plays a practice game
and checks its log, saying once what it cannot guarantee there; the no-follow open keeps
refusing links without the flag."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from hanabi_p2p import portable
from hanabi_p2p.datadir import DataDir
from hanabi_p2p.errors import UserError
from hanabi_p2p.log.storage import GameFile, open_game

TABLE = bytes(range(16))
POSIX_ONLY = ("O_NOFOLLOW", "geteuid", "getuid")

# Run before hanabi_p2p is imported: the names are gone as they are on Windows (an import of
# fcntl fails, the os attributes do not exist), then the command line runs as installed.
AS_ON_WINDOWS = f"""
import os, sys
sys.modules["fcntl"] = None
for name in {POSIX_ONLY!r}:
    if hasattr(os, name):
        delattr(os, name)
from hanabi_p2p.cli import main
sys.exit(main(sys.argv[1:]))
"""


def without_posix_names(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-c", AS_ON_WINDOWS, *argv], capture_output=True,
                          text=True, timeout=120, check=False)


@pytest.mark.slow
@pytest.mark.process
def test_the_whole_cli_plays_and_checks_a_practice_game_without_posix_only_names(
        tmp_path: Path) -> None:
    data = str(tmp_path / "data")
    played = without_posix_names("play", "--bot", "--players", "2", "--bot-delay", "0",
                                 "--data-dir", data)
    assert played.returncode == 0, played.stderr
    assert "deck audit: valid" in played.stdout
    # what cannot be guaranteed is said, once each, not once per file opened
    notes = [line for line in played.stderr.splitlines() if "note:" in line]
    cannot = [portable.NO_OWNER] + ([] if sys.platform == "win32" else [portable.NO_LOCK])
    assert notes == [f"hanabi-p2p: note: {text}" for text in cannot]  # (Windows: msvcrt)
    (game,) = DataDir(Path(data)).game_files()
    verified = without_posix_names("log", "verify", game.stem, "--data-dir", data)
    assert verified.returncode == 0, verified.stderr
    assert verified.stdout.startswith("valid: 2 players")
    listed = without_posix_names("log", "list", "--data-dir", data)
    assert listed.returncode == 0 and game.stem[:8] in listed.stdout


@pytest.fixture
def no_nofollow(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delattr(os, "O_NOFOLLOW", raising=False)


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need a privilege")
@pytest.mark.usefixtures("no_nofollow")
def test_without_o_nofollow_a_planted_link_is_still_refused(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data").ensure()
    attacker = tmp_path / "attacker.hlog"
    original, _ = open_game(DataDir(tmp_path / "other"), TABLE, created=1)
    original.close()
    attacker.write_bytes(original.path.read_bytes())
    before = attacker.read_bytes()
    data.game_path(TABLE).symlink_to(attacker)
    with pytest.raises(UserError, match="symbolic link"):
        open_game(data, TABLE, created=1)
    assert attacker.read_bytes() == before


@pytest.mark.usefixtures("no_nofollow")
def test_without_o_nofollow_a_file_is_opened(tmp_path: Path) -> None:
    path = tmp_path / "game.hlog"
    GameFile.create(path, TABLE, created=0).close()
    with GameFile.open(path)[0] as game:
        assert game.header.table_id == TABLE


@pytest.mark.usefixtures("no_nofollow")
def test_without_o_nofollow_a_link_swapped_in_after_the_look_is_refused(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The file opened must be the one the path names when it is looked at again."""
    real, elsewhere = tmp_path / "real", tmp_path / "elsewhere"
    real.write_bytes(b"ours")
    elsewhere.write_bytes(b"theirs")
    opened = os.open

    def swap_then_open(path: str | os.PathLike[str], flags: int, mode: int = 0o777) -> int:
        fd = opened(elsewhere, flags, mode)  # as if a link had been put in between
        return fd

    monkeypatch.setattr(os, "open", swap_then_open)
    with pytest.raises(OSError, match="symbolic link"):
        portable.open_no_follow(real, os.O_RDONLY)


@pytest.mark.skipif(sys.platform == "win32", reason="Windows locks with msvcrt")
def test_a_system_that_cannot_lock_plays_on_after_one_notice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setitem(sys.modules, "fcntl", None)
    monkeypatch.setattr(portable, "_said", set())
    path = tmp_path / "game.hlog"
    GameFile.create(path, TABLE, created=0).close()
    for _ in range(2):
        with GameFile.open(path)[0] as game:
            assert game.header.table_id == TABLE
    assert capsys.readouterr().err == f"hanabi-p2p: note: {portable.NO_LOCK}\n"


def test_a_system_without_owners_checks_none_after_one_notice(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
        capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delattr(os, "geteuid", raising=False)
    monkeypatch.setattr(portable, "_said", set())
    data = DataDir(tmp_path / "data")
    game, _ = open_game(data, TABLE, created=1)
    game.close()
    assert data.secure() == []
    assert capsys.readouterr().err == f"hanabi-p2p: note: {portable.NO_OWNER}\n"
