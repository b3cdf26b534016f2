"""Parsing typed commands into actions, and refusing illegal ones with a reason."""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from ui_helpers import NAMES, board, game, play_until, random_game

from hanabi_p2p import i18n
from hanabi_p2p.errors import IllegalAction
from hanabi_p2p.rules.actions import Action, Clue, Discard, Move, Play
from hanabi_p2p.rules.cards import GameConfig, Suit, Variant
from hanabi_p2p.ui.commands import (
    CommandError,
    Mode,
    Quit,
    Say,
    SendAction,
    Show,
    Start,
    parse_command,
    parse_on_board,
    parse_simple,
)

THREE = GameConfig(3)
# Alice (seat 0) holds R1 R2 Y1 Y3 B5; Bob holds R3 R4 G1 W1 R5; Carol holds Y2 G2 B1 B2 W2.
HANDS = [
    ["R1", "R2", "Y1", "Y3", "B5"],
    ["R3", "R4", "G1", "W1", "R5"],
    ["Y2", "G2", "B1", "B2", "W2"],
]
PLAYERS = NAMES[:3]


def send(line: str, config: GameConfig = THREE, seat: int = 0) -> Action:
    state = game(config, HANDS)
    intent = parse_command(line, state, seat, PLAYERS)
    assert isinstance(intent, SendAction), intent
    return intent.action


def reason(line: str, config: GameConfig = THREE, seat: int = 0, **changes: Any) -> str:
    state = game(config, HANDS)
    seen = dataclasses.replace(board(state, seat), **changes)
    with pytest.raises(CommandError) as info:
        parse_on_board(line, seen, PLAYERS, state.check)
    return str(info.value)


def test_play_names_the_card_in_the_slot_counted_from_the_left() -> None:
    state = game(THREE, HANDS)
    action = send("play 2")
    assert action == Play(seat=0, card=state.hands[0][1])


def test_the_coachs_words_play_slot_n_are_a_command_as_typed() -> None:
    # `hint` answers "play slot 4: the clues say it is playable"; typing that failed with
    # "'slot' is not a slot"
    hand = game(THREE, HANDS).hands[0]
    assert send("play slot 4") == send("play 4") == Play(seat=0, card=hand[3])
    assert send("p Slot 2") == Play(seat=0, card=hand[1])
    assert "'slot' is not a slot" in reason("play slot")


def test_commands_names_and_colours_may_be_shortened() -> None:
    state = game(THREE, HANDS)
    bob = state.hands[1]
    assert send("pl 1") == Play(seat=0, card=state.hands[0][0])
    assert send("c b r") == Clue(
        seat=0, target=1, colour=Suit.RED, touched=frozenset({bob[0], bob[1], bob[4]})
    )
    assert send("CLUE BOB RED") == send("clue bob red")


def test_colour_clue_declares_exactly_the_cards_it_touches() -> None:
    state = game(THREE, HANDS)
    bob = state.hands[1]
    action = send("clue bob red")
    assert isinstance(action, Clue)
    assert action.touched == frozenset({bob[0], bob[1], bob[4]})
    assert action.colour is Suit.RED and action.rank is None


def test_number_clue_declares_exactly_the_cards_it_touches() -> None:
    state = game(THREE, HANDS)
    carol = state.hands[2]
    action = send("clue carol 2")
    assert action == Clue(
        seat=0, target=2, rank=2, touched=frozenset({carol[0], carol[1], carol[3], carol[4]})
    )


def test_rainbow_colour_clue_also_touches_multicolour_cards() -> None:
    config = GameConfig(3, Variant.RAINBOW)
    hands = [HANDS[0], ["M1", "R4", "G1", "W1", "M2"], HANDS[2]]
    state = game(config, hands)
    intent = parse_command("clue bob red", state, 0, PLAYERS)
    assert isinstance(intent, SendAction) and isinstance(intent.action, Clue)
    bob = state.hands[1]
    assert intent.action.touched == frozenset({bob[0], bob[1], bob[4]})


def test_localised_colour_names_are_accepted() -> None:
    i18n.setup("it")
    assert send("clue bob rosso") == send("clue bob red")
    i18n.setup("ro")
    assert send("clue carol alb") == send("clue carol white")
    # typed without the diacritics a keyboard may lack
    assert send("clue bob rosu") == send("clue bob red")
    i18n.setup("nb")
    assert send("clue carol bla") == send("clue carol blue")


