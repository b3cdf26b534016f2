"""Variants, options, deck and hand sizes, game ends and ratings."""

from __future__ import annotations

from collections import Counter

import pytest
from engine_helpers import any_clue, card, game

from hanabi_p2p.errors import IllegalAction
from hanabi_p2p.rules.actions import Clue, Discard, Play, Terminate
from hanabi_p2p.rules.cards import GameConfig, Suit, Variant, rating
from hanabi_p2p.rules.engine import End


@pytest.mark.parametrize(
    ("variant", "size", "max_score"),
    [(Variant.STANDARD, 50, 25), (Variant.MULTICOLOR, 60, 30),
     (Variant.MULTICOLOR_SHORT, 55, 30), (Variant.RAINBOW, 60, 30)],
)
def test_deck_sizes(variant: Variant, size: int, max_score: int) -> None:
    state = game(3, variant=variant)
    assert len(state.faces) == size and state.max_score == max_score
    assert state.cards_left == size - 15


def test_multicolor_short_deck_has_one_multicolour_card_of_each_rank() -> None:
    config = GameConfig(2, Variant.MULTICOLOR_SHORT)
    counts = Counter(config.deck_faces())
    assert [counts[card(f"M{r}")] for r in range(1, 6)] == [1, 1, 1, 1, 1]
    assert counts[card("R1")] == 3


@pytest.mark.parametrize(("players", "hand"), [(2, 5), (3, 5), (4, 4), (5, 4)])
def test_hand_sizes_and_deal_order(players: int, hand: int) -> None:
    state = game(players)
    assert [len(h) for h in state.hands] == [hand] * players
    # seat s is dealt positions s*H .. s*H+H-1, each new card going to slot 0
    assert state.hands[1] == list(range(2 * hand - 1, hand - 1, -1))
    assert state.draw_index == players * hand


def test_a_new_card_goes_to_slot_0() -> None:
    state = game(2)
    state.apply(any_clue(state))
    outcome = state.apply(Discard(1, 5))
    assert outcome.drew == 10 and state.hands[1][0] == 10


def test_multicolor_can_be_named_and_touches_only_multicolour() -> None:
    state = game(2, ["R1", "R2", "R3", "R4", "R5", "M1", "R1", "M2", "B1", "Y1"],
                 variant=Variant.MULTICOLOR)
    assert state.apply(Clue(0, 1, colour=Suit.MULTI)).touched == {5, 7}
    assert state.apply(Clue(1, 0, colour=Suit.RED)).touched == {0, 1, 2, 3, 4}


def test_multicolor_short_can_be_named() -> None:
    state = game(2, ["R1", "R2", "R3", "R4", "R5", "M1"], variant=Variant.MULTICOLOR_SHORT)
    assert state.apply(Clue(0, 1, colour=Suit.MULTI)).touched == {5}


def test_rainbow_builds_a_sixth_firework() -> None:
    state = game(2, ["M1", "M2", "M3", "M4", "M5"], variant=Variant.RAINBOW)
    state.apply(Play(0, 0))
    assert state.fireworks[Suit.MULTI] == 1 and state.fireworks_total == 1


def test_rainbow_negative_clue_rules_out_red_and_multicolour() -> None:
    state = game(2, ["R1", "R2", "R3", "R4", "R5", "M1", "R1", "B1", "M2", "Y1"],
                 variant=Variant.RAINBOW)
    state.apply(Clue(0, 1, colour=Suit.RED))
    missed = state.knowledge(7, viewer=1)  # B1, not touched by "red"
    assert missed.colours == {Suit.YELLOW, Suit.GREEN, Suit.BLUE, Suit.WHITE}
    touched = state.knowledge(5, viewer=1)  # M1
    assert touched.colours == {Suit.RED, Suit.MULTI} and touched.clued


def test_empty_clue_is_illegal_by_default() -> None:
    state = game(2, ["R1", "R1", "R1", "R2", "R2", "Y1", "Y1", "Y1", "Y2", "Y2"])
    with pytest.raises(IllegalAction, match="touches no cards"):
        state.apply(Clue(0, 1, colour=Suit.RED))
    assert Clue(0, 1, Suit.RED, None, frozenset()) not in state.legal_actions()


def test_empty_clues_option_allows_a_clue_touching_nothing() -> None:
    state = game(2, ["R1", "R1", "R1", "R2", "R2", "Y1", "Y1", "Y1", "Y2", "Y2"],
                 empty_clues=True)
    assert Clue(0, 1, Suit.RED, None, frozenset()) in state.legal_actions()
    outcome = state.apply(Clue(0, 1, colour=Suit.RED))
    assert outcome.touched == frozenset() and state.clue_tokens == 7
    # the empty clue still tells seat 1 that none of its cards is red
    assert all(Suit.RED not in state.knowledge(c, 1).colours for c in state.hands[1])


def test_choreography_right_colour_placed_returns_an_extra_token() -> None:
    state = game(2, ["R1", "R2"], choreography=True)
    state.apply(any_clue(state))
    state.apply(any_clue(state))
    outcome = state.apply(Play(0, 0, announce=Suit.RED))
    assert outcome.placed and not outcome.strike and outcome.tokens_gained == 1
    assert state.clue_tokens == 7


