"""`hanabi-p2p log replay ID` and `hanabi-p2p replay FILE --interactive`: the full-screen replay.

A game of the data directory is replayed from its signed log alone, after the whole audit
`log verify` runs (session/verify.py): the faces shown are the ones the deck audit decoded
from every player's revealed seed. A log with any problem (a failed audit, a forged entry)
or without an audit is refused in one line on stderr, exit 1: its faces are not known to be
the game's. A hanab.live file carries its deck in the clear; it is replayed as it is, up to
its first illegal action.

This module is imported by `log` and `replay` to add their arguments, so it imports nothing
heavy at the top: the terminal modules, and the catalogues (i18n), are loaded only when a
replay opens (`log verify` adds these arguments too, and prints no translated word).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING

from hanabi_p2p.datadir import DataDir, add_data_dir_argument
from hanabi_p2p.errors import UserError

if TYPE_CHECKING:
    from hanabi_p2p.hanablive import ImportedGame
    from hanabi_p2p.session.verify import GameReport
    from hanabi_p2p.ui.replay import ReplayGame

LOG_REPLAY_HELP = "step through a stored game in the full-screen table, every hand face up"
EXIT_REFUSED = 1


def add_view_arguments(parser: argparse.ArgumentParser, what: str = "") -> None:
    """--lang and --theme, as the table has them (`what`: when they apply, if not always)."""
    parser.add_argument("--lang", metavar="LANG",
                        help=f"language{what}: en, it, ro, nb (default: from the environment)")
    parser.add_argument("--theme", choices=["auto", "dark", "light"], default="auto",
                        help=f"colours{what} for a dark or a light terminal (default: auto)")


def add_log_replay_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="FILE|ID",
                        help="a game log file, or a table id (a unique prefix is enough)")
    add_data_dir_argument(parser)
    add_view_arguments(parser)


def add_file_arguments(parser: argparse.ArgumentParser) -> None:
    """What `replay` gains: --interactive (and the table's --lang and --theme)."""
    parser.add_argument("--interactive", "-i", action="store_true",
                        help="step through the game in the full-screen table, every hand face "
                             "up: arrows, PgUp/PgDn, Home/End, g N Enter, q")
    # the turn-by-turn text is in English, for scripts as well as people
    add_view_arguments(parser, " of the --interactive table")


def game_of_report(report: GameReport) -> ReplayGame | str:
    """The game to replay, or why it must not be shown: a log with any problem, or whose
    deck was never audited, has no faces anyone can trust."""
    from hanabi_p2p.commands.log import verdict_line
    from hanabi_p2p.i18n import _
    from hanabi_p2p.ui.replay import ReplayGame

    config = report.config
    if report.problems or not report.faces or config is None:
        return _("cannot replay this game: {reason}").format(reason=verdict_line(report))
    return ReplayGame(
        config=config,
        names=tuple(player.name for player in report.players),
        faces=tuple(report.faces[position] for position in range(config.deck_size)),
        actions=tuple(report.actions),
        title=report.table_name,
    )


def game_of_file(game: ImportedGame, label: str) -> ReplayGame:
    from hanabi_p2p.ui.replay import ReplayGame

    # the title names the file, not the directories it sits in: a long path crowded out the
    # rest of the title line
    title = Path(label).name or label
    return ReplayGame(game.config, game.players, tuple(game.faces), tuple(game.actions), title)


def run_log_replay(args: argparse.Namespace) -> int:
    """`log replay ID`: verify the game in full, then open it (or refuse, saying why)."""
    from hanabi_p2p import i18n
    from hanabi_p2p.commands.log import printable, read_game, resolve_game

    i18n.setup(args.lang)
    path = resolve_game(args.game, DataDir.resolve(args.data_dir))
    _data, report = read_game(path)
    game = game_of_report(report)
    if isinstance(game, str):
        print(f"{getattr(args, 'prog', 'hanabi-p2p')}: error: {printable(game)}",
              file=sys.stderr)
        return EXIT_REFUSED
    show(game, args.theme)
    return 0


def run_file_replay(args: argparse.Namespace, game: ImportedGame, label: str) -> int:
    """`replay FILE --interactive`."""
    if args.json:
        raise UserError("--interactive and --json cannot be combined")
    from hanabi_p2p import i18n

    i18n.setup(args.lang)
    show(game_of_file(game, label), args.theme)
    return 0


def show(game: ReplayGame, theme: str) -> None:
    from hanabi_p2p.ui.replay import replay_steps
    from hanabi_p2p.ui.replay_app import ReplayApp
    from hanabi_p2p.ui.symbols import Theme

    ReplayApp(replay_steps(game), theme=Theme(theme)).run()
