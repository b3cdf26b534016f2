"""What one seat's computer player tracks of the game: hands, tokens, the deck, its clues.

The convention player used to follow the game through a full ``GameState`` replica, checking
every action again. The actions it follows were already checked by the game it reads them
from (``state.history``), and it needs only the public counters, the order of each hand and
the clues it may give, so a lighter record does (self-play runs several times faster).

The faces are the player's (``face_index``: -1 where this seat does not know the face, as for
its own cards); the rules for tokens, strikes, drawing and the final round are those of
``hanabi_p2p.rules.engine``, and the clues offered are built by its ``movegen`` helpers, so
they are the very ``Clue`` values ``GameState.legal_actions()`` lists, in the same order.
"""

from __future__ import annotations

from collections.abc import Sequence

from hanabi_p2p.rules.actions import Action, Clue, Discard, Move, Play
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS, MAX_STRIKES, GameConfig
from hanabi_p2p.rules.faces import RANKS_PER_SUIT, FaceTable
from hanabi_p2p.rules.movegen import ClueSlot, build_clue_slot, hand_masks


class SeatView:
    """The public course of one game, as one seat follows it."""

    def __init__(self, config: GameConfig, table: FaceTable, seat: int,
                 face_index: Sequence[int]) -> None:
        self.config = config
        self.table = table
        self.seat = seat
        self.face_index = face_index
        size = config.hand_size
        self.deck_size = config.deck_size  # (a property that counts the deck each time)
        # slot 1 (newest) first: the engine deals each card to the front of its hand
        self.hands: list[list[int]] = [
            list(range((s + 1) * size - 1, s * size - 1, -1)) for s in range(config.players)
        ]
        # card id -> the seat holding it, -1 if none (read as it is where holder() is
        # asked of many cards)
        self.seat_of = [-1] * self.deck_size
        for s, hand in enumerate(self.hands):
            for card in hand:
                self.seat_of[card] = s
        self.draw_index = config.players * size
        # the cards still in the deck: an attribute kept with draw_index, not a property, as
        # the convention player reads it a few times per clue it rates
        self.cards_left = self.deck_size - self.draw_index
        self.clue_tokens = MAX_CLUE_TOKENS
        self.strikes = 0
        self.final_round_turns_left: int | None = None
        self.history: list[Action] = []
        self._fireworks = [0] * len(table.suits)
        self._slots: list[ClueSlot | None] = [None] * config.players
        # per seat: is its slot built for its hand as it is now (every face known)? A hand
        # changes only here, and a face once known never changes, so until then it is.
        self._slot_fresh = [False] * config.players

    def holder(self, card: int) -> int | None:
        seat = self.seat_of[card]
        return None if seat < 0 else seat

    def apply(self, action: Action) -> tuple[bool, int | None]:
        """Follow one action already checked by the game; (placed, card drawn). A played
        card's face must be known (``face_index``), as the engine needs it too."""
        if isinstance(action, Clue):
            self.apply_clue(action)
            return False, None
        if isinstance(action, Play | Discard):
            return self.apply_card(action)
        self.history.append(action)
        if isinstance(action, Move):
            hand = self.hands[action.seat]
            self._slot_fresh[action.seat] = False
            hand.remove(action.card)
            hand.insert(action.to, action.card)
        return False, None

    def apply_clue(self, action: Clue) -> None:
        """``apply`` for a clue (the player already knows the kind of its action)."""
        self.history.append(action)
        self.clue_tokens -= 1
        self._end_turn(drew=False)

    def apply_card(self, action: Play | Discard) -> tuple[bool, int | None]:
        """``apply`` for a play or a discard: (placed, card drawn)."""
        self.history.append(action)
        seat, card = action.seat, action.card
        fi = self.face_index[card]
        suit, rank = divmod(fi, RANKS_PER_SUIT)
        rank += 1
        self.hands[seat].remove(card)
        self._slot_fresh[seat] = False
        self.seat_of[card] = -1
        placed = False
        if isinstance(action, Discard):
            self.clue_tokens += 1
        else:
            announce = action.announce
            if announce is not None and not self.table.colour_mask[announce] >> fi & 1:
                self.strikes += 1  # choreography: the wrong colour announced
            elif self._fireworks[suit] == rank - 1:
                placed = True
                self._fireworks[suit] = rank
                bonuses = (rank == RANKS_PER_SUIT) + (announce is not None)
                self.clue_tokens += min(bonuses, MAX_CLUE_TOKENS - self.clue_tokens)
            else:
                self.strikes += 1
        drew = None
        if self.draw_index < self.deck_size:
            drew = self.draw_index
            self.draw_index += 1
            self.cards_left -= 1
            self.hands[seat].insert(0, drew)
            self.seat_of[drew] = seat
        self._end_turn(drew=drew is not None)
        return placed, drew

    def _end_turn(self, drew: bool) -> None:
        # as the engine's: no final round once the game is over (the player is not asked
        # to act then), the drawer of the last card starts it
        if self.strikes >= MAX_STRIKES:
            return
        if self.final_round_turns_left is not None:
            self.final_round_turns_left -= 1
        elif (drew and self.draw_index == self.deck_size
              and not self.config.all_or_nothing):
            self.final_round_turns_left = self.config.players

    def clues(self) -> list[Clue]:
        """Every clue this seat may give now, as ``GameState.legal_actions()`` lists them."""
        if self.clue_tokens <= 0:
            return []
        seat = self.seat
        out: list[Clue] = []
        slots = self._slots
        fresh = self._slot_fresh
        for target, hand in enumerate(self.hands):
            if target == seat:
                continue
            slot = slots[target]
            if not fresh[target]:
                masks = hand_masks(hand, self.face_index, self.table)
                if masks is None:
                    continue  # a face not known yet: no clue to that hand until it is
                if slot is None or slot.masks != masks:
                    slot = build_clue_slot(seat, target, hand, masks, slot, self.table,
                                           self.config.empty_clues)
                    slots[target] = slot
                fresh[target] = True
            assert slot is not None
            out.extend(slot.clues)
        return out


__all__ = ["SeatView"]
