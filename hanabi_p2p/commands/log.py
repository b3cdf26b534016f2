"""`hanabi-p2p log list|show|verify|export|replay|remove`: read, check, convert and forget
stored game logs (`remove`: commands/log_remove.py).

A game is named by a FILE path or by an ID: its table id in hex, or any unique prefix of it
(files are ``<data>/games/<table_id_hex>.hlog``). Everything is checked by the pure pipeline
in ``hanabi_p2p.session.verify``; this module only reads files and prints.

Exit status of show/verify: 0 the log is valid (game over, every check passed), 1 it is
invalid (the first line says why), 3 it is unfinished (nothing wrong, but the game or its
audit never ended: an honest game stopped half-way is no failed check), 2 the file cannot be
used or the command line is wrong. A table that never started (a lobby that timed out or was
left: nobody was seated) is no game to verify, so `verify` exits 3, but `show` shows all
there is and exits 0. With --json, list/show/verify print one JSON document instead
(commands/log_json.py, docs/json.md); the exit status is the same.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import string
import sys
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from hanabi_p2p.commands import replay_interactive
from hanabi_p2p.datadir import GAME_SUFFIX, DataDir, add_data_dir_argument
from hanabi_p2p.errors import UserError
from hanabi_p2p.helpformat import with_examples
from hanabi_p2p.log.storage import MAGIC, CorruptLogError, LogTooLarge, parse, read_game_bytes
from hanabi_p2p.safe_text import ELLIPSIS, safe
from hanabi_p2p.session.verdict import Verdict, variant_text
from hanabi_p2p.verdict_cache import (
    LIST_ID_CHARS,
    NOT_STARTED,
    VERDICT_SUFFIX,
    ListRow,
    cached_row,
    date_text,
    lstat_or_none,
    remember_row,
)

if TYPE_CHECKING:
    from hanabi_p2p.session.verify import GameReport

# (the verification pipeline, the story of `show` and the JSON documents are imported where
# they are used: `log list` of games whose verdicts are cached needs none of them)

HELP = "list, show, verify, export or remove the games stored in the data directory"

# Exit status of `show` and `verify` (2, a file that cannot be used or a usage error, is
# cli.EXIT_USAGE): a script tells a cheat from a game that simply stopped.
EXIT_VALID = 0
EXIT_INVALID = 1
EXIT_UNFINISHED = 3
EXIT_STATUS_HELP = (
    "exit status: 0 valid (the game is over and every check passed), 1 invalid, "
    "3 unfinished (nothing wrong, but the game or its deck audit never ended), "
    "2 the file cannot be used or the command line is wrong")
JSON_HELP = "print one JSON document instead of text (its keys: docs/json.md)"

MAX_EXTRA_PROBLEMS = 5  # after the first, how many more problems `verify` lists
MAX_CLAIMS = 5  # how many stopping seeds' claims `verify` lists (one per seat at most)
ID_CHARS_SHOWN = 12  # table id digits error messages print: plenty to be a unique prefix
LIST_COLUMNS = 80  # `list` fits a classic terminal, 5 players and long names included
LIST_GAP = "  "
# Columns `list` may cut (with an ellipsis) to fit, in the order it cuts them, and how narrow
# each may become; the date, table id, players and score are never cut: players that do not
# fit get a line of their own.
SHRINKABLE_COLUMNS = {"VARIANT": 8, "NAME": 10}
PLAYERS_INDENT = "    "  # the players' own line, when they do not fit on the game's
# The verdict `list` shows is cached beside the log (<table>.hlog.verdict: verdict_cache.py)
# for that very file and its bytes; `verify` never uses it.
# From this many games to check in full, `list` checks them in parallel processes (a game
# takes about 0.3 s of CPU; starting a worker costs less than one game).
MIN_GAMES_FOR_WORKERS = 4
# A file whose first bytes match fewer than this many of the log's magic is not a damaged
# log but another kind of file, and is refused in one line (a flipped bit is still a log).
MIN_MAGIC_MATCH = len(MAGIC) // 2
# What a file given to `log verify` that is really a hanab.live game starts with.
JSON_OPENERS = (b"{", b"[")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="log_command", metavar="SUBCOMMAND", required=True)

    text = "past games in the data directory"
    p = sub.add_parser("list", help=text, description=(
        f"{text}: date, table, players, variant and score, oldest first. The program that "
        "played a game keeps its verdict beside its log when the game ends "
        f"({GAME_SUFFIX}{VERDICT_SUFFIX}); a game without one (copied in, or changed since) "
        "is checked in full the first time it is listed, and its verdict kept. 'log verify' "
        "always checks in full."), **_epilog("list"))
    add_data_dir_argument(p)
    p.add_argument("--json", action="store_true", help=JSON_HELP)

    for name, text in (
        ("show", "the game turn by turn, with a check mark per verified signature"),
        ("verify", "check every signature, chain link, action and the deck audit"),
    ):
        p = sub.add_parser(name, help=text, description=text, **_epilog(name, EXIT_STATUS_HELP))
        _add_game_argument(p)
        add_data_dir_argument(p)
        p.add_argument("--json", action="store_true", help=JSON_HELP)
        if name == "show":  # (verify's lines are read by programs: always English)
            p.add_argument("--lang", metavar="LANG", help="language of the story: en, it, ro, "
                           "nb (default: from the environment)")

    text = "the game in another format (hanab.live JSON, which `replay` reads)"
    p = sub.add_parser("export", help=text, description=text, **_epilog("export"))
    _add_game_argument(p)
    p.add_argument("--format", choices=["hanablive"], default="hanablive",
                   help="output format (default: hanablive)")
    p.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")
    add_data_dir_argument(p)

    text = "remove a game from the data directory (its log, cached verdict, secrets and notes)"
    p = sub.add_parser("remove", help=text, description=(
        f"{text}: for a practice game left with quit, which cannot be resumed. Asks first "
        "(--yes: without asking); never follows a symbolic link; a game open in another "
        "window is kept."), **_epilog("remove"))
    p.add_argument("game", metavar="ID", help="the game's table id (a unique prefix is enough)")
    p.add_argument("--yes", "-y", action="store_true", help="remove without asking")
    add_data_dir_argument(p)

    p = sub.add_parser("replay", help=replay_interactive.LOG_REPLAY_HELP,
                       description=replay_interactive.LOG_REPLAY_HELP, **_epilog("replay"))
    replay_interactive.add_log_replay_arguments(p)


# Two or three examples at the end of each `log` subcommand's --help.
EXAMPLES = {
    "list": ("hanabi-p2p log list", "hanabi-p2p log list --json",
             "hanabi-p2p log list --data-dir ~/hanabi-laptop"),
    "show": ("hanabi-p2p log show 3f2a", "hanabi-p2p log show 3f2a --json",
             "hanabi-p2p log show ~/Downloads/friday.hlog"),
    "verify": ("hanabi-p2p log verify 3f2a", "hanabi-p2p log verify 3f2a --json",
               "hanabi-p2p log verify friday.hlog && echo 'a fair game'"),
    "export": ("hanabi-p2p log export 3f2a -o friday.json", "hanabi-p2p replay friday.json"),
    "replay": ("hanabi-p2p log replay 3f2a", "hanabi-p2p log replay 3f2a --theme light"),
    "remove": ("hanabi-p2p log remove 3f2a", "hanabi-p2p log remove 3f2a --yes"),
}


def _epilog(name: str, before: str = "") -> dict[str, Any]:
    return with_examples(EXAMPLES[name], before)


def _add_game_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="FILE|ID",
                        help="a game log file, or a table id (a unique prefix is enough)")


def run(args: argparse.Namespace) -> int:
    commands: dict[str, Callable[[argparse.Namespace], int]] = {
        "list": run_list,
        "show": run_show,
        "verify": run_verify,
        "export": run_export,
        "replay": replay_interactive.run_log_replay,  # the full-screen replay, after the audit
        "remove": _run_remove,
    }
    return commands[args.log_command](args)


def _run_remove(args: argparse.Namespace) -> int:
    from hanabi_p2p.commands.log_remove import remove_game  # (`remove` alone needs it)

    return remove_game(args, resolve_game, _describe)


# ---------------------------------------------------------------------------- finding games


@functools.cache
def practice_table_names() -> frozenset[str]:
    """The name `play` gives its table, in every language it speaks (the catalogs are read
    only for a list that has an unfinished game)."""
    from hanabi_p2p import i18n

    return frozenset(i18n.load(lang).gettext(PRACTICE_TABLE) for lang in i18n.LANGUAGES)


def _describe(path: Path) -> str:
    """One game in words, for `log remove`'s question: its id, name, players and verdict."""
    row = _check_file(path)
    players = ", ".join(row.players)
    return (f"game {row.table[:ID_CHARS_SHOWN]} '{safe(row.name, len(row.name))}' "
            f"({safe(players, len(players))}), {row.score_text(practice_table_names())}")


