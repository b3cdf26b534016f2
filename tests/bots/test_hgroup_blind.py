"""The convention player uses only what its seat can know."""

from __future__ import annotations

import pytest
from blind_table import BlindTable, shuffled
from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.bots.hgroup import HGroupPlayer, choose_action
from hanabi_p2p.rules.cards import GameConfig, Variant

configs = st.builds(
    GameConfig,
    players=st.integers(2, 5),
    variant=st.sampled_from(list(Variant)),
    all_or_nothing=st.booleans(),
    choreography=st.booleans(),
    empty_clues=st.booleans(),
)


@pytest.mark.slow
@settings(max_examples=20, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1))
def test_same_action_from_the_blind_replica_as_from_the_full_game(config: GameConfig,
                                                                  seed: int) -> None:
    """Every action is legal, and the same whether the seat's replica knows its own faces."""
    table = BlindTable(config, shuffled(config, seed))
    while not table.full.over:
        seat = table.full.current_seat
        action = choose_action(table.views[seat], seat)
        assert choose_action(table.full, seat) == action
        table.apply(action)  # raises if illegal


def test_a_player_started_mid_game_catches_up_with_one_that_followed_it() -> None:
    """choose_action() may meet a game for the first time at any turn (a peer that
    resumed): replaying the history gives the same decisions as following it live."""
    config = GameConfig(3)
    table = BlindTable(config, shuffled(config, 11))
    live = [HGroupPlayer(config, seat) for seat in range(3)]
    while not table.full.over:
        seat = table.full.current_seat
        action = live[seat].act(table.views[seat])
        if table.full.turn % 7 == 3:
            assert HGroupPlayer(config, seat).act(table.views[seat]) == action
        table.apply(action)
    assert table.full.score > 0


def test_a_new_game_never_reuses_the_replica_of_an_old_one() -> None:
    """The stateless entry point keeps one replica per game state; a game state freed and a
    new one made at the same address must still get a fresh replica (a stale one from
    another deal once 'followed' any new game at turn 0)."""
    config = GameConfig(3)
    for seed in range(40):
        state = BlindTable(config, shuffled(config, seed)).full
        fresh = HGroupPlayer(config, 0).advise(state, None).action
        assert choose_action(state, 0) == fresh, seed
        del state


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_at_level_5_blind_and_mid_game_players_decide_alike(players: int) -> None:
    """The conventions a table that picks a level reads (self-finesses, trash chop moves,
    sarcastic discards, 5 stalls) use only what the seat can know too: the same action from
    the blind replica as from the full game, and from a player started mid-game."""
    config = GameConfig(players)
    for seed in range(3):
        table = BlindTable(config, shuffled(config, 1000 + seed))
        live = [HGroupPlayer(config, seat, 5) for seat in range(players)]
        while not table.full.over:
            seat = table.full.current_seat
            action = live[seat].act(table.views[seat])
            assert choose_action(table.full, seat, 5) == action
            if table.full.turn % 5 == 2:
                assert HGroupPlayer(config, seat, 5).act(table.views[seat]) == action
            table.apply(action)


@pytest.mark.slow
@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_fifty_games_a_table_size_decide_alike_without_the_seats_own_faces(players: int) -> None:
    """Issue 32's blind-play property over 200 games: a player whose replica never sees its
    own cards takes, at every turn, the action one given the whole game takes."""
    config = GameConfig(players)
    for seed in range(5000, 5050):
        table = BlindTable(config, shuffled(config, seed))
        blind = [HGroupPlayer(config, seat) for seat in range(players)]
        seeing = [HGroupPlayer(config, seat) for seat in range(players)]
        while not table.full.over:
            seat = table.full.current_seat
            action = blind[seat].act(table.views[seat])
            assert seeing[seat].act(table.full) == action, (seed, table.full.turn)
            table.apply(action)
