"""`hanabi-p2p log list|show|verify|export`: read, check and convert stored game logs.

A game is named by a FILE path or by an ID: its table id in hex, or any unique prefix of it
(files are ``<data>/games/<table_id_hex>.hlog``). Everything is checked by the pure pipeline
in ``hanabi_p2p.session.verify``; this module only reads files and prints.

Exit status of show/verify: 0 the log is valid (game over, every check passed), 1 it is not
(invalid or unfinished: the first line says which and why), 2 the file cannot be used.
"""

from __future__ import annotations

import argparse
import json
import string
import sys
from collections import Counter
from collections.abc import Callable
from datetime import datetime
from pathlib import Path

from hanabi_p2p.datadir import GAME_SUFFIX, DataDir, add_data_dir_argument
from hanabi_p2p.errors import HanabiError, UserError
from hanabi_p2p.hanablive import export_game
from hanabi_p2p.log.entry import Entry
from hanabi_p2p.log.storage import CorruptLogError, load
from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.safe_text import safe
from hanabi_p2p.session import bodies as b
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.verify import (
    GameReport,
    Problem,
    Verdict,
    damaged_header_report,
    variant_text,
    verify_file,
)

HELP = "list, show, verify or export the games stored in the data directory"

CHECK = "✓"
CROSS = "✗"
UNVERIFIED = "?"
MAX_EXTRA_PROBLEMS = 5  # after the first, how many more problems `verify` lists
MAX_UNVERIFIED_LINES = 200  # unchecked actions listed (a game has at most ~90 turns)
FACES_PER_ROW = 10
ID_CHARS_SHOWN = 12  # table id digits `list` prints: plenty to be a unique prefix


def add_arguments(parser: argparse.ArgumentParser) -> None:
    sub = parser.add_subparsers(dest="log_command", metavar="SUBCOMMAND", required=True)

    p = sub.add_parser("list", help="past games in the data directory")
    add_data_dir_argument(p)

    for name, text in (
        ("show", "the game turn by turn, with a check mark per verified signature"),
        ("verify", "check every signature, chain link, action and the deck audit"),
    ):
        p = sub.add_parser(name, help=text, description=text)
        _add_game_argument(p)
        add_data_dir_argument(p)

    text = "the game in another format (hanab.live JSON, which `replay` reads)"
    p = sub.add_parser("export", help=text, description=text)
    _add_game_argument(p)
    p.add_argument("--format", choices=["hanablive"], default="hanablive",
                   help="output format (default: hanablive)")
    p.add_argument("-o", "--output", metavar="OUT", help="write here instead of stdout")
    add_data_dir_argument(p)


def _add_game_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("game", metavar="FILE|ID",
                        help="a game log file, or a table id (a unique prefix is enough)")


def run(args: argparse.Namespace) -> int:
    commands: dict[str, Callable[[argparse.Namespace], int]] = {
        "list": run_list,
        "show": run_show,
        "verify": run_verify,
        "export": run_export,
    }
    return commands[args.log_command](args)


# ---------------------------------------------------------------------------- finding games


def resolve_game(game: str, data_dir: DataDir) -> Path:
    """FILE if it names an existing file (or looks like a path), else a table id prefix."""
    path = Path(game).expanduser()
    if path.is_file() or "/" in game or game.endswith(GAME_SUFFIX):
        return path
    prefix = game.lower()
    if not prefix or any(c not in string.hexdigits for c in prefix):
        raise UserError(f"{game!r} is neither a file nor a table id")
    matches = [p for p in data_dir.game_files() if p.stem.lower().startswith(prefix)]
    if not matches:
        raise UserError(
            f"no game with a table id starting {prefix!r} in {data_dir.games_dir} "
            "(see 'hanabi-p2p log list')"
        )
    if len(matches) > 1:
        shown = ", ".join(p.stem[:ID_CHARS_SHOWN] for p in matches[:5])
        raise UserError(f"{prefix!r} matches {len(matches)} games ({shown}...): give more digits")
    return matches[0]


def read_report(path: Path) -> GameReport:
    """Load and verify one game file. A missing or unreadable file raises UserError; a
    damaged one gives an invalid report (the damage is what `verify` must name)."""
    try:
        loaded = load(path)
    except CorruptLogError as exc:  # only an unusable header makes load() raise
        return damaged_header_report(exc)
    return verify_file(loaded)


def _report_for(args: argparse.Namespace) -> GameReport:
    return read_report(resolve_game(args.game, DataDir.resolve(args.data_dir)))


# ---------------------------------------------------------------------------- output


def printable(text: str) -> str:
    """Peer-chosen text made safe for a terminal: control and format characters (escape
    sequences included) become '?'."""
    return safe(text, len(text))


def _emit(line: str = "") -> None:
    print(printable(line))


