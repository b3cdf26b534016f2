"""The final round's clues go through the misread check every other clue does: none leaves a
card its receiver reads as playable when it is not (issue 32: a clue "for the last player"
skipped it, and a misread play on a table with two strikes scored 0)."""

from __future__ import annotations

import pytest
from blind_table import convention_table

from hanabi_p2p.rules.actions import Clue

# (players, seed): games whose final round had such a clue (found on tuning seeds)
MISREAD_ONCE = [(2, 300121), (3, 300042), (3, 300070), (3, 300101), (3, 300178),
                (3, 300686), (3, 300696), (3, 300772)]
SPREAD = [(players, seed) for players in (2, 3, 4, 5) for seed in range(710, 716)]


@pytest.mark.parametrize(("players", "seed"), MISREAD_ONCE + SPREAD)
def test_no_clue_makes_a_card_read_as_playable_when_it_is_not(players: int,
                                                              seed: int) -> None:
    table, live = convention_table(players, seed)
    while not table.full.over:
        seat = table.full.current_seat
        action = live[seat].act(table.views[seat])
        outcome = table.apply(action)
        if not isinstance(action, Clue):
            continue
        receiver = live[action.target]
        receiver.sync(table.views[action.target])
        playable = receiver.board.playable
        for card in outcome.touched:
            face = receiver.table.index(table.full.faces[card])  # type: ignore[arg-type]
            reading = receiver.public(card)
            if reading & ~playable == 0:
                assert playable >> face & 1, (table.full.turn, str(table.full.faces[card]))