def resolve_game(game: str, data_dir: DataDir) -> Path:
    """FILE if it names an existing file (or looks like a path), else a table id prefix."""
    # a --data-dir that is no data directory is a mistake, even beside a FILE it is not
    # needed for: said once, the same way by every `log` command
    data_dir.check_for_reading()
    path = Path(game).expanduser()
    if path.is_file() or "/" in game or game.endswith(GAME_SUFFIX):
        return path
    prefix = game.lower()
    if not prefix or any(c not in string.hexdigits for c in prefix):
        raise UserError(f"{game!r} is neither a file nor a table id")
    # the games played here, then those followed as a spectator (`watch`); a game one both
    # played and watched is named by the player's own copy
    own = [p for p in data_dir.game_files() if p.stem.lower().startswith(prefix)]
    own_stems = {p.stem for p in own}
    watched = [p for p in data_dir.watching().game_files()
               if p.stem.lower().startswith(prefix) and p.stem not in own_stems]
    matches = own + watched
    if not matches:
        raise UserError(
            f"no game with a table id starting {prefix!r} in {data_dir.games_dir} "
            "(see 'hanabi-p2p log list')"
        )
    if len(matches) > 1:
        shown = ", ".join(p.stem[:ID_CHARS_SHOWN] for p in matches[:5])
        raise UserError(f"{prefix!r} matches {len(matches)} games ({shown}...): give more digits")
    return matches[0]


