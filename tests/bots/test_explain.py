"""The hint API: what the convention player would do in a seat, and why, in words."""

from __future__ import annotations

import pytest
from scenario import NAMES, Scenario

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
    with pytest.raises(IllegalAction, match="cannot act now"):
        explain(s.table.views[1], 1)