def test_discard_and_move() -> None:
    state = game(THREE, HANDS)
    hand = state.hands[0]
    # a discard needs a spent clue token, so give one away first
    state.apply(Clue(seat=0, target=1, rank=1))
    state.apply(Clue(seat=1, target=2, rank=2))
    state.apply(Clue(seat=2, target=0, rank=1))
    intent = parse_command("discard 4", state, 0, PLAYERS)
    assert intent == SendAction(Discard(seat=0, card=hand[3]))
    assert parse_command("discard slot 4", state, 0, PLAYERS) == intent
    assert send("move 5 1") == Move(seat=0, card=hand[4], to=0)


def test_move_is_allowed_out_of_turn() -> None:
    state = game(THREE, HANDS)
    intent = parse_command("move 1 2", state, 1, PLAYERS)
    assert intent == SendAction(Move(seat=1, card=state.hands[1][0], to=1))


def test_choreography_announcement() -> None:
    config = GameConfig(3, choreography=True)
    state = game(config, HANDS)
    assert send("play 2 red", config) == Play(seat=0, card=state.hands[0][1], announce=Suit.RED)


@pytest.mark.parametrize(
    ("line", "changes", "expected"),
    [
        ("clue bob red", {"clue_tokens": 0}, "no clue tokens left"),
        ("discard 1", {}, "you cannot discard: all 8 clue tokens are available"),
        ("play 7", {}, "slot 7 does not exist: you hold 5 cards"),
        ("play two", {}, "'two' is not a slot: give a number from 1 to 5"),
        ("play 1", {"current_seat": 1}, "it is Bob's turn"),
        ("clue alice red", {}, "you cannot clue yourself"),
        ("clue zed red", {}, "nobody here is called 'zed' (players: Alice, Bob, Carol)"),
        ("clue bob purple", {}, "'purple' is not a colour"),
        ("clue bob 6", {}, "there is no number 6: numbers go from 1 to 5"),
        ("clue bob multicolour", {}, "there is no multicolour in this game"),
        ("clue bob yellow", {}, "that clue touches none of Bob's cards, and empty clues are off"),
        ("play 2 red", {}, "announcing a colour needs the choreography option"),
        ("move 2 2", {}, "that card is already in slot 2"),
        ("fly", {}, "unknown command 'fly': type help for the list"),
        ("clue bob", {}, "usage: clue PLAYER COLOUR|NUMBER"),
        ("say", {}, "usage: say TEXT"),
    ],
)
def test_illegal_commands_say_why(line: str, changes: dict[str, Any], expected: str) -> None:
    assert reason(line, **changes) == expected


def test_rainbow_refuses_to_name_multicolour() -> None:
    config = GameConfig(3, Variant.RAINBOW)
    assert reason("clue bob multi", config) == (
        "multicolour cannot be named in this variant: it counts as every colour"
    )


def test_empty_clue_is_allowed_with_the_option() -> None:
    config = GameConfig(3, empty_clues=True)
    action = send("clue bob yellow", config)
    assert action == Clue(seat=0, target=1, colour=Suit.YELLOW, touched=frozenset())


def test_ambiguous_prefixes_list_the_choices() -> None:
    state = game(THREE, HANDS)
    names = ("Alice", "Carl", "Carol")
    with pytest.raises(CommandError, match=r"'car' could be Carl \(seat 2\), Carol \(seat 3\)"):
        parse_on_board("clue car red", board(state), names)
    # an exact name wins over a longer one it is a prefix of
    names = ("Alice", "Bo", "Bob")
    intent = parse_on_board("clue bo 3", board(state), names)
    assert isinstance(intent, SendAction) and isinstance(intent.action, Clue)
    assert intent.action.target == 1


def test_player_names_with_spaces() -> None:
    state = game(THREE, HANDS)
    names = ("Alice", "Bob Smith", "Carol")
    intent = parse_on_board("clue bob smith red", board(state), names)
    assert isinstance(intent, SendAction) and isinstance(intent.action, Clue)
    assert intent.action.target == 1


def test_reasons_are_translated() -> None:
    i18n.setup("it")
    assert reason("clue bob red", clue_tokens=0) == "non restano gettoni blu"
    assert reason("play 1", current_seat=2) == "è il turno di Carol"


def test_the_engine_check_is_the_last_word() -> None:
    """Whatever the engine still refuses is refused, with the engine's reason."""
    state = game(THREE, HANDS)

    def refuse(action: Action) -> None:
        raise IllegalAction("not today")

    with pytest.raises(CommandError, match="not today"):
        parse_on_board("play 1", board(state), PLAYERS, refuse)