def read_game(path: Path) -> tuple[bytes, GameReport]:
    """Read and verify one game file: its bytes and the report. A missing or unreadable
    file, or one that is no game log at all, raises UserError; a damaged log gives an
    invalid report (the damage is what `verify` must name)."""
    from hanabi_p2p.session.verify import damaged_header_report, verify_file

    data = read_game_bytes(path)  # a regular file within the cap, else one line (exit 2)
    _refuse_other_files(path, data)
    try:
        loaded = parse(path, data)
    except CorruptLogError as exc:  # only an unusable header makes parse() raise
        return data, damaged_header_report(exc)
    return data, verify_file(loaded)


def read_report(path: Path) -> GameReport:
    return read_game(path)[1]


def _refuse_other_files(path: Path, data: bytes) -> None:
    """One clear line for a file that is not a game log (rather than a report of the
    damage of a 'log' that never was one); a log with damaged first bytes still gets its
    report."""
    if sum(a == b for a, b in zip(data, MAGIC, strict=False)) >= MIN_MAGIC_MATCH:
        return
    if data.lstrip()[:1] in JSON_OPENERS:
        raise UserError(f"{path} is JSON, not a hanabi-p2p game log; a hanab.live game file "
                        f"is replayed with: hanabi-p2p replay {path}")
    raise UserError(f"{path} is not a hanabi-p2p game log")


def _read_and_remember(args: argparse.Namespace) -> tuple[Path, GameReport]:
    """The game named on the command line, checked in full; a game of the data directory
    gets its verdict cached for `list` on the way."""
    data_dir = DataDir.resolve(args.data_dir)
    path = resolve_game(args.game, data_dir)
    data, report = read_game(path)
    with contextlib.suppress(OSError):  # a path we cannot resolve is simply not cached
        if path.resolve().parent == data_dir.games_dir.resolve():
            _remember(path, data, ListRow.of_report(path.stem, report))
    return path, report


def _report_for(args: argparse.Namespace) -> GameReport:
    return _read_and_remember(args)[1]


# ---------------------------------------------------------------------------- output


def printable(text: str) -> str:
    """Peer-chosen text made safe for a terminal: control and format characters (escape
    sequences included) become '?'."""
    return safe(text, len(text))


def _emit(line: str = "") -> None:
    print(printable(line))


