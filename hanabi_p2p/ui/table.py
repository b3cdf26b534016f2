"""The table screen: fireworks, tokens, discards, hands, the action log and whose turn it is.

Pure: `render_board` turns a `Board` plus a few labels into exactly `rows` lines of at most
`columns` columns. At 80x24 everything fits with five players; taller terminals get each
card's deduced possibilities under the other hands, wider ones put the log beside the table.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from hanabi_p2p.i18n import _, ngettext
from hanabi_p2p.narration.terms import end_reason, variant_summary
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, MAX_STRIKES, RANKS, Card
from hanabi_p2p.safe_text import safe_name
from hanabi_p2p.ui.board import Board, CardCell, board_from_state
from hanabi_p2p.ui.symbols import UNICODE, Glyphs, card_face, suit_letter, suit_style
from hanabi_p2p.ui.text import Line, fit, flow, join_cells, pad, width, wrap_text
from hanabi_p2p.ui.view import OWN_MACHINE, TableView, WatcherRow, WatchView

# A name, its computer-player mark (⚙ and whose machine runs it) and the seat number.
MAX_NAME_COLUMNS = 18
# From this width on, the log moves to a column of its own beside the table.
SIDE_LOG_MIN_COLUMNS = 120
BOARD_COLUMNS_WIDE = 80
# Keep at least this many log lines before spending rows on optional detail.
MIN_LOG_ROWS = 5


@dataclass(frozen=True, slots=True)
class TableLabels:
    """Everything around the board that the session knows and the engine does not."""

    names: tuple[str, ...]
    table_name: str = ""
    log: tuple[str, ...] = ()
    waiting_for: tuple[int, ...] = ()
    disconnected: frozenset[int] = field(default_factory=frozenset)
    status: str = ""
    # per seat: whose machine runs this computer player ("" for a person, or unknown)
    runners: tuple[str, ...] = ()
    new_from: int | None = None  # log entries from this index on are new since our turn
    notes: dict[int, str] = field(default_factory=dict)  # card id -> our private note
    watchers: str = ""  # who is watching the table, in words (already cleaned)
    premove: str = ""  # the command queued for our next turn (`ui.premove`), "" for none
    clock: str = ""  # a timed table's turn clock, in words ("⏱ 42 s left"), "" for none


def watchers_text(watchers: Sequence[WatcherRow]) -> str:
    """Who watches the table, for a status line ("" when nobody does); names cleaned."""
    if not watchers:
        return ""
    return ngettext("{count} watching: {names}", "{count} watching: {names}",
                    len(watchers)).format(
        count=len(watchers), names=", ".join(safe_name(w.name) for w in watchers))


def labels_for(
    view: TableView | WatchView, new_from: int | None = None, notes: dict[int, str] | None = None
) -> TableLabels:
    """The labels of a table view; names come from peers, so they are cleaned here."""
    return TableLabels(
        names=tuple(safe_name(name) for name in view.names),
        table_name=safe_name(view.table_name),
        log=view.log,
        waiting_for=view.waiting_for,
        disconnected=view.disconnected,
        status=view.status,
        runners=tuple(safe_name(runner) for runner in view.runners),
        new_from=new_from,
        notes=dict(notes or {}),
        watchers=watchers_text(view.watchers),
    )


def render_table(
    view: TableView, columns: int, rows: int, glyphs: Glyphs = UNICODE, log_offset: int = 0
) -> list[Line]:
    """The table as seen from `view.my_seat`: exactly `rows` lines of at most `columns`."""
    board = board_from_state(view.state, view.my_seat)
    return render_board(
        board, labels_for(view), columns, rows, glyphs=glyphs, log_offset=log_offset
    )


def render_board(
    board: Board,
    labels: TableLabels,
    columns: int,
    rows: int,
    *,
    glyphs: Glyphs = UNICODE,
    log_offset: int = 0,
) -> list[Line]:
    """Exactly `rows` lines, none wider than `columns`.

    `log_offset` scrolls the log back by that many lines (0 = newest at the bottom).
    """
    side_log = columns >= SIDE_LOG_MIN_COLUMNS
    board_columns = BOARD_COLUMNS_WIDE if side_log else columns
    status = status_line(board, labels, glyphs, columns)

    top = _header_section(board, labels, glyphs, board_columns)
    hands_compact = _hands_section(board, labels, glyphs, board_columns, detailed=False)
    hands_detailed = _hands_section(board, labels, glyphs, board_columns, detailed=True)
    rule: Line = [("class:rule", glyphs.rule * board_columns)]

    if side_log:
        body_rows = rows - 1
        spare = body_rows - len(top) - 1 - len(hands_detailed)
        hands = hands_detailed if spare >= 0 else hands_compact
        left = [*top, rule, *hands]
        log_columns = columns - board_columns - 3
        log = log_lines(labels.log, log_columns, body_rows, log_offset, labels.new_from, glyphs)
        body: list[Line] = []
        for i in range(body_rows):
            left_line = pad(left[i], board_columns) if i < len(left) else pad([], board_columns)
            divider: Line = [("class:rule", f" {glyphs.vertical} ")]
            right = log[i] if i < len(log) else []
            body.append([*left_line, *divider, *right])
        return [*_fit_rows(body, body_rows, columns), status]

    fixed = len(top) + 1 + 1 + 1  # top, two rules, status line
    hands = hands_detailed
    if rows - fixed - len(hands_detailed) < MIN_LOG_ROWS:
        hands = hands_compact
    log_rows = rows - fixed - len(hands)
    if log_rows < 1:
        # A tiny terminal: give up the separators first; if the board still does not fit,
        # say so rather than clip it, which cut off our own hand (it comes last) unnoticed
        body = [*top, *hands]
        if len(body) > rows - 1:
            body = [[("class:notice", text)] for text in wrap_text(
                _("This terminal is too small to show the table: make it larger"), columns)]
        return [*_fit_rows(body, rows - 1, columns), status]
    log = log_lines(labels.log, columns, log_rows, log_offset, labels.new_from, glyphs)
    body = [*top, rule, *hands, rule, *log]
    return [*_fit_rows(body, rows - 1, columns), status]


def _fit_rows(lines: Sequence[Line], rows: int, columns: int) -> list[Line]:
    out = [fit(line, columns) for line in lines[: max(rows, 0)]]
    out.extend([] for _ in range(max(rows, 0) - len(out)))
    return out


# --- header: title, turn, fireworks, tokens, deck, discards ------------------------------------


def _header_section(board: Board, labels: TableLabels, glyphs: Glyphs, columns: int) -> list[Line]:
    return [
        _title_line(board, labels, glyphs, columns),
        _fireworks_line(board, glyphs, columns),
        *_tokens_lines(board, glyphs, columns),
        *_discard_lines(board, columns, glyphs),
    ]


def _title_line(board: Board, labels: TableLabels, glyphs: Glyphs, columns: int) -> Line:
    config = board.config
    left: Line = []
    if labels.table_name:
        left.append(("class:title", labels.table_name))
        left.append(("class:dim", glyphs.dot))
    left.append(("", variant_summary(config.variant, config.options)))
    right: Line = [("class:dim", _("turn {number}").format(number=board.turn + 1))]
    if labels.watchers:
        # in sight all game, on our turn too; the log names each with its key
        right = [("class:dim", labels.watchers), ("class:dim", glyphs.dot), *right]
    if board.final_round_turns_left is not None and not board.over:
        marker = ngettext(
            "FINAL ROUND: {count} turn left",
            "FINAL ROUND: {count} turns left",
            board.final_round_turns_left,
        ).format(count=board.final_round_turns_left)
        right = [("class:final-round", marker), ("class:dim", glyphs.dot), *right]
    return _spread(left, right, columns)


def _spread(left: Line, right: Line, columns: int) -> Line:
    """`left` and `right` on one line, `right` flush right; `left` gives way if needed."""
    gap = columns - width(left) - width(right)
    if gap >= 1:
        return [*left, ("", " " * gap), *right]
    if width(right) + 2 <= columns:
        return [*fit(left, columns - width(right) - 1), ("", " "), *right]
    return fit(right, columns)


def _fireworks_line(board: Board, glyphs: Glyphs, columns: int) -> Line:
    cells: list[Line] = []
    for suit, top in board.fireworks:
        style = suit_style(suit) if top else "class:dim"
        cells.append([(style, f"{suit.letter}{top}")])
    line: Line = [("class:label", _("Fireworks")), ("", "  "), *join_cells(cells, " ")]
    score = _("score {score}/{max}").format(score=board.score, max=board.config.max_score)
    right: Line = [("class:label", score)]
    if not board.over:
        # what is still reachable, and how many discards the team can afford before it
        # is not (only meaningful until the deck runs out)
        reach = _("max {score}").format(score=board.max_reachable)
        right = [("class:dim", reach), ("", "  "), *right]
        if board.final_round_turns_left is None:
            style = "class:bad" if board.pace <= 0 else "class:dim"
            right = [(style, _("pace {count}").format(count=board.pace)), ("", "  "), *right]
    if width(line) + width(right) + 1 > columns:
        right = [("class:label", score)]
    return _spread(line, right, columns)


def _tokens_lines(board: Board, glyphs: Glyphs, columns: int) -> list[Line]:
    tokens = board.clue_tokens
    burnt = board.strikes
    clues: Line = [
        ("class:label", _("Clue tokens")),
        ("", " "),
        ("class:token", glyphs.token * tokens),
        ("class:dim", glyphs.token_used * (MAX_CLUE_TOKENS - tokens)),
        ("", f" {tokens}"),
    ]
    fuses: Line = [
        ("class:label", _("Fuses")),
        ("", " "),
        ("class:fuse", glyphs.fuse_burnt * burnt),
        ("class:dim", glyphs.fuse_intact * (MAX_STRIKES - burnt)),
        ("", f" {burnt}/{MAX_STRIKES}"),
    ]
    deck: Line = [("class:label", _("Deck")), ("", f" {board.deck_left}")]
    line = join_cells([clues, fuses, deck], "   ")
    if width(line) <= columns:
        return [line]
    # a narrow terminal: wrap rather than cut off the deck count
    return flow([], [clues, fuses, deck], columns, " ")


def _discard_lines(board: Board, columns: int, glyphs: Glyphs = UNICODE) -> list[Line]:
    label: Line = [("class:label", _("Discards")), ("", "  ")]
    if not board.discards:
        return [[*label, ("class:dim", _("none yet"))]]
    cells: list[Line] = []
    for suit in board.config.suits:
        ranks = sorted(card.rank for card in board.discards if card.suit is suit)
        if not ranks:
            continue
        cell: Line = [*suit_letter(suit), ("", ":")]
        for i, rank in enumerate(ranks):
            cell.append((suit_style(suit), (" " if i else "") + str(rank)))
            if Card(suit, rank) in board.endangered and rank not in ranks[i + 1 :]:
                # one copy left and still needed: do not lose it too
                cell.append(("class:last-copy", glyphs.last_copy))
        cells.append(cell)
    return flow(label, cells, columns, "  ")


# --- hands ------------------------------------------------------------------------------------


def seat_order(board: Board) -> list[int]:
    """Other players in the order they play after us, then ourselves last (nearest the input)."""
    players = len(board.hands)
    return [(board.my_seat + k) % players for k in range(1, players)] + [board.my_seat]


def _clue_marks(cell: CardCell) -> Line:
    if not cell.clued:
        return []
    marks: Line = [("class:clue-mark", "(")]
    marks.extend((suit_style(suit), suit.letter) for suit in cell.clue_colours)
    marks.extend(("class:clue-mark", str(rank)) for rank in cell.clue_ranks)
    marks.append(("class:clue-mark", ")"))
    return marks


def _face_cell(cell: CardCell, glyphs: Glyphs, noted: bool) -> Line:
    face: Line = card_face(cell.face) if cell.face is not None else [("class:dim", "??")]
    marks: Line = []
    if cell.last_copy:
        marks.append(("class:last-copy", glyphs.last_copy))
    if noted:
        marks.append(("class:note", glyphs.note))
    return [*face, *marks, *_clue_marks(cell)]


def _possibilities(cell: CardCell, board: Board, glyphs: Glyphs) -> tuple[Line, Line]:
    """What the holder can know: colour letters and numbers, ruled-out ones as dots."""
    colours: Line = [
        (suit_style(suit), suit.letter)
        if suit in cell.colours
        else ("class:dim", glyphs.impossible)
        for suit in board.config.suits
    ]
    ranks: Line = [
        ("", str(rank)) if rank in cell.ranks else ("class:dim", glyphs.impossible)
        for rank in RANKS
    ]
    if cell.trash:
        ranks.append(("class:trash", glyphs.trash))  # no longer needed, whatever it is
    return colours, ranks


def knowledge_columns(board: Board, hand: Sequence[CardCell]) -> int:
    """Columns a row of what a holder knows takes per card: colours, a gap, numbers, and
    one more for the known-trash mark when a card of `hand` carries it."""
    trash = any(cell.trash for cell in hand)
    return len(board.config.suits) + 1 + len(RANKS) + trash


def _narrowed(cell: CardCell, board: Board) -> bool:
    return (cell.trash or len(cell.colours) < len(board.config.suits)
            or len(cell.ranks) < len(RANKS))


def _name_cell(board: Board, labels: TableLabels, seat: int, glyphs: Glyphs, name_w: int) -> Line:
    marker: Line = [("", "  ")]
    if seat in labels.disconnected:
        marker = [("class:dropped", glyphs.fuse_burnt + " ")]
    elif seat == board.current_seat and not board.over:
        marker = [("class:turn-marker", glyphs.turn_marker + " ")]
    return [*marker, *pad(_name_label(board, labels, seat, glyphs), name_w)]


def _name_label(board: Board, labels: TableLabels, seat: int, glyphs: Glyphs) -> Line:
    """Seat number (players can be addressed by it), name, and for a computer player the
    player whose machine runs it (that machine could read that seat's cards)."""
    name = labels.names[seat] if seat < len(labels.names) else f"#{seat + 1}"
    if seat == board.my_seat:
        name = _("You ({name})").format(name=name)
    style = "class:you" if seat == board.my_seat else ""
    label: Line = [("class:dim", f"{seat + 1} "), (style, name)]
    runner = labels.runners[seat] if seat < len(labels.runners) else ""
    if runner == OWN_MACHINE:
        label.append(("class:bot", glyphs.computer))
    elif runner:
        label.append(("class:bot", f"{glyphs.computer}{runner}"))
    return label


def _hands_section(
    board: Board, labels: TableLabels, glyphs: Glyphs, columns: int, detailed: bool
) -> list[Line]:
    order = seat_order(board)
    labels_w = [width(_name_label(board, labels, s, glyphs)) for s in order]
    name_w = min(max(labels_w), MAX_NAME_COLUMNS) + 1
    lines: list[Line] = []
    for seat in order[:-1]:
        cells = [_face_cell(c, glyphs, c.card in labels.notes) for c in board.hands[seat]]
        knowledge = [_possibilities(c, board, glyphs) for c in board.hands[seat]]
        cell_w = max([width(c) for c in cells] + [2])
        wide_w = max(cell_w, knowledge_columns(board, board.hands[seat]))
        name_cell = _name_cell(board, labels, seat, glyphs, name_w)
        # The knowledge row lines up under the cards only when the whole hand fits in
        # one row; a narrow terminal wraps the hand instead and never hides a card.
        detailed_here = detailed and width(name_cell) + len(cells) * (wide_w + 1) <= columns
        if detailed_here:
            cell_w = wide_w
        padded = [pad(c, cell_w) for c in cells]
        row: Line = [*name_cell, *join_cells(padded, " ")]
        dropped: Line = [("", " "), ("class:dropped", _("dropped out"))]
        if width(row) > columns:
            lines.extend(flow(name_cell, padded, columns, " "))
            continue
        if seat in labels.disconnected and width(row) + width(dropped) <= columns:
            row.extend(dropped)  # spelled out when it fits; the ✖ before the name always
        lines.append(row)
        if detailed_here:
            detail: Line = [("", " " * (name_w + 2))]
            parts: list[Line] = []
            for cell, (colours, ranks) in zip(board.hands[seat], knowledge, strict=True):
                shown = [*colours, ("", " "), *ranks] if _narrowed(cell, board) else []
                parts.append(pad(shown, cell_w))
            detail.extend(join_cells(parts, " "))
            lines.append(fit(detail, columns))
    lines.extend(_own_hand(board, labels, glyphs, columns, name_w))
    return lines


def _own_hand(
    board: Board, labels: TableLabels, glyphs: Glyphs, columns: int, name_w: int
) -> list[Line]:
    """The own hand as what we know of it: never faces, only what clues allow."""
    name_cell = _name_cell(board, labels, board.my_seat, glyphs, name_w)
    indent: Line = [("", " " * width(name_cell))]
    top_cells: list[Line] = []
    bottom_cells: list[Line] = []
    for slot, cell in enumerate(board.hands[board.my_seat], start=1):
        colours, ranks = _possibilities(cell, board, glyphs)
        slot_mark: Line = [("class:clued" if cell.clued else "class:dim", f"{slot}")]
        slot_mark.append(("class:clue-mark", "*") if cell.clued else ("", ":"))
        top_cells.append([*slot_mark, *colours])
        note = [("class:note", glyphs.note)] if cell.card in labels.notes else []
        bottom_cells.append([("", "  "), *ranks, *note])
    if not board.hands[board.my_seat]:
        return [[*name_cell, ("class:dim", _("no cards left"))], []]
    cell_w = max(width(c) for c in [*top_cells, *bottom_cells])
    # as many cards per row pair as fit; a narrow terminal gets more rows, never fewer cards
    per_row = max((columns - width(name_cell) + 2) // (cell_w + 2), 1)
    lines: list[Line] = []
    for start in range(0, len(top_cells), per_row):
        top = [*(name_cell if start == 0 else indent)]
        top.extend(join_cells([pad(c, cell_w) for c in top_cells[start : start + per_row]], "  "))
        bottom = [*indent]
        bottom.extend(
            join_cells([pad(c, cell_w) for c in bottom_cells[start : start + per_row]], "  ")
        )
        lines.extend([fit(top, columns), fit(bottom, columns)])
    lines.extend(_note_lines(board, labels, columns, glyphs))
    return lines


def _seat_label(labels: TableLabels, seat: int) -> str:
    return labels.names[seat] if seat < len(labels.names) else f"#{seat + 1}"


def _note_lines(board: Board, labels: TableLabels, columns: int, glyphs: Glyphs) -> list[Line]:
    """Our private notes, under our hand: on our cards by slot, on others' cards by name and
    slot (the ✎ marks the cards themselves)."""
    cells: list[Line] = []
    for seat in [board.my_seat, *seat_order(board)[:-1]]:
        owner = "" if seat == board.my_seat else _seat_label(labels, seat) + " "
        for slot, cell in enumerate(board.hands[seat], start=1):
            note = labels.notes.get(cell.card)
            if note:
                cells.append([("class:note", f"{owner}{slot}{glyphs.note} "), ("", note)])
    if not cells:
        return []
    return flow([("", " " * 4)], cells, columns, "  ")


# --- log and status ---------------------------------------------------------------------------


def log_lines(
    log: Sequence[str],
    columns: int,
    rows: int,
    offset: int = 0,
    new_from: int | None = None,
    glyphs: Glyphs = UNICODE,
) -> list[Line]:
    """The last `rows` wrapped lines of the log, scrolled back by `offset` lines.

    Entries from index `new_from` on (what happened since our last turn) are marked, so a
    burst of computer players' moves does not go by unread.
    """
    if rows <= 0 or columns <= 0:
        return []
    wrapped: list[Line] = []
    for index, entry in enumerate(log):
        new = new_from is not None and index >= new_from
        first, *rest = wrap_text(entry, columns - 2) or [""]
        if new:
            wrapped.append([("class:new-mark", glyphs.new_mark), ("class:new", first)])
        else:
            wrapped.append([("", "  " if new_from is not None else ""), ("", first)])
        wrapped.extend([("", f"  {line}")] for line in rest)
    offset = max(0, min(offset, len(wrapped) - rows))
    end = len(wrapped) - offset
    return [fit(line, columns) for line in wrapped[max(end - rows, 0) : end]]


def status_line(board: Board, labels: TableLabels, glyphs: Glyphs, columns: int) -> Line:
    """Whose turn it is, in words; reversed and bold when it is ours."""
    names = labels.names

    def name_of(seat: int) -> str:
        return names[seat] if seat < len(names) else f"#{seat + 1}"

    parts: Line
    if board.over:
        parts = [
            ("class:final-round", _("Game over: {reason}").format(reason=end_reason(board.end)))
        ]
    elif board.my_turn and not labels.waiting_for:
        text = _("Your turn: play, discard or clue (type help for commands)")
        # a timed table's clock first: the end of the line is the first cut
        clock = f"{labels.clock}{glyphs.dot}" if labels.clock else ""
        parts = [("class:your-turn", f"{glyphs.turn_marker} {clock}{text}")]
        if labels.premove:  # (its turn came, but a card is still being revealed to us)
            parts.append(("class:your-turn", glyphs.dot + _("queued: {command}").format(
                command=labels.premove)))
        if labels.status:
            parts.append(("class:your-turn", f"{glyphs.dot}{labels.status}"))
            if width(parts) > columns:
                # what went wrong must be read whole (it was cut to "⚠ connection prob…"):
                # the turn is said short, the commands are in `help`
                parts[0] = ("class:your-turn", f"{glyphs.turn_marker} {clock}" + _("Your turn"))
        # The whole line in reverse video: the turn is noticed from across the room.
        return [("class:your-turn", text) for _style, text in pad(parts, columns)]
    else:
        waiting = labels.waiting_for or (board.current_seat,)
        who = ", ".join(name_of(s) for s in waiting)
        parts = [("class:waiting", _("Waiting for {names}").format(names=who))]
        if labels.clock:
            parts += [("class:dim", glyphs.dot), ("class:notice", labels.clock)]
        if labels.premove:
            parts += [("class:dim", glyphs.dot),
                      ("class:notice", _("queued: {command}").format(command=labels.premove))]
    dropped = sorted(labels.disconnected)
    if dropped:
        parts.append(("class:dim", glyphs.dot))
        parts.append(
            (
                "class:dropped",
                ngettext("{names} dropped out", "{names} dropped out", len(dropped)).format(
                    names=", ".join(name_of(s) for s in dropped)
                ),
            )
        )
    if labels.status:
        parts.extend([("class:dim", glyphs.dot), ("class:notice", labels.status)])
    return fit(parts, columns)
