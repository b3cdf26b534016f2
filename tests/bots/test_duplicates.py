"""Two clued cards read as one copy (bots/duplicates.py): the card whose play would make
another player misread its copy waits, and two of my cards read as the same last copy are
not played as known; and a clue that makes a card read as a delayed play of another card
counts as a misplay to come.

Seats: Alice 0, Bob 1, Cathy 2. Hands are written slot 1 (newest) first.
"""

from __future__ import annotations

from scenario import Scenario

from hanabi_p2p.bots.duplicates import surplus_copies
from hanabi_p2p.bots.hgroup import _Decision
from hanabi_p2p.rules.actions import Play
from hanabi_p2p.rules.cards import Suit

ALICE, BOB, CATHY = 0, 1, 2


def test_my_known_copy_waits_for_the_clued_1_that_would_misread() -> None:
    s = Scenario(3, ["B4 G4 Y1 R3 W3", "G3 B3 R5 W4 Y5", "Y1 R4 R2 B2 Y4"])
    s.clue(ALICE, BOB, "5")
    s.clue(BOB, CATHY, "1")  # Cathy's Y1: "some 1", every 1 playable
    s.clue(CATHY, ALICE, "yellow")  # Alice's Y1: exactly Y1
    assert s.known(ALICE, 3) == {"Y1"}
    assert "Y1" in s.known(CATHY, 1) and len(s.known(CATHY, 1)) > 1
    # Played now, Alice's Y1 would leave Cathy's reading "R1, G1, B1 or W1" (good touch),
    # a misplay. Cathy's goes first; then Alice's is known trash.
    action = s.advice(ALICE).action
    assert not (isinstance(action, Play) and action.card == s.slot(ALICE, 3))
    for _ in range(6):
        s.take(s.advice().action)
        assert s.state.strikes == 0
    assert s.state.fireworks_total >= 1


def test_two_cards_read_as_the_last_copy_are_not_played_as_known() -> None:
    # Every save clue on Cathy's B2 (the last one: the other is discarded) touches her B1 too,
    # known trash; both then read as B2 (B4s gone, Cathy sees the last B3 in Alice's hand).
    s = Scenario.position(3, ["R3 Y3 G4 B3 W3", "G3 R4 Y4 W4 G4", "R4 B1 Y2 W2 B2"],
                          stacks="B1", discarded="B2 B3 B4 B4", tokens=4, start=ALICE)
    s.clue(ALICE, CATHY, "blue")
    s.discard(BOB, 5)
    action = s.advice(CATHY).action
    assert not (isinstance(action, Play) and action.card == s.slot(CATHY, 2))  # the B1


def test_surplus_copies_widens_every_card_read_as_the_same_last_copy() -> None:
    b1, b2, r1 = 0b01, 0b10, 0b100
    mine = [(7, b2), (8, b2), (9, r1)]
    surplus_copies(mine, [0, 0, 0, 0, 0, 0, 0, b1 | b2, b1 | b2, r1],
                   copies=[3, 2, 3], seen=[2, 1, 0], unseen=b1 | b2 | r1)
    assert mine == [(7, b1 | b2), (8, b1 | b2), (9, r1)]  # one B2 unseen, two cards read so
    mine = [(7, b2), (8, b2)]
    surplus_copies(mine, [0, 0, 0, 0, 0, 0, 0, b1 | b2, b1 | b2],
                   copies=[3, 2], seen=[2, 0], unseen=b1 | b2)
    assert mine == [(7, b2), (8, b2)]  # both B2s unseen: both may be B2


def test_a_clue_read_as_a_delayed_play_of_another_card_counts_as_a_misplay() -> None:
    # Bob's G2 is clued and known: green's next card after it is G3. "Green" from Bob on
    # Cathy's G4 would read as that G3 (a delayed play clue): not playable now, but a misplay
    # once the G2 is played. The checks of fixes, last-turn clues and bad-touch saves count it.
    s = Scenario.position(3, ["R3 Y3 B4 W3 Y4", "G2 R4 B3 W4 Y3", "G4 R3 R4 B3 W3"],
                          stacks="G1", tokens=6, start=ALICE)
    s.clue(ALICE, BOB, "green")
    assert s.known(BOB, 1) == {"G2"}
    decision = _Decision(s.player(), None, frozenset())  # Bob's turn
    green = next(c for c in decision.clues()
                 if s.seat_of(c.target) == CATHY and c.colour is Suit.GREEN)
    assert decision._harm(green)[0] == 1
