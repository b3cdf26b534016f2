"""`hanabi-p2p log remove ID`: forget one game of the data directory.

A practice game left with `quit` cannot be resumed (its computer players ended with it), yet
it stayed in `log list` as unfinished for ever. This removes a game's files: its log, the
verdict cached beside it, and its secrets and private notes in ``private/``. It asks first
(or needs ``--yes`` when nobody can answer), names the game by its table id only (a path
could point anywhere), never follows a symbolic link (a link in place of a file is refused,
nothing removed) and never removes a game another window is playing.
"""

from __future__ import annotations

import argparse
import os
import stat
import sys
from collections.abc import Callable
from pathlib import Path

from hanabi_p2p.datadir import GAME_SUFFIX, PRIVATE_SUFFIX, DataDir
from hanabi_p2p.errors import UserError
from hanabi_p2p.log.storage import refuse_if_in_play
from hanabi_p2p.ui.notes import NOTES_SUFFIX
from hanabi_p2p.verdict_cache import VERDICT_SUFFIX


def game_files_of(log_path: Path, data_dir: DataDir) -> list[Path]:
    """Every file that belongs to the game logged at `log_path`, those that exist."""
    stem = log_path.name.removesuffix(GAME_SUFFIX)
    candidates = [
        log_path,
        log_path.with_name(log_path.name + VERDICT_SUFFIX),
        data_dir.private_dir / (stem + PRIVATE_SUFFIX),
        data_dir.private_dir / (stem + NOTES_SUFFIX),
    ]
    return [path for path in candidates if os.path.lexists(path)]


def _refuse_links(paths: list[Path]) -> None:
    for path in paths:
        mode = os.lstat(path).st_mode
        if stat.S_ISLNK(mode):
            raise UserError(f"{path} is a symbolic link: refusing to remove anything "
                            "(remove it by hand if you mean to)")
        if not stat.S_ISREG(mode):
            raise UserError(f"{path} is not a regular file: refusing to remove anything")


def remove_game(args: argparse.Namespace, resolve: Callable[[str, DataDir], Path],
                describe: Callable[[Path], str],
                ask: Callable[[str], str] | None = None) -> int:
    """`log remove`: `resolve` finds the game by id, `describe` says which game it is (one
    line, for the question), `ask` reads the answer."""
    if "/" in args.game or args.game.endswith(GAME_SUFFIX):
        raise UserError("log remove takes a table id (see 'hanabi-p2p log list'), not a path")
    data_dir = DataDir.resolve(args.data_dir)
    path = resolve(args.game, data_dir)
    files = game_files_of(path, data_dir)
    _refuse_links(files)
    refuse_if_in_play(path)  # GameInUse: played in another window now
    if not args.yes:
        if not sys.stdin.isatty():
            raise UserError("log remove asks before removing a game: give --yes to remove it "
                            "without asking")
        answer = (ask or input)(f"Remove {describe(path)} ({len(files)} files)? [y/N] ")
        if answer.strip().casefold() not in ("y", "yes"):
            print("nothing removed")
            return 0
    for file in files:
        os.unlink(file)  # (the link itself, were it one: lstat said it is not)
    print(f"removed game {path.stem} ({len(files)} files)")
    return 0