def test_choreography_bonus_is_lost_at_8_tokens() -> None:
    state = game(2, ["R1"], choreography=True)
    outcome = state.apply(Play(0, 0, announce=Suit.RED))
    assert outcome.placed and outcome.tokens_gained == 0 and state.clue_tokens == 8


def test_choreography_right_colour_on_a_5_adds_both_bonuses() -> None:
    state = game(2, ["R5", "Y1", "Y2", "Y3", "Y4", "R1", "R2", "R3", "R4", "B1"],
                 choreography=True)
    state.apply(any_clue(state))
    for c in (5, 6, 7, 8):  # seat 1 plays R1..R4 while seat 0 clues
        state.apply(Play(1, c))
        state.apply(any_clue(state))
    assert state.clue_tokens == 3 and state.current_seat == 1
    state.apply(any_clue(state))
    outcome = state.apply(Play(0, 0, announce=Suit.RED))
    assert outcome.placed and outcome.tokens_gained == 2 and state.clue_tokens == 4


def test_choreography_wrong_colour_discards_and_burns_a_fuse() -> None:
    state = game(2, ["R1"], choreography=True)
    state.apply(any_clue(state))
    state.apply(any_clue(state))
    outcome = state.apply(Play(0, 0, announce=Suit.BLUE))
    assert not outcome.placed and outcome.strike and outcome.tokens_gained == 0
    assert state.discard_pile == [0] and state.strikes == 1 and state.fireworks_total == 0
    assert state.clue_tokens == 6


def test_choreography_right_colour_wrong_number_is_an_ordinary_misplay() -> None:
    state = game(2, ["R2"], choreography=True)
    state.apply(any_clue(state))
    state.apply(any_clue(state))
    outcome = state.apply(Play(0, 0, announce=Suit.RED))
    assert outcome.strike and outcome.tokens_gained == 0 and state.clue_tokens == 6


def test_choreography_in_rainbow_red_is_right_for_a_multicolour_card() -> None:
    state = game(2, ["M1"], variant=Variant.RAINBOW, choreography=True)
    state.apply(any_clue(state))
    state.apply(any_clue(state))
    outcome = state.apply(Play(0, 0, announce=Suit.RED))
    assert outcome.placed and outcome.tokens_gained == 1


def test_announce_needs_the_choreography_option() -> None:
    state = game(2, ["R1"])
    with pytest.raises(IllegalAction, match="choreography option is off"):
        state.apply(Play(0, 0, announce=Suit.RED))
    assert state.fireworks_total == 0 and state.turn == 0


def test_announce_multicolour_in_rainbow_is_illegal() -> None:
    state = game(2, ["M1"], variant=Variant.RAINBOW, choreography=True)
    with pytest.raises(IllegalAction, match="multicolor cannot be named in rainbow"):
        state.apply(Play(0, 0, announce=Suit.MULTI))


def test_choreography_legal_actions_include_announcements() -> None:
    state = game(2, choreography=True)
    plays = [a for a in state.legal_actions() if isinstance(a, Play)]
    assert len(plays) == 5 * (1 + 5)


def test_perfect_score_ends_the_game_at_once() -> None:
    top = [f"{s}{r}" for s in "RYGBW" for r in range(1, 6)]
    state = game(5, top)  # hands of 4: seats hold R1-R4, R5+Y1-Y3, ... in deal order
    while not state.over:
        seat = state.current_seat
        playable = [c for c in state.hands[seat]
                    if (f := state.faces[c]) and state.fireworks[f.suit] == f.rank - 1]
        state.apply(Play(seat, playable[0]) if playable else
                    next(a for a in state.legal_actions() if isinstance(a, Clue)))
    assert state.end is End.PERFECT and state.score == 25 and state.rating == "legendary"


def test_terminate_ends_the_game_keeping_the_fireworks() -> None:
    state = game(3, ["R1"])
    state.apply(Play(0, 0))
    outcome = state.apply(Terminate(2))
    assert outcome.end is End.TERMINATED and state.over and state.score == 1
    with pytest.raises(IllegalAction, match="game is over"):
        state.apply(Clue(1, 0, rank=1))


@pytest.mark.parametrize(
    ("score", "key"),
    [(0, "horrible"), (5, "horrible"), (6, "mediocre"), (10, "mediocre"),
     (11, "honourable"), (15, "honourable"), (16, "excellent"), (20, "excellent"),
     (21, "amazing"), (24, "amazing"), (25, "legendary")],
)
def test_rating_boundaries_standard(score: int, key: str) -> None:
    assert rating(GameConfig(2), score) == key


@pytest.mark.parametrize(("score", "key"), [(25, "legendary"), (29, "legendary"),
                                            (30, "divine")])
def test_rating_boundaries_six_suits(score: int, key: str) -> None:
    assert rating(GameConfig(2, Variant.MULTICOLOR), score) == key


def test_rating_all_or_nothing_is_win_or_loss() -> None:
    state = game(2, all_or_nothing=True)
    assert state.rating == "loss"
    assert rating(state.config, 25, won=True) == "win"
