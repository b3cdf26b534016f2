"""Small builders for rules tests: stacked decks, faces from short names, scripted turns."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable

from hanabi_p2p.rules.actions import Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.cards import Card, GameConfig, Suit, Variant
from hanabi_p2p.rules.engine import GameState

LETTERS = {suit.letter: suit for suit in Suit}


def card(name: str) -> Card:
    """'R1' -> Card(RED, 1); 'M5' -> multicolour 5."""
    return Card(LETTERS[name[0]], int(name[1:]))


def stacked(config: GameConfig, top: Iterable[str]) -> list[Card]:
    """A full deck of the variant whose first cards are ``top`` (in order); the rest follow
    in canonical order. Seat s is dealt positions s*H .. s*H+H-1."""
    first = [card(name) for name in top]
    rest = Counter(config.deck_faces())
    rest.subtract(first)
    if any(n < 0 for n in rest.values()):
        raise ValueError(f"more copies than the deck has in {top}")
    return first + [face for face, _ in config.deck_composition() if _take(rest, face)]


def _take(counter: Counter[Card], face: Card) -> bool:
    if counter[face] > 0:
        counter[face] -= 1
        return True
    return False


def game(players: int = 2, top: Iterable[str] = (), variant: Variant = Variant.STANDARD,
         **options: bool) -> GameState:
    config = GameConfig(players=players, variant=variant, **options)
    return GameState(config, stacked(config, top))


def face_of(state: GameState, c: int) -> Card:
    face = state.faces[c]
    assert face is not None
    return face


def is_playable(state: GameState, c: int) -> bool:
    face = face_of(state, c)
    return state.fireworks[face.suit] == face.rank - 1


def any_clue(state: GameState) -> Clue:
    """Some legal clue for the current seat."""
    return next(a for a in state.legal_actions() if isinstance(a, Clue))


def filler_turn(state: GameState) -> TurnAction:
    """A turn that burns no fuse: discard the oldest card if allowed, else clue."""
    seat = state.current_seat
    if state.clue_tokens < 8 and state.hands[seat]:
        return Discard(seat, state.hands[seat][-1])
    return any_clue(state)


def misplay(state: GameState) -> Play:
    seat = state.current_seat
    c = next(c for c in state.hands[seat] if not is_playable(state, c))
    return Play(seat, c)


def run_until_last_card_drawn(state: GameState) -> None:
    """Take filler turns until the next draw is the last one, then take that turn."""
    while state.cards_left > 1:
        state.apply(filler_turn(state))
    seat = state.current_seat
    if state.clue_tokens == 8:  # need a card-drawing action: spend a token first
        state.apply(any_clue(state))
        seat = state.current_seat
    state.apply(Discard(seat, state.hands[seat][-1]))
    assert state.cards_left == 0
