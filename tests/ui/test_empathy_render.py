"""Known trash and counted copies as the table draws them (⊘), for your own hand and under
a teammate's, in Unicode and in ASCII."""

from __future__ import annotations

from collections import Counter

import pytest

from hanabi_p2p.rules.actions import Clue, Play
from hanabi_p2p.rules.cards import Card, GameConfig, Suit
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.ui.board import board_from_state
from hanabi_p2p.ui.symbols import ASCII, UNICODE, Glyphs
from hanabi_p2p.ui.table import TableLabels, render_board
from hanabi_p2p.ui.text import plain, width

LETTERS = {suit.letter: suit for suit in Suit}


def game(top: list[str]) -> GameState:
    """A 2-player game whose deck starts with `top` (seat 0 is dealt the first five)."""
    config = GameConfig(2)
    first = [Card(LETTERS[name[0]], int(name[1])) for name in top]
    rest = Counter(config.deck_faces())
    rest.subtract(first)
    return GameState(config, first + sorted(rest.elements()))


def a_played_copy() -> tuple[GameState, int, int]:
    """Alice knows her slot 5 is Y1 (yellow, then 1); Bob has just played his Y1. Bob's own
    B2, clued 2, is still needed."""
    state = game(["Y1", "R2", "R3", "R4", "G4", "Y1", "B2", "B3", "B4", "W4"])
    alice_y1, bob_y1 = state.hands[0][-1], state.hands[1][-1]
    for action in (Clue(0, 1, rank=1), Clue(1, 0, colour=Suit.YELLOW), Clue(0, 1, rank=2),
                   Clue(1, 0, rank=1), Clue(0, 1, rank=3), Play(1, bob_y1)):
        state.apply(action)
    return state, alice_y1, bob_y1


@pytest.mark.parametrize("glyphs", [UNICODE, ASCII])
def test_known_trash_is_marked_under_the_own_hand(glyphs: Glyphs) -> None:
    state, _alice_y1, _bob_y1 = a_played_copy()
    board = board_from_state(state, 0)  # Alice's table
    lines = render_board(board, TableLabels(names=("Alice", "Bob")), 80, 24, glyphs=glyphs)
    texts = [plain(line) for line in lines]
    own = next(i for i, text in enumerate(texts) if "You (Alice)" in text)
    # slot 5: yellow, and under it 1 with the mark; no other card of hers is trash
    dot = glyphs.impossible
    assert texts[own].rstrip().endswith(f"5*{dot}Y{dot * 3}")
    assert texts[own + 1].rstrip().endswith(f"1{dot * 4}{glyphs.trash}")
    assert texts[own + 1].count(glyphs.trash) == 1
    assert all(width(line) <= 80 for line in lines)


def test_a_teammates_known_trash_shows_under_their_card() -> None:
    state, alice_y1, _bob_y1 = a_played_copy()
    board = board_from_state(state, 1)  # Bob's table: Alice's Y1 is in front of him
    texts = [plain(line) for line in render_board(
        board, TableLabels(names=("Alice", "Bob")), 80, 24)]
    row = next(i for i, text in enumerate(texts) if " Alice " in f" {text} ")
    assert "Y1⊘" not in texts[row]  # the face row is the face: the mark is what Alice knows
    assert "·Y··· 1····⊘" in texts[row + 1]
    cell = next(c for c in board.hands[0] if c.card == alice_y1)
    assert cell.trash
