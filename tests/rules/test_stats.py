"""The game in numbers (rules/stats.py): per player, for the table, after each turn."""

from __future__ import annotations

import random

from engine_helpers import game
from hypothesis import given, settings
from hypothesis import strategies as st
from test_engine_properties import configs

from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, GameConfig, Suit
from hanabi_p2p.rules.engine import End, GameState
from hanabi_p2p.rules.stats import Mark, game_stats, pace, stats_of_state


def test_a_scripted_game_counts_each_kind_of_turn() -> None:
    # Alice (seat 0): R1 B5 Y3 G2 W4 (slot 5 first); Bob (seat 1): R2 Y1 W1 G1 B1
    state = game(2, ["R1", "B5", "Y3", "G2", "W4", "R2", "Y1", "W1", "G1", "B1"])
    alice, bob = list(state.hands[0]), list(state.hands[1])
    faces = list(state.faces)
    r1, b5 = alice[-1], alice[-2]
    y1 = bob[-2]
    actions = [
        Clue(0, 1, rank=1),  # Alice clues Bob 1: touches Y1 W1 G1 B1
        Clue(1, 0, rank=5),  # Bob clues Alice 5: B5 is the only one: a save
        Play(0, r1),  # Alice plays R1 (unclued): placed
        Play(1, bob[-1]),  # Bob plays R2 (slot 5, unclued, dealt first): placed
        Discard(0, alice[0]),  # Alice discards W4
        Play(1, y1),  # Bob plays Y1: placed
        Play(0, b5),  # Alice plays B5: a misplay
    ]
    stats = game_stats(state.config, faces, actions)
    assert stats is not None
    alice_t, bob_t = stats.players
    assert (alice_t.clues, alice_t.plays, alice_t.misplays, alice_t.discards) == (1, 1, 1, 1)
    assert (bob_t.clues, bob_t.plays, bob_t.misplays, bob_t.discards) == (1, 2, 0, 0)
    assert (alice_t.saves, bob_t.saves) == (0, 1)
    assert [p.mark for p in stats.points] == [None, None, Mark.SAVE, None, None, None, None,
                                              Mark.MISPLAY]
    assert [p.score for p in stats.points] == [0, 0, 0, 1, 2, 2, 3, 3]
    assert [p.clue_tokens for p in stats.points] == [8, 7, 6, 6, 6, 7, 7, 7]
    # replayed by hand, the series match the engine's own after each turn
    replica = GameState(state.config, faces)
    for action, point in zip(actions, stats.points[1:], strict=True):
        replica.apply(action)
        assert (point.turn, point.pace) == (replica.turn, pace(replica))
    # gotten: 3 played, and Bob's W1 G1 B1 still held and clued (none trash); Alice's clue
    # touched Y1 W1 G1 B1 first (Y1 later played): 4 for her one clue; Bob's clue touched B5,
    # misplayed since: nothing
    assert stats.cards_gotten == 6 and stats.clues_lost == 1
    assert (alice_t.gotten, bob_t.gotten) == (4, 0)
    assert alice_t.efficiency == 4.0 and bob_t.efficiency == 0.0
    assert stats.efficiency == 6 / (2 + 1)
    table = stats.table
    assert (table.clues, table.plays, table.misplays, table.discards) == (2, 3, 1, 1)


def test_a_five_played_with_every_token_in_the_bank_loses_a_clue() -> None:
    # Bob holds R1..R5 and plays them in order; Alice keeps the bank full when R5 comes
    state = game(2, ["Y1", "Y2", "Y3", "Y4", "Y5", "R5", "R4", "R3", "R2", "R1"])
    faces = list(state.faces)
    r1, r2, r3, r4, r5 = state.hands[1]  # slot 1 first: dealt last
    alice_y1 = state.hands[0][-1]
    actions = []
    script = [
        lambda: Clue(0, 1, colour=Suit.RED), lambda: Play(1, r1),
        lambda: Discard(0, state.hands[0][0]), lambda: Play(1, r2),
        lambda: Clue(0, 1, rank=3), lambda: Play(1, r3),
        lambda: Discard(0, state.hands[0][0]), lambda: Play(1, r4),
        lambda: Play(0, alice_y1), lambda: Play(1, r5),
    ]
    for step in script:
        actions.append(step())
        if actions[-1] == Play(1, r5):
            assert state.clue_tokens == MAX_CLUE_TOKENS  # the bonus has nowhere to go
        state.apply(actions[-1])
    assert state.fireworks[Suit.RED] == 5
    stats = game_stats(state.config, faces, actions)
    assert stats is not None
    assert stats.clues_lost == 1 and stats.table.clues == 2
    assert stats.cards_gotten == 6  # R1-R5 and Y1 played, nothing clued left in a hand
    assert stats.efficiency == 6 / (2 + 1)


def test_a_clue_to_a_card_already_clued_is_no_save() -> None:
    state = game(2, ["R1", "R2", "R3", "R4", "Y5", "G1", "G2", "G3", "G4", "G5"])
    faces = list(state.faces)
    actions = [Clue(0, 1, rank=5), Clue(1, 0, rank=1), Clue(0, 1, colour=Suit.GREEN)]
    stats = game_stats(state.config, faces, actions)
    assert stats is not None
    assert [p.mark for p in stats.points] == [None, Mark.SAVE, None, None]


def test_an_action_that_cannot_be_replayed_gives_no_numbers() -> None:
    state = game(2)
    assert game_stats(state.config, list(state.faces), [Play(1, 0)]) is None


def _random_game(config: GameConfig, seed: int) -> GameState:
    rng = random.Random(seed)
    faces = config.deck_faces()
    rng.shuffle(faces)
    state = GameState(config, faces)
    while not state.over:
        state.apply(rng.choice(state.legal_actions()))
    return state


@settings(max_examples=30, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1))
def test_the_numbers_add_up_to_the_final_table(config: GameConfig, seed: int) -> None:
    state = _random_game(config, seed)
    stats = stats_of_state(state)
    assert stats is not None
    table = stats.table
    assert table.plays == state.fireworks_total
    assert table.misplays == state.strikes
    assert table.discards == len(state.discard_pile) - state.strikes
    assert len(stats.points) == state.turn + 1
    last = stats.points[-1]
    assert (last.score, last.clue_tokens, last.pace) == (state.score, state.clue_tokens,
                                                         pace(state))
    assert sum(p.mark is Mark.MISPLAY for p in stats.points) == state.strikes
    assert sum(p.gotten for p in stats.players) <= stats.cards_gotten
    if state.end is End.STRIKEOUT:
        assert last.score == 0  # the rules' score of a strikeout, charted as such
