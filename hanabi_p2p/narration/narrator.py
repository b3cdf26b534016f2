"""The one narrator: every sentence about the table, for every output.

The full-screen log, the headless lines of `--bot` peers and scripts, `log show`, and the
replay (full-screen and `replay`'s lines) all word an event through these functions, so
"Carol clues Dave: 4 (slots 3, 4)" reads the same everywhere and is translated once.
`event_lines` tells a session event as the table's log tells it; each output picks the
events it tells (the lobby's own screen shows arrivals, so the table's log does not).
Cards are written as letter and number ("R3") so the text reads the same without colour.
Names, chat and reasons come from peers: each one passes
through `hanabi_p2p.safe_text` here, since every line ends up on someone's terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

from hanabi_p2p.i18n import _, ngettext
from hanabi_p2p.narration.terms import colour_name, end_reason, rating_word, variant_summary
from hanabi_p2p.rules.actions import Action, Clue, Move, Play
from hanabi_p2p.rules.cards import MAX_STRIKES, Card, GameConfig
from hanabi_p2p.rules.copies import is_last_copy
from hanabi_p2p.rules.engine import End, GameState, Outcome, OutcomeKind
from hanabi_p2p.safe_text import safe, safe_name
from hanabi_p2p.session import events as ev


def _slots(numbers: Sequence[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def seat_name(names: Sequence[str], seat: int) -> str:
    """A seat's name as shown (safe), or its number when the name is not known."""
    return safe_name(names[seat]) if 0 <= seat < len(names) else f"#{seat + 1}"


def describe(
    action: Action,
    outcome: Outcome,
    names: Sequence[str],
    hands_before: Sequence[Sequence[int]],
    before: GameState | None = None,
) -> list[str]:
    """Lines for one applied action; `hands_before` is every hand just before it (for slots).

    Usually one line; with `before` (the state it was applied to) a lost last copy is said
    ("that was the last Y5"); a last line says how the game ended when it did.
    """

    def slot_of(seat: int, card: int | None) -> int:
        hand = hands_before[seat] if seat < len(hands_before) else []
        return hand.index(card) + 1 if card in hand else 0

    player = seat_name(names, outcome.seat)
    lines: list[str] = []
    if outcome.kind is OutcomeKind.PLAY:
        card = str(outcome.face) if outcome.face is not None else "??"
        slot = slot_of(outcome.seat, outcome.card)
        if isinstance(action, Play) and action.announce is not None:
            text = _("{player} announces {colour} and plays {card} from slot {slot}").format(
                player=player, colour=colour_name(action.announce), card=card, slot=slot
            )
        else:
            text = _("{player} plays {card} from slot {slot}").format(
                player=player, card=card, slot=slot
            )
        if outcome.placed:
            text += ": " + _("placed")
            if outcome.tokens_gained:
                text += ", " + ngettext(
                    "{count} clue token back", "{count} clue tokens back", outcome.tokens_gained
                ).format(count=outcome.tokens_gained)
        elif outcome.strike:
            text += ": " + _strike(action, outcome, before)
        lines.append(text)
    elif outcome.kind is OutcomeKind.DISCARD:
        card = str(outcome.face) if outcome.face is not None else "??"
        lines.append(
            _("{player} discards {card} from slot {slot}").format(
                player=player, card=card, slot=slot_of(outcome.seat, outcome.card)
            )
        )
    elif outcome.kind is OutcomeKind.CLUE and isinstance(action, Clue):
        target = action.target
        value = colour_name(action.colour) if action.colour is not None else str(action.rank)
        hand = hands_before[target] if target < len(hands_before) else []
        slots = [i + 1 for i, card in enumerate(hand) if card in outcome.touched]
        if slots:
            where = ngettext("slot {slots}", "slots {slots}", len(slots)).format(
                slots=_slots(slots)
            )
        else:
            where = _("no cards")
        lines.append(
            _("{player} clues {target}: {value} ({where})").format(
                player=player, target=seat_name(names, target), value=value, where=where
            )
        )
    elif outcome.kind is OutcomeKind.MOVE and isinstance(action, Move):
        lines.append(
            _("{player} moves a card from slot {source} to slot {target}").format(
                player=player, source=slot_of(action.seat, action.card), target=action.to + 1
            )
        )
    elif outcome.kind is OutcomeKind.TERMINATE:
        lines.append(_("{player} stopped the game").format(player=player))
    lost = _lost_last_copy(outcome, before)
    if lost is not None:
        lines.append(_("★ that was the last {card}: it can no longer be played").format(card=lost))
    if outcome.end is not End.IN_PROGRESS:
        lines.append(_("Game over: {reason}").format(reason=end_reason(outcome.end)))
    return lines


