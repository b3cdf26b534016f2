"""One scenario per judgement call of docs/conventions.md that has a worked example.

Seats: Alice 0, Bob 1. Hands are written slot 1 (newest) first.
"""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType

import pytest
from scenario import Scenario, card

from hanabi_p2p.bots import hgroup_decision, hgroup_giving, hgroup_saves, hgroup_stalls
from hanabi_p2p.bots.hgroup import Advice, HGroupPlayer, Reason, _Decision
from hanabi_p2p.bots.words import Say
from hanabi_p2p.rules.actions import Clue, Discard, Play

ALICE, BOB, CATHY = 0, 1, 2


def test_after_a_save_on_the_chop_a_useful_clue_beats_a_discard() -> None:
    s = Scenario(2, ["R1 Y5 G4 B4 W3", "G3 B3 Y4 R4 W5"])
    s.clue(ALICE, BOB, "4")
    s.clue(BOB, ALICE, "1")  # Alice knows her R1: she has something to do
    s.clue(ALICE, BOB, "yellow")
    s.clue(BOB, ALICE, "4")
    save = s.advice(ALICE)
    assert save.reason is Reason.SAVE and save.text.startswith("clue Bob 5:")
    s.take(save.action)  # 3 tokens left; Bob's chop is now his B3
    advice = s.advice(BOB)
    assert isinstance(advice.action, Clue) and advice.action.target == ALICE
    assert advice.reason is Reason.STALL
    assert "my chop was just saved" in advice.text


def test_after_a_save_a_harmless_clue_beats_discarding_a_likely_last_copy() -> None:
    # Alice throws away one copy of each 2 (each of her draws is a 3 that Bob clues), so a
    # card Bob cannot see is likely a last copy; then she saves Bob's W5 with "5".
    s = Scenario(2, ["R2 Y2 G2 B2 W2", "R4 B1 G1 Y1 W5"], draws="R3 Y3 G3 B3 W3")
    s.clue(ALICE, BOB, "4")
    for two in ("W2", "B2", "G2", "Y2", "R2"):
        s.clue(BOB, ALICE, "2" if two == "W2" else "3")
        s.discard(ALICE, next(k for k in range(1, 6) if s.face(ALICE, k) == two))
    s.clue(BOB, ALICE, "3")
    s.clue(ALICE, BOB, "5")
    assert s.state.clue_tokens == 5 and s.chop(BOB) == 4
    advice = s.advice(BOB)
    # Every card of Alice's is clued and no clue gets one played. Bob cannot see his new
    # chop (slot 4); the unseen 2s are last copies, each worth the rest of its colour: a
    # clue that only tells Alice more about a 3 keeps that card a turn longer.
    assert isinstance(advice.action, Clue) and advice.action.target == ALICE
    assert advice.reason is Reason.STALL
    assert "may well be needed" in advice.text


def test_after_a_save_with_little_at_risk_the_new_chop_goes() -> None:
    s = Scenario(2, ["R3 Y3 G3 B3 G3", "R4 B1 G1 Y1 W5"])
    s.clue(ALICE, BOB, "4")
    s.clue(BOB, ALICE, "3")
    s.clue(ALICE, BOB, "5")
    advice = s.advice(BOB)
    # nothing is discarded yet: the only last copies are the 5s, so his new chop is
    # unlikely to be one, and the token is worth more than a turn's delay
    assert isinstance(advice.action, Discard) and advice.reason is Reason.DISCARD_CHOP


def test_a_locked_hand_gives_up_the_card_that_costs_fewest_points() -> None:
    s = Scenario(2, ["Y4 R5 G5 B5 W5", "R1 G1 B1 W1 Y4"])
    s.clue(ALICE, BOB, "1")
    s.discard(BOB, 5)  # the first Y4: Alice's is the last one
    for giver, target, value in ((ALICE, BOB, "1"), (BOB, ALICE, "5"), (ALICE, BOB, "1"),
                                 (BOB, ALICE, "yellow"), (ALICE, BOB, "1"),
                                 (BOB, ALICE, "4"), (ALICE, BOB, "1"), (BOB, ALICE, "red")):
        s.clue(giver, target, value)
    assert s.state.clue_tokens == 0 and s.known(ALICE, 1) == {"Y4"}
    advice = s.advice(ALICE)
    assert advice.reason is Reason.LOCKED
    # a 5 loses one point; the last Y4 would lose two (Y4 and Y5)
    assert advice.action == Discard(ALICE, s.slot(ALICE, 2))
    assert advice.text.endswith("losing this one costs the fewest points")


