"""Saves: the clue that keeps the next player from discarding a card worth keeping (urgent
saves, a play that cannot wait, a critical save that accepts bad touch), and what a save
that locks a hand costs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from hanabi_p2p.bots.hgroup_discards import Discards
from hanabi_p2p.bots.hgroup_facts import Advice, Reason
from hanabi_p2p.bots.hgroup_tuning import (
    BAD_TOUCH_SAVE_PLAYERS,
    LOCKING_SAVE_MARGIN,
    LOCKING_SAVE_PLAYERS,
    NO_LOCKING_LAST_SAVE,
    TRADE_SAVE_PLAYERS,
)
from hanabi_p2p.bots.words import Say
from hanabi_p2p.rules.actions import Clue, Discard, Move
from hanabi_p2p.rules.cards import MAX_CLUE_TOKENS
from hanabi_p2p.rules.faces import RANKS_PER_SUIT


class Saves(Discards):
    """The saving part of a turn's ``_Decision`` (hgroup_turn: the order of the parts)."""

    def _twin_may_be_mine(self) -> bool:
        """The last action discarded a card whose other copy is now a last copy I cannot
        see: it may be my chop, and the discarder saw my hand but had no turn to warn me."""
        p = self.p
        last = next((a for a in reversed(self.rep.history) if not isinstance(a, Move)), None)
        if not isinstance(last, Discard):
            return False
        f = p.fi[last.card]
        if f < 0 or not 1 << f & p.board.critical:
            return False
        return p.table.copies[f] - p.seen[f] > 0

    def _threatened(self) -> bool:
        """Does some other player's chop hold a card that must not be discarded?"""
        p = self.p
        for seat in range(p.config.players):
            if seat != p.seat:
                chop = p.chop(seat)
                if chop is not None and self._worth_saving(chop):
                    return True
        return False

    def _urgent_save(self, target: int) -> Advice | None:
        """The next player must discard its chop, and that card is needed: save it."""
        p = self.p
        rep = self.rep
        if target == p.seat or rep.clue_tokens - 1 >= MAX_CLUE_TOKENS:
            return None
        chop = p.chop(target)
        if chop is None or not self._worth_saving(chop):
            return None
        if p.has_known_safe_action(target):
            return None
        best: tuple[int, Clue] | None = None
        hand = rep.hands[target]
        by_loss = p.config.players <= LOCKING_SAVE_PLAYERS
        locking_tokens = self._after_save_tokens() if by_loss else 1
        refused_all = True  # every save clue refused by its rating (bad touch)
        for clue in self._clues_to(target):
            touched = clue.touched or frozenset()
            if chop not in touched:
                continue
            rated = self._rate_clue(clue)
            if rated is None:
                continue
            refused_all = False
            if (NO_LOCKING_LAST_SAVE and not rated[1]
                    and rep.clue_tokens <= locking_tokens
                    and all(p.clued[c] or c in touched for c in hand)
                    and not (by_loss
                             and self._locked_loss(target, clue)
                             <= self._face_loss(p.fi[chop]) - LOCKING_SAVE_MARGIN)):
                # it would lock the hand with too few tokens left to stall: a clued card
                # goes next, and costs nearly as much as the chop (see LOCKING_SAVE_PLAYERS)
                continue
            if best is None or rated[0] > best[0]:
                best = (rated[0], clue)
        if (best is None and refused_all and 1 << p.fi[chop] & p.board.critical
                and p.config.players <= BAD_TOUCH_SAVE_PLAYERS):
            best = self._bad_touch_save(target, chop)
        if best is None:
            return None
        clue = best[1]
        f = p.fi[chop]
        if (p.config.players <= TRADE_SAVE_PLAYERS
                and rep.clue_tokens - 1 < self._after_save_tokens()):
            # the save moves the chop on, and with no token to spare for a stall the next
            # card goes instead: not worth it if that one costs as much (see
            # TRADE_SAVE_PLAYERS)
            touched = clue.touched or frozenset()
            new_chop = next((c for c in reversed(hand)
                             if not p.clued[c] and c not in touched), None)
            if (new_chop is not None and self._worth_saving(new_chop)
                    and self._face_loss(p.fi[new_chop]) >= self._face_loss(f)):
                return None
        face = p.table.cards[f]
        say = (Say.SAVE_FIVE if face.rank == RANKS_PER_SUIT
               else Say.SAVE_LAST if 1 << f & p.board.critical else Say.SAVE_TWO)
        return Advice(clue, Reason.SAVE, self.words(say, target, clue=clue, card=face))

    def _urgent_play(self, target: int) -> Advice | None:
        """The next player has nothing safe to do and will discard its chop, a card playable
        now that nobody else holds clued: a play clue on it first (H-group level 1), before
        my own play."""
        p = self.p
        chop = p.chop(target)
        if chop is None or p.has_known_safe_action(target):
            return None
        f = p.fi[chop]
        if f < 0 or not 1 << f & p.board.playable or self.clued_faces.get(f, 0):
            return None
        if any(p.clued[c] and p.public(c) >> f & 1 for c in self.rep.hands[p.seat]):
            return None  # a clued card of mine may be it: I may play it myself
        best: tuple[int, Clue] | None = None
        for clue in self._clues_to(target):
            if chop not in (clue.touched or frozenset()):
                continue
            rated = self._rate_clue(clue)
            if rated is not None and rated[1] and (best is None or rated[0] > best[0]):
                best = (rated[0], clue)
        if best is None:
            return None
        return Advice(best[1], Reason.PLAY_CLUE,
                      self.words(Say.PLAY_CLUE, target, clue=best[1], count=1))

    def _bad_touch_save(self, target: int, chop: int) -> tuple[int, Clue] | None:
        """Every clue that would save ``target``'s chop, a last copy, also touches a card that
        will never be played (bad touch, which the ratings refuse): H-group accepts that
        rather than lose the card. The one touching fewest cards of those after which the
        chop reads as what it may be, no touched card reads as playable when it is not, and
        no dead 5 reads as a live one (``_touches_dead_five``)."""
        p = self.p
        best: tuple[int, Clue] | None = None
        for clue in self._clues_to(target):
            touched = clue.touched or frozenset()
            if chop not in touched:
                continue
            meaning, _ = p._read_clue(clue, touched)
            if (not meaning.get(chop, 0) >> p.fi[chop] & 1 or self._harm(clue)[0]
                    or self._disturbs_a_blind_play(clue)):
                continue
            if self._touches_dead_five(clue, chop, meaning):
                continue
            if best is None or len(touched) < -best[0]:
                best = (-len(touched), clue)
        return best

    def _touches_dead_five(self, clue: Clue, chop: int, meaning: Mapping[int, int]) -> bool:
        """Does ``clue`` newly touch, besides ``chop``, a 5 of a suit that can no longer be
        finished, which good touch reads as a 5 still to play? Its holder keeps it (a 5 is
        never discarded) and, ruling out the other 5s as they are played or seen, at last
        reads it as a playable 5: a misplay. Only when it reads as trash (no face left
        that is not) may a save touch it."""
        p = self.p
        dead_fives = p.board.trash & p.table.rank_mask[RANKS_PER_SUIT]
        return any(c != chop and not p.clued[c] and p.fi[c] >= 0 and 1 << p.fi[c] & dead_fives
                   and not p._is_trash(meaning.get(c, 0)) for c in clue.touched or ())

    def _known_after(self, hand: Sequence[int], clue: Clue | None,
                     meaning: Mapping[int, int]) -> tuple[list[int], list[int]]:
        """Per card of ``hand``: the faces its clues allow, and what everyone then knows of
        it (as ``public``), after ``clue`` read with ``meaning`` (no clue: as things are)."""
        p = self.p
        if clue is None:
            return [p.poss[c] for c in hand], [p.public(c) for c in hand]
        touched = clue.touched or frozenset()
        hit = p._clue_mask(clue)
        possible, known = [], []
        for c in hand:
            poss = p.poss[c] & (hit if c in touched else ~hit)
            possible.append(poss)
            known.append(meaning.get(c, p.inf[c]) & poss or poss)
        return possible, known

    def _locked_loss(self, target: int, clue: Clue | None) -> int:
        """The points lost when ``target``, every card clued (after ``clue``, if any) and no
        token left, gives up the card it would choose: as _discard chooses, by what everyone
        knows of its cards (the copies counted are those it has not seen: not discarded, not
        played; my hand's are left in, as I do not know them all)."""
        p = self.p
        hand = self.rep.hands[target]
        meaning = self.reads.get(id(clue), ({}, None))[0] if clue is not None else {}
        possible, masks = self._known_after(hand, clue, meaning)
        # copies neither discarded nor played, and the faces that have one
        counts = [n - g - u for n, g, u in zip(p.table.copies, p.gone, p.used, strict=True)]
        left = sum(1 << f for f, n in enumerate(counts) if n > 0)
        best: tuple[tuple[bool, bool, float], int] | None = None
        for c, m, poss in zip(hand, masks, possible, strict=True):
            key = self._give_up_order(poss, m, left, counts)
            if best is None or key < best[0]:
                best = (key, c)
        if best is None or p.fi[best[1]] < 0:
            return 0
        return self._face_loss(p.fi[best[1]])
