"""Building games with chosen hands, and reading rendered screens as plain text."""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Sequence

from hanabi_p2p.rules.actions import Play, TurnAction
from hanabi_p2p.rules.cards import Card, GameConfig, Suit
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.ui.board import Board, board_from_state
from hanabi_p2p.ui.text import Line, plain, width

NAMES = ("Alice", "Bob", "Carol", "Dave", "Eve")
_LETTERS = {suit.letter: suit for suit in Suit}
# A visible card face as rendered: suit letter then number, e.g. "R3".
FACE_PATTERN = re.compile(r"[RYGBWM][1-5]")


def card(text: str) -> Card:
    """'R3' -> Card(red, 3)."""
    return Card(_LETTERS[text[0]], int(text[1]))


def deck_with_hands(config: GameConfig, hands: Sequence[Sequence[str]]) -> list[Card]:
    """A full deck whose first cards deal exactly `hands` (seat 0 first, slot 0 first).

    Each drawn card goes to the left of the hand, so a hand is dealt right to left.
    """
    remaining = config.deck_faces()
    top: list[Card] = []
    for hand in hands:
        assert len(hand) == config.hand_size
        for text in reversed(hand):
            face = card(text)
            remaining.remove(face)
            top.append(face)
    return top + remaining


def game(config: GameConfig, hands: Sequence[Sequence[str]]) -> GameState:
    state = GameState(config, deck_with_hands(config, hands))
    for seat, hand in enumerate(hands):
        assert [str(state.faces[c]) for c in state.hands[seat]] == list(hand)
    return state


def random_game(config: GameConfig, seed: int) -> GameState:
    faces = config.deck_faces()
    random.Random(seed).shuffle(faces)
    return GameState(config, faces)


def _sensible(state: GameState, action: TurnAction) -> bool:
    """No misplays (so games reach the deck's end): a play must fit its firework."""
    if not isinstance(action, Play):
        return True
    face = state.faces[action.card]
    return face is not None and state.fireworks[face.suit] + 1 == face.rank


def play_until(state: GameState, seed: int, done: Callable[[GameState], bool]) -> GameState:
    """Apply seeded random legal, never misplayed actions until `done(state)` or the end."""
    rng = random.Random(seed)
    while not done(state) and not state.over:
        choices = [a for a in state.legal_actions() if _sensible(state, a)]
        state.apply(rng.choice(choices or state.legal_actions()))
    return state


def board(state: GameState, seat: int = 0) -> Board:
    return board_from_state(state, seat)


def texts(lines: Sequence[Line]) -> list[str]:
    return [plain(line) for line in lines]


def widest(lines: Sequence[Line]) -> int:
    return max((width(line) for line in lines), default=0)


def line_with(lines: Sequence[str], needle: str) -> str:
    found = [line for line in lines if needle in line]
    assert found, f"no line contains {needle!r}:\n" + "\n".join(lines)
    return found[0]
