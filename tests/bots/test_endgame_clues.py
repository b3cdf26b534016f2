"""Near the deck's end, between clues the conventions rate alike, the one that tells most about
the clued cards still to be played (bots/endgame_clues.py: a "fill-in").

The position comes from a self-play game on a tuning seed (bench/bots.py ``--seeds tuning``,
game 13 at three players), its first 48 actions written out below so that the position does
not move if the player's earlier choices change.
"""

from __future__ import annotations

import random

import pytest

from hanabi_p2p.bots import hgroup_giving
from hanabi_p2p.bots.endgame_clues import fill_in
from hanabi_p2p.bots.hgroup import HGroupPlayer, Reason
from hanabi_p2p.bots.hgroup_tuning import FILL_IN_EXACT
from hanabi_p2p.rules.actions import Clue, Discard, Play, TurnAction
from hanabi_p2p.rules.cards import GameConfig, Suit
from hanabi_p2p.rules.engine import GameState

# Each action in turn: "p3" plays slot 3 (1 = newest), "d5" discards slot 5, "15" clues seat 1
# with 5, "1Y" clues seat 1 with yellow.
GAME_13 = ("21 0B p4 p5 0G p2 p5 25 1B d5 p1 13 d5 p1 1W 14 p4 d4 21 p2 p1 d5 2R 1R 2G "
           "p5 p3 23 p4 p4 d5 24 d3 d4 d5 p2 1Y p1 p4 d4 0B d4 p5 05 d4 p1 d5 d4")
COLOURS = {s.value[0].upper(): s for s in Suit}


def _replay(seed: int, script: str) -> GameState:
    config = GameConfig.from_names(3, "standard", [])
    faces = config.deck_faces()
    random.Random(seed).shuffle(faces)
    state = GameState(config, faces)
    for step in script.split():
        seat = state.current_seat
        action: TurnAction
        if step[0] in "pd":
            card = state.hands[seat][int(step[1]) - 1]
            action = Play(seat, card) if step[0] == "p" else Discard(seat, card)
        else:
            colour = COLOURS.get(step[1])
            action = Clue(seat, int(step[0]), colour, None if colour else int(step[1]))
        state.apply(action)
    return state


def _faces(player: HGroupPlayer, card: int) -> set[str]:
    mask = player.public(card)
    return {str(f) for i, f in enumerate(player.table.cards) if mask >> i & 1}


def test_near_the_deck_end_a_stall_clue_leaves_a_clued_5_known_exactly(
        monkeypatch: pytest.MonkeyPatch) -> None:
    state = _replay(13, GAME_13)
    deck = state.config.deck_size - state.draw_index
    assert (state.current_seat, deck, state.clue_tokens) == (0, 4, 7)
    y5 = state.hands[1][3]
    assert str(state.faces[y5]) == "Y5"
    player = HGroupPlayer(state.config, 0)
    player.sync(state)
    assert len(_faces(player, y5)) > 1  # Bob's Y5 is clued, not known exactly
    # Nothing to play, no clue that gets a card played: a stall. Of the stall clues to
    # Bob, the 5 leaves his Y5 known exactly (he can play it once Y4 is down without
    # another clue); the one the conventions list first tells him nothing of it (red, on
    # his R2: this late, a clue on a useless card costs nothing, LATE_TOUCH_CARDS).
    advice = HGroupPlayer(state.config, 0).advise(state)
    clue = advice.action
    assert advice.reason is Reason.STALL
    assert isinstance(clue, Clue) and (clue.target, clue.rank) == (1, 5)
    monkeypatch.setattr(hgroup_giving, "FILL_IN_CARDS", -1)
    without = HGroupPlayer(state.config, 0).advise(state)
    other = without.action
    assert without.reason is Reason.STALL
    assert isinstance(other, Clue) and (other.target, other.colour) == (1, Suit.RED)
    assert fill_in(player, other) == 0
    touched = frozenset({y5})
    assert fill_in(player, Clue(0, 1, None, 5, touched)) > 0
    assert fill_in(player, Clue(0, 1, Suit.YELLOW, None, touched)) == 0
    state.apply(clue)
    player.sync(state)
    assert _faces(player, y5) == {"Y5"}


def test_a_fill_in_counts_what_a_clue_tells_of_the_receivers_clued_cards() -> None:
    state = _replay(13, GAME_13)
    player = HGroupPlayer(state.config, 0)
    player.sync(state)
    bob, cathy = state.hands[1], state.hands[2]
    y5, w5 = bob[3], cathy[4]
    assert _faces(player, y5) == {"Y2", "Y3", "Y4", "Y5"}
    assert _faces(player, w5) == {"Y5", "B5", "W5"}

    def told(target: int, what: Suit | int) -> int:
        colour = what if isinstance(what, Suit) else None
        rank = None if isinstance(what, Suit) else what
        mask = player._clue_mask(Clue(0, target, colour, rank))
        touched = frozenset(c for c in state.hands[target] if player.fi[c] >= 0
                            and mask >> player.fi[c] & 1)
        return fill_in(player, Clue(0, target, colour, rank, touched))

    # white leaves Cathy's W5 known exactly: 2 faces ruled out, and it is exact
    assert told(2, Suit.WHITE) == 2 + FILL_IN_EXACT
    # yellow touches none of her clued cards but says her 5 is no Y5
    assert told(2, Suit.YELLOW) == 1
    # a 2 touches Bob's unclued R2 only, and says his clued yellow card is no Y2
    assert told(1, 2) == 1
    # red touches his unclued R2 only and says nothing of his yellow card: nothing
    assert told(1, Suit.RED) == 0
    # 5 leaves his Y5 known exactly
    assert told(1, 5) == 3 + FILL_IN_EXACT
