"""Errors, partial knowledge (networked observers), knowledge, public_hash, copy and Move."""

from __future__ import annotations

import hashlib

import msgpack
import pytest
from engine_helpers import any_clue, card, game

from hanabi_p2p.errors import IllegalAction, LocalProtocolError
from hanabi_p2p.rules.actions import Action, Clue, Discard, Move, Play, Terminate
from hanabi_p2p.rules.cards import GameConfig, Suit
from hanabi_p2p.rules.engine import GameState

TOP = ["R1", "R2", "R3", "R4", "R5", "Y1", "R1", "B1", "Y2", "G5"]  # seat 1: 9 8 7 6 5


@pytest.mark.parametrize(
    ("action", "message"),
    [
        (Play(1, 5), "not your turn: it is seat 0's turn"),
        (Play(0, 17), "card 17 is not in seat 0's hand"),
        (Discard(0, 5), "card 5 is not in seat 0's hand"),
        (Play(7, 0), "seat 7 does not exist"),
        (Clue(0, 1), "name exactly one colour or one number"),
        (Clue(0, 1, colour=Suit.RED, rank=1), "name exactly one colour or one number"),
        (Clue(0, 1, rank=6), "there is no number 6"),
        (Clue(0, 4, rank=1), "there is no seat 4"),
        (Clue(0, 1, rank=1, touched=frozenset({5})), "clue touches cards 5, 6, 7, not 5"),
        (Move(1, 5, 5), "cannot move card 5 to position 5: seat 1 holds 5 cards"),
        (Move(1, 0, 0), "card 0 is not in seat 1's hand"),
    ],
)
def test_illegal_actions_name_the_rule_and_change_nothing(action: Action, message: str) -> None:
    state = game(2, TOP)
    state.apply(Clue(0, 1, colour=Suit.BLUE))
    state.apply(Clue(1, 0, rank=1))
    before = (state.public_hash(), [h.copy() for h in state.hands], len(state.history))
    with pytest.raises(IllegalAction, match=message):
        state.apply(action)
    assert (state.public_hash(), state.hands, len(state.history)) == before


def test_move_reorders_the_hand_without_taking_a_turn_or_changing_the_hash() -> None:
    state = game(2, TOP)
    digest = state.public_hash()
    outcome = state.apply(Move(1, 5, 0))  # not seat 1's turn: moves are always allowed
    assert outcome.kind == "move" and state.hands[1] == [5, 9, 8, 7, 6]
    assert state.turn == 0 and state.current_seat == 0 and state.public_hash() == digest
    assert state.history == [Move(1, 5, 0)]


def test_move_after_the_game_is_over_is_illegal() -> None:
    state = game(2, TOP)
    state.apply(Terminate(0))
    with pytest.raises(IllegalAction, match="game is over"):
        state.apply(Move(1, 5, 0))


def test_copy_is_independent() -> None:
    state = game(2, TOP)
    twin = state.copy()
    twin.apply(Play(0, 0))
    twin.apply(Clue(1, 0, rank=2))
    assert state.turn == 0 and state.fireworks_total == 0 and state.hands[0] == [4, 3, 2, 1, 0]
    assert state.clues[1] == () and twin.clues[1] != ()
    assert twin.public_hash() != state.public_hash()


# ---------------------------------------------------------------- partial knowledge


def _blind(players: int = 2) -> tuple[GameState, GameState]:
    """A full-knowledge game and a peer that knows no face at all."""
    full = game(players, TOP)
    blind = GameState(full.config, [None] * len(full.faces))
    return full, blind


def test_a_blind_observer_needs_the_declared_touched_set() -> None:
    _, blind = _blind()
    with pytest.raises(LocalProtocolError, match="must declare the cards it touches"):
        blind.apply(Clue(0, 1, colour=Suit.RED))
    outcome = blind.apply(Clue(0, 1, colour=Suit.RED, touched=frozenset({6})))
    assert outcome.touched == {6} and blind.clue_tokens == 7


