"""How many copies of a face are left, and whether losing one costs points.

Asked by the screen (a card marked as the last of its kind), the narrator ("that was the last
Y5") and the replay; the rules themselves never need it.
"""

from __future__ import annotations

from hanabi_p2p.rules.cards import Card
from hanabi_p2p.rules.engine import GameState


def copies_left(state: GameState, face: Card) -> int:
    """Copies of `face` not yet in the discard pile (in hands, the deck, or played)."""
    discarded = sum(1 for card in state.discard_pile if state.faces[card] == face)
    return state.config.copies(face.suit)[face.rank] - discarded


def still_needed(state: GameState, face: Card) -> bool:
    """`face` is not yet on its firework and every lower rank can still be played."""
    top = state.fireworks.get(face.suit, 0)
    if face.rank <= top:
        return False
    return all(copies_left(state, Card(face.suit, rank)) > 0 for rank in range(top + 1, face.rank))


def is_last_copy(state: GameState, face: Card) -> bool:
    """`face` is still needed and only one copy of it is left: losing it costs points."""
    return still_needed(state, face) and copies_left(state, face) == 1
