"""One scenario per convention of docs/conventions.md, built from its worked example.

Seats: Alice 0, Bob 1, Cathy 2. Hands are written slot 1 (newest) first.
"""

from __future__ import annotations

from scenario import Scenario

from hanabi_p2p.bots.hgroup import Reason
from hanabi_p2p.rules.actions import Clue, Discard, Play
from hanabi_p2p.rules.cards import MAX_STRIKES

ALICE, BOB, CATHY = 0, 1, 2


def _touches(s: Scenario, clue: object, seat: int, slots: set[int]) -> bool:
    assert isinstance(clue, Clue) and clue.target == seat
    return clue.touched == frozenset(s.slot(seat, n) for n in slots)


def test_chop_nothing_to_do_means_discarding_the_chop() -> None:
    s = Scenario(3, ["R3 Y3 G4 B4 W3", "G3 B3 Y4 R4 W4", "Y3 B3 G4 W4 R3"])
    s.clue(ALICE, CATHY, "4")
    s.clue(BOB, ALICE, "3")
    s.clue(CATHY, ALICE, "4")
    s.clue(ALICE, BOB, "3")  # Bob: 3s in slots 1-2, 4 clue tokens left
    advice = s.advice(BOB)
    assert advice.action == Discard(BOB, s.slot(BOB, 5))
    assert advice.reason is Reason.DISCARD_CHOP
    assert "chop" in advice.text


def test_five_save_with_a_number_clue_on_the_chop() -> None:
    s = Scenario(3, ["R3 Y3 G4 B4 W3", "R3 G4 Y2 B4 W5", "Y3 B3 G3 W4 R4"])
    advice = s.advice(ALICE)
    assert advice.reason is Reason.SAVE
    assert _touches(s, advice.action, BOB, {5})
    assert isinstance(advice.action, Clue) and advice.action.rank == 5
    assert advice.text == "clue Bob 5: focus on the chop, it is W5, a 5 — a save"
    s.take(advice.action)
    assert "R1" not in s.known(BOB, 5)  # a save, not a play: Bob keeps it
    assert s.chop(BOB) == 4  # and his chop moves on


def test_two_save_only_when_the_other_copy_is_not_in_sight() -> None:
    s = Scenario(2, ["R3 Y3 G4 B4 W3", "R3 G4 Y3 B4 G2"])
    advice = s.advice(ALICE)
    assert advice.reason is Reason.SAVE
    assert isinstance(advice.action, Clue) and advice.action.rank == 2
    s = Scenario(2, ["R3 Y3 G4 B4 W3", "G2 G4 Y3 B4 G2"])
    assert s.advice(ALICE).reason is not Reason.SAVE  # the other G2 can be saved later


def test_no_two_save_from_three_players_unless_it_is_the_last_copy() -> None:
    s = Scenario(3, ["R3 Y3 G4 B4 W3", "R3 G4 Y3 B4 G2", "Y4 B3 G3 W4 R4"])
    assert s.advice(ALICE).reason is not Reason.SAVE
    s = Scenario(3, ["R3 Y3 G4 B4 W3", "R3 G4 Y3 B4 G2", "G2 B3 G3 W4 R4"])
    s.clue(ALICE, BOB, "3")
    s.clue(BOB, ALICE, "4")
    s.discard(CATHY, 1)  # the other G2: Bob's is now the last one
    advice = s.advice(ALICE)
    assert advice.reason is Reason.SAVE
    assert advice.text.endswith("focus on the chop, it is the last G2 — a save")


def test_critical_save_of_the_last_copy() -> None:
    s = Scenario(3, ["G2 Y4 W4 B2 Y2", "G3 W3 Y3 B3 R4", "Y4 G4 W4 B4 R4"])
    s.clue(ALICE, BOB, "3")
    s.clue(BOB, ALICE, "4")
    s.discard(CATHY, 5)  # the first R4
    advice = s.advice(ALICE)
    assert advice.text == "clue Bob red: focus on the chop, it is the last R4 — a save"
    s.take(advice.action)
    assert s.known(BOB, 5) == {"R1", "R4"}  # playable or saved: Bob keeps it


def test_play_clue_on_the_focus() -> None:
    s = Scenario(3, ["R3 Y3 G4 B4 W3", "R3 R1 Y4 B4 W3", "Y3 B3 G3 W4 R4"])
    advice = s.advice(ALICE)
    assert advice.reason is Reason.PLAY_CLUE
    assert _touches(s, advice.action, BOB, {2})
    s.take(advice.action)
    assert s.advice(BOB).action == Play(BOB, s.slot(BOB, 2))


