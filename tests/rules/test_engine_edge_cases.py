"""One test per item of RULES.md's "Edge cases that must be right"."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from engine_helpers import (
    any_clue,
    filler_turn,
    game,
    misplay,
    run_until_last_card_drawn,
)

from hanabi_p2p.errors import IllegalAction
from hanabi_p2p.hanablive import load_game
from hanabi_p2p.rules.actions import Action, Clue, Discard, Play
from hanabi_p2p.rules.cards import Suit, Variant
from hanabi_p2p.rules.engine import End, GameState

AON_SOFTLOCK = Path(__file__).parents[1] / "data" / "aon_softlock.json"

REDS = ["R1", "R2", "R3", "R4", "R5"]
YELLOWS = ["Y1", "Y2", "Y3", "Y4", "Y5"]


def test_discard_with_8_tokens_is_illegal() -> None:
    state = game(2)
    assert state.clue_tokens == 8
    with pytest.raises(IllegalAction, match="discard not allowed: all 8 clue tokens"):
        state.apply(Discard(0, state.hands[0][0]))
    assert state.turn == 0 and state.discard_pile == []


def test_clue_with_0_tokens_is_illegal() -> None:
    state = game(3)
    for _ in range(8):
        state.apply(any_clue(state))
    assert state.clue_tokens == 0
    seat = state.current_seat
    with pytest.raises(IllegalAction, match="clue not allowed: no clue tokens left"):
        state.apply(Clue(seat, (seat + 1) % 3, rank=1))
    assert state.legal_actions() and not any(isinstance(a, Clue) for a in state.legal_actions())


def test_clue_bonus_from_5_lost_at_8_tokens() -> None:
    state = game(2, REDS + YELLOWS)
    for rank in range(1, 5):  # both seats play up to 4 without spending a token
        state.apply(Play(0, rank - 1))
        state.apply(Play(1, 5 + rank - 1))
    assert state.clue_tokens == 8
    outcome = state.apply(Play(0, 4))  # R5
    assert outcome.placed and outcome.tokens_gained == 0
    assert state.clue_tokens == 8 and state.fireworks[Suit.RED] == 5


def test_clue_bonus_from_5_returns_a_token_below_8() -> None:
    state = game(2, REDS + YELLOWS)
    state.apply(Clue(0, 1, rank=5))
    for rank in range(1, 5):
        state.apply(Play(1, 5 + rank - 1))
        state.apply(Play(0, rank - 1))
    assert state.clue_tokens == 7
    outcome = state.apply(Play(1, 9))  # Y5
    assert outcome.tokens_gained == 1 and state.clue_tokens == 8


def test_misplayed_5_gives_no_bonus() -> None:
    state = game(2, REDS + YELLOWS)
    state.apply(Clue(0, 1, rank=5))
    outcome = state.apply(Play(1, 9))  # Y5 on an empty yellow firework
    assert not outcome.placed and outcome.strike and outcome.tokens_gained == 0
    assert state.clue_tokens == 7 and state.strikes == 1 and state.discard_pile == [9]


def test_clue_to_yourself_is_illegal() -> None:
    state = game(2)
    with pytest.raises(IllegalAction, match="clue not allowed: you cannot clue yourself"):
        state.apply(Clue(0, 0, rank=1))
    assert state.clue_tokens == 8


@pytest.mark.parametrize(
    ("variant", "colour"),
    [(Variant.RAINBOW, Suit.MULTI), (Variant.STANDARD, Suit.MULTI)],
)
def test_clue_naming_a_colour_the_variant_cannot_name_is_illegal(
    variant: Variant, colour: Suit
) -> None:
    state = game(2, variant=variant)
    with pytest.raises(IllegalAction, match=f"multicolor cannot be named in {variant.value}"):
        state.apply(Clue(0, 1, colour=colour))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_final_round_starts_on_the_turn_the_last_card_is_drawn(players: int) -> None:
    state = game(players)
    run_until_last_card_drawn(state)
    drawer = (state.current_seat - 1) % players
    assert state.final_round_turns_left == players
    seats = []
    while not state.over:
        seats.append(state.current_seat)
        state.apply(filler_turn(state))
    # exactly N more turns, every seat once, the drawer's later turn being the last
    assert len(seats) == players and sorted(seats) == list(range(players))
    assert seats[-1] == drawer
    assert state.end is End.NORMAL and state.final_round_turns_left == 0


def test_strike_on_the_last_turn_still_counts() -> None:
    state = game(2)
    run_until_last_card_drawn(state)
    state.apply(filler_turn(state))
    assert state.final_round_turns_left == 1
    outcome = state.apply(misplay(state))
    assert outcome.strike and state.strikes == 1
    assert state.end is End.NORMAL and state.score == state.fireworks_total


def test_third_strike_ends_the_game_even_in_the_final_round() -> None:
    state = game(3)
    for _ in range(2):
        state.apply(misplay(state))
    run_until_last_card_drawn(state)
    assert state.strikes == 2 and state.final_round_turns_left == 3
    state.apply(misplay(state))
    assert state.end is End.STRIKEOUT and state.score == 0
    assert state.final_round_turns_left == 3  # ended before the round ran out


def test_rainbow_red_clue_touches_every_red_and_every_multicolour_card() -> None:
    state = game(2, [*REDS, "M1", "R1", "B1", "M2", "Y1"], variant=Variant.RAINBOW)
    # seat 1 holds positions 5..9: M1 R1 B1 M2 Y1
    outcome = state.apply(Clue(0, 1, colour=Suit.RED))
    assert outcome.touched == {5, 6, 8}


def _aon_softlock_game() -> tuple[GameState, list[Action]]:
    """tests/data/aon_softlock.json (see make_aon_softlock.py there): 2 players, all_or_nothing."""
    game_file = load_game(json.loads(AON_SOFTLOCK.read_text()))
    assert game_file.config.all_or_nothing
    return GameState(game_file.config, game_file.faces), game_file.actions


def test_all_or_nothing_has_no_final_round_and_hands_shrink() -> None:
    state, actions = _aon_softlock_game()
    sizes = []
    for action in actions:
        state.apply(action)
        assert state.final_round_turns_left is None
        if state.cards_left == 0:
            sizes.append(sum(len(hand) for hand in state.hands))
    # cards left in hands after the deck ran out shrink turn by turn, down to one player's
    assert sizes[0] == 10 and sizes[-1] < sizes[0] and state.hands[state.current_seat] == []


def test_all_or_nothing_players_with_empty_hands_can_only_clue() -> None:
    state, actions = _aon_softlock_game()
    checked = 0
    for action in actions:
        if not state.hands[state.current_seat]:
            legal = state.legal_actions()
            assert legal and all(isinstance(a, Clue) for a in legal)
            assert isinstance(action, Clue)
            checked += 1
            with pytest.raises(IllegalAction, match="is not in seat"):
                state.check(Discard(state.current_seat, state.discard_pile[0]))
        state.apply(action)
    assert checked > 0


def test_all_or_nothing_softlock() -> None:
    state, actions = _aon_softlock_game()
    for action in actions[:-1]:
        state.apply(action)
    assert not state.over
    outcome = state.apply(actions[-1])
    assert outcome.end is End.SOFTLOCK and state.end is End.SOFTLOCK
    # the player to move has no card and no clue token: no legal action is left
    assert state.hands[state.current_seat] == [] and state.clue_tokens == 0
    assert state.legal_actions() == [] and state.score == 0 and state.rating == "loss"


def test_all_or_nothing_fails_when_the_last_copy_of_a_needed_card_is_discarded() -> None:
    state = game(2, ["R5", "R1", "R1", "Y1", "Y1", "G1", "G1", "B1", "B1", "W1"],
                 all_or_nothing=True)
    state.apply(Clue(0, 1, rank=1))
    outcome = state.apply(Discard(1, 5))  # G1: two copies left, still perfectable
    assert outcome.end is End.IN_PROGRESS
    state.apply(Clue(0, 1, rank=1))
    state.apply(Clue(1, 0, rank=5))
    outcome = state.apply(Discard(0, 0))  # the only R5
    assert outcome.end is End.ALL_OR_NOTHING_FAIL and state.score == 0
    assert state.max_achievable == 24


def test_all_or_nothing_fails_on_a_misplay_of_the_last_copy() -> None:
    state = game(2, ["R5", "R1", "R1", "Y1", "Y1"], all_or_nothing=True)
    outcome = state.apply(Play(0, 0))
    assert outcome.strike and outcome.end is End.ALL_OR_NOTHING_FAIL


def test_without_all_or_nothing_losing_a_needed_card_does_not_end_the_game() -> None:
    state = game(2, ["R5"])
    outcome = state.apply(Play(0, 0))
    assert outcome.strike and not state.over and state.max_achievable == 24
