"""The action log in words: one translated line per action, plus table talk.

Cards are written as letter and number ("R3") so the log reads the same without colour.
Names and chat come from peers: they are cleaned of control characters and capped here,
since a log line ends up on everyone's terminal.
"""

from __future__ import annotations

from collections.abc import Sequence

from hanabi_p2p.i18n import _, ngettext
from hanabi_p2p.rules.actions import Action, Clue, Move, Play
from hanabi_p2p.rules.engine import End, Outcome
from hanabi_p2p.ui.terms import colour_name, end_reason

MAX_SHOWN_NAME = 24
MAX_SHOWN_CHAT = 280


def clean(text: str, limit: int) -> str:
    """Printable characters only (no escape sequences), at most `limit` of them."""
    printable = "".join(ch if ch.isprintable() else " " for ch in text)
    return printable[:limit]


def _slots(numbers: Sequence[int]) -> str:
    return ", ".join(str(n) for n in numbers)


def describe(
    action: Action,
    outcome: Outcome,
    names: Sequence[str],
    hands_before: Sequence[Sequence[int]],
) -> list[str]:
    """Lines for one applied action; `hands_before` is every hand just before it (for slots).

    Usually one line; a second one says how the game ended when it did.
    """

    def name(seat: int) -> str:
        return clean(names[seat], MAX_SHOWN_NAME) if seat < len(names) else f"#{seat + 1}"

    def slot_of(seat: int, card: int | None) -> int:
        hand = hands_before[seat] if seat < len(hands_before) else []
        return hand.index(card) + 1 if card in hand else 0

    player = name(outcome.seat)
    lines: list[str] = []
    if outcome.kind == "play":
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
            text += ": " + _("it does not fit, a fuse burns")
        lines.append(text)
    elif outcome.kind == "discard":
        card = str(outcome.face) if outcome.face is not None else "??"
        lines.append(
            _("{player} discards {card} from slot {slot}").format(
                player=player, card=card, slot=slot_of(outcome.seat, outcome.card)
            )
        )
    elif outcome.kind == "clue" and isinstance(action, Clue):
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
                player=player, target=name(target), value=value, where=where
            )
        )
    elif outcome.kind == "move" and isinstance(action, Move):
        lines.append(
            _("{player} moves a card from slot {source} to slot {target}").format(
                player=player, source=slot_of(action.seat, action.card), target=action.to + 1
            )
        )
    elif outcome.kind == "terminate":
        lines.append(_("{player} stopped the game").format(player=player))
    if outcome.end is not End.IN_PROGRESS:
        lines.append(_("Game over: {reason}").format(reason=end_reason(outcome.end)))
    return lines


def chat_line(name: str, text: str) -> str:
    """Table talk as it appears in the log."""
    return _("{name} says: {text}").format(
        name=clean(name, MAX_SHOWN_NAME), text=clean(text, MAX_SHOWN_CHAT)
    )


def dropped_line(name: str) -> str:
    return _("{name} dropped out").format(name=clean(name, MAX_SHOWN_NAME))


def back_line(name: str) -> str:
    return _("{name} is back").format(name=clean(name, MAX_SHOWN_NAME))