def test_a_declared_card_outside_the_hand_is_illegal() -> None:
    _, blind = _blind()
    with pytest.raises(IllegalAction, match=r"clue touches cards 2, not in seat 1's hand"):
        blind.apply(Clue(0, 1, rank=1, touched=frozenset({2, 5})))
    assert blind.clue_tokens == 8


def test_an_empty_declaration_is_illegal_without_empty_clues() -> None:
    _, blind = _blind()
    with pytest.raises(IllegalAction, match="touches no cards"):
        blind.apply(Clue(0, 1, rank=1, touched=frozenset()))


def test_a_declaration_contradicting_earlier_clues_is_illegal() -> None:
    _, blind = _blind()
    blind.apply(Clue(0, 1, colour=Suit.RED, touched=frozenset({6})))
    blind.apply(Clue(1, 0, rank=1, touched=frozenset({0})))
    with pytest.raises(IllegalAction, match="contradicts earlier clues: touching card 6"):
        blind.apply(Clue(0, 1, colour=Suit.BLUE, touched=frozenset({6, 7})))
    assert blind.clue_tokens == 6


def test_a_declaration_contradicting_a_known_face_is_illegal() -> None:
    _, blind = _blind()
    blind.reveal(7, card("B1"))  # the observer saw card 7 (e.g. it is someone else's)
    with pytest.raises(IllegalAction, match="clue must touch card 7: its face is known"):
        blind.apply(Clue(0, 1, colour=Suit.BLUE, touched=frozenset({6})))


def test_playing_an_unrevealed_card_is_a_local_protocol_error() -> None:
    _, blind = _blind()
    with pytest.raises(LocalProtocolError, match="reveal card 0 before it is played"):
        blind.apply(Play(0, 0))
    assert blind.turn == 0 and blind.hands[0] == [4, 3, 2, 1, 0] and blind.history == []
    blind.check(Play(0, 0))  # legality alone does not need the face (the UI asks this)
    blind.reveal(0, card("R1"))
    assert blind.apply(Play(0, 0)).placed


def test_reveal_refuses_contradictions() -> None:
    _, blind = _blind()
    blind.reveal(0, card("R1"))
    blind.reveal(0, card("R1"))  # the same face twice is fine
    with pytest.raises(LocalProtocolError, match="card 0 was revealed as R1, now as B2"):
        blind.reveal(0, card("B2"))
    blind.reveal(1, card("R5"))
    with pytest.raises(LocalProtocolError, match="the deck has only 1"):
        blind.reveal(2, card("R5"))
    with pytest.raises(LocalProtocolError, match="not a card of the standard deck"):
        blind.reveal(3, card("M1"))
    blind.apply(Clue(0, 1, colour=Suit.RED, touched=frozenset({6})))
    with pytest.raises(LocalProtocolError, match="card 6 cannot be B1: its clues rule that out"):
        blind.reveal(6, card("B1"))
    with pytest.raises(LocalProtocolError, match="card 99 does not exist"):
        blind.reveal(99, card("B1"))


def test_full_and_blind_observers_agree_on_the_public_hash() -> None:
    full, blind = _blind()
    assert full.public_hash() == blind.public_hash()
    for action in [Clue(0, 1, colour=Suit.RED), Play(1, 6), Discard(0, 1)]:
        if isinstance(action, Clue):
            touched = full.apply(action).touched
            blind.apply(Clue(action.seat, action.target, action.colour, action.rank, touched))
        else:
            blind.reveal(action.card, full.faces[action.card])  # type: ignore[arg-type]
            full.apply(action)
            blind.apply(action)
        assert full.public_hash() == blind.public_hash()
    # a face only some observers know does not enter the hash
    blind.reveal(20, full.faces[20])  # type: ignore[arg-type]
    assert full.public_hash() == blind.public_hash()


