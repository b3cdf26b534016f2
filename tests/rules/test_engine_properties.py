"""Property tests: random legal games under random configurations never break invariants,
and networked observers (each seat's partial view) agree with the full-knowledge game."""

from __future__ import annotations

import random

import pytest
from blind_table import BlindTable
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.errors import IllegalAction
from hanabi_p2p.rules.actions import Action, Clue, Discard, Move, Play, TurnAction
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, MAX_STRIKES, Card, GameConfig, Variant
from hanabi_p2p.rules.engine import End, GameState

# property tests over random games: too slow for the fast tier
pytestmark = pytest.mark.slow

configs = st.builds(
    GameConfig,
    players=st.integers(2, 5),
    variant=st.sampled_from(list(Variant)),
    all_or_nothing=st.booleans(),
    choreography=st.booleans(),
    empty_clues=st.booleans(),
)


def _shuffled(config: GameConfig, rng: random.Random) -> list[Card]:
    faces = config.deck_faces()
    rng.shuffle(faces)
    return faces


def _pick(state: GameState, rng: random.Random, blunder: float) -> TurnAction:
    """A random legal action: a random play (often a misplay) with probability ``blunder``,
    otherwise a play known to succeed half the time, else a random discard or clue. The
    mix lets games end every way: strikeouts, final rounds, perfect scores."""
    legal = state.legal_actions()
    plays = [a for a in legal if isinstance(a, Play)]
    others = [a for a in legal if not isinstance(a, Play)]
    if plays and (not others or rng.random() < blunder):
        return rng.choice(plays)
    good = [a for a in plays if _places(state, a)]
    if good and rng.random() < 0.5:
        return rng.choice(good)
    return rng.choice(others)


def _places(state: GameState, play: Play) -> bool:
    face = state.faces[play.card]
    assert face is not None
    right_colour = play.announce is None or state.config.colour_touches(play.announce, face)
    return right_colour and state.fireworks[face.suit] == face.rank - 1


def _turn_bound(config: GameConfig) -> int:
    # each turn spends a token or removes a card; tokens come back only with removed cards
    # (at most 2 per card: 5-bonus + choreography bonus)
    return MAX_CLUE_TOKENS + config.deck_size * 3


def _check_invariants(state: GameState) -> None:
    assert 0 <= state.clue_tokens <= MAX_CLUE_TOKENS
    assert 0 <= state.strikes <= MAX_STRIKES
    places = [*state.played, *state.discard_pile, *(c for h in state.hands for c in h),
              *range(state.draw_index, len(state.faces))]
    assert sorted(places) == list(range(len(state.faces)))  # each card in exactly one place
    assert state.fireworks_total == len(state.played)
    assert 0 <= state.score <= state.fireworks_total <= state.max_achievable <= state.max_score
    assert state.turn <= _turn_bound(state.config)
    assert state.current_seat == state.turn % state.config.players


@settings(max_examples=100, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1), blunder=st.sampled_from([0.02, 0.3]))
def test_random_games_keep_the_invariants(config: GameConfig, seed: int,
                                          blunder: float) -> None:
    rng = random.Random(seed)
    state = GameState(config, _shuffled(config, rng))
    final_round_start = None
    while not state.over:
        if rng.random() < 0.05:  # a hand reorder now and then: never a turn
            seat = rng.randrange(config.players)
            if state.hands[seat]:
                hand = state.hands[seat]
                state.apply(Move(seat, rng.choice(hand), rng.randrange(len(hand))))
        before = state.copy()
        state.apply(_pick(state, rng, blunder))
        if before.final_round_turns_left is None and state.final_round_turns_left is not None:
            assert state.cards_left == 0 and not config.all_or_nothing
            assert state.final_round_turns_left == config.players
            final_round_start = state.turn
        _check_invariants(state)
    assert state.legal_actions() == []
    if state.end is End.NORMAL:
        assert final_round_start is not None
        assert state.turn - final_round_start == config.players  # exactly N more turns
    if config.all_or_nothing:
        assert state.end in {End.PERFECT, End.STRIKEOUT, End.ALL_OR_NOTHING_FAIL, End.SOFTLOCK}
        assert state.final_round_turns_left is None
    else:
        assert state.end in {End.PERFECT, End.STRIKEOUT, End.NORMAL}


@settings(max_examples=60, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1))
def test_partial_knowledge_replicas_agree_with_the_full_game(config: GameConfig,
                                                             seed: int) -> None:
    rng = random.Random(seed)
    table = BlindTable(config, _shuffled(config, rng))
    full = table.full
    while not full.over:
        seat = full.current_seat
        # the player to move computes the same legal actions from its own partial view
        assert table.views[seat].legal_actions() == full.legal_actions()
        table.apply(_pick(full, rng, rng.choice([0.02, 0.3])))
        digest = full.public_hash()
        assert all(view.public_hash() == digest for view in table.views)
        for holder, hand in enumerate(full.hands):
            for c in hand:  # knowledge never rules out the truth
                knowledge = table.views[holder].knowledge(c, holder)
                assert full.faces[c] in knowledge.possible
                assert full.faces[c] in knowledge.unseen_counts
                assert table.views[holder].faces[c] is None  # a seat never sees its own cards


@settings(max_examples=30, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1))
def test_an_illegal_action_never_changes_the_state(config: GameConfig, seed: int) -> None:
    rng = random.Random(seed)
    state = GameState(config, _shuffled(config, rng))
    seats = range(config.players)
    for _ in range(30):
        if state.over:
            break
        wild: Action = rng.choice([
            Play(rng.choice(seats), rng.randrange(len(state.faces))),
            Discard(rng.choice(seats), rng.randrange(len(state.faces))),
            Clue(rng.choice(seats), rng.choice(seats), rank=rng.randrange(0, 7)),
            Clue(rng.choice(seats), rng.choice(seats), colour=rng.choice(config.suits)),
        ])
        before = state.copy()
        try:
            state.apply(wild)
        except IllegalAction:
            assert state.public_hash() == before.public_hash()
            assert state.history == before.history and state.hands == before.hands
            state.apply(_pick(state, rng, 0.3))
