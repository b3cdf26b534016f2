"""The end-game plan's worked example (docs/conventions.md, 12), played from a stacked deal,
and the look-ahead's model on its own.

Seats: Alice 0, Bob 1. Hands are written slot 1 (newest) first.
"""

from __future__ import annotations

from scenario import Scenario, card

from hanabi_p2p.bots.endgame import Model
from hanabi_p2p.bots.hgroup import Reason
from hanabi_p2p.rules.actions import Clue
from hanabi_p2p.rules.cards import Suit

ALICE, BOB = 0, 1
# Cards drawn in this order: the first ones play at once (up to R5 Y5 G5 B3 W3); the rest
# are copies nobody needs by then, except the W4 that Bob draws last; one B1 stays in the deck.
DRAWS = ("R2 R3 R4 R5 Y1 Y2 Y3 Y4 Y5 G1 G2 G3 G4 G5 B1 B2 B3 W1 W2 W3 "
         "B1 B2 B3 B4 G1 G3 G4 R1 R1 R4 W1 W1 W2 W3 W4 Y1 Y1 Y4 W4 B1")
TARGET = {"R": 5, "Y": 5, "G": 5, "B": 3, "W": 3}


def _burn_to_the_end(s: Scenario) -> None:
    """Each player in turn plays its newest card if it takes a firework towards TARGET,
    else discards it (or, with 8 tokens, clues the other's newest card), until one card is
    left in the deck."""
    state = s.state
    while state.config.deck_size - state.draw_index > 1:
        seat = state.current_seat
        name = s.face(seat, 1)
        face = card(name)
        if state.fireworks[face.suit] == face.rank - 1 and face.rank <= TARGET[name[0]]:
            s.play(seat, 1)
        elif state.clue_tokens < 8:
            s.discard(seat, 1)
        else:
            other = 1 - seat
            s.clue(seat, other, s.face(other, 1)[1])


def _at_the_last_card(hands: list[str], draws: str,
                      clues: tuple[tuple[int, int, str], ...]) -> Scenario:
    """Two players give these clues, then play the deck down (`_burn_to_the_end`) until one
    card is left and Alice is to act."""
    s = Scenario(2, hands, draws=draws)
    for giver, target, value in clues:
        s.clue(giver, target, value)
    _burn_to_the_end(s)
    state = s.state
    assert state.current_seat == ALICE and state.config.deck_size - state.draw_index == 1
    return s


def test_the_plan_gives_a_clue_instead_of_a_play_that_would_end_the_game_too_soon() -> None:
    s = _at_the_last_card(["R1 Y3 R3 B5 B4", "G1 R2 G2 Y2 W5"], DRAWS,
                          ((ALICE, BOB, "5"), (BOB, ALICE, "blue"), (ALICE, BOB, "white"),
                           (BOB, ALICE, "5"), (ALICE, BOB, "2"), (BOB, ALICE, "4")))
    state = s.state
    assert [state.fireworks[card(f"{x}1").suit] for x in "RYGBW"] == [5, 5, 5, 3, 3]
    assert s.face(BOB, 1) == "W4" and s.known(BOB, 5) == {"W5"}
    assert s.known(ALICE, 5) == {"B4"} and s.known(ALICE, 4) == {"B5"}
    # The conventions say: play B4. It draws the last card; in the last round Bob knows
    # nothing to play and Alice plays B5: 2 more points. A white clue instead shows Bob
    # his W4; he plays it and draws the last card, then Alice plays B4 and Bob W5: 3.
    advice = s.advice(ALICE)
    assert advice.reason is Reason.PLAN
    clue = advice.action
    assert isinstance(clue, Clue) and (clue.target, clue.colour) == (BOB, Suit.WHITE)
    assert advice.text == ("clue Bob white: counting the turns left, this gets the most "
                           "cards played by the end (3 more)")
    s.take(advice.action)
    while not state.over:
        s.take(s.advice().action)
    assert state.fireworks_total == 21 + 3


def test_the_model_counts_who_still_has_a_turn() -> None:
    """Two players, one card left in the deck: Alice knows her R4, Bob his R5 (and holds
    one unclued card). Whoever starts, both cards get played: a discard or Alice's play
    draws the last card, and each player then has one more turn."""
    everything = (1 << 25) - 1
    r4, r5, w1 = 3, 4, 20
    model = Model([3, 5, 5, 5, 0], tokens=0, cards_left=1, final_left=None,
                  hands=[[(r4, 1 << r4)], [(w1, everything), (r5, 1 << r5)]], seer=ALICE,
                  stall_cards=4, all_faces=everything)
    assert model.copy().run(ALICE) == 2
    assert model.copy().run(BOB) == 2
    # In the last round with Bob to act first, his R5 comes too early: only R4 is played.
    model.cards_left, model.final_left = 0, 2
    assert model.copy().run(BOB) == 1


def test_the_plan_stalls_so_that_the_player_with_more_to_play_draws_the_last_card() -> None:
    # As above, but Bob knows two cards to play (B4 and B5), Alice one (W4), and the W5 is
    # gone (discarded on the way), so the deck's last card is a useless B1.
    draws = ("R2 R3 R4 R5 Y1 Y2 Y3 Y4 Y5 G1 G2 G3 G4 G5 B1 B2 B3 W1 W2 W3 "
             "B1 B2 B3 B4 G1 G3 G4 R1 R1 R4 W1 W1 W2 W3 W5 Y1 Y1 Y4 B1")
    s = _at_the_last_card(["G1 R2 G2 Y2 W4", "R1 Y3 R3 B5 B4"], draws,
                          ((ALICE, BOB, "5"), (BOB, ALICE, "white"), (ALICE, BOB, "blue"),
                           (BOB, ALICE, "4"), (ALICE, BOB, "4"), (BOB, ALICE, "2")))
    state = s.state
    assert s.known(ALICE, 5) == {"W4"}
    assert s.known(BOB, 5) == {"B4"} and s.known(BOB, 4) == {"B5"}
    # The conventions say: play W4. It draws the last card; Bob plays B4 in the last round,
    # and Alice has nothing left to play: 2 more points. A clue that shows nothing instead
    # lets Bob play B4 and draw the last card; then Alice plays W4 and Bob B5: 3.
    advice = s.advice(ALICE)
    assert advice.reason is Reason.PLAN and isinstance(advice.action, Clue)
    assert advice.text.endswith("counting the turns left, this gets the most cards played "
                                "by the end (3 more)")
    s.take(advice.action)
    while not state.over:
        s.take(s.advice().action)
    assert state.fireworks_total == 21 + 3
