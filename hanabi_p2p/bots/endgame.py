"""The convention player's end-game look-ahead: how many cards a line of play gets onto the
fireworks before the game ends, in a cheap model of the remaining turns.

The model is what one seat can know: for each card its face where that seat sees it (-1 for
its own cards and cards still to be drawn) and the face mask its holder knows. A player in
the model plays a card it knows is playable; else, with a token, gives the clue that makes a
card it sees playable (to the soonest player holding one); else, near the deck's end, stalls
with a clue; else discards (its oldest card that it does not know to be playable later) and
draws an unknown card. It never plays a card it does not know: the model scores only sure
points, so a line it prefers never risks a strike.
"""

from __future__ import annotations

from dataclasses import dataclass

from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS
from hanabi_p2p.rules.faces import RANKS_PER_SUIT

# A modelled card: (face as the modelling seat sees it or -1, the mask its holder knows).
ModelCard = tuple[int, int]


@dataclass(slots=True)
class Model:
    """The game from one seat's view, reduced to what the look-ahead needs."""

    fireworks: list[int]  # per suit, the rank reached
    tokens: int
    cards_left: int
    final_left: int | None  # as SeatView.final_round_turns_left
    hands: list[list[ModelCard]]
    seer: int  # the modelling seat: it cannot clue itself about faces it does not see
    stall_cards: int  # with this many cards left or fewer a player stalls rather than discard
    all_faces: int

    def copy(self) -> Model:
        return Model(self.fireworks[:], self.tokens, self.cards_left, self.final_left,
                     [h[:] for h in self.hands], self.seer, self.stall_cards, self.all_faces)

    def playable_mask(self) -> int:
        m = 0
        for s, top in enumerate(self.fireworks):
            if top < RANKS_PER_SUIT:
                m |= 1 << (s * RANKS_PER_SUIT + top)
        return m

    # -- one turn's effects (each returns the points it scored)

    def play(self, seat: int, index: int, face: int) -> int:
        """``seat`` plays its card at ``index``; ``face`` is what it is (-1: not known,
        scored as a misplay without the strike: only a gamble in the final round does that)."""
        self.hands[seat].pop(index)
        suit, rank = divmod(face, RANKS_PER_SUIT)
        scored = 0
        if face >= 0 and self.fireworks[suit] == rank:
            self.fireworks[suit] = rank + 1
            scored = 1
            if rank + 1 == RANKS_PER_SUIT and self.tokens < MAX_CLUE_TOKENS:
                self.tokens += 1
        self._draw(seat)
        return scored

    def discard(self, seat: int, index: int) -> None:
        self.hands[seat].pop(index)
        self.tokens = min(MAX_CLUE_TOKENS, self.tokens + 1)
        self._draw(seat)

    def clue(self, meaning: dict[int, int], seat: int) -> None:
        """A clue: ``meaning`` maps an index of ``seat``'s hand to the mask it now knows."""
        hand = self.hands[seat]
        for index, mask in meaning.items():
            hand[index] = (hand[index][0], mask)
        self.tokens -= 1
        self._end_turn(drew=False)

    def stall(self) -> None:
        self.tokens -= 1
        self._end_turn(drew=False)

    def _draw(self, seat: int) -> None:
        drew = self.cards_left > 0
        if drew:
            self.cards_left -= 1
            self.hands[seat].insert(0, (-1, self.all_faces))
        self._end_turn(drew=drew)

    def _end_turn(self, drew: bool) -> None:
        if self.final_left is not None:
            self.final_left -= 1
        elif drew and self.cards_left == 0:
            self.final_left = len(self.hands)

    @property
    def over(self) -> bool:
        return self.final_left == 0 or all(top == RANKS_PER_SUIT for top in self.fireworks)

    # -- the rest of the game

    def run(self, seat: int, limit: int = 25) -> int:
        """Play the model out from ``seat``'s turn; the points scored on the way (it stops
        once they reach ``limit``: what the caller knows cannot be exceeded)."""
        players = len(self.hands)
        points = 0
        # every turn draws a card or spends a token, and a discard that regains one draws:
        # the game ends within this many turns (the bound also guards against a model whose
        # deck never ends, as in "all or nothing", which the player does not plan)
        turns = (2 * self.cards_left + MAX_CLUE_TOKENS + len(self.fireworks)  # (5s give tokens)
                 + 2 * players)
        while points < limit and turns > 0 and not self.over:
            points += self._turn(seat)
            seat = (seat + 1) % players
            turns -= 1
        return points

    def _turn(self, seat: int) -> int:
        playable = self.playable_mask()
        hand = self.hands[seat]
        for i, (face, mask) in enumerate(hand):
            if mask and mask & ~playable == 0:
                return self.play(seat, i, face if face >= 0 else _lowest(mask))
        if self.tokens > 0:
            target = self._clue_target(seat, playable)
            if target is not None:
                other, index = target
                self.clue({index: 1 << self.hands[other][index][0]}, other)
                return 0
            if self.cards_left <= self.stall_cards or self.tokens == MAX_CLUE_TOKENS:
                self.stall()
                return 0
        if not hand:
            if self.tokens > 0:
                self.stall()
            else:
                self._end_turn(drew=False)
            return 0
        # the oldest card it does not know to be useful later
        index = len(hand) - 1
        for i in range(len(hand) - 1, -1, -1):
            if hand[i][1] == self.all_faces:
                index = i
                break
        self.discard(seat, index)
        return 0

    def _clue_target(self, giver: int, playable: int) -> tuple[int, int] | None:
        """The soonest player after ``giver`` holding a card ``giver`` sees (and the modelling
        seat too) that is playable now and that its holder does not know to be: (seat,
        index). Only a player who still has a turn counts."""
        players = len(self.hands)
        for k in range(1, players):
            other = (giver + k) % players
            if other == self.seer:
                continue  # the modelling seat does not know its own faces
            if self.final_left is not None and k >= self.final_left:
                break  # no turn left for it
            for i, (face, mask) in enumerate(self.hands[other]):
                if face >= 0 and playable >> face & 1 and mask & ~playable:
                    return other, i
        return None


def _lowest(mask: int) -> int:
    return (mask & -mask).bit_length() - 1


__all__ = ["Model", "ModelCard"]
