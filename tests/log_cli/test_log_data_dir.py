"""`log` with a --data-dir that is no data directory says so and fails (it used to list
"no games" and exit 0 for `--data-dir /etc/passwd`, so a mistyped path looked like an empty
history); a new or empty directory is a data directory with no games yet."""

from __future__ import annotations

from pathlib import Path

import pytest
from game_files import TABLE_ID

from hanabi_p2p import cli
from hanabi_p2p.datadir import DataDir

# whole signed games verified, shown or listed: too slow for the fast tier
pytestmark = pytest.mark.slow

ID = TABLE_ID.hex()[:8]
COMMANDS = [["list"], ["show", ID], ["verify", ID], ["export", ID], ["replay", ID]]


def not_a_data_dir(tmp_path: Path, kind: str) -> tuple[Path, str]:
    """A path of `kind` and the reason `log` must give for it."""
    if kind == "file":
        path = tmp_path / "passwd"
        path.write_text("root:x:0:0::/root:/bin/sh\n")
        return path, f"data directory {path} is a file, not a directory"
    if kind == "other":
        (tmp_path / "notes.txt").write_text("")
        (tmp_path / "photos").mkdir()
        return tmp_path, (f"{tmp_path} is not a hanabi-p2p data directory (it holds no "
                          "identity.pem, games/ or private/)")
    games = DataDir(tmp_path / "data").ensure().games_dir
    (games / f"{TABLE_ID.hex()}.hlog").write_bytes(b"")
    return games, (f"{games} is not a hanabi-p2p data directory (it holds no identity.pem, "
                   f"games/ or private/): game logs are in its games/; the data directory "
                   f"is {games.parent}")


@pytest.mark.parametrize("kind", ["file", "other", "games"])
@pytest.mark.parametrize("command", COMMANDS, ids=lambda c: c[0])
def test_a_path_that_is_no_data_directory_is_refused_in_one_line(
    kind: str, command: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path, reason = not_a_data_dir(tmp_path, kind)
    assert cli.main(["log", *command, "--data-dir", str(path)]) == cli.EXIT_USAGE
    out, err = capsys.readouterr()
    assert out == "" and err == f"hanabi-p2p log {command[0]}: error: {reason}\n"


@pytest.mark.parametrize("made", [True, False], ids=["empty", "missing"])
def test_a_new_data_directory_has_no_games_yet(made: bool, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "new"
    if made:
        root.mkdir()
    assert cli.main(["log", "list", "--data-dir", str(root)]) == 0
    assert capsys.readouterr().out == f"no games in {root / 'games'}\n"
    assert cli.main(["log", "show", ID, "--data-dir", str(root)]) == cli.EXIT_USAGE
    assert f"no game with a table id starting {ID!r}" in capsys.readouterr().err
