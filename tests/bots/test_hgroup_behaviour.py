"""Behaviour of the convention player over a small seeded sample of self-play games.

What a person would call a blunder, checked on every turn through what the acting seat
could know (the engine's ``knowledge``): no play of a card it knows cannot be played, no
clue that tells its receiver nothing new, no discard of a card it knows is the last copy
while another card would be safe to discard, and no strikeout.
"""

from __future__ import annotations

import pytest
from blind_table import shuffled

from hanabi_p2p.bots.hgroup import HGroupPlayer
from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.cards import Card, GameConfig, Variant
from hanabi_p2p.rules.engine import CardKnowledge, End, GameState

GAMES_PER_TABLE = 6


def _faces(k: CardKnowledge) -> set[Card]:
    return set(k.unseen_counts) or set(k.possible)


def _playable(state: GameState, face: Card) -> bool:
    return state.fireworks[face.suit] == face.rank - 1


def _left(state: GameState, face: Card) -> int:
    gone = sum(1 for c in state.discard_pile if state.faces[c] == face)
    return state.config.copies(face.suit)[face.rank] - gone


def _critical(state: GameState, face: Card) -> bool:
    """Still needed (not played, every lower rank still has a copy) and its last copy."""
    top = state.fireworks[face.suit]
    if face.rank <= top:
        return False
    if any(_left(state, Card(face.suit, r)) == 0 for r in range(top + 1, face.rank)):
        return False
    return _left(state, face) == 1


@pytest.mark.parametrize("variant", [Variant.STANDARD, Variant.RAINBOW])
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_no_blunders_in_seeded_self_play(players: int, variant: Variant) -> None:
    config = GameConfig(players, variant)
    for seed in range(GAMES_PER_TABLE):
        state = GameState(config, shuffled(config, seed))
        bots = [HGroupPlayer(config, seat) for seat in range(players)]
        while not state.over:
            seat = state.current_seat
            action = bots[seat].act(state)
            if isinstance(action, Play):
                faces = _faces(state.knowledge(action.card, seat))
                assert any(_playable(state, f) for f in faces), (seed, state.turn, action)
            elif isinstance(action, Clue):
                before = [state.possible_mask(c) for c in state.hands[action.target]]
                after_state = state.copy()
                after_state.apply(action)
                after = [after_state.possible_mask(c) for c in state.hands[action.target]]
                assert after != before, ("a clue that tells nothing new", seed, action)
            elif isinstance(action, Discard):
                hand = state.hands[seat]
                known_last = [c for c in hand
                              if all(_critical(state, f)
                                     for f in _faces(state.knowledge(c, seat)))]
                if action.card in known_last:
                    assert len(known_last) == len(hand), (seed, state.turn, action)
            state.apply(action)
        assert state.end is not End.STRIKEOUT, (seed, state.strikes)
