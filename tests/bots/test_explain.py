"""The hint API: what the convention player would do in a seat, and why, in words."""

from __future__ import annotations

import re
from collections.abc import Iterator

import pytest
from scenario import NAMES, Scenario

from hanabi_p2p import i18n
from hanabi_p2p.bots.errors import NotItsTurn
from hanabi_p2p.bots.hgroup import Reason, choose_action, explain
from hanabi_p2p.errors import IllegalAction


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
    assert "fa giocare 2 carte — un'informazione di gioco" in clue.text
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