def test_delayed_play_clue_waits_for_the_card_before_it() -> None:
    s = Scenario(3, ["Y3 R2 G4 B4 W3", "G3 B3 Y4 W4 G4", "Y3 R1 B3 W4 G3"])
    s.clue(ALICE, CATHY, "red")  # Cathy's R1
    advice = s.advice(BOB)
    assert advice.reason is Reason.PLAY_CLUE
    assert _touches(s, advice.action, ALICE, {2})
    s.take(advice.action)
    assert s.known(ALICE, 2) == {"R2"}
    assert s.advice(CATHY).action == Play(CATHY, s.slot(CATHY, 2))  # R1 first
    s.take(s.advice(CATHY).action)
    assert s.advice(ALICE).action == Play(ALICE, s.slot(ALICE, 2))  # then R2


def test_good_touch_never_clues_a_copy_of_a_clued_card() -> None:
    s = Scenario(3, ["G3 R1 Y1 B4 W3", "G3 B3 Y4 W4 G4", "Y3 R1 B3 W4 R3"])
    s.clue(ALICE, CATHY, "1")  # Cathy's R1
    advice = s.advice(BOB)
    assert _touches(s, advice.action, ALICE, {3})  # yellow: Y1, not the second R1


def test_stall_at_eight_tokens_with_a_clue_that_misleads_nobody() -> None:
    s = Scenario(3, ["R3 Y3 G4 B4 W3", "G3 B3 Y4 R4 W4", "Y3 B3 G4 W4 R3"])
    advice = s.advice(ALICE)
    assert advice.reason is Reason.STALL
    s.take(advice.action)
    clue = advice.action
    assert isinstance(clue, Clue) and clue.touched
    for c in clue.touched:
        slot = s.state.hands[clue.target].index(c) + 1
        known = s.known(clue.target, slot)
        assert s.face(clue.target, slot) in known
        assert not known <= {"R1", "Y1", "G1", "B1", "W1"}  # nobody reads it as playable


def test_prompt_the_clued_card_that_can_be_the_missing_one_plays() -> None:
    s = Scenario(3, ["G3 Y3 B4 W3 Y4", "G4 R1 B3 W4 Y4", "R2 G4 B3 W4 G3"])
    s.clue(ALICE, CATHY, "4")
    s.clue(BOB, ALICE, "3")
    s.clue(CATHY, BOB, "1")  # Bob's R1: "some 1"
    s.clue(ALICE, CATHY, "red")  # R2 needs R1: Bob's clued 1 must be it
    advice = s.advice(BOB)
    assert advice.reason is Reason.ANSWER and "prompt" in advice.text
    assert advice.action == Play(BOB, s.slot(BOB, 2))
    s.take(advice.action)
    assert s.known(CATHY, 1) == {"R2"}


def test_finesse_the_next_player_plays_the_missing_card_blind() -> None:
    s = Scenario(3, ["G3 Y3 B4 W3 Y4", "R1 G4 B3 W4 Y4", "R2 G4 B3 W4 G3"])
    advice = s.advice(ALICE)
    assert _touches(s, advice.action, CATHY, {1})  # red on R2: worth two plays
    s.take(advice.action)
    answer = s.advice(BOB)
    assert answer.reason is Reason.ANSWER and "finesse" in answer.text
    assert answer.action == Play(BOB, s.slot(BOB, 1))
    s.take(answer.action)
    assert s.state.fireworks_total == 1
    assert s.advice(CATHY).action == Play(CATHY, s.slot(CATHY, 1))


def _to_final_round(s: Scenario) -> None:
    """Filler turns (discard the oldest card, or clue at 8 tokens) until the deck is out."""
    while s.state.final_round_turns_left is None:
        seat = s.state.current_seat
        if s.state.clue_tokens < 8:
            s.discard(seat, len(s.state.hands[seat]))
        else:
            s.clue(seat, 1 - seat, str(s.face(1 - seat, 1)[1]))


def test_end_game_last_turn_gamble_while_a_fuse_is_spare() -> None:
    s = Scenario(2, ["R2 Y3 G4 B4 W1", "G3 B3 Y4 R4 W4"])
    _to_final_round(s)
    advice = s.advice()
    assert advice.reason is Reason.GAMBLE and "last turn" in advice.text


def test_end_game_never_risks_the_third_strike() -> None:
    s = Scenario(2, ["R2 Y3 G4 B4 W1", "G3 B3 Y4 R4 W4"])
    s.play(ALICE, 1)  # R2: a fuse
    s.play(BOB, 1)  # G3: a second fuse
    assert s.state.strikes == MAX_STRIKES - 1
    _to_final_round(s)
    while not s.state.over:
        advice = s.advice()
        assert advice.reason is not Reason.GAMBLE
        s.take(advice.action)
    assert s.state.strikes == MAX_STRIKES - 1


def _two_players_down_to(cards_left: int) -> Scenario:
    """A 2-player game run down to ``cards_left`` cards: discards, and a number clue when
    the tokens are full."""
    s = Scenario(2, ["R2 Y3 G4 B4 W1", "G3 B3 Y4 R4 W4"])
    while s.state.cards_left > cards_left:
        seat = s.state.current_seat
        if s.state.clue_tokens < 8:
            s.discard(seat, len(s.state.hands[seat]))
        else:
            s.clue(seat, 1 - seat, str(s.face(1 - seat, 1)[1]))
    return s