def summary_lines(report: GameReport) -> list[str]:
    """What `verify` prints: the verdict first, the digest last."""
    lines = [verdict_line(report)]
    # what the players who stopped the game said, as their claims, and whether the log
    # supports each (SPEC 5.7): a seed's reason is never the verdict
    lines.extend(f"claim: {report.claim_text(c)}" for c in report.claims[:MAX_CLAIMS])
    if report.table_id is not None:
        name = f"'{report.table_name}' " if report.table_name else ""
        lines.append(f"table: {name}{report.table_id.hex()}")
    if report.table_options:
        lines.append("table options: " + ", ".join(report.table_options))
    if report.deck_group:
        lines.append(f"deck group: {report.deck_group}")
    if report.players:
        lines.append("players: " + ", ".join(
            f"{p.seat} {report.label(p.peer_id)}" for p in report.players))
    state = report.state
    if state is not None and report.config is not None:
        variant = variant_text(report.config)
        if state.over:
            fireworks = " ".join(f"{s.letter}{rank}" for s, rank in state.fireworks.items())
            lines.append(f"game: {variant}, {state.end.value} end after {state.turn} turns, "
                         f"fireworks {fireworks}, score {state.score}")
        else:
            lines.append(f"game: {variant}, not over; {state.turn} turns checked")
    if not never_started(report):  # (no deck was ever made: nothing to audit)
        lines.append(f"deck audit: {_audit_text(report)}")
    entries = _count(report.entry_count, "entry", "entries")
    lines.append(f"checked: {entries} from {_count(report.authors, 'author', 'authors')} "
                 f"(signatures, chain links, turns, state hashes); {len(report.applied)} applied")
    if report.outside_entries:
        # (whether a copy holds them depends on when it joined: not in the digest, SPEC 3.7)
        lines.append(f"set aside: {_count(report.outside_entries, 'entry', 'entries')} of "
                     "people never seated (not part of the game or its digest)")
    if report.verdict is Verdict.INVALID:
        extra = report.problems[1 : 1 + MAX_EXTRA_PROBLEMS]
        lines.extend(f"also: {report.describe(p)}" for p in extra)
        more = len(report.problems) - 1 - len(extra)
        if more > 0:
            lines.append(f"also: {_count(more, 'more problem', 'more problems')}")
    lines.append(f"digest: {report.digest}")
    return lines


def _count(count: int, one: str, many: str) -> str:
    return f"{count} {one if count == 1 else many}"


def _audit_text(report: GameReport) -> str:
    if report.audit is None:
        if report.missing_seeds:
            return "not done: " + ", ".join(
                report.seat_name(s) for s in report.missing_seeds) + " never revealed a seed"
        return "not done"
    if report.audit.ok:
        return f"ok, {len(report.audit.faces)} cards"
    return f"failed, blames {report.seat_name(report.audit.blamed_seat)}: {report.audit.reason}"


def never_started(report: GameReport) -> bool:
    """A table whose lobby timed out or was left: its log holds the table's opening and
    who asked to sit, nothing wrong, and never a game."""
    return report.verdict is Verdict.UNFINISHED and not report.players


def verdict_line(report: GameReport) -> str:
    """The verdict in one line, as every `log` command says it."""
    if never_started(report):
        return f"{NOT_STARTED}: {report.unfinished_reason()}"
    return report.headline()


def exit_status(report: GameReport) -> int:
    """What `verify` exits with: valid, invalid or unfinished (see EXIT_STATUS_HELP)."""
    if report.verdict is Verdict.VALID:
        return EXIT_VALID
    return EXIT_INVALID if report.verdict is Verdict.INVALID else EXIT_UNFINISHED


def _json_parts(report: GameReport) -> tuple[bool, str, list[str]]:
    """What the JSON documents say in the words of the text output: started, the verdict
    line, every problem."""
    problems = [report.describe(p) for p in report.problems]
    return not never_started(report), verdict_line(report), problems


def run_verify(args: argparse.Namespace) -> int:
    path, report = _read_and_remember(args)
    if args.json:
        from hanabi_p2p.commands import log_json

        log_json.dump(log_json.report_document(report, path, *_json_parts(report)))
        return exit_status(report)
    for line in summary_lines(report):
        _emit(line)
    return exit_status(report)


def run_show(args: argparse.Namespace) -> int:
    from hanabi_p2p import i18n
    from hanabi_p2p.commands import log_json
    from hanabi_p2p.commands.log_numbers import numbers_lines
    from hanabi_p2p.commands.log_story import legend_line, story_lines

    i18n.setup(args.lang)
    path, report = _read_and_remember(args)
    header = report.header
    # a table that never started is shown whole: nothing is missing from what there is
    status = EXIT_VALID if never_started(report) else exit_status(report)
    if args.json:
        created_at = header.created if header is not None else None
        log_json.dump(log_json.show_document(report, path, *_json_parts(report), created_at))
        return status
    created = f", created {date_text(header.created)}" if header is not None else ""
    _emit(f"{path}{created}")
    _emit(legend_line())
    for line in story_lines(report):
        _emit(line)
    for line in numbers_lines(report):  # the game in numbers and pictures
        _emit(line)
    _emit()
    for line in summary_lines(report):
        _emit(line)
    return status


