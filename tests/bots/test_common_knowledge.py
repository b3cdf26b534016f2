"""What every seat concludes from the clues is common knowledge: each seat's convention player
holds the same public reading of every card and the same open question (a prompt or finesse
waiting for an answer) after every action, and a player that meets a game mid-way (a peer
that resumed) reaches the same reading, and so the same decisions, as one that followed it."""

from __future__ import annotations

import pytest
from blind_table import BlindTable, convention_table

from hanabi_p2p.bots.hgroup import HGroupPlayer
from hanabi_p2p.rules.cards import GameConfig

# (players, seed): games where a player passed on a finesse asked of it and then, near the
# deck's end, gambled on the very card that would have answered it. The others read that
# play as the answer (or a bluff) while the gambler had settled the question as passed: their
# readings of the focus split (issue 32).
SPLIT_ONCE = [(5, 200140), (5, 200187)]
# a spread of other games at every table size
SPREAD = [(players, seed) for players in (2, 3, 4, 5) for seed in range(700, 706)]


def _reading(player: HGroupPlayer, table: BlindTable) -> tuple[list[int], object]:
    pending = player.pending
    cards = [player.public(c) for hand in table.full.hands for c in hand]
    return cards, None if pending is None else (pending.focus, pending.waiting)


@pytest.mark.parametrize(("players", "seed"), SPLIT_ONCE + SPREAD)
def test_every_seat_reads_every_card_alike_after_every_action(players: int, seed: int) -> None:
    table, live = convention_table(players, seed)
    while not table.full.over:
        seat = table.full.current_seat
        table.apply(live[seat].act(table.views[seat]))
        for other in range(players):
            live[other].sync(table.views[other])
        first = _reading(live[0], table)
        for other in range(1, players):
            assert _reading(live[other], table) == first, (table.full.turn, other)


@pytest.mark.parametrize(("players", "seed"), SPLIT_ONCE + SPREAD)
def test_a_player_started_mid_game_decides_as_one_that_followed_it(players: int,
                                                                   seed: int) -> None:
    config = GameConfig(players)
    table, live = convention_table(players, seed)
    while not table.full.over:
        seat = table.full.current_seat
        action = live[seat].act(table.views[seat])
        if table.full.turn % 5 == seed % 5:
            assert HGroupPlayer(config, seat).act(table.views[seat]) == action, table.full.turn
        table.apply(action)
