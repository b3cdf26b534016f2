"""`log remove ID`: a game's files go (log, cached verdict, secrets, notes), after a question
or with --yes; never through a symbolic link, never a path, never a game in play. And an
unfinished practice game (which cannot be resumed) is listed as such."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from game_files import TABLE_ID

from hanabi_p2p import i18n
from hanabi_p2p.commands.log import ListRow, list_lines, practice_table_names
from hanabi_p2p.datadir import DataDir
from hanabi_p2p.session.verify import Verdict

TABLE_HEX = TABLE_ID.hex()


def the_games_files(data_dir: Path) -> list[Path]:
    """The log, and what a finished game leaves beside it: its secrets and notes (written
    here as a game would), and the verdict `log list` caches."""
    store = DataDir(data_dir)
    store.private_dir.mkdir(parents=True, exist_ok=True)
    secrets = store.private_path(TABLE_ID)
    notes = store.private_dir / f"{TABLE_HEX}.notes.json"
    secrets.write_bytes(b"\x80")
    notes.write_text("{}")
    log = store.game_path(TABLE_ID)
    return [log, log.with_name(log.name + ".verdict"), secrets, notes]


def test_remove_with_yes_forgets_every_file_of_the_game(data_dir: Path, run_cli) -> None:
    files = the_games_files(data_dir)
    assert run_cli("log", "list", "--data-dir", str(data_dir)).code == 0  # caches a verdict
    assert all(path.is_file() for path in files)
    result = run_cli("log", "remove", TABLE_HEX[:6], "--yes", "--data-dir", str(data_dir))
    assert result.code == 0 and result.out == f"removed game {TABLE_HEX} (4 files)\n"
    assert not any(os.path.lexists(path) for path in files)
    listed = run_cli("log", "list", "--data-dir", str(data_dir))
    assert TABLE_HEX[:8] not in listed.out


def test_without_yes_and_nobody_to_answer_nothing_is_removed(data_dir: Path, run_cli) -> None:
    files = the_games_files(data_dir)[::2]
    result = run_cli("log", "remove", TABLE_HEX[:6], "--data-dir", str(data_dir))
    assert result.code == 2 and "give --yes" in result.err
    assert result.err.startswith("hanabi-p2p log remove: error: ")
    assert all(path.is_file() for path in files)


@pytest.mark.parametrize(("answer", "removed"), [("y", True), ("", False), ("no", False)])
def test_it_asks_at_a_terminal(answer: str, removed: bool, data_dir: Path, run_cli,
                               monkeypatch: pytest.MonkeyPatch) -> None:
    files = the_games_files(data_dir)[::2]
    asked: list[str] = []
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: asked.append(prompt) or answer)
    result = run_cli("log", "remove", TABLE_HEX[:6], "--data-dir", str(data_dir))
    assert result.code == 0
    assert len(asked) == 1 and asked[0].endswith(" (3 files)? [y/N] ")
    assert asked[0].startswith(f"Remove game {TABLE_HEX[:12]} 'test table' (p0, p1, p2), ")
    assert all(not path.exists() for path in files) is removed
    assert removed or result.out == "nothing removed\n"


def test_a_symbolic_link_among_its_files_is_refused_and_nothing_goes(
        data_dir: Path, tmp_path: Path, run_cli) -> None:
    log, _verdict, secrets, notes = the_games_files(data_dir)
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_text("keep me")
    secrets.unlink()
    secrets.symlink_to(elsewhere)
    result = run_cli("log", "remove", TABLE_HEX[:6], "--yes", "--data-dir", str(data_dir))
    assert result.code == 2 and "is a symbolic link: refusing to remove anything" in result.err
    assert elsewhere.read_text() == "keep me" and secrets.is_symlink()
    assert log.is_file() and notes.is_file()


def test_a_path_is_refused(game_file: Path, run_cli) -> None:
    result = run_cli("log", "remove", str(game_file), "--yes")
    assert result.code == 2 and "takes a table id" in result.err and game_file.is_file()


def test_an_unfinished_practice_game_is_listed_as_one_in_any_language() -> None:
    names = ("Ann", "bot1")
    for lang in i18n.LANGUAGES:
        name = i18n.load(lang).gettext("practice table")
        row = ListRow(1_700_000_100, "ab" * 16, name, names, "standard", Verdict.UNFINISHED)
        assert row.score_text(practice_table_names()) == "unfinished practice"
        assert list_lines([row])[1].endswith("unfinished practice")
    other = ListRow(1_700_000_100, "ab" * 16, "Friday", names, "standard", Verdict.UNFINISHED)
    assert other.score_text(practice_table_names()) == "unfinished"
    assert list_lines([other])[1].endswith(" unfinished")