def test_no_save_into_a_lock_with_too_few_tokens_to_stall() -> None:
    s = Scenario(2, ["W5 G5 B5 Y5 G2", "R1 G1 B1 W1 Y2"], draws="R5")
    s.clue(ALICE, BOB, "1")
    s.clue(BOB, ALICE, "5")
    s.discard(ALICE, 5)  # she draws the R5: her only unclued card, her chop
    for giver, target, value in ((BOB, ALICE, "blue"), (ALICE, BOB, "red"),
                                 (BOB, ALICE, "green"), (ALICE, BOB, "green")):
        s.clue(giver, target, value)
    assert s.state.clue_tokens == 3 and s.chop(ALICE) == 1
    # "5" would save the R5 but leave Alice every card clued, nothing to play and 2 tokens,
    # too few to stall: she would give up a 5 instead, one point either way. Bob plays.
    advice = s.advice(BOB)
    assert isinstance(advice.action, Play) and advice.reason is Reason.PLAY_KNOWN


def test_a_save_into_a_lock_when_the_card_given_up_instead_costs_much_less() -> None:
    s = Scenario(2, ["G3 B3 Y4 W4 R2", "R1 G1 B1 W1 R2"], draws="Y2")
    s.clue(ALICE, BOB, "1")
    s.discard(BOB, 5)  # the first R2: Alice's chop is the last one
    for giver, target, value in ((ALICE, BOB, "2"), (BOB, ALICE, "3"), (ALICE, BOB, "green"),
                                 (BOB, ALICE, "4"), (ALICE, BOB, "blue"),
                                 (BOB, ALICE, "green"), (ALICE, BOB, "white")):
        s.clue(giver, target, value)
    assert s.state.clue_tokens == 1 and s.chop(ALICE) == 5
    # Saving the R2 leaves Alice every card clued, nothing to play and no token: she will
    # give up a 3 or a 4, none of which may be a last copy (nothing lost), where losing the
    # R2 loses four points (R2 to R5). Bob saves.
    advice = s.advice(BOB)
    assert advice.reason is Reason.SAVE and "the last R2" in advice.text


def test_two_players_a_play_clue_with_two_tokens_while_a_chop_is_threatened() -> None:
    s = Scenario(2, ["R3 G4 B3 W4 Y3", "R1 Y1 G3 B4 W5"])
    for giver, target, value in ((ALICE, BOB, "red"), (BOB, ALICE, "4"), (ALICE, BOB, "4"),
                                 (BOB, ALICE, "red"), (ALICE, BOB, "3"), (BOB, ALICE, "green")):
        s.clue(giver, target, value)
    assert s.state.clue_tokens == 2 and s.chop(BOB) == 5  # Bob's chop is his W5
    # Bob knows his R1 is playable, so he will not discard the W5 yet: Alice gives the play
    # clue on his Y1 rather than keep both tokens back for a save
    advice = s.advice(ALICE)
    action = advice.action
    assert isinstance(action, Clue) and action.target == BOB
    assert action.touched == frozenset({s.slot(BOB, 2)}) and advice.reason is Reason.PLAY_CLUE


def test_two_players_a_locked_hand_discards_a_card_that_is_no_last_copy() -> None:
    s = Scenario(2, ["R3 Y3 G4 B4 W3", "G2 Y4 B2 W4 R2"])
    for giver, target, value in ((ALICE, BOB, "4"), (BOB, ALICE, "3"), (ALICE, BOB, "2"),
                                 (BOB, ALICE, "4")):
        s.clue(giver, target, value)
    assert s.state.clue_tokens == 4  # Alice: every card clued, nothing to play
    advice = s.advice(ALICE)
    assert isinstance(advice.action, Discard) and advice.reason is Reason.LOCKED
    assert "my partner can use the clue token better" in advice.text