def summary_lines(report: GameReport) -> list[str]:
    """What `verify` prints: the verdict first, the digest last."""
    lines = [report.headline()]
    if report.table_id is not None:
        name = f"'{report.table_name}' " if report.table_name else ""
        lines.append(f"table: {name}{report.table_id.hex()}")
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
    lines.append(f"deck audit: {_audit_text(report)}")
    lines.append(f"checked: {report.entry_count} entries from {report.authors} authors "
                 f"(signatures, chain links, turns, state hashes); {len(report.applied)} applied")
    if report.verdict is Verdict.INVALID:
        extra = report.problems[1 : 1 + MAX_EXTRA_PROBLEMS]
        lines.extend(f"also: {report.describe(p)}" for p in extra)
        more = len(report.problems) - 1 - len(extra)
        if more > 0:
            lines.append(f"also: {more} more problems")
    lines.append(f"digest: {report.digest}")
    return lines


def _audit_text(report: GameReport) -> str:
    if report.audit is None:
        if report.missing_seeds:
            return "not done: " + ", ".join(
                report.seat_name(s) for s in report.missing_seeds) + " never revealed a seed"
        return "not done"
    if report.audit.ok:
        return f"ok, {len(report.audit.faces)} cards"
    return f"failed, blames {report.seat_name(report.audit.blamed_seat)}: {report.audit.reason}"


def run_verify(args: argparse.Namespace) -> int:
    report = _report_for(args)
    for line in summary_lines(report):
        _emit(line)
    return 0 if report.ok else 1


def run_show(args: argparse.Namespace) -> int:
    path = resolve_game(args.game, DataDir.resolve(args.data_dir))
    report = read_report(path)
    header = report.header
    created = f", created {_date(header.created)}" if header is not None else ""
    _emit(f"{path}{created}")
    for line in story_lines(report):
        _emit(line)
    _emit()
    for line in summary_lines(report):
        _emit(line)
    return 0 if report.ok else 1


def _date(created: int) -> str:
    try:
        return datetime.fromtimestamp(created).strftime("%Y-%m-%d %H:%M")
    except (OverflowError, OSError, ValueError):
        return "?"


# ---------------------------------------------------------------------------- the story


def story_lines(report: GameReport) -> list[str]:
    """The game turn by turn: one line per event, a check mark per verified signature
    behind it, a cross per rejected entry; then what could not be checked, then the deck."""
    names = [p.name for p in report.players]
    width = max(len(names), 1)
    signed = _signatures_by_line(report)
    lines: list[str] = []

    def add(marks: str, text: str) -> None:
        lines.append(f"{marks:<{width}}  {text}")

    for item in report.timeline:
        if isinstance(item, Problem):
            add(CROSS, report.describe(item))
        elif isinstance(item, ev.TurnResolved):
            marks = CHECK * signed["turn", item.turn]
            add(marks, f"turn {item.turn + 1:<3} {_turn_text(report, item, names)}")
        else:
            text = _event_text(report, item, names)
            if text is not None:
                add(CHECK * signed[_event_key(item)], text)
                if isinstance(item, ev.DeckReady):
                    lines.extend(f"{'':<{width}}    {hand}" for hand in _dealt_hands(report))
    lines.extend(_unverified_lines(report, width))
    lines.extend(_deck_lines(report))
    return lines


def _event_key(event: ev.Event) -> tuple[str, int]:
    if isinstance(event, ev.DeckReady):
        return "deck", 0
    if isinstance(event, ev.Audited):
        return "seed", 0
    if isinstance(event, ev.GameOver):
        return "none", 0
    return "one", 0


def _signatures_by_line(report: GameReport) -> Counter[tuple[str, int]]:
    """How many applied (hence verified) entries stand behind each kind of story line."""
    counts: Counter[tuple[str, int]] = Counter()
    for entry in report.applied:
        if entry.kind in ("action", "ack"):
            counts["turn", entry.turn] += 1
        elif entry.kind in ("deck", "seed"):
            counts[entry.kind, 0] += 1
    counts["one", 0] = 1
    return counts


def _event_text(report: GameReport, event: ev.Event, names: list[str]) -> str | None:
    def seat(s: int) -> str:
        return names[s] if 0 <= s < len(names) else f"seat {s}"

    if isinstance(event, ev.TableOpened):
        config = report.config
        what = f": {config.players} players, {variant_text(config)}" if config else ""
        host = report.label(report.players[0].peer_id) if report.players else "the host"
        return f"{host} opens the table '{event.name}'{what}"
    if isinstance(event, ev.PlayerJoined):
        return f"{report.label(event.peer_id)} asks for a seat"
    if isinstance(event, ev.Seated):
        return "seats: " + ", ".join(f"{p.seat} {report.label(p.peer_id)}"
                                     for p in report.players)
    if isinstance(event, ev.DeckReady):
        return "the deck is shuffled and locked by every player; cards are dealt"
    if isinstance(event, ev.HandMoved):
        return f"{seat(event.seat)} moves a card of their hand to slot {event.to + 1}"
    if isinstance(event, ev.Chat):
        return f"{seat(event.seat) if event.seat >= 0 else 'someone'}: \"{event.text}\""
    if isinstance(event, ev.Resigned):
        reason = f": {event.reason}" if event.reason else ""
        return f"{seat(event.seat)} resigns{reason}"
    if isinstance(event, ev.GameOver):
        rating = f" ({report.state.rating})" if report.state is not None else ""
        return f"game over ({event.end}): score {event.score}{rating}"
    if isinstance(event, ev.Audited):
        result = "ok" if event.ok else f"failed: {event.reason}"
        return f"every seed revealed; deck audit {result}"
    return None


