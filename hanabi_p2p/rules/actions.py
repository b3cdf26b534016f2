"""Actions a player takes. Small frozen dataclasses; the engine checks legality.

Cards are named by their identity: their position in the shuffled deck (0 = top), which is
also hanab.live's `target` for plays and discards. Seats are 0..players-1 in turn order.
"""

from __future__ import annotations

from dataclasses import dataclass

from hanabi_p2p.rules.cards import Suit


@dataclass(frozen=True, slots=True)
class Play:
    seat: int
    card: int
    # choreography: the colour the owner announces before playing (None = no announcement)
    announce: Suit | None = None


@dataclass(frozen=True, slots=True)
class Discard:
    seat: int
    card: int


@dataclass(frozen=True, slots=True)
class Clue:
    """A colour clue (colour set) or a number clue (rank set), never both.

    `touched` lists the card identities the giver says the clue touches. In a local game
    (all faces known) it may be None and the engine computes it. In a peer-to-peer game
    the clue's receiver cannot see its own cards, so the giver declares them; the engine
    checks the declaration against every face the observer knows, and the end-of-game
    audit checks it against all faces.
    """

    seat: int
    target: int
    colour: Suit | None = None
    rank: int | None = None
    touched: frozenset[int] | None = None


@dataclass(frozen=True, slots=True)
class Move:
    """Reorder one's own hand: move `card` to slot `to` (0 = leftmost). Not a turn."""

    seat: int
    card: int
    to: int


@dataclass(frozen=True, slots=True)
class Terminate:
    """The game is stopped before its natural end (resignation, abort, hanab.live type 4)."""

    seat: int


TurnAction = Play | Discard | Clue
Action = Play | Discard | Clue | Move | Terminate