def test_two_players_after_a_discard_whose_twin_i_cannot_see_a_clue_beats_a_discard() -> None:
    s = Scenario(2, ["R3 Y3 G3 B4 Y4", "G3 B3 R4 W4 Y4"], draws="W3")
    for giver, target, value in ((ALICE, BOB, "3"), (BOB, ALICE, "3"), (ALICE, BOB, "green"),
                                 (BOB, ALICE, "red"), (ALICE, BOB, "blue"),
                                 (BOB, ALICE, "green")):
        s.clue(giver, target, value)
    s.discard(ALICE, 5)  # her Y4: Bob's chop is now the last one, which he cannot see
    assert s.state.clue_tokens == 3 and s.chop(BOB) == 5
    advice = s.advice(BOB)
    assert isinstance(advice.action, Clue) and advice.reason is Reason.STALL
    assert "the card just discarded has one copy left" in advice.text


def test_a_card_known_exactly_takes_its_copy_out_of_my_other_cards() -> None:
    s = Scenario(2, ["R1 Y1 G1 W4 B5", "R2 Y2 G2 W2 W3"], draws="R3")
    s.clue(ALICE, BOB, "3")
    s.clue(BOB, ALICE, "5")  # a save: Alice's B5 is only "a 5" so far
    s.clue(ALICE, BOB, "2")
    s.clue(BOB, ALICE, "blue")  # now everyone knows it is B5
    s.discard(ALICE, 4)  # her chop, the W4; she draws the R3 into slot 1
    alice = HGroupPlayer(s.config, ALICE)
    alice.sync(s.table.views[ALICE])
    b5 = alice.table.cards.index(card("B5"))
    drawn = s.slot(ALICE, 1)
    # Alice has seen no B5, and the clues say nothing of the card just drawn ...
    assert alice.public(drawn) >> b5 & 1
    # ... but her slot 5 is the only B5 there is: the new card is not one
    mine = dict(alice._mine())
    assert not mine[drawn] >> b5 & 1
    assert mine[s.slot(ALICE, 5)] == 1 << b5


def test_a_gamble_reads_the_discards_that_could_have_been_clues() -> None:
    s = Scenario(2, ["R2 G3 B4 W3 R5", "Y3 G4 B3 W4 R4"], draws="B1")
    s.clue(ALICE, BOB, "4")
    s.clue(BOB, ALICE, "5")  # a save: her other cards learn they are no 5
    s.clue(ALICE, BOB, "3")
    s.discard(BOB, 5)  # Bob had tokens and saw Alice's hand: no 1 there, it seems
    s.discard(ALICE, 4)  # her chop; she draws the B1, which Bob has not passed over yet
    alice = HGroupPlayer(s.config, ALICE)
    alice.sync(s.table.views[ALICE])
    new, old = s.slot(ALICE, 1), s.slot(ALICE, 2)
    assert alice.overlooked[old] and not alice.overlooked[new]
    gamble = _Decision(alice, None, frozenset())._gamble(alice._mine(), 0.0, Say.GAMBLE,
                                                         read=True)
    # the old cards know they are no 5, the new one does not: by the clues alone an old card
    # is likelier a 1; but Bob discarded rather than clue one of them
    assert gamble is not None and gamble.action == Play(ALICE, new)


def test_the_last_player_s_last_turn_is_worked_out_from_its_own_hand() -> None:
    # Bob works out what Alice would play on her last turn: all she cannot see then is her
    # own hand, so she knows its faces but not their order.
    s = Scenario(2, ["Y3 G4 R1 B4 W4", "R2 Y2 G2 B2 W2"])
    s.clue(ALICE, BOB, "2")
    bob = HGroupPlayer(s.config, BOB)
    bob.sync(s.table.views[BOB])
    decision = _Decision(bob, None, frozenset())
    clues = {(c.colour.value if c.colour else str(c.rank)): c
             for c in decision._clues_to(ALICE)}
    # no clue: one card in five is playable, and she would try slot 1, the Y3
    assert decision._last_play(ALICE, None, strikes=0) == 0.0
    # "1": she knows her R1 is playable
    assert decision._last_play(ALICE, clues["1"], strikes=0) == 1.0
    # "yellow" would read as Y1: she would play the Y3
    assert decision._last_play(ALICE, clues["yellow"], strikes=0) == 0.0
    # a card she knows she plays even with two fuses burnt
    assert decision._last_play(ALICE, clues["1"], strikes=2) == 1.0