def _strike(action: Action, outcome: Outcome, before: GameState | None) -> str:
    """Why a play burnt a fuse, and which fuse it was when the state before is known."""
    if before is None:
        return _("it does not fit, a fuse burns")
    count = before.strikes + 1
    if (
        isinstance(action, Play)
        and action.announce is not None
        and outcome.face is not None
        and not before.config.colour_touches(action.announce, outcome.face)
    ):
        return _("wrong colour announced: discarded, fuse {count} of {max} burns").format(
            count=count, max=MAX_STRIKES
        )
    return _("it does not fit, fuse {count} of {max} burns").format(count=count, max=MAX_STRIKES)


def _lost_last_copy(outcome: Outcome, before: GameState | None) -> str | None:
    """The face whose last needed copy this discard or misplay threw away, if any."""
    if before is None or outcome.face is None or outcome.placed:
        return None
    if outcome.kind not in (OutcomeKind.DISCARD, OutcomeKind.PLAY):
        return None
    return str(outcome.face) if is_last_copy(before, outcome.face) else None


# --- everything else that happens at a table ---------------------------------------------------


def table_opened_line(name: str) -> str:
    # quoted: a table's name is often words of its own ("Table practice table is open")
    return _("Table '{name}' is open").format(name=safe_name(name))


def sits_down_line(name: str) -> str:
    """`name` may carry a fingerprint already (``Bob (K7QF-2M9D)``)."""
    return _("{name} sits down").format(name=safe(name))


def joined_line(event: ev.PlayerJoined, name: str) -> str:
    """A request for a seat: someone sits down, or a joiner asked again under another name
    (`name` as `sits_down_line` takes it; the name it had is the event's)."""
    if event.renamed_from:
        return _("{old} is now called {name}").format(old=safe_name(event.renamed_from),
                                                       name=safe(name))
    return sits_down_line(name)


def left_lobby_line(name: str) -> str:
    """A joiner left the lobby before the deal; `name` as for `sits_down_line`."""
    return _("{name} left the table").format(name=safe(name))


def seated_line(code: str, names: Sequence[str] = ()) -> str:
    if names:
        return _("Everyone is seated: {names}; table code {code}").format(
            names=", ".join(safe(n) for n in names), code=code
        )
    return _("Everyone is seated; table code {code}").format(code=code)


def deck_ready_line() -> str:
    return _("Every player shuffled and locked the deck: dealing")


def turn_line(turn: int, text: str) -> str:
    """A turn's sentence with its number, for outputs that print one line per turn."""
    return _("turn {number}: {text}").format(number=turn + 1, text=text)


def chat_line(name: str, text: str) -> str:
    """Table talk as it appears in the log."""
    return _("{name} says: {text}").format(name=safe_name(name), text=safe(text))


def chat_hidden_line(name: str, count: int) -> str:
    """Said before the next message of a player whose flood of table talk was cut short."""
    return _("({count} more messages from {name} were not shown: too many at once)").format(
        count=count, name=safe_name(name)
    )


def left_line(name: str, reason: str) -> str:
    if not reason.strip():
        return _("{name} left the game").format(name=safe_name(name))
    return _("{name} left the game: {reason}").format(
        name=safe_name(name), reason=safe(reason)
    )


def game_over_line(end: End, score: int, rating: str | None = None) -> str:
    """`rating`: a key of `cards.rating` ("excellent"), said when given."""
    if rating is not None:
        return _("Game over: {reason}; score {score} ({rating})").format(
            reason=end_reason(end), score=score, rating=rating_word(rating)
        )
    return _("Game over: {reason}; score {score}").format(reason=end_reason(end), score=score)


def audit_line(ok: bool, reason: str) -> str:
    if ok:
        return _("Deck audit passed: every card matches the shuffle")
    return _("Deck audit FAILED: {reason}").format(reason=safe(reason))


def abandon_vote_line(name: str) -> str:
    """A player asks to end the game by agreement (the first one proposes it)."""
    return _("{name} asks to end the game by agreement (type abandon to agree)").format(
        name=safe_name(name))


def abandoned_line(turn: int) -> str:
    return _("Every player agreed: the game ends here, at turn {turn}, nobody blamed").format(
        turn=turn + 1)


def stopped_line(reason: str) -> str:
    return _("The game was stopped: {reason}").format(reason=safe(reason))


def warning_line(reason: str) -> str:
    return _("Warning: {reason}").format(reason=safe(reason))


