"""What a card can be, counted (rules/empathy.py): clues narrowed by the copies its holder
sees, known trash, and never a word of what the onlooker cannot see (its own cards)."""

from __future__ import annotations

import random

from engine_helpers import card, game
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_properties import configs

from hanabi_p2p.rules.actions import Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.cards import Card, GameConfig, Suit
from hanabi_p2p.rules.empathy import card_empathy, public_empathy
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.ui.board import board_from_state
from hanabi_p2p.ui.info import card_story

# --- on a stacked deck -------------------------------------------------------------------------


def test_a_clued_copy_of_a_card_already_played_is_known_trash() -> None:
    # 2 players, 5 cards each: Alice (seat 0) holds Y1 in slot 1, Bob holds Y1 in slot 1
    state = game(2, ["Y1", "R2", "R3", "R4", "G4", "Y1", "B2", "B3", "B4", "W4"])
    alice_y1 = state.hands[0][-1]  # dealt first: the rightmost slot
    bob_y1 = state.hands[1][-1]
    state.apply(Clue(0, 1, rank=1))  # Alice clues Bob: 1
    state.apply(Clue(1, 0, colour=Suit.YELLOW))  # Bob clues Alice: yellow
    state.apply(Clue(0, 1, colour=Suit.BLUE))  # Alice clues Bob: blue (a turn passes)
    state.apply(Clue(1, 0, rank=1))  # Bob clues Alice: 1 -> Alice knows her card is Y1
    before = card_empathy(state, alice_y1, 0, observer=0)
    assert before.faces == {card("Y1")} and not before.trash
    state.apply(Clue(0, 1, colour=Suit.WHITE))
    state.apply(Play(1, bob_y1))  # Bob plays his Y1
    after = card_empathy(state, alice_y1, 0, observer=0)
    assert after.faces == {card("Y1")} and after.trash
    # the table marks it too, in Alice's own hand
    cell = next(c for c in board_from_state(state, 0).hands[0] if c.card == alice_y1)
    assert cell.trash and cell.colours == {Suit.YELLOW} and cell.ranks == {1}


def test_a_face_every_copy_of_which_the_holder_sees_is_ruled_out() -> None:
    # Bob holds the only R5; Alice's card clued 5 cannot be it, though clues alone allow it
    state = game(2, ["R1", "Y2", "G3", "B4", "W5", "R5", "Y1", "G1", "B1", "W1"])
    alice_w5 = state.hands[0][0]  # dealt last: slot 1
    state.apply(Clue(0, 1, rank=1))
    state.apply(Clue(1, 0, rank=5))  # Bob clues Alice: 5
    seen = card_empathy(state, alice_w5, 0, observer=0)
    assert card("R5") not in seen.faces
    assert seen.faces == {card("Y5"), card("G5"), card("B5"), card("W5")}
    assert all(left == 1 for left in seen.counts.values())
    assert Suit.RED not in seen.colours and seen.ranks == {5}
    # from clues and public cards alone R5 is still possible: nobody played or discarded it
    assert card("R5") in public_empathy(state, alice_w5).faces


def test_an_unclued_card_counts_copies_too() -> None:
    # three R1s are out of Alice's sight only once all three are seen: two in Bob's hand
    # and one played leave none for her
    state = game(2, ["B2", "B3", "B4", "W4", "G4", "R1", "R1", "Y2", "Y3", "R1"])
    bob = state.hands[1]
    first_r1 = bob[-1]  # Bob's slot 5 (the first card he was dealt)
    state.apply(Clue(0, 1, colour=Suit.RED))
    state.apply(Play(1, first_r1))
    hand = state.hands[0]
    counts = card_empathy(state, hand[0], 0, observer=0).counts
    assert card("R1") not in counts
    assert counts[card("B1")] == 3  # nothing blue-1 in sight


def test_the_story_of_a_card_counts_copies_and_says_trash() -> None:
    state = game(2, ["Y1", "R2", "R3", "R4", "G4", "Y1", "B2", "B3", "B4", "W4"])
    alice_y1, bob_y1 = state.hands[0][-1], state.hands[1][-1]
    for action in (Clue(0, 1, rank=1), Clue(1, 0, colour=Suit.YELLOW), Clue(0, 1, rank=2),
                   Clue(1, 0, rank=1), Clue(0, 1, rank=3), Play(1, bob_y1)):
        state.apply(action)
    story = card_story(state, alice_y1, ["Alice", "Bob"], 0)
    assert "Its holder can tell it is one of: Y / 1" in story
    assert "  known trash: its holder can tell it is no longer needed" in story
    # Bob's card clued 2 and 3 by now: the faces it can be, with their copies
    bob_card = state.hands[1][-1]
    told = card_story(state, bob_card, ["Alice", "Bob"], 0)
    counted = [line for line in told if line.startswith("  copies it can still be: ")]
    assert counted and "×" in counted[0]