def test_no_save_that_only_moves_the_loss_onto_a_dearer_card() -> None:
    s = Scenario(2, ["Y2 B2 W2 R2 G4", "B3 W3 Y3 G4 R5"])
    s.clue(ALICE, BOB, "3")
    s.clue(BOB, ALICE, "2")
    s.discard(ALICE, 5)  # the first G4: Bob's, right behind his chop R5, is the last one
    for giver, target, value in ((BOB, ALICE, "red"), (ALICE, BOB, "blue"),
                                 (BOB, ALICE, "white"), (ALICE, BOB, "white"),
                                 (BOB, ALICE, "yellow")):
        s.clue(giver, target, value)
    assert s.state.clue_tokens == 2 and s.chop(BOB) == 5
    advice = s.advice(ALICE)
    # Bob knows nothing safe to do. Saving his R5 leaves one token and no stall: he would
    # discard the last G4 instead, two points (G4, G5) for one (R5).
    assert advice.reason is not Reason.SAVE
    assert not (isinstance(advice.action, Clue) and advice.action.target == BOB)


def _pace_position(discards: int) -> Scenario:
    """Bob knows his R1 is playable; Alice has nothing to play and nothing worth a clue. Bob
    has thrown away ``discards`` spare cards (1s, 2s and 3s no suit misses), then each has
    clued the other three times: 2 tokens left, nothing played, all 25 cards still needed."""
    s = Scenario(2, ["R2 Y3 G3 B2 W3", "Y1 R1 G4 B4 W4"],
                 draws="G1 B1 W1 Y1 G1 B1 W1 Y2 G2 B2 W2 Y3 G3 B3 W3")
    for _ in range(discards):
        s.clue(ALICE, BOB, "red")
        s.discard(BOB, 1)
    for _ in range(3):
        s.clue(ALICE, BOB, "red")
        s.clue(BOB, ALICE, "2")
    assert s.state.clue_tokens == 2 and s.known(BOB, 2) == {"R1"}
    return s


def test_when_the_turns_left_hardly_cover_the_cards_to_play_a_clue_beats_a_discard() -> None:
    s = _pace_position(16)
    # 24 cards left and a final round of 2 turns: 26 turns for 25 cards, a pace of 1. A
    # discard would leave one turn to spare; Bob plays his R1 while the deck waits.
    assert s.state.cards_left == 24
    advice = s.advice(ALICE)
    assert isinstance(advice.action, Clue) and advice.action.target == BOB
    assert advice.reason is Reason.STALL
    assert "hardly cover the cards still to play" in advice.text


def test_with_turns_to_spare_the_chop_goes() -> None:
    s = _pace_position(15)  # one card more in the deck: a pace of 2
    advice = s.advice(ALICE)
    assert isinstance(advice.action, Discard) and advice.reason is Reason.DISCARD_CHOP


def _late_position(bob: str, cathy: str) -> Scenario:
    """Three players, 15 cards left in the deck (LATE_TOUCH_CARDS), 4 tokens, Alice to move:
    red, green and blue complete, yellow at 2, white at 1."""
    s = Scenario.position(3, ["B1 R1 G1 W1 R2", bob, cathy], stacks="R5 G5 B5 Y2 W1",
                          discarded="W1 Y4", tokens=4)
    assert s.state.cards_left == 15
    return s


def test_late_a_play_clue_may_touch_a_copy_of_another_card_it_touches(
        monkeypatch: pytest.MonkeyPatch) -> None:
    s = _late_position("W2 W3 W3 R4 B3", "B2 G2 B4 G4 R3")
    advice = s.advice(ALICE)
    # white gets the W2 played and shows Bob both W3s, one of which will never be played
    assert isinstance(advice.action, Clue) and advice.action.colour is not None
    assert advice.action.touched == frozenset(s.slot(BOB, k) for k in (1, 2, 3))
    assert advice.reason is Reason.PLAY_CLUE
    monkeypatch.setattr(hgroup_giving, "LATE_TOUCH_CARDS", s.state.cards_left - 1)
    earlier = s.advice(ALICE)  # earlier in the game: "2", on the W2 alone
    assert isinstance(earlier.action, Clue) and earlier.action.rank == 2
    assert earlier.action.touched == frozenset({s.slot(BOB, 1)})


