"""The game in numbers and pictures: the per-player summary and the charts of a game, as
the end screen, `log show` and the replay draw them. The numbers are rules/stats.py's.

The summary: one row per player (the hand at the end when the screen has it, clues given,
plays, misplays, discards, the efficiency of their clues) and one for the table (with
hanab.live's efficiency, see rules/stats.py). The charts: score, clue tokens and pace after
each turn, and a timeline of the turns marking misplays and saves.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from hanabi_p2p.i18n import _, pgettext
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, Card, GameConfig
from hanabi_p2p.rules.stats import GameStats, PlayerTally
from hanabi_p2p.ui.charts import chart_rows, sparkline, timeline
from hanabi_p2p.ui.symbols import UNICODE, Glyphs, card_face
from hanabi_p2p.ui.text import Line, fit, join_cells, pad, width

# A name longer than this is cut in the summary's rows (the hands above give it whole).
MAX_NAME_COLUMNS = 12
SEAT_COLUMNS = 4  # " 1 " and a space
# Rows of each chart in `log show`, where there is room for more than one.
TALL_CHART_ROWS = 4


def efficiency_text(value: float | None) -> str:
    """Two decimals, as hanab.live shows it; a dash before any clue."""
    return "-" if value is None else f"{value:.2f}"


def _headers() -> list[str]:
    return [
        pgettext("summary column", "Clues"),
        pgettext("summary column", "Plays"),
        pgettext("summary column", "Misplays"),
        pgettext("summary column", "Discards"),
        pgettext("summary column", "Efficiency"),
    ]


def _numbers(tally: PlayerTally, efficiency: float | None) -> list[str]:
    return [str(tally.clues), str(tally.plays), str(tally.misplays), str(tally.discards),
            efficiency_text(efficiency)]


@dataclass(frozen=True, slots=True)
class _Layout:
    headers: list[str]
    rows: list[list[str]]  # per player, then the table's
    widths: list[int]  # per number column
    shown: list[str]  # names, cut
    name_w: int
    hand_cells: list[Line]
    hand_w: int

    def numbers_w(self, gap: int = 2) -> int:
        return sum(self.widths) + gap * (len(self.widths) - 1)

    def fits_hands(self, columns: int) -> bool:
        return (bool(self.hand_cells)
                and SEAT_COLUMNS + self.name_w + 2 + self.hand_w + 2 + self.numbers_w() <= columns)

    def gap(self, columns: int) -> int:
        """Spaces between the number columns: two, or one on a narrow screen."""
        return 2 if SEAT_COLUMNS + self.name_w + 2 + self.numbers_w() <= columns else 1


def _layout(
    stats: GameStats, names: Sequence[str], hands: Sequence[Sequence[Card | None]]
) -> _Layout:
    headers = _headers()
    rows = [_numbers(t, t.efficiency) for t in stats.players]
    rows.append(_numbers(stats.table, stats.efficiency))
    widths = [max(width([("", h)]), *(len(row[i]) for row in rows))
              for i, h in enumerate(headers)]
    shown = [name[:MAX_NAME_COLUMNS] for name in names]
    # the table's label sits in the seat and name columns
    label_w = width([("", _("Table"))]) - SEAT_COLUMNS + 1
    name_w = max([width([("", n)]) for n in shown] + [label_w, 1])
    hand_cells = [
        join_cells([card_face(face) if face is not None else [("class:dim", "??")]
                    for face in hand], " ")
        for hand in hands
    ]
    hand_w = max([width(c) for c in hand_cells] + [width([("", _("Hands at the end"))])])
    return _Layout(headers, rows, widths, shown, name_w, hand_cells, hand_w)


def summary_holds_hands(
    stats: GameStats, names: Sequence[str], columns: int, hands: Sequence[Sequence[Card | None]]
) -> bool:
    """`summary_lines` draws `hands` beside the numbers at this width (else leaves them out:
    the caller shows them apart)."""
    return _layout(stats, names, hands).fits_hands(columns)


def summary_lines(
    stats: GameStats,
    names: Sequence[str],
    columns: int,
    hands: Sequence[Sequence[Card | None]] = (),
    my_seat: int | None = None,
) -> list[Line]:
    """The summary table; with `hands` (per seat) each player's hand at the end in a column
    of its own, as long as it all fits in `columns` (else without them)."""
    layout = _layout(stats, names, hands)
    with_hands = layout.fits_hands(columns)
    widths, hand_w, name_w = layout.widths, layout.hand_w, layout.name_w
    gap = " " * (2 if with_hands else layout.gap(columns))

    def numbers(values: Sequence[str], style: str = "") -> Line:
        return join_cells([[(style, v.rjust(w))] for v, w in zip(values, widths, strict=True)],
                          gap)

    lead = SEAT_COLUMNS + name_w + 2
    header: Line = [("", " " * lead)]
    if with_hands:
        header.extend([*pad([("class:label", _("Hands at the end"))], hand_w), ("", "  ")])
    header.extend(numbers(layout.headers, "class:label"))
    lines: list[Line] = [header]
    for seat, row in enumerate(layout.rows[:-1]):
        name_style = "class:you" if seat == my_seat else ""
        name = layout.shown[seat] if seat < len(layout.shown) else ""
        line: Line = [("class:dim", f" {seat + 1:>2} "), *pad([(name_style, name)], name_w),
                      ("", "  ")]
        if with_hands:
            cell = layout.hand_cells[seat] if seat < len(layout.hand_cells) else []
            line.extend([*pad(cell, hand_w), ("", "  ")])
        line.extend(numbers(row))
        lines.append(line)
    total: Line = [*pad([("class:label", " " + _("Table"))], lead)]
    if with_hands:
        total.append(("", " " * (hand_w + 2)))
    total.extend(numbers(layout.rows[-1], "class:label"))
    lines.append(total)
    return [fit(line, columns) for line in lines]


def _series(stats: GameStats, config: GameConfig) -> list[tuple[str, list[int], int, int]]:
    """Each chart: its label, its values per turn, its scale."""
    paces = [p.pace for p in stats.points]
    return [
        (_("Score"), [p.score for p in stats.points], 0, config.max_score),
        (_("Clue tokens"), [p.clue_tokens for p in stats.points], 0, MAX_CLUE_TOKENS),
        (_("Pace"), paces, min(0, *paces), max(paces)),
    ]


def _legend(glyphs: Glyphs) -> Line:
    return [("class:bad", glyphs.fuse_burnt), ("class:dim", " " + _("misplay") + "  "),
            ("class:good", glyphs.save), ("class:dim", " " + _("save"))]


def chart_lines(
    stats: GameStats, config: GameConfig, columns: int, glyphs: Glyphs = UNICODE
) -> list[Line]:
    """One row per chart (score, clue tokens, pace) and the timeline, aligned turn for
    turn; each chart ends with its last value, the timeline with its legend."""
    series = _series(stats, config)
    turns_label = _("Turns")
    label_w = max(width([("", label)]) for label in [*(s[0] for s in series), turns_label]) + 1
    legend = _legend(glyphs)
    right_w = max(width(legend), *(len(str(values[-1])) for _l, values, _lo, _hi in series))
    chart_w = max(columns - label_w - 1 - right_w, 1)
    lines: list[Line] = []
    for label, values, low, high in series:
        bar = sparkline(values, chart_w, low, high, glyphs)
        lines.append([*pad([("class:label", label)], label_w), ("class:chart", bar),
                      ("", " " * (chart_w - len(bar) + 1)), ("", str(values[-1]))])
    marks = [p.mark for p in stats.points]
    bar_line = timeline(marks, chart_w, glyphs)
    lines.append([*pad([("class:label", turns_label)], label_w), *bar_line,
                  ("", " " * (chart_w - width(bar_line) + 1)), *legend])
    return [fit(line, columns) for line in lines]


def timeline_line(
    stats: GameStats, columns: int, glyphs: Glyphs = UNICODE, cursor: int | None = None
) -> Line:
    """The timeline alone, as the replay draws it under its header: the turns, misplays and
    saves marked, turn `cursor` (turns taken) in reverse video, the legend at the right."""
    label = _("Turns")
    legend = _legend(glyphs)
    label_w = width([("", label)]) + 1
    chart_w = max(columns - label_w - 1 - width(legend), 1)
    bar = timeline([p.mark for p in stats.points], chart_w, glyphs, cursor)
    return fit([*pad([("class:label", label)], label_w), *bar,
                ("", " " * (chart_w - width(bar) + 1)), *legend], columns)


def tall_chart_text(
    stats: GameStats, config: GameConfig, columns: int, glyphs: Glyphs = UNICODE,
    height: int = TALL_CHART_ROWS,
) -> list[str]:
    """Plain text for `log show`: each chart `height` rows tall under its label, with its
    scale at the left, then the timeline and its legend."""
    lines: list[str] = []
    scale_w = 4
    chart_w = max(columns - scale_w - 2, 1)
    for label, values, low, high in _series(stats, config):
        lines.append(f"{label} ({_('last')} {values[-1]})")
        rows = chart_rows(values, chart_w, height, low, high, glyphs)
        for i, row in enumerate(rows):
            scale = str(high) if i == 0 else str(low) if i == len(rows) - 1 else ""
            lines.append(f"{scale:>{scale_w}} {glyphs.vertical}{row}".rstrip())
    marks = [p.mark for p in stats.points]
    bar = "".join(text for _style, text in timeline(marks, chart_w, glyphs))
    legend = "".join(text for _style, text in _legend(glyphs))
    lines.append(f"{_('Turns')} ({legend})")
    lines.append(f"{'':>{scale_w}} {glyphs.vertical}{bar}")
    return lines


def efficiency_line(stats: GameStats) -> str:
    """How the table's efficiency is made, in words (hanab.live's formula)."""
    table = stats.table
    return _("Efficiency {value}: {gotten} cards gotten (played, or clued and not known "
             "trash) for {clues} clues given and {lost} lost").format(
        value=efficiency_text(stats.efficiency), gotten=stats.cards_gotten,
        clues=table.clues, lost=stats.clues_lost)
