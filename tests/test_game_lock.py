"""A game is played by one program at a time: its log is locked while a hanabi-p2p has it
open for writing (issue: a second `join --resume` of a running game failed with "address
already in use", or, on another port, appended to the same log with the same identity and
signed two different entries with the same number, which the others take for cheating)."""

from __future__ import annotations

import errno
import subprocess
import sys
from pathlib import Path

import pytest

from hanabi_p2p import cli
from hanabi_p2p.datadir import DataDir
from hanabi_p2p.errors import GameInUse
from hanabi_p2p.log import storage
from hanabi_p2p.log.storage import GameFile, PrivateFile, open_game
from hanabi_p2p.net.mesh import Mesh

TABLE = bytes(range(16))
HOST = bytes(32)  # another peer's key: this installation is a guest of the game
HOLD_LOCK = """
import sys
from hanabi_p2p.portable import lock_exclusive
with open(sys.argv[1], "rb") as log:
    assert lock_exclusive(log.fileno())
    print("locked", flush=True)
    sys.stdin.read()
"""


def unfinished_game(root: Path) -> Path:
    """A guest's game still in its lobby, as `join` leaves it: the log and the secrets."""
    data = DataDir(root)
    game, _loaded = open_game(data, TABLE, created=1_700_000_000, name="Friday night")
    game.close()
    PrivateFile.for_table(data, TABLE).save(
        {"seed": bytes(32), "table_id": TABLE, "name": "Bob", "interface": "127.0.0.1",
         "port": 0, "role": "guest", "host_id": HOST, "host_address": ["127.0.0.1", 9]})
    return data.game_path(TABLE)


def test_a_game_open_for_play_cannot_be_opened_for_play_again(tmp_path: Path) -> None:
    path = tmp_path / "games" / "game.hlog"
    first = GameFile.create(path, TABLE, created=0)
    with pytest.raises(GameInUse, match="open in another hanabi-p2p window"):
        GameFile.open(path)
    first.close()
    second, _loaded = GameFile.open(path)  # closed (or its program gone): free again
    with second, pytest.raises(GameInUse):
        GameFile.open(path)


def test_a_file_system_that_cannot_lock_does_not_keep_anyone_from_playing(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    fcntl = pytest.importorskip("fcntl")  # (a file system without flock: of POSIX systems)

    def no_locks(fd: int, operation: int) -> None:
        raise OSError(errno.ENOLCK, "No locks available")

    monkeypatch.setattr(fcntl, "flock", no_locks)
    path = tmp_path / "games" / "game.hlog"
    GameFile.create(path, TABLE, created=0).close()
    with GameFile.open(path)[0] as game:
        assert game.header.table_id == TABLE


def test_a_game_being_played_can_still_be_read(tmp_path: Path) -> None:
    path = unfinished_game(tmp_path / "data")
    with GameFile.open(path)[0]:
        assert storage.load(path).header.table_id == TABLE
        assert cli.main(["log", "list", "--data-dir", str(tmp_path / "data")]) == 0


@pytest.mark.process
def test_resuming_a_game_played_in_another_window_says_so_before_the_network(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    path = unfinished_game(tmp_path / "data")

    async def no_network(self: Mesh) -> Mesh:
        raise AssertionError("the network was touched")

    monkeypatch.setattr(Mesh, "__aenter__", no_network)  # (where a mesh starts listening)
    # the other window is another process: the lock is the OS's, not this program's
    holder = subprocess.Popen([sys.executable, "-c", HOLD_LOCK, str(path)],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout is not None and holder.stdout.readline() == "locked\n"
        code = cli.main(["join", "--resume", "--bot", "--interface", "127.0.0.1",
                         "--data-dir", str(tmp_path / "data")])
    finally:
        holder.communicate("")
    assert code == cli.EXIT_GAME_IN_USE == 1
    assert capsys.readouterr().err == (
        f"hanabi-p2p join: this game is open in another hanabi-p2p window ({path}): play it "
        "there, or quit that window first\n")


@pytest.mark.process
def test_joining_a_table_whose_game_is_open_in_another_window_is_refused_before_dialling(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A second `join` of the same table from the same data directory would dial the host as
    the same player, and its link would push the first window's aside: refused first."""
    import asyncio

    from hanabi_p2p.frontends.headless import Headless
    from hanabi_p2p.frontends.launch import PeerOptions, join_known

    path = unfinished_game(tmp_path / "data")

    async def no_network(self: Mesh) -> Mesh:
        raise AssertionError("the network was touched")

    monkeypatch.setattr(Mesh, "__aenter__", no_network)  # (where a mesh starts listening)
    opts = PeerOptions(name="Bob", data_dir=DataDir(tmp_path / "data"), interface="127.0.0.1",
                       advertise=False)
    with GameFile.open(path)[0], pytest.raises(GameInUse, match="another hanabi-p2p window"):
        asyncio.run(join_known(opts, "127.0.0.1", 9, TABLE, HOST, Headless(out=None)))
    # once that window is closed, the check lets the join go on (to the network)
    with pytest.raises(AssertionError, match="network was touched"):
        asyncio.run(join_known(opts, "127.0.0.1", 9, TABLE, HOST, Headless(out=None)))
