"""Plain-English sentences for applied actions and final states (used by `replay`).

Pure functions of (state before, action, outcome): the engine stays free of wording.
Slots are 1-based from the left, as players count them.
"""

from __future__ import annotations

from collections.abc import Sequence

from hanabi_p2p.rules.actions import Action, Clue, Move, Play, Terminate
from hanabi_p2p.rules.engine import GameState, Outcome


def _slot(state: GameState, seat: int, card: int) -> int:
    return state.hands[seat].index(card) + 1


def describe(before: GameState, action: Action, outcome: Outcome, names: Sequence[str]) -> str:
    """One line for ``action``, applied to ``before`` with result ``outcome``."""
    who = names[action.seat]
    if isinstance(action, Move):
        return (f"{who} moves the card in slot {_slot(before, action.seat, action.card)} "
                f"to slot {action.to + 1}")
    if isinstance(action, Terminate):
        return f"{who} ends the game"
    if isinstance(action, Clue):
        named = action.colour.value if action.colour is not None else str(action.rank)
        hand = before.hands[action.target]
        slots = [str(i + 1) for i, c in enumerate(hand) if c in outcome.touched]
        touched = (f"slot{'s' if len(slots) > 1 else ''} {', '.join(slots)}" if slots
                   else "no card")
        return f"{who} clues {names[action.target]} {named} -> {touched}"
    slot = _slot(before, action.seat, action.card)
    assert outcome.face is not None  # plays and discards always reveal the face
    face = str(outcome.face)
    if outcome.kind == "discard":
        text = f"{who} discards {face} from slot {slot}"
    elif isinstance(action, Play) and action.announce is not None:
        text = f"{who} announces {action.announce.value} and plays {face} from slot {slot}"
        if outcome.strike and not outcome.placed:
            right = before.config.colour_touches(action.announce, outcome.face)
            text += ": " + (f"misplayed, strike {before.strikes + 1}" if right else
                            f"wrong colour, discarded, strike {before.strikes + 1}")
    elif outcome.placed:
        text = f"{who} plays {face} from slot {slot}"
    else:
        text = f"{who} misplays {face} from slot {slot}: strike {before.strikes + 1}"
    if outcome.placed:
        text += ": placed"
    if outcome.tokens_gained and outcome.kind == "play":
        plural = "s" if outcome.tokens_gained > 1 else ""
        text += f", +{outcome.tokens_gained} clue token{plural}"
    return text


def final_summary(state: GameState) -> list[str]:
    """A few lines describing the state reached (finished or not)."""
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