def test_game_over_refuses_actions_but_not_talk() -> None:
    from hanabi_p2p.rules.engine import End

    assert reason("play 1", end=End.STRIKEOUT) == "the game is over"
    state = game(THREE, HANDS)
    over = dataclasses.replace(board(state), end=End.STRIKEOUT)
    assert parse_on_board("say gg", over, PLAYERS) == Say("gg")


def test_local_commands_send_nothing() -> None:
    state = game(THREE, HANDS)
    seen = board(state)
    assert parse_on_board("log", seen, PLAYERS) == Show("log")
    assert parse_on_board("rules", seen, PLAYERS) == Show("rules")
    assert parse_on_board("h", seen, PLAYERS) == Show("help")
    assert parse_on_board("quit", seen, PLAYERS) == Quit()
    assert parse_on_board("say  hello  there ", seen, PLAYERS) == Say("hello  there")
    assert parse_on_board("   ", seen, PLAYERS) is None


def test_say_is_capped_and_cleaned() -> None:
    state = game(THREE, HANDS)
    with pytest.raises(CommandError, match="too long to say"):
        parse_on_board("say " + "a" * 300, board(state), PLAYERS)
    assert parse_on_board("say hi\x1b[2Jthere", board(state), PLAYERS) == Say("hi[2Jthere")


def test_lobby_and_end_commands() -> None:
    assert parse_simple("start", Mode.LOBBY) == Start()
    assert parse_simple("q", Mode.END) == Quit()
    with pytest.raises(CommandError, match="unknown command 'play'"):
        parse_simple("play 1", Mode.LOBBY)
    with pytest.raises(CommandError, match="'s' could be start, say"):
        parse_simple("s", Mode.LOBBY)


def test_abandon_asks_to_end_the_game_by_agreement_at_any_turn_until_it_is_over() -> None:
    from hanabi_p2p.rules.engine import End
    from hanabi_p2p.ui.commands import Abandon, CommandError

    state = game(THREE, HANDS)
    seen = board(state)
    assert parse_on_board("abandon", seen, PLAYERS) == Abandon()
    assert parse_on_board("ab", seen, PLAYERS) == Abandon()  # any unique beginning
    assert parse_on_board("abandon", seen, PLAYERS[1:] + PLAYERS[:1]) == Abandon()
    with pytest.raises(CommandError, match="usage: abandon"):
        parse_on_board("abandon now", seen, PLAYERS)
    over = dataclasses.replace(seen, end=End.STRIKEOUT)
    with pytest.raises(CommandError, match="the game is over"):
        parse_on_board("abandon", over, PLAYERS)


# --- the coach's advice as a command -------------------------------------------------------


@pytest.mark.parametrize("seed", range(12))
def test_the_command_a_hint_shows_carries_out_the_advised_action(seed: int) -> None:
    """`hint` said `play slot 1` (prose; in Italian `gioca la carta in posizione 1`) while the
    command is `play 1`: the hint now ends with the command, which typed does what it says."""
    from hanabi_p2p.bots.hgroup import explain
    from hanabi_p2p.ui.commands import typed_command

    names = ("Ann", "Bob", "Cid", "Ann Marie")
    state = play_until(random_game(GameConfig(4), seed), seed, lambda s: s.turn >= seed * 2)
    if state.over:
        pytest.skip("the game ended early")
    seat = state.current_seat
    advice = explain(state, seat, names)
    typed = typed_command(advice.action, state.hands, names)
    assert typed.split()[0] in ("play", "discard", "clue")
    assert parse_command(typed, state, seat, names) == SendAction(advice.action)


def test_typed_commands_of_each_kind() -> None:
    from hanabi_p2p.ui.commands import typed_command

    state = game(THREE, HANDS)
    alice, bob = state.hands[0], state.hands[1]
    twins = ("Bob", "Bob", "Cid")
    assert typed_command(Play(0, alice[2]), state.hands, PLAYERS) == "play 3"
    assert typed_command(Discard(0, alice[4]), state.hands, PLAYERS) == "discard 5"
    red = Clue(0, 1, colour=Suit.RED, touched=frozenset({bob[0], bob[1], bob[4]}))
    assert typed_command(red, state.hands, PLAYERS) == "clue Bob red"
    assert typed_command(red, state.hands, twins) == "clue 2 red"  # the seat tells them apart
    assert typed_command(Clue(0, 1, rank=1, touched=frozenset({bob[2], bob[3]})),
                         state.hands, PLAYERS) == "clue Bob 1"
    assert typed_command(Move(0, alice[0], 3), state.hands, PLAYERS) == "move 1 4"
    for line in ("play 3", "clue Bob red", "clue Bob 1", "move 1 4"):
        send(line)  # each is a command the table accepts (a discard needs a spent token)
