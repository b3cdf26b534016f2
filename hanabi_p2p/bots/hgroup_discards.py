"""Discards and the chop: which card to let go (known trash, the chop, or the card whose loss
costs least) and the scream discard that tells the next player to keep its chop."""

from __future__ import annotations

from collections.abc import Sequence

from hanabi_p2p.bots.hgroup_facts import Advice, Reason, _bits
from hanabi_p2p.bots.hgroup_stalls import Stalls
from hanabi_p2p.bots.hgroup_tuning import LOCKED_BY_LOSS, LOCKED_FREE_DISCARD, SCREAM_MAX_LOSS
from hanabi_p2p.bots.words import Say
from hanabi_p2p.rules.actions import Discard
from hanabi_p2p.rules.faces import RANKS_PER_SUIT


class Discards(Stalls):
    """The discarding part of a turn's ``_Decision`` (hgroup_turn: the order of the parts)."""

    def _scream(self, mine: list[tuple[int, int]], target: int) -> Advice | None:
        """No clue token, and the next player must discard its chop, a card that must not
        go: discard my chop instead of playing the card I (publicly) know is playable, which
        tells them to keep their chop (a scream discard), if my chop is worth little."""
        p = self.p
        if not p.is_scream(p.seat):
            return None
        chop = p.chop(target)
        if chop is None or not self._worth_saving(chop) or p.has_known_safe_action(target):
            return None
        mine_chop = p.chop(p.seat)
        if mine_chop is None:
            return None
        known = dict(mine)
        if self._expected_loss((mine_chop, known[mine_chop])) >= SCREAM_MAX_LOSS:
            return None
        hand = self.rep.hands[p.seat]
        return Advice(Discard(p.seat, mine_chop), Reason.SCREAM,
                      self.words(Say.SCREAM, target, slot=hand.index(mine_chop) + 1,
                                 card=p.table.cards[p.fi[chop]]))

    # -- discarding

    def _discard(self, mine: list[tuple[int, int]], clue: tuple[int, Advice] | None
                 ) -> Advice:
        p = self.p
        hand = self.rep.hands[p.seat]
        trash = self._known_trash(mine)
        if trash is not None:
            return trash
        chop = p.chop(p.seat)
        if chop is not None:
            critical = p.board.critical
            known = dict(mine)
            if known[chop] & ~critical == 0:
                # what I know of my chop says it is a last copy: the next unclued card
                # that may not be goes instead
                other = next((c for c, m in reversed(mine)
                              if not p.clued[c] and m & ~critical), None)
                if other is not None:
                    slot = hand.index(other) + 1
                    return Advice(Discard(p.seat, other), Reason.DISCARD_CHOP,
                                  self.words(Say.DISCARD_NEXT, slot=slot))
            slot = hand.index(chop) + 1
            return Advice(Discard(p.seat, chop), Reason.DISCARD_CHOP,
                          self.words(Say.DISCARD_CHOP, slot=slot))
        if not mine:  # no card left to discard (all or nothing: no final round)
            return clue[1] if clue is not None else self._stall(mine)
        # every card is clued: give up the one least likely to be needed
        if LOCKED_BY_LOSS:
            # never one the clues alone say is a last copy while another may not be (nor
            # one the conventions say is); then the one whose loss costs the fewest points
            unseen = p._unseen()
            counts = self._unseen_counts()
            best = min(mine, key=lambda cm: self._give_up_order(p.poss[cm[0]], cm[1], unseen,
                                                                counts))
        else:
            best = min(mine, key=lambda cm: (bin(cm[1] & p.board.critical).count("1")
                                             / max(1, bin(cm[1]).count("1"))))
        say = Say.DISCARD_LOCKED
        if clue is not None and self.rep.clue_tokens > 0:
            if not (p.config.players == 2 and self.rep.clue_tokens <= LOCKED_FREE_DISCARD
                    and self._expected_loss(best) == 0):
                return clue[1]
            say = Say.DISCARD_LOCKED_FREE
        slot = hand.index(best[0]) + 1
        return Advice(Discard(p.seat, best[0]), Reason.LOCKED,
                      self.words(say, slot=slot))

    def _chop_loss(self, mine: list[tuple[int, int]]) -> float:
        """``_expected_loss`` of my chop (0 if I have none)."""
        chop = self.p.chop(self.p.seat)
        if chop is None:
            return 0.0
        return self._expected_loss((chop, dict(mine)[chop]))

    def _expected_loss(self, card_mask: tuple[int, int]) -> float:
        """The points the fireworks can no longer reach if this card of mine goes, averaged
        over the faces it may be (weighted by the copies of each I have not seen)."""
        return self._mean_loss(card_mask[1], self._unseen_counts())

    def _mean_loss(self, faces: int, counts: Sequence[int]) -> float:
        """The points lost if a card that is one of ``faces`` goes, averaged over them, each
        weighted by its copies in ``counts`` (none: not counted): a last copy loses itself and
        every rank above it that could still be played."""
        critical = self.p.board.critical
        total = weight = 0.0
        for f in _bits(faces):
            w = counts[f]
            if w <= 0:
                continue
            weight += w
            if 1 << f & critical:
                total += w * self._reach_above(f)
        return total / weight if weight else 0.0

    def _give_up_order(self, possible: int, known: int, pool: int,
                       counts: Sequence[int]) -> tuple[bool, bool, float]:
        """Which card of a locked hand goes first (the smallest): never one the clues alone
        (``possible``) say is a last copy among the faces still in ``pool`` while another may
        not be, nor one known (``known``) to be; then the one whose loss costs fewest points."""
        critical = self.p.board.critical
        return (possible & pool & ~critical == 0, known & ~critical == 0,
                self._mean_loss(known, counts))

    def _face_loss(self, f: int) -> int:
        """The points lost if a card of face ``f`` goes now."""
        return self._reach_above(f) if 1 << f & self.p.board.critical else 0

    def _reach_above(self, f: int) -> int:
        """How many ranks from face ``f`` up its firework can still reach."""
        p = self.p
        base = f - f % RANKS_PER_SUIT
        n = 0
        for g in range(f, base + RANKS_PER_SUIT):
            if p.table.copies[g] - p.gone[g] <= 0:
                break
            n += 1
        return n

    def _known_trash(self, mine: list[tuple[int, int]]) -> Advice | None:
        p = self.p
        for c, m in reversed(mine):
            if p._is_trash(m):
                slot = self.rep.hands[p.seat].index(c) + 1
                return Advice(Discard(p.seat, c), Reason.DISCARD_TRASH,
                              self.words(Say.DISCARD_TRASH, slot=slot))
        return None