# ---------------------------------------------------------------------------- list / export


LIST_HEADINGS = ["DATE", "TABLE", "NAME", "PLAYERS", "VARIANT", "SCORE"]
PRACTICE_TABLE = "practice table"  # the msgid of `play`'s table name (commands/play.py)


def _cached_or_data(path: Path) -> ListRow | bytes:
    """The cached row of `path`, or its bytes when they must be checked (or a row saying
    why the file cannot be read)."""
    try:
        data = read_game_bytes(path)  # (no link, FIFO or device in games/ is ever read)
    except UserError as exc:
        return ListRow(None, path.stem, "", (), "", None, problem=str(exc))
    info = lstat_or_none(path)
    found = cached_row(path, data, info) if info is not None else None
    return found or data


def _checked_row(path: Path, data: bytes) -> ListRow:
    """A full check of these bytes of `path`, cached for the next `list`."""
    from hanabi_p2p.session.verify import verify_file

    try:
        report = verify_file(parse(path, data))
    except CorruptLogError as exc:
        row = ListRow(None, path.stem, "", (), "", None, problem=exc.reason)
    except LogTooLarge as exc:
        row = ListRow(None, path.stem, "", (), "", None, problem=str(exc))
    else:
        row = ListRow.of_report(path.stem, report)
    _remember(path, data, row)
    return row


def _remember(path: Path, data: bytes, row: ListRow) -> None:
    """Cache the row of a full check of these bytes of `path` (still that file's)."""
    info = lstat_or_none(path)
    if info is not None:
        remember_row(path, data, info, row)


def _check_file(path: Path) -> ListRow:
    """For a worker process: read and check `path` (bytes are not sent between processes)."""
    found = _cached_or_data(path)
    return found if isinstance(found, ListRow) else _checked_row(path, found)


def list_rows(paths: Sequence[Path]) -> list[ListRow]:
    """The row of every game: cached verdicts as they are; the games not seen before are
    checked in full, in parallel processes when there are several (a first `list` after
    copying in many games, or after an upgrade)."""
    found = {path: _cached_or_data(path) for path in paths}
    unchecked = [path for path, value in found.items() if isinstance(value, bytes)]
    workers = min(len(unchecked), os.cpu_count() or 1)
    if len(unchecked) >= MIN_GAMES_FOR_WORKERS and workers > 1:
        from concurrent.futures import ProcessPoolExecutor

        print(f"checking {len(unchecked)} games not listed before...", file=sys.stderr,
              flush=True)
        with ProcessPoolExecutor(workers) as pool:
            found.update(zip(unchecked, pool.map(_check_file, unchecked), strict=True))
    rows = []
    for path, value in found.items():
        rows.append(_checked_row(path, value) if isinstance(value, bytes) else value)
    return rows


def _cut(text: str, columns: int) -> str:
    from hanabi_p2p.ui.text import get_cwidth  # (the table's widths: `list` alone needs them)

    if get_cwidth(text) <= columns:
        return text
    out, used = [], get_cwidth(ELLIPSIS)
    for ch in text:
        used += get_cwidth(ch)
        if used > columns:
            break
        out.append(ch)
    return "".join(out) + ELLIPSIS


def _layout(table: list[list[str]], columns: int) -> list[int] | None:
    """Column widths fitting `columns` (cutting only the shrinkable columns, down to their
    narrowest), or None if even that does not fit."""
    from hanabi_p2p.ui.text import get_cwidth

    headings = table[0]
    widths = [max(get_cwidth(line[i]) for line in table) for i in range(len(headings))]
    # The last column is not padded: its own width counts in full.
    excess = sum(widths) + len(LIST_GAP) * (len(widths) - 1) - columns
    for heading, narrowest in SHRINKABLE_COLUMNS.items():
        if excess <= 0:
            break
        if heading in headings:
            i = headings.index(heading)
            cut = min(excess, max(widths[i] - narrowest, 0))
            widths[i] -= cut
            excess -= cut
    return widths if excess <= 0 else None


