"""The base of one turn's ``_Decision``: its scratch data (the clues this seat may give, the
faces clued cards are, the ratings so far) and the helpers every part of the turn uses.

A turn's parts build on each other in this order, each module's class on the one before:
``TurnBase`` → ``ClueGiving`` (hgroup_giving) → ``Stalls`` → ``Discards`` → ``Saves`` →
``_Decision`` (hgroup_decision), which orders the conventions."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from hanabi_p2p.bots.hgroup_facts import Pending
from hanabi_p2p.bots.hgroup_tuning import TWO_SAVES_UP_TO
from hanabi_p2p.bots.words import Say, Words
from hanabi_p2p.rules.actions import Clue
from hanabi_p2p.rules.cards import Card
from hanabi_p2p.rules.faces import RANKS_PER_SUIT

if TYPE_CHECKING:
    from hanabi_p2p.bots.hgroup import HGroupPlayer


class TurnBase:
    """One turn's scratch data and the helpers all its parts share."""

    def __init__(self, player: HGroupPlayer, names: Sequence[str] | None,
                 avoid: frozenset[int]) -> None:
        self.p = player
        self.names = names
        self.avoid = avoid  # cards not to play this turn
        self.rep = player.replica
        self.known, self.queued, _, _, self.eventual = player._context()
        self._busy: dict[int, bool] = {}
        self._worth: dict[int, bool] = {}  # see _worth_saving
        self._my_cards: list[tuple[int, int]] | None = None  # see my_cards
        self._givers: dict[int, int] | None = None  # see ClueGiving.recent_givers
        self._owing: dict[int, int] | None = None  # see ClueGiving.owing_blind_plays
        self._clues: list[Clue] | None = None
        self._ratings: dict[int, tuple[int, int] | None] = {}
        # what a rated clue tells its receiver, as the rating read it (for the end-game plan)
        self._meanings: dict[int, dict[int, int]] = {}
        # how each rated clue reads (``_read_clue``), by id
        self.reads: dict[int, tuple[dict[int, int], Pending | None]] = {}
        # every face some clued card visible to this seat is (for good touch as a giver)
        clued_faces: dict[int, int] = {}
        self.clued_faces = clued_faces
        fi = player.fi
        inf, possible = player.inf, player.poss
        seat_of = self.rep.seat_of
        seat = player.seat
        for c in player.clued_cards:  # (only counts: the order does not matter)
            if seat_of[c] != seat:
                if (f := fi[c]) >= 0:
                    clued_faces[f] = clued_faces.get(f, 0) + 1
                continue
            poss = possible[c]
            m = inf[c] & poss or poss  # player.public(c)
            if m & (m - 1) == 0:
                f = m.bit_length() - 1
                clued_faces[f] = clued_faces.get(f, 0) + 1

    def words(self, say: Say, seat: int = 0, *, slot: int = 0, clue: Clue | None = None,
              card: Card | None = None, focus: Card | None = None, count: int = 0,
              other: int | None = None) -> Words:
        """What to say: ``say`` about player ``seat`` (a clue's receiver, a card's holder),
        and ``other`` (who answers a finesse or prompt)."""
        if self.names is None:  # (self-play, every turn: no names to look up)
            return Words(say, slot, seat, None, clue, card, focus, count, other or 0, None)
        name = self._name(seat)
        return Words(say, slot=slot, seat=seat, player=name, clue=clue, card=card,
                     focus=focus, number=count, other=other or 0,
                     other_name=None if other is None else self._name(other))

    def _name(self, seat: int) -> str | None:
        return self.names[seat] if self.names is not None and seat < len(self.names) else None

    def clues(self) -> list[Clue]:
        """Every clue this seat may give now (computed once per turn)."""
        if self._clues is None:
            self._clues = self.rep.clues()
        return self._clues

    def my_cards(self) -> list[tuple[int, int]]:
        """``p._mine()``: my cards and what each may be, worked out once a turn (nothing it
        reads changes during the turn, and the end-game plan asks again). Not to be changed."""
        if self._my_cards is None:
            self._my_cards = self.p._mine()
        return self._my_cards

    def _unseen_counts(self) -> list[int]:
        """Per face, the copies this seat has not seen."""
        p = self.p
        return [c - s for c, s in zip(p.table.copies, p.seen, strict=True)]

    def _worth_saving(self, card: int) -> bool:
        """Is ``card`` (in another hand) worth a save clue: a 5, a last copy, or a 2 with no
        other copy in sight, not clued elsewhere? (Asked of a chop several times a turn, by
        the saves and by every clue rated that touches it: answered once a turn.)"""
        worth = self._worth.get(card)
        if worth is None:
            worth = self._worth[card] = self._is_worth_saving(card)
        return worth

    def _is_worth_saving(self, card: int) -> bool:
        p = self.p
        f = p.fi[card]
        if f < 0:
            return False
        bit = 1 << f
        if bit & p.board.trash or self.clued_faces.get(f, 0):
            return False
        if bit & p.board.critical or p.rank_of[f] == RANKS_PER_SUIT:
            return True
        if p.rank_of[f] == 2 and p.config.players <= TWO_SAVES_UP_TO:
            # another copy in a hand this seat sees: that one can be saved later
            return not any(p.fi[c] == f and c != card
                           for s, hand in enumerate(self.rep.hands) if s != p.seat
                           for c in hand)
        return False