# --- never from what the onlooker cannot see ---------------------------------------------------


def _prefix(state: GameState, viewer: int, rng: random.Random, turns: int) -> list[TurnAction]:
    """Random legal turns that never reveal or touch the viewer's own cards: the viewer only
    gives clues, nobody clues the viewer, and nobody draws the deck's last hand's worth."""
    done: list[TurnAction] = []
    tail = state.config.hand_size + 1
    for _ in range(turns):
        if state.over or state.cards_left <= tail:
            break
        legal = [a for a in state.legal_actions()
                 if not (isinstance(a, Clue) and a.target == viewer)]
        if state.current_seat == viewer:
            legal = [a for a in legal if isinstance(a, Clue)]
        if not legal:
            break
        plays = [a for a in legal if isinstance(a, Play | Discard)]
        action = rng.choice(plays if plays and rng.random() < 0.5 else legal)
        state.apply(action)
        done.append(action)
    return done


def _decks(config: GameConfig, seed: int, viewer: int) -> tuple[list[Card], list[Card]]:
    """A shuffled deck, and the same deck with the viewer's dealt cards swapped with the
    last cards of the deck (hidden from the viewer in both)."""
    rng = random.Random(seed)
    faces = config.deck_faces()
    rng.shuffle(faces)
    other = faces.copy()
    hand = range(viewer * config.hand_size, (viewer + 1) * config.hand_size)
    for position, tail in zip(hand, range(len(faces) - 1, -1, -1), strict=False):
        other[position], other[tail] = other[tail], other[position]
    return faces, other


@settings(max_examples=40, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1), turns=st.integers(0, 25),
       viewer_pick=st.integers(0, 4))
def test_replacing_the_viewers_own_cards_changes_nothing(
    config: GameConfig, seed: int, turns: int, viewer_pick: int
) -> None:
    viewer = viewer_pick % config.players
    faces, swapped = _decks(config, seed, viewer)
    own = set(range(viewer * config.hand_size, (viewer + 1) * config.hand_size))
    unknown: list[Card | None] = [None if i in own else f for i, f in enumerate(faces)]
    first = GameState(config, faces)
    actions = _prefix(first, viewer, random.Random(seed), turns)
    others = [GameState(config, swapped), GameState(config, unknown)]
    for state in others:
        for action in actions:
            state.apply(action)
    names = [f"p{seat}" for seat in range(config.players)]
    for state in others:
        # the whole table as the viewer sees it, and the story of every card in a hand
        assert board_from_state(state, viewer) == board_from_state(first, viewer)
        for seat, hand in enumerate(first.hands):
            for c in hand:
                assert card_empathy(state, c, seat, viewer) == card_empathy(first, c, seat, viewer)
                assert card_story(state, c, names, viewer) == card_story(first, c, names, viewer)


@settings(max_examples=40, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1), turns=st.integers(0, 40))
def test_the_true_face_is_always_possible_and_seeing_more_only_narrows(
    config: GameConfig, seed: int, turns: int
) -> None:
    faces, _ = _decks(config, seed, 0)
    state = GameState(config, faces)
    rng = random.Random(seed)
    for _ in range(turns):
        if state.over:
            break
        state.apply(rng.choice(state.legal_actions()))
    for seat, hand in enumerate(state.hands):
        for c in hand:
            whole = card_empathy(state, c, seat, None)
            assert faces[c] in whole.faces
            assert not whole.trash or faces[c] not in _still_needed_faces(state)
            for onlooker in range(config.players):
                partial = card_empathy(state, c, seat, onlooker)
                assert whole.faces <= partial.faces <= public_empathy(state, c).faces


def _still_needed_faces(state: GameState) -> set[Card]:
    from hanabi_p2p.rules.copies import still_needed

    return {f for f in state.config.deck_faces() if still_needed(state, f)}
