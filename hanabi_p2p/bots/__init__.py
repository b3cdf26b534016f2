"""Computer players.

Two entry points, both blind to the acting seat's own faces:

* ``choose_action(state, seat)`` in each bot module: stateless, what the peer frontends call;
* ``make_player(kind, config, seat)``: a per-seat object whose ``act(state)`` returns the
  next action, for self-play benchmarks (``bench/bots.py``);
* ``hgroup.explain(state, seat, names, level)``: the convention player's action for ``seat``
  and why, in words in the current language (for a ``hint`` command);
* ``levels``: the H-group levels a person may pick (``--level``) and the conventions each
  one uses.

``hgroup`` is the convention player (docs/conventions.md); ``simple`` the first, weaker one.
"""

from __future__ import annotations

from enum import Enum
from typing import Protocol

from hanabi_p2p.rules.actions import TurnAction
from hanabi_p2p.rules.cards import GameConfig
from hanabi_p2p.rules.engine import GameState


class BotKind(str, Enum):
    SIMPLE = "simple"
    HGROUP = "hgroup"


class SeatPlayer(Protocol):
    def act(self, state: GameState) -> TurnAction:
        """The action of this player's seat now (it must be its turn)."""
        ...


class _SimplePlayer:
    def __init__(self, seat: int) -> None:
        self.seat = seat

    def act(self, state: GameState) -> TurnAction:
        from hanabi_p2p.bots.simple import choose_action

        return choose_action(state, self.seat)


def make_player(kind: BotKind, config: GameConfig, seat: int,
                level: int | None = None) -> SeatPlayer:
    """A fresh computer player for ``seat`` of a game about to start; the convention player
    follows the conventions of H-group ``level`` (None: every one it knows, bots/levels.py)."""
    if kind is BotKind.SIMPLE:
        return _SimplePlayer(seat)
    from hanabi_p2p.bots.hgroup import HGroupPlayer

    return HGroupPlayer(config, seat, level)
