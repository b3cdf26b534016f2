"""Files at rest: a game log is never written through a link or into another user's file, and
a data directory others can write is tightened (ours) or reported (not ours)."""

from __future__ import annotations

import os
import stat
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import pytest

from hanabi_p2p import cli
from hanabi_p2p.commands import host as host_command
from hanabi_p2p.datadir import DataDir
from hanabi_p2p.errors import UserError
from hanabi_p2p.log.storage import MAGIC, open_game

TABLE = bytes(range(16))
NOBODY = 65534


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def needs_root() -> None:
    if getattr(os, "geteuid", lambda: -1)() != 0:
        pytest.skip("giving a file to another user needs root")


# Windows' mode bits say nothing of who may write (its access lists do), and making a
# symbolic link there needs a privilege: these tests are of POSIX systems
posix_modes = pytest.mark.skipif(os.name == "nt", reason="POSIX permission bits")
posix_links = pytest.mark.skipif(os.name == "nt", reason="symbolic links need a privilege")


# -- the game log ---------------------------------------------------------------------------


def test_a_game_log_is_created_then_reopened(tmp_path: Path) -> None:
    data = DataDir(tmp_path)
    game, loaded = open_game(data, TABLE, created=1, name="Friday")
    game.close()
    again, loaded = open_game(data, TABLE, created=2)
    again.close()
    assert loaded.header.name == "Friday" and loaded.ok


@posix_links
def test_planted_link_as_the_game_log_is_refused(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data").ensure()
    attacker = tmp_path / "attacker.hlog"
    original, _ = open_game(DataDir(tmp_path / "other"), TABLE, created=1)
    original.close()
    attacker.write_bytes(original.path.read_bytes())  # a valid log, so only the link is wrong
    before = attacker.read_bytes()
    data.game_path(TABLE).symlink_to(attacker)
    with pytest.raises(UserError, match="symbolic link"):
        open_game(data, TABLE, created=1)
    assert attacker.read_bytes() == before


@posix_links
def test_dangling_link_as_the_game_log_is_refused(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data").ensure()
    target = tmp_path / "would-be-created.hlog"
    data.game_path(TABLE).symlink_to(target)
    with pytest.raises(UserError, match="symbolic link"):
        open_game(data, TABLE, created=1)
    assert not target.exists()


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no named pipes in the file system")
def test_a_fifo_as_the_game_log_is_refused(tmp_path: Path) -> None:
    data = DataDir(tmp_path).ensure()
    os.mkfifo(data.game_path(TABLE))
    with pytest.raises(UserError, match="not a regular file"):
        open_game(data, TABLE, created=1)


def test_another_users_game_log_is_refused(tmp_path: Path) -> None:
    needs_root()
    data = DataDir(tmp_path)
    game, _ = open_game(data, TABLE, created=1)
    game.close()
    os.chown(game.path, NOBODY, NOBODY)
    with pytest.raises(UserError, match="another user"):
        open_game(data, TABLE, created=1)
    assert game.path.read_bytes().startswith(MAGIC)


# -- directories others can write -----------------------------------------------------------


@posix_modes
def test_our_world_writable_directories_are_tightened(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data").ensure()
    os.chmod(data.root, 0o777)
    os.chmod(data.games_dir, 0o775)
    warnings = data.secure()
    assert mode(data.root) == 0o755 and mode(data.games_dir) == 0o755
    assert len(warnings) == 2
    assert str(data.root) in warnings[0] and "0777" in warnings[0] and "0755" in warnings[0]
    assert str(data.games_dir) in warnings[1]
    assert data.secure() == []  # said once: nothing left to change


@posix_modes
def test_a_read_only_file_system_is_no_writable_directory(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # a data dir on a read-only mount (mode 1777, as a tmpfs root is) was reported as
    # "can be written by other users ... fix it with: chmod go-w", which cannot be done
    import errno

    data = DataDir(tmp_path / "data").ensure()
    os.chmod(data.root, 0o777)

    def read_only(path: object, mode: int) -> None:
        raise OSError(errno.EROFS, "Read-only file system")

    monkeypatch.setattr(os, "chmod", read_only)
    assert data.secure() == []


def test_private_directories_say_nothing(tmp_path: Path) -> None:
    data = DataDir(tmp_path / "data").ensure()
    assert data.secure() == []
    assert DataDir(tmp_path / "not-made-yet").secure() == []


def test_someone_elses_writable_directory_is_reported_not_changed(tmp_path: Path) -> None:
    needs_root()
    data = DataDir(tmp_path / "data").ensure()
    os.chown(data.games_dir, NOBODY, NOBODY)
    os.chmod(data.games_dir, 0o777)
    (warning,) = data.secure()
    assert str(data.games_dir) in warning and f"another user (uid {NOBODY})" in warning
    assert mode(data.games_dir) == 0o777


def test_a_games_link_to_someone_elses_directory_is_reported(tmp_path: Path) -> None:
    needs_root()
    data = DataDir(tmp_path / "data").ensure()
    planted = tmp_path / "planted"
    planted.mkdir(mode=0o755)
    os.chown(planted, NOBODY, NOBODY)
    data.games_dir.rmdir()
    data.games_dir.symlink_to(planted)
    (warning,) = data.secure()
    assert str(data.games_dir) in warning and "another user" in warning


@posix_modes
@pytest.mark.socket
def test_a_peer_command_warns_before_it_starts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    data = DataDir(tmp_path / "data").ensure()
    os.chmod(data.root, 0o777)

    def started(main: Callable[[], Awaitable[Any]], frontend: object, prog: str) -> int:
        return 0

    monkeypatch.setattr(host_command, "run_game", started)
    args = ["host", "--bot", "--no-mdns", "--interface", "127.0.0.1", "--data-dir", str(data.root)]
    assert cli.main(args) == 0
    err = capsys.readouterr().err
    assert f"warning: {data.root} could be written by other users" in err
    assert mode(data.root) == 0o755
