"""The clue chosen among many (``_best_clue``) is the one rating every clue would choose: it
rates them in order of an upper bound of their value and stops once a bound is below the best
value found, so every bound must be one. A trash chop move and a clue read as a reverse
finesse off its focus (H-group levels 2-5) were worth more than theirs, and were sometimes
never rated (issue 32)."""

from __future__ import annotations

import pytest
from blind_table import BlindTable, shuffled

from hanabi_p2p.bots.endgame_clues import fill_in
from hanabi_p2p.bots.hgroup import HGroupPlayer
from hanabi_p2p.bots.hgroup_decision import _Decision
from hanabi_p2p.bots.hgroup_tuning import FILL_IN_CARDS, MIN_CLUE_VALUE
from hanabi_p2p.rules.actions import Clue
from hanabi_p2p.rules.cards import GameConfig

# (players, level, seeds): level 4 has both kinds of loose clue, the default neither
GAMES = ([(players, 4, seed) for players in (2, 3, 4, 5) for seed in range(8)]
         + [(3, 2, seed) for seed in range(4)] + [(3, None, seed) for seed in range(4)])
FLOORS = (None, MIN_CLUE_VALUE, 2 * MIN_CLUE_VALUE)


def _rate_all(decision: _Decision, floor: int | None) -> tuple[int, Clue] | None:
    """The best clue and its value, every clue rated, with _best_clue's order of ties."""
    p = decision.p
    recent = decision._recent_clues()
    late = decision.rep.cards_left <= FILL_IN_CARDS
    best: tuple[tuple[int, int, bool, int, int], Clue] | None = None
    for i, clue in enumerate(decision.clues()):
        rated = decision._rate_clue(clue)
        if rated is None:
            continue
        told = fill_in(p, clue) if late else 0
        fresh = (clue.target, clue.colour, clue.rank) not in recent
        soon = -((clue.target - p.seat) % p.config.players)
        key = (rated[0], told, fresh, soon, -i)
        if best is None or key > best[0]:
            best = (key, clue)
    if best is None or (floor is not None and best[0][0] < floor):
        return None
    return best[0][0], best[1]


@pytest.mark.parametrize(("players", "level", "seed"), GAMES)
def test_the_best_clue_is_the_best_of_every_clue_rated(players: int, level: int | None,
                                                      seed: int) -> None:
    config = GameConfig(players)
    table = BlindTable(config, shuffled(config, seed))
    live = [HGroupPlayer(config, seat, level) for seat in range(players)]
    while not table.full.over:
        seat = table.full.current_seat
        player = live[seat]
        player.sync(table.views[seat])
        pending = player.pending
        if table.views[seat].clue_tokens and (pending is None or pending.waiting[0] != seat):
            for floor in FLOORS:
                chosen = _Decision(player, None, frozenset())._best_clue(floor)
                got = None if chosen is None else (chosen[0], chosen[1].action)
                assert got == _rate_all(_Decision(player, None, frozenset()), floor), (
                    table.full.turn, floor)
        table.apply(player.act(table.views[seat]))
