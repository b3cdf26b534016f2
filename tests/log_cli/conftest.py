"""The log CLI tests reuse the session layer's in-memory table (tests/session)."""

from __future__ import annotations

import sys
from pathlib import Path

SESSION_TESTS = Path(__file__).resolve().parent.parent / "session"
if str(SESSION_TESTS) not in sys.path:
    sys.path.insert(0, str(SESSION_TESTS))

# Imported after the path is set up (the harness lives in tests/session).
import pytest  # noqa: E402
from game_files import TABLE_ID, play_game, store_in_data_dir  # noqa: E402
from session_harness import Table  # noqa: E402

from hanabi_p2p import cli  # noqa: E402
from hanabi_p2p.datadir import DataDir  # noqa: E402
from hanabi_p2p.rules.cards import GameConfig  # noqa: E402


@pytest.fixture(scope="session")
def game() -> Table:
    """One finished, audited 3-player game (shared: tests only read it)."""
    return play_game(GameConfig(3), seed=3)


@pytest.fixture(scope="session")
def other_game() -> Table:
    """Another game at a table with the same id and the same players (a rematch)."""
    return play_game(GameConfig(3), seed=4)


@pytest.fixture
def data_dir(tmp_path: Path, game: Table) -> Path:
    """A data directory holding peer 0's copy of ``game``."""
    root = tmp_path / "data"
    store_in_data_dir(root, game.peers[0].replica.applied)
    return root


@pytest.fixture
def game_file(data_dir: Path) -> Path:
    return DataDir(data_dir).game_path(TABLE_ID)


class CliResult:
    def __init__(self, code: int, out: str, err: str) -> None:
        self.code, self.out, self.err = code, out, err
        self.lines = out.splitlines()


@pytest.fixture
def run_cli(capsys: pytest.CaptureFixture[str]):  # type: ignore[no-untyped-def]
    """Run `hanabi-p2p ARGS...` in-process; returns exit code and captured output."""

    def run(*args: str) -> CliResult:
        capsys.readouterr()
        code = cli.main(list(args))
        out, err = capsys.readouterr()
        return CliResult(code, out, err)

    return run