def test_late_a_colour_play_clue_may_touch_a_trash_card(
        monkeypatch: pytest.MonkeyPatch) -> None:
    s = _late_position("Y3 Y1 G3 R4 B3", "B2 G2 B4 W4 R3")
    # Every clue that gets Bob's Y3 played touches a trash card: "3" his G3 and B3 too,
    # which would read as the next 3s (a misplay), yellow his Y1, which reads as a later
    # yellow card, to keep.
    advice = s.advice(ALICE)
    assert isinstance(advice.action, Clue) and s.seat_of(advice.action.target) == BOB
    assert advice.action.touched == frozenset({s.slot(BOB, 1), s.slot(BOB, 2)})
    assert advice.reason is Reason.PLAY_CLUE
    s.take(advice.action)
    assert s.known(BOB, 1) == {"Y3"}
    assert s.known(BOB, 2) == {"Y3", "Y4", "Y5"}
    play = s.advice(BOB).action
    assert isinstance(play, Play) and play.card == s.slot(BOB, 1)
    monkeypatch.setattr(hgroup_giving, "LATE_TOUCH_CARDS", s.state.cards_left - 1)
    earlier = _late_position("Y3 Y1 G3 R4 B3", "B2 G2 B4 W4 R3").advice(ALICE)
    assert isinstance(earlier.action, Discard)  # earlier in the game: no bad touch


def _with_and_without(position: Callable[[], Scenario], seat: int,
                      monkeypatch: pytest.MonkeyPatch, module: ModuleType, rule: str,
                      off: int) -> tuple[Advice, Advice]:
    """The advice to ``seat`` in ``position``, then again with the rule switched off
    (``module.rule`` set to ``off``, as at the table sizes it was kept from)."""
    advice = position().advice(seat)
    monkeypatch.setattr(module, rule, off)
    return advice, position().advice(seat)


def _early_position() -> Scenario:
    """Three players, nothing played or discarded, 5 tokens left, Alice to move: no card
    anyone could be told to play, but 3s and 4s that a clue could touch (no play)."""
    s = Scenario.position(3, ["R2 Y3 G4 B2 W4", "R3 Y3 G4 B4 W3", "R4 Y4 G3 B3 W4"],
                          tokens=5)
    assert s.state.cards_left > 30
    return s


def test_early_a_clue_that_gets_nothing_played_waits_for_seven_tokens(
        monkeypatch: pytest.MonkeyPatch) -> None:
    s = _early_position()
    advice = s.advice(ALICE)
    # more than 20 cards in the deck and 5 tokens: the token is banked for a play clue later
    assert isinstance(advice.action, Discard) and advice.reason is Reason.DISCARD_CHOP
    # later in the game (as many cards left as EARLY_RICH_CARDS), 5 tokens are enough
    monkeypatch.setattr(hgroup_decision, "EARLY_RICH_CARDS", s.state.cards_left)
    later = _early_position().advice(ALICE)
    assert isinstance(later.action, Clue) and later.reason is Reason.STALL


def _twin_position() -> Scenario:
    """Three players, 3 tokens, Alice to move; her chop and Bob's are the two Y4s."""
    s = Scenario.position(3, ["R2 G2 B3 W3 Y4", "R3 G4 B2 W2 Y4", "R4 G3 B4 W3 Y3"],
                          tokens=3, draws="W4")
    s.discard(ALICE, 5)  # her Y4: Bob's chop is now the last one, which he cannot see
    assert s.state.clue_tokens == 4 and s.chop(BOB) == 5
    return s


def _trade_position() -> Scenario:
    """Four players, 2 tokens, Alice to move: Bob's chop is R5 and the card behind it the
    last G4 (the other is discarded); nobody has a clued card."""
    s = Scenario.position(4, ["R2 Y2 G2 B2", "W3 Y3 G4 R5", "R3 Y4 B4 W4", "Y3 G3 B3 W3"],
                          discarded="G4", tokens=2)
    assert s.chop(BOB) == 4
    return s


def test_four_players_no_save_that_only_moves_the_loss_onto_a_dearer_card(
        monkeypatch: pytest.MonkeyPatch) -> None:
    advice, before = _with_and_without(  # (the rule as at two players only)
        _trade_position, ALICE, monkeypatch, hgroup_saves, "TRADE_SAVE_PLAYERS", 2)
    # Saving the R5 leaves one token: Bob, with nothing safe to do and no token to spare for
    # a stall, would discard the last G4 instead, two points (G4, G5) for one (R5).
    assert advice.reason is not Reason.SAVE
    assert before.reason is Reason.SAVE