def connection_problem_line(reason: str) -> str:
    """A link to the table failed before anyone was seated (the screen's notice)."""
    return _("Connection problem: {reason}").format(reason=safe(reason))


def dropped_line(name: str) -> str:
    return _("{name} dropped out").format(name=safe(name))


def back_line(name: str) -> str:
    return _("{name} is back").format(name=safe(name))


def connected_line(name: str) -> str:
    return _("{name} is connected").format(name=safe(name))


def lost_link_line(name: str, reason: str) -> str:
    # `name` carries its fingerprint in brackets, and a reason may carry some too
    return _("lost {name}: {reason}; waiting for them to come back").format(
        name=safe(name), reason=safe(reason)
    )


def renamed_line(name: str, seat: int) -> str:
    """Names are unique at a table: ours was taken, so the host seated us as `name`."""
    return _("Another player has your name: you sit as {name} (seat {number})").format(
        name=safe(name), number=seat + 1
    )


def watches_line(name: str, sees_hands: bool) -> str:
    """A spectator arrived; `name` may carry a fingerprint already (``Eve (K7QF-2M9D)``)."""
    if sees_hands:
        return _("{name} is watching, and sees every hand").format(name=safe(name))
    return _("{name} is watching (public view only)").format(name=safe(name))


def stopped_watching_line(name: str) -> str:
    return _("{name} stopped watching").format(name=safe(name))


# --- what only a stored game's story tells (`log show`) ---------------------------------------


def opened_by_line(host: str, name: str, config: GameConfig | None) -> str:
    """The host opened the table; `host` may carry a fingerprint already."""
    if config is None:
        return _("{host} opens the table '{name}'").format(host=safe(host), name=safe_name(name))
    return _("{host} opens the table '{name}': {count} players, {variant}").format(
        host=safe(host), name=safe_name(name), count=config.players,
        variant=variant_summary(config.variant, config.options),
    )


def hand_moved_line(name: str, slot: int) -> str:
    """A player moved a card within their hand (not a turn); `slot` counts from 0."""
    return _("{name} moves a card of their hand to slot {slot}").format(
        name=safe_name(name), slot=slot + 1
    )


def draws_text(face: Card) -> str:
    """Added to a turn's line once the audit told which card was drawn."""
    return _("draws {card}").format(card=face)


def hand_line(name: str, faces: Sequence[Card]) -> str:
    """A starting hand, face up (after the audit)."""
    return _("{name}'s hand: {cards}").format(
        name=safe_name(name), cards=" ".join(str(face) for face in faces)
    )


# --- a session's events, as the table's log tells them ---------------------------------------


def event_lines(event: ev.Event, names: Sequence[str], code: str = "") -> list[str]:
    """Lines of the game log for one session event (most events add none); `names` are the
    seats' names, `code` the table code once everyone is seated."""
    if isinstance(event, ev.TurnResolved):
        return describe(event.action, event.outcome, names, event.before.hands, event.before)
    if isinstance(event, ev.Chat):
        speaker = event.name or (names[event.seat] if 0 <= event.seat < len(names) else "")
        return [chat_line(speaker or "?", event.text)]
    if isinstance(event, ev.Seated):
        return [seated_line(code)]
    if isinstance(event, ev.DeckReady):
        return [deck_ready_line()]
    if isinstance(event, ev.Resigned):
        return [left_line(seat_name(names, event.seat), event.reason)]
    if isinstance(event, ev.AbandonVoted):
        return [abandon_vote_line(seat_name(names, event.seat))]
    if isinstance(event, ev.Abandoned):
        return [abandoned_line(event.turn)]
    if isinstance(event, ev.Audited):
        return [audit_line(event.ok, event.reason)]
    if isinstance(event, ev.Fault) and event.fatal:
        return [stopped_line(event.reason)]
    return []


# --- a state reached, for programs ------------------------------------------------------------


def final_summary(state: GameState) -> list[str]:
    """A few lines describing the state reached (finished or not), for `replay`'s output.
    In English whatever the language, like `replay`'s JSON: it is read by programs."""
    fireworks = " ".join(f"{suit.letter}{rank}" for suit, rank in state.fireworks.items())
    status = f"over ({state.end.value})" if state.over else "not over"
    lines = [
        f"game {status} after {state.turn} turns",
        f"fireworks {fireworks}  total {state.fireworks_total}/{state.max_score}",
        f"score {state.score} ({state.rating})  strikes {state.strikes}  "
        f"clue tokens {state.clue_tokens}  cards left {state.cards_left}",
    ]
    if state.final_round_turns_left is not None and not state.over:
        lines.append(f"final round: {state.final_round_turns_left} turns left")
    return lines