# ---------------------------------------------------------------- knowledge


def test_knowledge_combines_positive_and_negative_clues() -> None:
    state = game(2, TOP)
    state.apply(Clue(0, 1, rank=1))  # touches 5 (Y1), 6 (R1), 7 (B1)
    state.apply(Clue(1, 0, rank=5))
    state.apply(Clue(0, 1, colour=Suit.RED))  # touches 6 only
    y1 = state.knowledge(5, viewer=1)
    assert y1.ranks == {1} and Suit.RED not in y1.colours and y1.clued
    assert state.knowledge(6, viewer=1).possible == {card("R1")}
    y2 = state.knowledge(8, viewer=1)
    assert Suit.RED not in y2.colours and 1 not in y2.ranks and y2.clued is False
    assert len(y2.possible) == 4 * 4


def test_knowledge_counts_only_cards_the_viewer_sees() -> None:
    state = game(2, TOP)
    own = state.knowledge(0, viewer=0)  # seat 0 sees seat 1's G5 (card 9), not its own R5
    assert card("G5") not in own.unseen_counts and own.unseen_counts[card("R5")] == 1
    assert own.unseen_counts[card("R1")] == 2  # seat 1 holds one of the three R1s
    seen = state.knowledge(9, viewer=0)  # seat 0 looks at seat 1's G5
    assert seen.unseen_counts == {card("G5"): 1}
    assert len(seen.possible) == 25  # no clue yet: clue-only knowledge is wide open


def test_knowledge_of_a_played_card_is_its_face() -> None:
    state = game(2, TOP)
    state.apply(Play(0, 0))
    known = state.knowledge(0, viewer=1)
    assert known.possible == {card("R1")} and set(known.unseen_counts) == {card("R1")}


def test_knowledge_drops_faces_whose_copies_are_all_visible() -> None:
    config = GameConfig(2)
    state = GameState(config, [card(n) for n in TOP] + [None] * 40)
    state.apply(Play(0, 4))  # R5 placed: seat 1 now knows its hand holds no R5
    assert card("R5") not in state.knowledge(5, viewer=1).unseen_counts
    assert card("R5") in state.knowledge(5, viewer=1).possible


def test_legal_actions_skip_clues_the_observer_cannot_compute() -> None:
    _, blind = _blind()
    assert not any(isinstance(a, Clue) for a in blind.legal_actions())
    full = game(2, TOP)
    clue = any_clue(full)
    assert clue.touched  # computed from the faces


# ---------------------------------------------------------------- public_hash encoding


def test_public_hash_known_answer() -> None:
    """Pins the documented encoding (GameState.public_hash) that peers compare."""
    config = GameConfig(2)
    state = GameState(config, config.deck_faces())  # seat 0: R1 R1 R1 R2 R2, seat 1: R3 ..
    state.apply(Clue(0, 1, rank=3))
    state.apply(Play(1, 5))  # R3: misplayed
    state.apply(Play(0, 0))  # R1: placed
    state.apply(Move(0, 11, 4))  # hand order never enters the hash
    clue = [0, 0, None, 3]
    expected = [
        "hanabi-p2p/public-state/v1",
        [2, "standard", False, False, False],
        [[1, 2, 3, 4, 11], [6, 7, 8, 9, 10]],
        [1, 0, 0, 0, 0],
        [5],
        [0],
        [[0, "red", 1], [5, "red", 3]],
        7, 1, 12, 3, 1, None, "in_progress",
        [[5, [[*clue, True]]], [6, [[*clue, True]]], [7, [[*clue, False]]],
         [8, [[*clue, False]]], [9, [[*clue, False]]]],
    ]
    digest = hashlib.sha256(msgpack.packb(expected, use_bin_type=True)).digest()
    assert state.public_hash() == digest
    assert digest.hex() == "e5eef8e94dea0cdc3616124c0a177f6dc3e3a3981e4ad0d421b9f6afc8da3ef8"