def _turn_text(report: GameReport, event: ev.TurnResolved, names: list[str]) -> str:
    # the one narrator (ui/narrate), as on the table and in headless lines
    from hanabi_p2p.ui.narrate import describe

    text = "; ".join(describe(event.action, event.outcome, names, event.before.hands,
                              event.before))
    faces = report.faces
    action, outcome = event.action, event.outcome
    if isinstance(action, Clue) and faces:
        touched = [str(faces[c]) for c in event.before.hands[action.target]
                   if c in outcome.touched]
        if touched:
            text += f" [{' '.join(touched)}]"
    if outcome.drew is not None and outcome.drew in faces:
        text += f"; draws {faces[outcome.drew]}"
    return text


def _dealt_hands(report: GameReport) -> list[str]:
    """Every starting hand, once the audit made every face known."""
    faces, config = report.faces, report.config
    if not faces or config is None:
        return []
    start = GameState(config, [faces[i] for i in range(config.deck_size)])
    return [f"{player.name}'s hand: {' '.join(str(faces[c]) for c in start.hands[player.seat])}"
            for player in report.players]


def _unverified_lines(report: GameReport, width: int) -> list[str]:
    if not report.unapplied:
        return []
    actions = [e for e in report.unapplied if e.kind == "action"]
    why = (
        "the deck was not audited, so no turn after the deal can be checked"
        if not report.faces
        else "they could not be applied"
    )
    lines = [f"{'':<{width}}  {len(report.unapplied)} more entries, signed but not checked "
             f"against the rules: {why}"]
    for entry in actions[:MAX_UNVERIFIED_LINES]:
        lines.append(f"{UNVERIFIED:<{width}}  turn {entry.turn + 1:<3} "
                     f"{report.label(entry.author)}: {_raw_action(report, entry)}")
    if len(actions) > MAX_UNVERIFIED_LINES:
        lines.append(f"{'':<{width}}  ... and {len(actions) - MAX_UNVERIFIED_LINES} more actions")
    return lines


def _raw_action(report: GameReport, entry: Entry) -> str:
    """An action as its author claimed it, for entries the replay never reached."""
    seat = next((p.seat for p in report.players if p.peer_id == entry.author), 0)
    try:
        action = b.ActionBody.from_wire(entry.body, seat).action
    except HanabiError as exc:
        return f"malformed action ({exc})"
    if isinstance(action, Play):
        return f"plays card #{action.card}"
    if isinstance(action, Discard):
        return f"discards card #{action.card}"
    named = action.colour.value if action.colour is not None else str(action.rank)
    target = report.seat_name(action.target)
    cards = ", ".join(f"#{c}" for c in sorted(action.touched or ()))
    return f"clues {target} {named} ({cards or 'no card'})"


def _deck_lines(report: GameReport) -> list[str]:
    faces = report.faces
    if not faces:
        return []
    lines = ["every card after the audit (deck position: face, top first):"]
    positions = sorted(faces)
    for row in range(0, len(positions), FACES_PER_ROW):
        chunk = positions[row : row + FACES_PER_ROW]
        lines.append("  " + "  ".join(f"{p:>2}:{faces[p]}" for p in chunk))
    return lines


# ---------------------------------------------------------------------------- list / export


def run_list(args: argparse.Namespace) -> int:
    data_dir = DataDir.resolve(args.data_dir)
    files = data_dir.game_files()
    if not files:
        _emit(f"no games in {data_dir.games_dir}")
        return 0
    rows = [("DATE", "TABLE", "NAME", "PLAYERS", "VARIANT", "SCORE")]
    rows.extend(sorted(_list_row(path) for path in files))  # oldest first: dates sort as text
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]) - 1)]
    for row in rows:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        _emit("  ".join([*cells, row[-1]]))
    return 0


def _list_row(path: Path) -> tuple[str, str, str, str, str, str]:
    table = path.stem[:ID_CHARS_SHOWN]
    try:
        report = read_report(path)
    except HanabiError as exc:
        return ("?", table, "", "", "", f"unreadable: {exc}")
    date = _date(report.header.created) if report.header is not None else "?"
    players = ", ".join(p.name for p in report.players)
    variant = variant_text(report.config) if report.config is not None else ""
    if report.verdict is Verdict.VALID and report.state is not None:
        score = f"{report.state.score} ({report.state.rating})"
    elif report.verdict is Verdict.UNFINISHED:
        score = "unfinished"
    else:
        score = "INVALID (see 'log verify')"
    return (date, table, report.table_name, players, variant, score)


def run_export(args: argparse.Namespace) -> int:
    report = _report_for(args)
    if not report.ok or report.config is None:
        raise UserError(f"cannot export this game: {printable(report.headline())}")
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
