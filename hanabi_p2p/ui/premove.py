"""Premoves: an action queued during another player's turn, carried out when ours comes.

As on hanab.live, a premove stands for the situation it was typed in: when our turn comes it
is carried out only if that situation still holds, and is cancelled (with the reason) when

* a clue touched the card it plays or discards since (the others told us something about it:
  hanab.live cancels then too);
* the card is no longer in our hand;
* a clue would now touch other cards than it did (its target's hand changed under it);
* the rules no longer allow it (no clue token left for a clue, every token back for a
  discard), or the game is over.

Pure: the decision reads the observer's engine state only. The premove is the player's own
business: nothing is sent, signed or logged until it is carried out as an ordinary action.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from hanabi_p2p.errors import HanabiError
from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.engine import GameState

QueuedAction = Play | Discard | Clue


class Cancelled(StrEnum):
    """Why a premove was not carried out."""

    CLUED = "clued"  # a clue touched the card since it was queued
    GONE = "gone"  # the card is no longer in our hand
    HAND_CHANGED = "hand changed"  # the clue would now touch other cards
    ILLEGAL = "illegal"  # the rules forbid it now (clue tokens)
    OVER = "over"  # the game ended first


@dataclass(frozen=True, slots=True)
class Premove:
    """An action to carry out on our next turn, with what it assumed when it was queued."""

    action: QueuedAction
    command: str  # as typed at the table (`play 1`), for the status line and the notices
    touches: int = 0  # clues that had touched the played or discarded card when queued

    @classmethod
    def queue(cls, action: QueuedAction, command: str, state: GameState) -> Premove:
        touches = 0 if isinstance(action, Clue) else _touches(state, action.card)
        return cls(action, command, touches)


@dataclass(frozen=True, slots=True)
class Go:
    """Carry out this action now (a clue's touched cards taken from the hand as it is)."""

    action: QueuedAction


@dataclass(frozen=True, slots=True)
class Drop:
    """Cancel the premove, for `reason` (`error`: the rules' refusal, for ILLEGAL)."""

    reason: Cancelled
    error: HanabiError | None = None


def _touches(state: GameState, card: int) -> int:
    return sum(1 for record in state.clues[card] if record.touched)


def decide(premove: Premove, state: GameState, my_seat: int) -> Go | Drop | None:
    """What to do with `premove` now: None while it is not our turn, or while a card of
    another hand is still being revealed to us (the turn cannot be taken yet)."""
    if state.over:
        return Drop(Cancelled.OVER)
    if state.current_seat != my_seat:
        return None
    if any(state.faces[card] is None
           for seat, hand in enumerate(state.hands) if seat != my_seat for card in hand):
        return None
    action = premove.action
    if isinstance(action, Clue):
        hand = state.hands[action.target]
        touched = frozenset(
            card for card in hand
            if (face := state.faces[card]) is not None
            and (state.config.colour_touches(action.colour, face) if action.colour is not None
                 else face.rank == action.rank))
        if touched != action.touched:
            return Drop(Cancelled.HAND_CHANGED)
    elif action.card not in state.hands[my_seat]:
        return Drop(Cancelled.GONE)
    elif _touches(state, action.card) != premove.touches:
        return Drop(Cancelled.CLUED)
    try:
        state.check(action)
    except HanabiError as exc:
        return Drop(Cancelled.ILLEGAL, exc)
    return Go(action)
