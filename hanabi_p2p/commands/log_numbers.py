"""`log show`'s game in numbers and pictures: the summary per player and for the table, how
the efficiency is made, and charts of score, clue tokens and pace with the timeline of
misplays and saves, as plain text (the end screen's, ui/summary.py, with taller charts).

Split from commands/log.py, which prints these lines after the game's story.
"""

from __future__ import annotations

from hanabi_p2p.i18n import _
from hanabi_p2p.rules.stats import stats_of_state
from hanabi_p2p.session.verify import GameReport
from hanabi_p2p.ui.summary import efficiency_line, summary_lines, tall_chart_text
from hanabi_p2p.ui.text import plain

# `log show` writes for a terminal or a file: as wide as the screens are at least.
COLUMNS = 80


def numbers_lines(report: GameReport, columns: int = COLUMNS) -> list[str]:
    """The lines, or none for a game that never got past its deal (or cannot be
    replayed: `log verify`'s lines say why)."""
    state = report.state
    if state is None or not state.history:
        return []
    stats = stats_of_state(state, report.faces)
    if stats is None:
        return []
    names = [""] * state.config.players
    for player in report.players:
        if 0 <= player.seat < len(names):
            names[player.seat] = player.name
    faces = report.faces
    hands = [[state.faces[card] or faces.get(card) for card in hand] for hand in state.hands]
    lines = ["", _("The game in numbers")]
    lines.extend(plain(line).rstrip() for line in summary_lines(stats, names, columns, hands))
    lines.append(efficiency_line(stats))
    lines.append("")
    lines.extend(tall_chart_text(stats, state.config, columns))
    return lines
