"""The hint API: what the convention player would do in a seat, and why, in words."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from scenario import NAMES, Scenario

from hanabi_p2p import i18n
from hanabi_p2p.bots.errors import NotItsTurn
from hanabi_p2p.bots.hgroup import HGroupPlayer, Reason, _Decision, choose_action, explain
from hanabi_p2p.errors import IllegalAction
from hanabi_p2p.rules.actions import Clue
from hanabi_p2p.rules.cards import Suit


def test_explain_gives_the_action_choose_action_takes_and_names_the_players() -> None:
    s = Scenario(3, ["R3 Y3 G4 B4 W3", "R3 G4 Y2 B4 W5", "Y3 B3 G3 W4 R4"])
    view = s.table.views[0]
    advice = explain(view, 0, NAMES[:3])
    assert advice.action == choose_action(view, 0)
    assert advice.reason is Reason.SAVE
    assert advice.text == "clue Bob 5: focus on the chop, it is W5, a 5 — a save"
    assert explain(view, 0).text.startswith("clue seat 2 5:")  # default names


def test_explain_refuses_a_seat_that_is_not_to_move() -> None:
    s = Scenario(3, ["R3 Y3 G4 B4 W3", "R3 G4 Y2 B4 W5", "Y3 B3 G3 W4 R4"])
    with pytest.raises(NotItsTurn, match="cannot act now") as raised:
        explain(s.table.views[1], 1)
    assert raised.value.seat == 1
    assert isinstance(raised.value, IllegalAction)  # what callers that catch those expect


@pytest.fixture
def italian() -> Iterator[None]:
    i18n.setup("it")
    yield
    i18n.setup("en")


# Words of the English sentences that have no place in an Italian one.
ENGLISH = re.compile(r"\b(clue|chop|save|slot|play|discard|the|last|focus|it is|red)\b")


def test_the_advice_is_in_the_language_chosen_with_the_tables_colour_words(
        italian: None) -> None:
    # the last R4 on Bob's chop: a save with the colour clue, in Italian words
    s = Scenario(3, ["G2 Y4 W4 B2 Y2", "G3 W3 Y3 B3 R4", "Y4 G4 W4 B4 R4"])
    s.clue(0, 1, "3")
    s.clue(1, 0, "4")
    s.discard(2, 5)
    text = s.advice(0).text
    assert text == ("dai a Bob l'informazione «rosso»: punta alla sua carta in pericolo, "
                    "che è l'ultima copia di R4 — un salvataggio")
    assert not ENGLISH.search(text)


def test_italian_play_clue_finesse_and_discard_have_no_english(italian: None) -> None:
    s = Scenario(3, ["G3 Y3 B4 W3 Y4", "R1 G4 B3 W4 Y4", "R2 G4 B3 W4 G3"])
    clue = s.advice(0)
    assert "un'impasse su Bob: Bob la gioca alla cieca, poi Cathy gioca la carta R2" in clue.text
    s.take(clue.action)
    answer = s.advice(1).text
    assert "impasse" in answer and "posizione 1" in answer and "R2 di Cathy" in answer
    t = Scenario(3, ["R3 Y3 G4 B4 W3", "G3 B3 Y4 R4 W4", "Y3 B3 G4 W4 R3"])
    for giver, target, value in ((0, 2, "4"), (1, 0, "3"), (2, 0, "4"), (0, 1, "3")):
        t.clue(giver, target, value)
    chop = t.advice(1)  # nothing to play, 4 clue tokens: Bob discards his chop
    assert chop.text.startswith("scarta la carta in posizione 5: è la carta in pericolo")
    for text in (clue.text, answer, chop.text):
        assert not ENGLISH.search(text), text


def test_default_names_are_seat_numbers_in_the_language_chosen(italian: None) -> None:
    s = Scenario(3, ["R3 Y3 G4 B4 W3", "R3 G4 Y2 B4 W5", "Y3 B3 G3 W4 R4"])
    assert explain(s.table.views[0], 0).text.startswith("dai a posto 2 l'informazione «5»:")


def test_a_player_name_from_a_peer_is_made_safe_for_the_terminal() -> None:
    s = Scenario(3, ["R3 Y3 G4 B4 W3", "R3 G4 Y2 B4 W5", "Y3 B3 G3 W4 R4"])
    text = explain(s.table.views[0], 0, ["Alice", "Bob\x1b[2J\x07", "Cathy"]).text
    assert "\x1b" not in text and "\x07" not in text
    assert text.startswith("clue Bob")


def _play_clue_text(s: Scenario, target: int, colour: Suit | None, rank: int | None,
                    level: int | None = None) -> str:
    """What the coach of the seat to move says of its play clue to ``target``."""
    mover = s.state.current_seat
    player = HGroupPlayer(s.config, mover, level)
    player.sync(s.table.views[mover])
    decision = _Decision(player, s.names(), frozenset())
    clue = next(c for c in decision.clues() if c.target == target
                and c.colour is colour and c.rank == rank)
    rated = decision._rate_clue(clue)
    assert rated is not None and rated[1] > 0
    return decision._play_clue_words(clue, rated[1]).render()


def test_two_copies_of_one_face_in_a_play_clue_are_one_card_played() -> None:
    # every other 2 is played, so "2" makes both of Bob's W2s read as W2: once he plays
    # one, the other is known to be its copy, not a second play
    s = Scenario.position(3, ["Y1 W3 G4 R3 Y4", "W2 B1 W2 Y3 B4", "G4 W4 Y2 W1 G1"],
                          stacks="R2 Y2 G2 B2 W1")
    assert _play_clue_text(s, 1, None, 2) == "clue Bob 2: it gets 1 card played — a play clue"


def test_the_coach_names_a_finesse_it_gives_and_who_plays_first() -> None:
    # Bob's newest card is the R1 that Cathy's R2 needs
    s = Scenario(3, ["Y3 Y3 G3 B3 W3", "R1 G4 Y4 B4 W4", "R2 B3 G3 Y4 W4"])
    assert _play_clue_text(s, 2, Suit.RED, None) == (
        "clue Cathy red: their R2 needs R1 first, and Bob holds it as their newest unclued"
        " card — a finesse on Bob: Bob plays it blind, then Cathy plays the R2")


def test_the_coach_names_a_prompt_it_gives() -> None:
    s = Scenario(3, ["Y3 Y3 G3 B3 W3", "G4 R1 Y4 B4 W4", "R2 B3 G3 Y4 W4"])
    s.take(Clue(0, 1, None, 1))  # Bob's R1, known a 1
    s.take(Clue(1, 0, Suit.YELLOW, None))
    s.take(Clue(2, 0, Suit.GREEN, None))
    assert "a prompt: Bob plays it, then Cathy plays the R2" in _play_clue_text(
        s, 2, Suit.RED, None)


def test_the_coach_names_a_self_finesse_it_gives() -> None:
    s = Scenario(2, ["Y3 Y3 G3 B3 W3", "G1 G2 Y4 B4 W4"])
    assert _play_clue_text(s, 1, None, 2, level=2) == (
        "clue Bob 2: their G2 needs G1 first, their own newest unclued card — a"
        " self-finesse: Bob plays that one blind first, then the G2")
