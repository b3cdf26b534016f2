"""The spectator's table: every hand as the spectator knows it, read-only.

Pure: `watch_board` is the board seen from nobody's seat (every face the spectator decoded,
an unknown one left as a card back: never guessed), and `render_watch` draws a `WatchView`
into exactly `rows` lines of at most `columns`. The pieces are the live table's and the
replay's (header, cards with clue marks, the row of what each holder knows under its hand,
the log), so a spectator reads the same table the players do.
"""

from __future__ import annotations

import dataclasses

from hanabi_p2p.i18n import _, ngettext
from hanabi_p2p.narration.terms import end_reason, variant_summary
from hanabi_p2p.safe_text import safe_name
from hanabi_p2p.ui.board import Board
from hanabi_p2p.ui.replay import face_up_board, hand_lines
from hanabi_p2p.ui.symbols import UNICODE, Glyphs
from hanabi_p2p.ui.table import (
    TableLabels,
    _discard_lines,
    _fireworks_line,
    _spread,
    _tokens_lines,
    labels_for,
    log_lines,
)
from hanabi_p2p.ui.text import Line, fit
from hanabi_p2p.ui.view import WatcherRow, Watching, WatchView

# Keep at least this many log lines before spending rows on what each holder knows.
MIN_LOG_ROWS = 4


def watch_board(view: WatchView) -> Board:
    """Every hand as the spectator knows it: what it decoded, nothing more."""
    return face_up_board(view.state)


def watch_labels(view: WatchView, new_from: int | None = None) -> TableLabels:
    """The players' table's labels (names cleaned there), without the list of who
    watches: the spectator's own title says it is watching."""
    return dataclasses.replace(labels_for(view, new_from), watchers="")


def watching_text(watching: Watching) -> str:
    """What this spectator is shown, in a few words."""
    if watching is Watching.HANDS:
        return _("watching: every hand visible (the table allows it)")
    return _("watching: public view only (no hands)")


def _title(view: WatchView, board: Board, glyphs: Glyphs, columns: int) -> Line:
    left: Line = [("class:title", _("Watching"))]
    if view.table_name:
        left.extend([("class:dim", glyphs.dot), ("class:title", safe_name(view.table_name))])
    left.extend([("class:dim", glyphs.dot),
                 ("", variant_summary(board.config.variant, board.config.options))])
    right: Line = [("class:dim", _("turn {number}").format(number=board.turn + 1))]
    turns_left = board.final_round_turns_left
    if turns_left is not None and not board.over:
        marker = ngettext(
            "FINAL ROUND: {count} turn left", "FINAL ROUND: {count} turns left", turns_left
        ).format(count=turns_left)
        right = [("class:final-round", marker), ("class:dim", glyphs.dot), *right]
    return _spread(left, right, columns)


def watch_status(view: WatchView, board: Board, labels: TableLabels, glyphs: Glyphs,
                 columns: int) -> Line:
    """Whose turn it is, whether we see the hands, who dropped out, the shell's notices."""
    names = labels.names

    def name_of(seat: int) -> str:
        return names[seat] if 0 <= seat < len(names) else f"#{seat + 1}"

    if board.over:
        parts: Line = [("class:final-round",
                        _("Game over: {reason}").format(reason=end_reason(board.end)))]
    else:
        waiting = labels.waiting_for or (board.current_seat,)
        parts = [("class:waiting", _("Waiting for {names}").format(
            names=", ".join(name_of(s) for s in waiting)))]
    parts.extend([("class:dim", glyphs.dot), ("class:notice", watching_text(view.watching))])
    dropped = sorted(labels.disconnected)
    if dropped:
        parts.extend([("class:dim", glyphs.dot), ("class:dropped", ngettext(
            "{names} dropped out", "{names} dropped out", len(dropped)).format(
            names=", ".join(name_of(s) for s in dropped)))])
    if labels.status:
        parts.extend([("class:dim", glyphs.dot), ("class:notice", labels.status)])
    return fit(parts, columns)


def render_watch(
    view: WatchView,
    columns: int,
    rows: int,
    glyphs: Glyphs = UNICODE,
    log_offset: int = 0,
    new_from: int | None = None,
) -> list[Line]:
    """Exactly `rows` lines, none wider than `columns`: the header, every hand (with what
    its holder knows of each card when there is room), the log, the status line."""
    board = watch_board(view)
    labels = watch_labels(view, new_from)
    header = [
        _title(view, board, glyphs, columns),
        _fireworks_line(board, glyphs, columns),
        *_tokens_lines(board, glyphs, columns),
        *_discard_lines(board, columns, glyphs),
    ]
    rule: Line = [("class:rule", glyphs.rule * columns)]
    status = watch_status(view, board, labels, glyphs, columns)
    hands = hand_lines(board, labels, glyphs, columns)
    fixed = len(header) + 2 + 1  # two rules, the status line
    if rows - fixed - len(hands) < MIN_LOG_ROWS:
        hands = hand_lines(board, labels, glyphs, columns, knowledge_rows=False)
    log_rows = rows - fixed - len(hands)
    if log_rows < 1:
        body = [*header, *hands]  # a tiny terminal: the board is clipped, never squeezed
    else:
        body = [*header, rule, *hands, rule,
                *log_lines(labels.log, columns, log_rows, log_offset, new_from, glyphs)]
    out = [fit(line, columns) for line in body[: max(rows - 1, 0)]]
    out.extend([] for _ in range(max(rows - 1, 0) - len(out)))
    return [*out, status][:rows] if rows > 0 else []


def watcher_lines(watchers: tuple[WatcherRow, ...], columns: int) -> list[Line]:
    """The lobby's list of spectators: name, key fingerprint, whether it sees the hands."""
    if not watchers:
        return []
    lines: list[Line] = [[("class:label", _("Spectators"))]]
    names = [safe_name(w.name) for w in watchers]
    name_w = max([len(name) for name in names] + [8])
    for watcher, name in zip(watchers, names, strict=True):
        sees = _("sees every hand") if watcher.sees_hands else _("public view only")
        line: Line = [
            ("", "  "),
            ("", name.ljust(name_w)),
            ("class:dim", "  " + _("key {fingerprint}").format(
                fingerprint=safe_name(watcher.fingerprint))),
            ("", f"  ({sees})"),
        ]
        lines.append(fit(line, columns))
    return lines