def _pace_position_three() -> Scenario:
    """Three players, red, yellow and green complete, blue at 2: 8 cards still to play and 6
    in the deck, a final round of 3 turns, a pace of 1. Cathy has just told Bob his B3 is
    playable; Alice, with 2 tokens, knows nothing to play."""
    s = Scenario.position(3, ["W2 W3 W4 B4 R1", "B3 R2 G2 Y2 W3", "B3 W2 Y3 G3 R3"],
                          stacks="R5 Y5 G5 B2", tokens=3, start=CATHY,
                          discarded="R1 R4 Y1 Y1 Y4 G1 G1 G4 B1 B1 B2 W1")
    s.clue(CATHY, BOB, "blue")
    assert s.state.cards_left == 6 and s.state.clue_tokens == 2
    return s


@pytest.mark.parametrize(
    ("position", "seat", "module", "rule", "why"),
    [(_twin_position, BOB, hgroup_decision, "TWIN_PLAYERS",
      "the card just discarded has one copy left"),
     (_pace_position_three, ALICE, hgroup_stalls, "PACE_STALL_PLAYERS",
      "hardly cover the cards still to play")],
    ids=["after-a-discard-whose-twin-i-cannot-see", "when-the-turns-left-hardly-cover-the-cards"])
def test_three_players_a_clue_beats_a_discard(
        position: Callable[[], Scenario], seat: int, module: ModuleType, rule: str, why: str,
        monkeypatch: pytest.MonkeyPatch) -> None:
    advice, before = _with_and_without(  # (the rule as at two players only)
        position, seat, monkeypatch, module, rule, 2)
    assert isinstance(advice.action, Clue) and advice.reason is Reason.STALL
    assert why in advice.text
    assert isinstance(before.action, Discard) and before.reason is Reason.DISCARD_CHOP


def _low_tokens_position() -> Scenario:
    """Four players, 2 tokens, Alice to move: Cathy's chop is R5 (worth a save, but Bob
    moves first), Bob could be told his R1 is playable."""
    return Scenario.position(4, ["R2 Y2 G2 B2", "R1 Y3 G3 B3", "Y4 B4 W4 R5", "G4 W3 Y4 G4"],
                             tokens=2)


def test_four_players_two_tokens_are_not_kept_back_for_a_save(
        monkeypatch: pytest.MonkeyPatch) -> None:
    advice, before = _with_and_without(  # (the rule as at three players)
        _low_tokens_position, ALICE, monkeypatch, hgroup_decision, "LOW_TOKENS_MANY", 2)
    assert isinstance(advice.action, Clue) and advice.reason is Reason.PLAY_CLUE
    assert advice.action.touched == frozenset({_low_tokens_position().slot(BOB, 1)})
    assert isinstance(before.action, Discard) and before.reason is Reason.DISCARD_CHOP


def _deck_end_position(tokens: int) -> Scenario:
    """Three players, 4 cards left in the deck, ``tokens`` tokens, Alice to move. Red, yellow
    and green are complete, blue and white at 3; Alice holds a B4 and a W4 (the other two
    are in the deck) and nobody knows a card to play. A clue gets nothing played: "5" to
    Cathy only names her B5 and W5."""
    s = Scenario.position(3, ["B4 R1 Y1 G1 W4", "R2 Y2 G2 B1 W1", "R3 Y3 G3 B5 W5"],
                          stacks="R5 Y5 G5 B3 W3", tokens=tokens, draws="B4 W4 R4 Y4",
                          discarded="R1 Y1 G1 B1 W1 B2 B3 W2 W3 G4")
    assert s.state.cards_left == 4
    return s


def test_three_players_at_the_deck_end_three_tokens_are_not_spent_on_a_stall_for_nothing(
        monkeypatch: pytest.MonkeyPatch) -> None:
    s = _deck_end_position(3)
    advice = s.advice(ALICE)
    assert isinstance(advice.action, Discard) and advice.action.card == s.slot(ALICE, 5)
    assert advice.reason is Reason.DISCARD_CHOP
    # with 4 tokens, a stall still beats the discard
    assert _deck_end_position(4).advice(ALICE).reason is Reason.STALL
    monkeypatch.setattr(hgroup_decision, "STALL_ONLY_FOR_PLAYS_MANY", 1)  # as at two players
    before = _deck_end_position(3).advice(ALICE)
    assert isinstance(before.action, Clue) and before.reason is Reason.STALL
