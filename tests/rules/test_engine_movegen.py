"""legal_actions() builds its clue lists incrementally (movegen.py): check them against a
from-scratch computation, in games whose hands change every turn and in diverging copies."""

from __future__ import annotations

import random

from hypothesis import given, settings
from hypothesis import strategies as st

from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.cards import RANKS, GameConfig, Variant
from hanabi_p2p.rules.engine import GameState
from hanabi_p2p.rules.movegen import plays_and_discards

configs = st.builds(
    GameConfig,
    players=st.integers(2, 5),
    variant=st.sampled_from(list(Variant)),
    empty_clues=st.booleans(),
)


def _expected_clues(state: GameState) -> list[Clue]:
    """Every legal clue of the current seat, computed directly from the faces."""
    cfg = state.config
    giver = state.current_seat
    if state.clue_tokens == 0:
        return []
    out = []
    for target, hand in enumerate(state.hands):
        if target == giver:
            continue
        kinds = [(colour, None) for colour in cfg.clue_colours] + [(None, r) for r in RANKS]
        for colour, rank in kinds:
            touched = frozenset(
                c for c in hand
                if (face := state.faces[c]) is not None
                and (cfg.colour_touches(colour, face) if colour is not None
                     else face.rank == rank)
            )
            if touched or cfg.empty_clues:
                out.append(Clue(giver, target, colour, rank, touched))
    return out


def _clues(state: GameState) -> list[Clue]:
    return [a for a in state.legal_actions() if isinstance(a, Clue)]


@settings(max_examples=40, deadline=None)
@given(config=configs, seed=st.integers(0, 2**32 - 1))
def test_incremental_clue_lists_match_a_fresh_computation(config: GameConfig,
                                                           seed: int) -> None:
    rng = random.Random(seed)
    faces = config.deck_faces()
    rng.shuffle(faces)
    state = GameState(config, faces)
    branches: list[GameState] = []
    while not state.over:
        assert _clues(state) == _expected_clues(state)
        if rng.random() < 0.1:
            branches.append(state.copy())  # shares clue lists with `state` from now on
        # prefer plays and discards: they change a hand, which is what the cache tracks
        legal = state.legal_actions()
        hand_changing = [a for a in legal if not isinstance(a, Clue)]
        state.apply(rng.choice(hand_changing if hand_changing and rng.random() < 0.7
                               else legal))
    for branch in branches:  # copies taken earlier diverge from the main line
        while not branch.over:
            assert _clues(branch) == _expected_clues(branch)
            branch.apply(rng.choice(branch.legal_actions()))


def test_interned_plays_and_discards_are_equal_values() -> None:
    plays, discards = plays_and_discards(3, 50)
    assert plays[2][17] == Play(2, 17) and discards[1][49] == Discard(1, 49)
    assert plays_and_discards(3, 50)[0] is plays  # built once per table shape
