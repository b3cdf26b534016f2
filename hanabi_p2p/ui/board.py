"""What one player may see of the table, as plain data: the only place that reads GameState.

`board_from_state` is where the rule "never show a player their own cards" is enforced: the
own hand's faces are dropped here, whatever the engine happens to know (in a local hot-seat
game it knows them all), so no renderer can leak them by mistake.
"""

from __future__ import annotations

from dataclasses import dataclass

from hanabi_p2p.rules.cards import Card, GameConfig, Suit
from hanabi_p2p.rules.copies import is_last_copy
from hanabi_p2p.rules.empathy import card_empathy, seen_counts
from hanabi_p2p.rules.engine import End, GameState
from hanabi_p2p.rules.stats import pace


@dataclass(frozen=True, slots=True)
class CardCell:
    """One card in a hand, as the viewer may see it."""

    card: int  # identity (deck position)
    face: Card | None  # None for the viewer's own cards (and any face not known)
    clue_colours: tuple[Suit, ...]  # colours named by clues that touched it, oldest first
    clue_ranks: tuple[int, ...]  # numbers named by clues that touched it
    # colours and numbers its holder still thinks possible: from clues (positive and
    # negative), less the faces every copy of which it sees (rules/empathy.py)
    colours: frozenset[Suit]
    ranks: frozenset[int]

    # the last copy of a face the fireworks still need: losing it costs points (★)
    last_copy: bool = False
    # its holder can tell it is no longer needed, whatever it is: safe to discard
    trash: bool = False

    @property
    def clued(self) -> bool:
        return bool(self.clue_colours or self.clue_ranks)


@dataclass(frozen=True, slots=True)
class Board:
    config: GameConfig
    my_seat: int
    hands: tuple[tuple[CardCell, ...], ...]  # per seat, slot 0 (leftmost) first
    fireworks: tuple[tuple[Suit, int], ...]  # in suit order; 0 = not started
    discards: tuple[Card, ...]  # in the order they were discarded
    clue_tokens: int
    strikes: int
    deck_left: int
    current_seat: int
    turn: int  # turn actions taken so far
    final_round_turns_left: int | None
    end: End
    score: int
    max_reachable: int = 0  # the best score still possible (discarded cards cap it)
    # How many more discards the team can afford before the best score is out of reach.
    pace: int = 0
    # discarded faces whose only remaining copy is still needed (★ in the pile)
    endangered: frozenset[Card] = frozenset()

    @property
    def my_turn(self) -> bool:
        return self.end is End.IN_PROGRESS and self.current_seat == self.my_seat

    @property
    def over(self) -> bool:
        return self.end is not End.IN_PROGRESS

    def firework(self, suit: Suit) -> int:
        return dict(self.fireworks).get(suit, 0)


def _cell(
    state: GameState, card: int, holder: int, show_face: bool, observer: int | None,
    seen: list[int],
) -> CardCell:
    colours: list[Suit] = []
    ranks: list[int] = []
    for record in state.clues[card]:
        if not record.touched:
            continue
        if record.colour is not None and record.colour not in colours:
            colours.append(record.colour)
        if record.rank is not None and record.rank not in ranks:
            ranks.append(record.rank)
    knowledge = card_empathy(state, card, holder, observer, seen)
    face = state.faces[card] if show_face else None
    return CardCell(
        card=card,
        face=face,
        clue_colours=tuple(colours),
        clue_ranks=tuple(ranks),
        colours=knowledge.colours,
        ranks=knowledge.ranks,
        last_copy=face is not None and is_last_copy(state, face),
        trash=knowledge.trash,
    )


def board_from_state(state: GameState, my_seat: int) -> Board:
    """The table as seen from `my_seat` (faces of the own hand are never included).

    What each holder can tell of its cards counts the cards it sees, never `my_seat`'s own
    (nobody's seat, as in a replay: each holder's whole view)."""
    config = state.config
    observer = my_seat if 0 <= my_seat < config.players else None
    hands: list[tuple[CardCell, ...]] = []
    for seat, hand in enumerate(state.hands):
        seen = seen_counts(state, seat, observer)  # the same for every card of the hand
        hands.append(tuple(_cell(state, card, seat, seat != my_seat, observer, seen)
                           for card in hand))
    discards = tuple(
        face for face in (state.faces[card] for card in state.discard_pile) if face is not None
    )
    return Board(
        config=config,
        my_seat=my_seat,
        hands=tuple(hands),
        fireworks=tuple((suit, state.fireworks.get(suit, 0)) for suit in config.suits),
        discards=discards,
        clue_tokens=state.clue_tokens,
        strikes=state.strikes,
        deck_left=state.cards_left,
        current_seat=state.current_seat,
        turn=state.turn,
        final_round_turns_left=state.final_round_turns_left,
        end=state.end,
        score=state.score,
        max_reachable=state.max_achievable,
        pace=pace(state),
        endangered=frozenset(face for face in discards if is_last_copy(state, face)),
    )
