"""The verdict cache of `log list` (hanabi_p2p/verdict_cache.py, issue 33): the program that
played a game records its verdict, so the first `list` checks nothing again; a copied or
changed log is checked in full whatever verdict file lies beside it; the cache file is
written without following a link."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from game_files import CREATED, TABLE_ID, play_game, store_in_data_dir
from session_harness import Table

from hanabi_p2p import __version__, cli
from hanabi_p2p.datadir import DataDir
from hanabi_p2p.rules.cards import GameConfig, Variant
from hanabi_p2p.session import verify
from hanabi_p2p.verdict_cache import (
    VERDICT_FILE_MODE,
    VERDICT_FORMAT,
    ListRow,
    cached_row,
    record_played_game,
    verdict_path,
)

# whole signed games played, verified and listed: too slow for the fast tier
pytestmark = pytest.mark.slow


@pytest.fixture
def full_checks(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[bytes]]:
    """The table id of every game file checked in full from now on (`log list` imports the
    verifier where it uses it, so the module's function is the one it calls)."""
    checked: list[bytes] = []
    real = verify.verify_file

    def counting(loaded):  # type: ignore[no-untyped-def]
        checked.append(loaded.header.table_id)
        return real(loaded)

    monkeypatch.setattr(verify, "verify_file", counting)
    yield checked


def record_as_played(path: Path, table: Table, seat: int = 0) -> bool:
    """What the program that played `table` at `seat` records when the game ends."""
    peer = table.peers[seat]
    row = ListRow.of_played_game(path.stem, CREATED, peer.session)
    assert row is not None
    return record_played_game(path, {e.hash for e in peer.replica.applied}, row)


def list_json(data_dir: Path, capsys: pytest.CaptureFixture[str]) -> list[dict[str, object]]:
    capsys.readouterr()
    assert cli.main(["log", "list", "--json", "--data-dir", str(data_dir)]) == 0
    games: list[dict[str, object]] = json.loads(capsys.readouterr().out)["games"]
    return games


@pytest.mark.parametrize(("players", "variant", "seed"), [
    (2, Variant.STANDARD, 11), (3, Variant.RAINBOW, 12), (5, Variant.STANDARD, 13)])
def test_the_players_row_is_the_row_of_a_full_check(
        tmp_path: Path, players: int, variant: Variant, seed: int) -> None:
    table = play_game(GameConfig(players, variant), seed=seed)
    for seat in range(players):  # every seat's program, each with its own copy
        path = store_in_data_dir(tmp_path / f"seat{seat}", table.peers[seat].replica.applied)
        assert record_as_played(path, table, seat)
        recorded = json.loads(verdict_path(path).read_text())["row"]
        verdict_path(path).unlink()
        assert cli.main(["log", "list", "--data-dir", str(tmp_path / f"seat{seat}")]) == 0
        checked = json.loads(verdict_path(path).read_text())["row"]
        assert recorded == checked and checked["verdict"] == "valid"


def test_a_recorded_game_is_listed_without_a_check_and_a_copy_is_checked(
        tmp_path: Path, game: Table, full_checks: list[bytes],
        capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = tmp_path / "data"
    path = store_in_data_dir(data_dir, game.peers[0].replica.applied)
    assert record_as_played(path, game)
    (listed,) = list_json(data_dir, capsys)
    assert full_checks == [] and listed["verdict"] == "valid"
    assert listed["score"] == game.peers[0].session.state.score
    # a friend's copy of the game, its verdict file with it: a new file, checked in full
    friend = tmp_path / "friend"
    copy = DataDir(friend).game_path(TABLE_ID)
    copy.parent.mkdir(parents=True)
    shutil.copy2(path, copy)
    shutil.copy2(verdict_path(path), verdict_path(copy))
    (copied,) = list_json(friend, capsys)
    assert full_checks == [TABLE_ID] and copied == listed
    # ... and so is our own log once it changed, even with its time stamps put back
    info = path.stat()
    with path.open("ab") as log:
        log.write(b"\0" * 8)  # (a torn tail: dropped when read, not a fault)
    os.utime(path, ns=(info.st_atime_ns, info.st_mtime_ns))
    list_json(data_dir, capsys)
    assert full_checks == [TABLE_ID, TABLE_ID]


def test_a_forged_verdict_beside_a_friends_log_is_not_believed(
        tmp_path: Path, game: Table, full_checks: list[bytes],
        capsys: pytest.CaptureFixture[str]) -> None:
    prefix_game = game.peers[0].replica.applied
    path = store_in_data_dir(tmp_path, prefix_game[: len(prefix_game) // 2])  # unfinished
    forged = ListRow(CREATED, path.stem, "t", ("a", "b", "c"), "standard",
                     verify.Verdict.VALID, 25, "legendary")
    # the friend wrote it in our format, for these very bytes (the key of format 2, which
    # named the bytes alone), but not for our file: they cannot know where it would land
    digest = hashlib.blake2b(path.read_bytes(), digest_size=32).hexdigest()
    record = {"format": VERDICT_FORMAT, "key": f"{__version__}/{digest}/0/0/0",
              "row": forged.to_json()}
    verdict_path(path).write_text(json.dumps(record))
    (listed,) = list_json(tmp_path, capsys)
    assert full_checks == [TABLE_ID] and listed["verdict"] == "unfinished"


def test_a_log_holding_more_than_the_program_applied_is_left_to_the_full_check(
        tmp_path: Path, game: Table) -> None:
    peer = game.peers[0]
    path = store_in_data_dir(tmp_path, peer.replica.applied)
    row = ListRow.of_played_game(path.stem, CREATED, peer.session)
    assert row is not None
    fewer = {e.hash for e in peer.replica.applied[:-1]}
    assert not record_played_game(path, fewer, row)
    assert not verdict_path(path).exists()
    assert not record_played_game(tmp_path / "missing.hlog", fewer, row)


def test_an_unfinished_session_gives_no_row(game: Table) -> None:
    from hanabi_p2p.session.table import TableSession

    fresh = TableSession(game.peers[0].identity, TABLE_ID, seed=bytes(32))
    assert ListRow.of_played_game(TABLE_ID.hex(), CREATED, fresh) is None


@pytest.mark.skipif(os.name == "nt", reason="symbolic links need a privilege")
def test_the_cache_is_written_privately_and_never_through_a_link(
        tmp_path: Path, game: Table) -> None:
    path = store_in_data_dir(tmp_path, game.peers[0].replica.applied)
    elsewhere = tmp_path / "someone-elses-file"
    elsewhere.write_text("untouched")
    verdict_path(path).symlink_to(elsewhere)
    assert record_as_played(path, game)
    assert elsewhere.read_text() == "untouched"  # the link was replaced, not followed
    written = verdict_path(path)
    assert not written.is_symlink() and written.stat().st_mode & 0o777 == VERDICT_FILE_MODE
    info = path.lstat()
    assert cached_row(path, path.read_bytes(), info) is not None
    assert sorted(p.name for p in path.parent.iterdir()) == [path.name, written.name]


# ---- the real program: a `play --bot` game, then `log list`


@pytest.mark.socket
def test_a_game_played_with_play_bot_is_listed_without_a_full_check(
        tmp_path: Path, full_checks: list[bytes], capsys: pytest.CaptureFixture[str]) -> None:
    data_dir = tmp_path / "data"
    assert cli.main(["play", "--bot", "--players", "2", "--bot-delay", "0",
                     "--data-dir", str(data_dir)]) == 0
    (game,) = DataDir(data_dir).game_files()
    assert verdict_path(game).is_file()
    (listed,) = list_json(data_dir, capsys)
    assert full_checks == [] and listed["verdict"] == "valid"
    # what it recorded is what a full check says
    verdict_path(game).unlink()
    assert list_json(data_dir, capsys) == [listed] and len(full_checks) == 1


@pytest.mark.process
def test_listing_recorded_games_loads_no_verifier(tmp_path: Path, game: Table) -> None:
    """What makes the first `log list` after a night of games quick: with every verdict
    recorded, the program imports neither the verifier nor the deck's library."""
    path = store_in_data_dir(tmp_path, game.peers[0].replica.applied)
    assert record_as_played(path, game)
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "hanabi_p2p", "log", "list",
         "--data-dir", str(tmp_path)], capture_output=True, text=True, check=False, timeout=60)
    assert done.returncode == 0 and path.stem[:8] in done.stdout
    modules = {line.rsplit("|", 1)[1].strip() for line in done.stderr.splitlines()
               if line.startswith("import time:") and "|" in line}
    assert "hanabi_p2p.verdict_cache" in modules  # (the probe saw the verdicts read)
    assert not modules & {"hanabi_p2p.session.verify", "hanabi_p2p.session.table",
                          "hanabi_p2p.deck", "hanabi_p2p.sodium_library"}