def test_end_game_stall_with_a_clue_instead_of_drawing_the_last_cards() -> None:
    s = _two_players_down_to(3)
    s.clue(s.state.current_seat, 1 - s.state.current_seat,
           str(s.face(1 - s.state.current_seat, 1)[1]))
    assert s.state.clue_tokens > 0
    assert isinstance(s.advice().action, Clue | Play)


def test_bluff_the_next_player_blind_plays_another_playable_card() -> None:
    s = Scenario(3, ["G3 Y3 B4 W3 Y4", "B1 G4 B3 W4 Y4", "R2 G4 B3 W4 G3"])
    s.clue(ALICE, CATHY, "red")  # R2; Bob's slot 1 is B1, not R1
    answer = s.advice(BOB)
    assert answer.reason is Reason.ANSWER and "bluff" in answer.text
    assert answer.action == Play(BOB, s.slot(BOB, 1))
    s.take(answer.action)
    assert s.state.fireworks_total == 1  # B1
    assert s.known(CATHY, 1) == {"R2"}  # one above what red needs: Cathy waits for R1
    assert s.advice(CATHY).action != Play(CATHY, s.slot(CATHY, 1))


def test_fix_a_clue_that_reads_as_a_play_and_is_not() -> None:
    s = Scenario(3, ["G3 Y3 B4 W3 Y4", "G4 B3 W4 Y4 B4", "R3 G4 B3 W4 G3"])
    s.clue(ALICE, CATHY, "red")  # a wrong clue: Cathy reads her R3 as R1
    assert s.known(CATHY, 1) == {"R1", "R2"}  # R1, or R2 if Bob holds R1
    advice = s.advice(BOB)
    assert advice.reason is Reason.FIX
    assert advice.text == "clue Cathy 3: their slot 1 reads as playable but it is R3 — a fix"
    s.take(advice.action)
    assert s.advice(CATHY).action != Play(CATHY, s.slot(CATHY, 1))


def test_fix_a_card_that_only_its_holder_would_read_as_playable() -> None:
    s = Scenario.position(3, ["R2 G2 B2 R4 W1", "R4 G4 R1 B3 Y3", "Y4 B4 Y2 W5 B1"],
                          stacks="R3 G5 W3", discarded="Y4 B4", tokens=5, start=CATHY)
    s.clue(CATHY, BOB, "4")  # a person's clue: it touches Bob's G4 too (green is complete)
    # Everyone reads the G4 as a 4 still needed: R4, Y4, B4 or W4. But Bob sees both Y4 and
    # both B4, so to him alone it is R4 or W4, both playable.
    assert s.known(BOB, 2) == {"R4", "Y4", "B4", "W4"}
    advice = s.advice(ALICE)
    assert advice.reason is Reason.FIX
    assert advice.text == "clue Bob green: their slot 2 reads as playable but it is G4 — a fix"
    s.take(advice.action)
    assert s.known(BOB, 2) == {"G4"}
    play = s.advice(BOB).action
    assert isinstance(play, Play) and play.card == s.slot(BOB, 1)  # the R4


def test_scream_discard_instead_of_a_play_keeps_the_next_chop() -> None:
    s = Scenario(2, ["R1 Y3 G4 B4 W4", "G3 B3 Y4 R4 B5"])
    for to_bob, to_alice in (("3", "1"), ("4", "red"), ("3", "1"), ("4", "red")):
        s.clue(ALICE, BOB, to_bob)
        s.clue(BOB, ALICE, to_alice)
    assert s.state.clue_tokens == 0 and s.chop(BOB) == 5  # B5, and Bob has nothing to do
    advice = s.advice(ALICE)
    assert advice.reason is Reason.SCREAM
    assert advice.action == Discard(ALICE, s.slot(ALICE, 5))  # not her R1
    assert advice.text == ("discard slot 5 rather than play: Bob's chop is B5, which must not "
                           "go, and no clue token is left to save it — a scream discard")
    s.take(advice.action)
    assert s.chop(BOB) is None  # his B5 is kept as if clued
    assert s.advice(BOB).action != Discard(BOB, s.slot(BOB, 5))


def test_end_game_nearly_out_a_likely_card_is_played_rather_than_discarded() -> None:
    s = _two_players_down_to(2)
    while s.state.clue_tokens > 0:  # no token: the choice is between a discard and a gamble
        seat = s.state.current_seat
        s.clue(seat, 1 - seat, str(s.face(1 - seat, 1)[1]))
    advice = s.advice()
    assert advice.reason is Reason.GAMBLE and isinstance(advice.action, Play)
    assert "nearly out" in advice.text