def _render(line: list[str], widths: list[int]) -> str:
    from hanabi_p2p.ui.text import get_cwidth

    cells = [_cut(cell, width) for cell, width in zip(line, widths, strict=True)]
    padded = [cell + " " * (width - get_cwidth(cell))
              for cell, width in zip(cells[:-1], widths, strict=False)]
    return LIST_GAP.join([*padded, cells[-1]]).rstrip()


def list_lines(rows: Sequence[ListRow], columns: int = LIST_COLUMNS) -> list[str]:
    """The `list` table: headings, then one line per game, in `columns` columns at most.
    The name and variant are cut with an ellipsis when they must be; when the players still
    do not fit (five long names), they go on a line of their own under each game, wrapped,
    never cut. Why a file is unreadable is said on a line of its own under its row, so a
    long reason neither is cut nor widens the table."""
    from hanabi_p2p.ui.text import wrap_text

    practice = (practice_table_names() if any(r.verdict is Verdict.UNFINISHED for r in rows)
                else frozenset[str]())
    table = [LIST_HEADINGS, *(row.cells(practice) for row in rows)]
    widths = _layout(table, columns)
    lines: list[str] = []
    if widths is not None:
        lines.append(_render(table[0], widths))
        for line, row in zip(table[1:], rows, strict=True):
            lines.append(_render(line, widths))
            lines.extend(_problem_lines(row, columns))
        return lines
    players = LIST_HEADINGS.index("PLAYERS")
    narrow = [[cell for i, cell in enumerate(line) if i != players] for line in table]
    widths = _layout(narrow, columns)
    if widths is None:  # only if `columns` is absurdly small: cut everything
        widths = [max(columns // len(narrow[0]), 1)] * len(narrow[0])
    lines.append(_render(narrow[0], widths))
    for line, full, row in zip(narrow[1:], table[1:], rows, strict=True):
        lines.append(_render(line, widths))
        if row.players:
            lines.extend(wrap_text(f"{PLAYERS_INDENT}players: {full[players]}", columns))
        lines.extend(_problem_lines(row, columns))
    return lines


def _problem_lines(row: ListRow, columns: int) -> list[str]:
    from hanabi_p2p.ui.text import wrap_text

    if row.verdict is not None or not row.problem:
        return []
    return wrap_text(f"{PLAYERS_INDENT}{row.problem}", columns)


def run_list(args: argparse.Namespace) -> int:
    data_dir = DataDir.resolve(args.data_dir)
    data_dir.check_for_reading()
    played, watched = data_dir.game_files(), data_dir.watching().game_files()
    if not played and not watched and not args.json:
        _emit(f"no games in {data_dir.games_dir}")
        return 0
    rows = list_rows([*played, *watched])  # (one pass: new games are checked in parallel)
    own, followed = _oldest_first(rows[:len(played)]), _oldest_first(rows[len(played):])
    if args.json:
        from hanabi_p2p.commands import log_json

        log_json.dump(log_json.list_document(data_dir.root, [r.to_json() for r in own],
                                             [r.to_json() for r in followed]))
        return 0
    if own:
        for line in list_lines(own):
            _emit(line)
    if followed:  # a spectator's logs, kept apart from the games played here
        if own:
            _emit()
        _emit(f"watched (in {data_dir.watching().games_dir}):")
        for line in list_lines(followed):
            _emit(line)
    invalid = [row for row in [*own, *followed] if row.verdict is Verdict.INVALID]
    if invalid:
        _emit()
        _emit(f"INVALID: 'hanabi-p2p log verify {invalid[0].table[:LIST_ID_CHARS]}' says why")
    return 0


def _oldest_first(rows: list[ListRow]) -> list[ListRow]:
    return sorted(rows, key=lambda row: (row.created is None, row.created or 0, row.table))


def run_export(args: argparse.Namespace) -> int:
    import json

    from hanabi_p2p.hanablive import export_game

    report = _report_for(args)
    if not report.ok or report.config is None:
        raise UserError(f"cannot export this game: {printable(verdict_line(report))}")
    config = report.config
    faces = report.faces
    game = export_game(
        config,
        [p.name for p in report.players],
        [faces[i] for i in range(config.deck_size)],
        report.actions,
    )
    text = json.dumps(game, indent=1, ensure_ascii=False) + "\n"
    if args.output is None or args.output == "-":
        sys.stdout.write(text)
        return 0
    try:
        Path(args.output).expanduser().write_text(text, encoding="utf-8")
    except OSError as exc:
        raise UserError(f"cannot write {args.output}: {exc.strerror}") from exc
    return 0
