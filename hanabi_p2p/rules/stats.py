"""The game in numbers: per player and for the table, and the score, clue tokens and pace
after every turn. Pure: a game's faces and actions in, numbers out (the words and charts
are ui/summary.py's and ui/charts.py's).

Efficiency is hanab.live's (its manual, "Pace & Efficiency",
https://github.com/Hanabi-Live/hanabi-live/blob/main/docs/features.md#efficiency):

    efficiency = cards gotten / (clues given + clues lost)

where *cards gotten* are the cards already played plus the cards in hands touched by a clue,
leaving out clued cards globally known to be trash; a clue is *lost* when a card misplays
(it could have been discarded for one instead) and when a bonus token is wasted because the
team already has all 8 (a 5 played, a choreography announcement). A player's own efficiency
credits each gotten card that a clue touched to the player whose clue touched it first: the
cards their clues got, per clue they gave (a card played without any clue is the table's,
nobody's clue got it).

A *save* is a clue that touches, for the first time, the last copy of a card still needed
(a 5, or a card whose other copies are discarded): without it a discard would lose points.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import Enum

from hanabi_p2p.errors import IllegalAction, LocalProtocolError
from hanabi_p2p.rules.actions import Action, Clue, Discard, Play
from hanabi_p2p.rules.cards import RANKS, Card, GameConfig
from hanabi_p2p.rules.copies import is_last_copy
from hanabi_p2p.rules.empathy import public_empathy
from hanabi_p2p.rules.engine import GameState


def pace(state: GameState) -> int:
    """Discards the team can still afford (hanab.live's "pace"): score + cards left in the
    deck + players - the best reachable score. Below 0 the best score is out of reach."""
    return state.score + state.cards_left + state.config.players - state.max_achievable


class Mark(Enum):
    """What a turn is marked with on the timeline."""

    MISPLAY = "misplay"
    SAVE = "save"


@dataclass(frozen=True, slots=True)
class TurnPoint:
    """The table after one turn (the first point: after the deal)."""

    turn: int  # turns taken
    score: int
    clue_tokens: int
    pace: int
    mark: Mark | None = None  # what this turn did worth marking


@dataclass(frozen=True, slots=True)
class PlayerTally:
    """What one player did, or the whole table (the players' sums)."""

    clues: int = 0  # clues given
    plays: int = 0  # cards placed on their firework
    misplays: int = 0  # plays that burnt a fuse
    discards: int = 0
    saves: int = 0  # clues that saved a last copy (see the module docstring)
    gotten: int = 0  # gotten cards a clue of theirs touched first

    @property
    def efficiency(self) -> float | None:
        """Cards their clues got, per clue they gave; None before any clue."""
        return self.gotten / self.clues if self.clues else None


@dataclass(frozen=True, slots=True)
class GameStats:
    players: tuple[PlayerTally, ...]  # per seat
    points: tuple[TurnPoint, ...]  # after the deal, then after each turn
    cards_gotten: int  # hanab.live's: played, plus clued in hand and not known trash
    clues_lost: int

    @property
    def table(self) -> PlayerTally:
        return PlayerTally(
            clues=sum(p.clues for p in self.players),
            plays=sum(p.plays for p in self.players),
            misplays=sum(p.misplays for p in self.players),
            discards=sum(p.discards for p in self.players),
            saves=sum(p.saves for p in self.players),
            gotten=self.cards_gotten,
        )

    @property
    def efficiency(self) -> float | None:
        """hanab.live's efficiency of the table; None while no clue was given or lost."""
        spent = self.table.clues + self.clues_lost
        return self.cards_gotten / spent if spent else None


def _point(state: GameState, mark: Mark | None = None) -> TurnPoint:
    return TurnPoint(state.turn, state.score, state.clue_tokens, pace(state), mark)


def _is_save(state: GameState, clue: Clue, touched: frozenset[int]) -> bool:
    """`clue`, about to be applied to `state`, touches a still-needed last copy for the
    first time."""
    for card in touched:
        face = state.faces[card]
        first_touch = not any(record.touched for record in state.clues[card])
        if face is not None and first_touch and is_last_copy(state, face):
            return True
    return False


def game_stats(
    config: GameConfig, faces: Sequence[Card | None], actions: Sequence[Action]
) -> GameStats | None:
    """Replay `actions` on a deck of `faces` (a face may be unknown if it was never played
    or discarded) and count; None if an action cannot be replayed."""
    state = GameState(config, list(faces))
    tallies = [dict.fromkeys(("clues", "plays", "misplays", "discards", "saves"), 0)
               for _ in range(config.players)]
    points = [_point(state)]
    lost = 0
    try:
        for action in actions:
            turn = state.turn
            mark: Mark | None = None
            if isinstance(action, Clue):
                before = state.copy()
                outcome = state.apply(action)
                tallies[action.seat]["clues"] += 1
                if _is_save(before, action, outcome.touched):
                    tallies[action.seat]["saves"] += 1
                    mark = Mark.SAVE
            else:
                outcome = state.apply(action)
            if isinstance(action, Discard):
                tallies[action.seat]["discards"] += 1
            elif isinstance(action, Play):
                if outcome.strike:
                    tallies[action.seat]["misplays"] += 1
                    lost += 1
                    mark = Mark.MISPLAY
                if outcome.placed:
                    tallies[action.seat]["plays"] += 1
                    assert outcome.face is not None
                    bonuses = (outcome.face.rank == RANKS[-1]) + (action.announce is not None)
                    lost += bonuses - outcome.tokens_gained
            if state.turn != turn:  # a reorder of a hand is no turn
                points.append(_point(state, mark))
    except (IllegalAction, LocalProtocolError):
        return None
    gotten_by = [0] * config.players
    gotten = len(state.played)
    in_hands = [card for hand in state.hands for card in hand]
    for card in in_hands:
        touched = any(record.touched for record in state.clues[card])
        if touched and not public_empathy(state, card).trash:
            gotten += 1
    for card in (*state.played, *in_hands):
        first = next((record for record in state.clues[card] if record.touched), None)
        if first is not None and (card in state.played
                                  or not public_empathy(state, card).trash):
            gotten_by[first.giver] += 1
    players = tuple(
        PlayerTally(gotten=gotten_by[seat], **tally) for seat, tally in enumerate(tallies)
    )
    return GameStats(players, tuple(points), gotten, lost)


def stats_of_state(state: GameState, faces: dict[int, Card] | None = None) -> GameStats | None:
    """`game_stats` of a finished (or stopped) game from its final replica: the faces it
    knows (every card played or discarded), completed by the audit's `faces` if given."""
    known = [face if face is not None else (faces or {}).get(card)
             for card, face in enumerate(state.faces)]
    return game_stats(state.config, known, state.history)
