"""The end screen: score and rating, the fireworks, each player's numbers and hand, charts of
the game (ui/summary.py), the audit's verdict, where the log is."""

from __future__ import annotations

from hanabi_p2p.i18n import _
from hanabi_p2p.narration.terms import end_reason, rating_word
from hanabi_p2p.rules.cards import MAX_STRIKES, Rating
from hanabi_p2p.rules.stats import GameStats, stats_of_state
from hanabi_p2p.safe_text import safe_name
from hanabi_p2p.ui.summary import chart_lines, summary_holds_hands, summary_lines
from hanabi_p2p.ui.symbols import UNICODE, Glyphs, card_face, suit_style
from hanabi_p2p.ui.table import log_lines
from hanabi_p2p.ui.text import Line, fit, flow, join_cells, width, wrap_text
from hanabi_p2p.ui.view import EndView


def hand_lines(view: EndView, columns: int) -> list[Line]:
    """Every hand face up, slot 1 first; a face nobody can know yet is ??."""
    if not view.hands:
        return []
    lines: list[Line] = [[("class:label", _("Hands at the end"))]]
    width = max((len(safe_name(n)) for n in view.names), default=0)
    for seat, hand in enumerate(view.hands):
        name = safe_name(view.names[seat]) if seat < len(view.names) else f"#{seat + 1}"
        cells: list[Line] = [
            card_face(face) if face is not None else [("class:dim", "??")] for face in hand
        ]
        prefix: Line = [("", f"  {seat + 1} "), ("class:you" if seat == view.my_seat else "",
                                                 name.ljust(width) + "  ")]
        lines.extend(flow(prefix, cells, columns, " "))
    return lines


def end_stats(view: EndView) -> GameStats | None:
    """The numbers of the game that ended (None if its actions cannot be replayed, or if
    it never got past the deal)."""
    if view.state is None or not view.state.history:
        return None
    return stats_of_state(view.state, view.faces)


def render_end(
    view: EndView, columns: int, rows: int, glyphs: Glyphs = UNICODE, log_offset: int = 0
) -> list[Line]:
    """Exactly `rows` lines, none wider than `columns`; the game log fills what is left."""
    config = view.config
    lines: list[Line] = [
        [("class:title", _("Game over")), ("", ": "), ("", end_reason(view.end))],
        [],
    ]
    if config.all_or_nothing:
        result: Line = [("class:label", _("Result")), ("", ": ")]
        won = view.rating is Rating.WIN
        result.append(("class:good" if won else "class:bad", rating_word(view.rating)))
        lines.append(result)
    else:
        score = _("Score {score} of {max}").format(score=view.score, max=config.max_score)
        lines.append(
            [
                ("class:label", score),
                ("class:dim", glyphs.dot),
                ("class:title", rating_word(view.rating)),
            ]
        )
    cells: list[Line] = []
    for suit, top in view.fireworks:
        cells.append([(suit_style(suit) if top else "class:dim", f"{suit.letter}{top}")])
    fireworks: Line = [("class:label", _("Fireworks")), ("", "  "), *join_cells(cells, " ")]
    fuses: Line = [("", _("Fuses burnt: {count} of {max}").format(
        count=view.strikes, max=MAX_STRIKES))]
    stats = end_stats(view)
    if stats is None:
        lines.extend([fireworks, fuses, *hand_lines(view, columns), []])
    else:
        # the game in numbers and pictures: one line saved wherever it fits, as 80x24
        # holds five players' rows and the charts
        together: Line = [*fireworks, ("class:dim", glyphs.dot), *fuses]
        lines.extend([together] if width(together) <= columns else [fireworks, fuses])
        names = [safe_name(n) for n in view.names]
        if not summary_holds_hands(stats, names, columns, view.hands):
            lines.extend(hand_lines(view, columns))  # a narrow screen: the hands above
        lines.extend(summary_lines(stats, names, columns, view.hands, view.my_seat))
        lines.extend(chart_lines(stats, config, columns, glyphs))
    if view.stopped:
        for text in wrap_text(
            _("The game was stopped: {reason}").format(reason=view.stopped),
            max(columns - 2, 10),
        ):
            lines.append([("class:bad", text)])
    if view.audit_ok is None and view.stopped:
        verdict: Line = [("class:dim", _("No audit: the game did not end normally"))]
    elif view.audit_ok is None:
        verdict = [("class:notice", _("Audit: checking every card and clue..."))]
    elif view.audit_ok:
        verdict = [("class:good", _("Audit passed"))]
    else:
        verdict = [("class:bad", _("Audit FAILED"))]
    lines.append(verdict)
    for text in wrap_text(view.audit_text, max(columns - 2, 10)) if view.audit_text else []:
        lines.append([("", "  " + text)])
    if view.log_path:
        # a long path wraps: it is the one thing to copy from this screen
        label = _("Log saved to")
        for i, part in enumerate(wrap_text(f"{label} {view.log_path}", columns)):
            lines.append([("class:label" if i == 0 else "", part)])
    hint = _("Type log to read the whole game, info NAME SLOT for a card's story, quit to leave.")
    lines.extend([("class:dim", part)] for part in wrap_text(hint, columns))
    out = [fit(line, columns) for line in lines[:rows]]
    room = rows - len(out) - 1
    if room > 1 and view.log:
        out.append([("class:rule", glyphs.rule * columns)])
        out.extend(log_lines(view.log, columns, room, log_offset))
    out.extend([] for _ in range(rows - len(out)))
    return out
