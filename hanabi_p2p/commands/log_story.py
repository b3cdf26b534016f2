"""`log show`'s story of a game: one line per event, with the signatures behind it, in the
one narrator's words (the player's language); what only a check of the log tells (entries
not checked, the deck after the audit) stays in English, like `log verify`.

Split from commands/log.py, which reads the games and prints what this module words.
"""

from __future__ import annotations

from collections import Counter

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.i18n import _
from hanabi_p2p.log.entry import Entry, EntryKind
from hanabi_p2p.narration import narrator as say
from hanabi_p2p.net.handshake import table_code
from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.engine import End, GameState
from hanabi_p2p.session import events as ev
from hanabi_p2p.session.kinds import ACTION, body_of
from hanabi_p2p.session.verify import (
    GameReport,
    Problem,
)

CHECK = "✓"  # a verified signature behind a line
CROSS = "✗"  # an entry the replay rejected
UNVERIFIED = "?"  # a signed action that could not be checked against the rules
MAX_UNVERIFIED_LINES = 200  # unchecked actions listed (a game has at most ~90 turns)
FACES_PER_ROW = 10


def legend_line() -> str:
    """What the marks before each line of the story mean (the rows of ✓ said nothing)."""
    return _("{check} a signature checked behind the line (the player who acted, then each "
             "player who acknowledged it); {cross} an entry refused; {unverified} an action "
             "that could not be checked").format(check=CHECK, cross=CROSS, unverified=UNVERIFIED)


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
            add(marks, _turn_text(report, item, names))
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
        return EntryKind.DECK, 0
    if isinstance(event, ev.Audited):
        return EntryKind.SEED, 0
    if isinstance(event, ev.GameOver):
        return "none", 0
    return "one", 0


def _signatures_by_line(report: GameReport) -> Counter[tuple[str, int]]:
    """How many applied (hence verified) entries stand behind each kind of story line."""
    counts: Counter[tuple[str, int]] = Counter()
    for entry in report.applied:
        if entry.kind in (EntryKind.ACTION, EntryKind.ACK):
            counts["turn", entry.turn] += 1
        elif entry.kind in (EntryKind.DECK, EntryKind.SEED):
            counts[entry.kind, 0] += 1
    counts["one", 0] = 1
    return counts


def _event_text(report: GameReport, event: ev.Event, names: list[str]) -> str | None:
    # every sentence from the one narrator, as on the table and in headless lines
    if isinstance(event, ev.TableOpened):
        host = report.label(report.players[0].peer_id) if report.players else _("the host")
        return say.opened_by_line(host, event.name, report.config)
    if isinstance(event, ev.PlayerJoined):
        return say.joined_line(event, report.label(event.peer_id))
    if isinstance(event, ev.Seated):
        ids = [p.peer_id for p in report.players]
        code = table_code(report.table_id, ids) if report.table_id is not None and ids else ""
        return say.seated_line(code, [report.label(peer_id) for peer_id in ids])
    if isinstance(event, ev.HandMoved):
        return say.hand_moved_line(say.seat_name(names, event.seat), event.to)
    if isinstance(event, ev.GameOver):
        rating = report.state.rating if report.state is not None else None
        return say.game_over_line(End(event.end), event.score, rating)
    return "; ".join(say.event_lines(event, names)) or None


def _turn_text(report: GameReport, event: ev.TurnResolved, names: list[str]) -> str:
    """The turn's line, plus what the audit revealed: the faces a clue touched, the card
    drawn (said after the action, before any line on how the game ended)."""
    first, *more = say.describe(event.action, event.outcome, names, event.before.hands,
                                event.before) or [""]
    faces = report.faces
    action, outcome = event.action, event.outcome
    if isinstance(action, Clue) and faces:
        touched = [str(faces[c]) for c in event.before.hands[action.target]
                   if c in outcome.touched]
        if touched:
            first += f" [{' '.join(touched)}]"
    if outcome.drew is not None and outcome.drew in faces:
        first += "; " + say.draws_text(faces[outcome.drew])
    return say.turn_line(event.turn, "; ".join([first, *more]))


def _dealt_hands(report: GameReport) -> list[str]:
    """Every starting hand, once the audit made every face known."""
    faces, config = report.faces, report.config
    if not faces or config is None:
        return []
    start = GameState(config, [faces[i] for i in range(config.deck_size)])
    return [say.hand_line(player.name, [faces[c] for c in start.hands[player.seat]])
            for player in report.players]


def _unverified_lines(report: GameReport, width: int) -> list[str]:
    if not report.unapplied:
        return []
    actions = [e for e in report.unapplied if e.kind == EntryKind.ACTION]
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
        action = body_of(entry, ACTION).for_seat(seat).action
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
